"""Packaging: setup.py's build_py ships templates/ as cpp_extension/templates, every subpackage."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cpp_extension import _new

ROOT = Path(__file__).resolve().parents[2]


def test_build_py_ships_templates_and_all_subpackages(tmp_path, monkeypatch):
    pytest.importorskip("setuptools")
    out = tmp_path / "lib"
    proc = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    shipped = out / "cpp_extension" / "templates"
    for bridge in _new.BRIDGES:
        src = ROOT / "templates" / bridge
        expected = {
            p.relative_to(src).as_posix()
            for p in src.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        got = {p.relative_to(shipped / bridge).as_posix() for p in (shipped / bridge).rglob("*")}
        assert expected <= got and ".gitignore" in got, bridge
    for pkg in ROOT.glob("sdk/**/__init__.py"):
        assert (out / pkg.relative_to(ROOT)).is_file(), f"{pkg.parent.name} is not packaged"
    assert not (out / "tests").exists() and not (out / "examples").exists()
    # cpp_extension new finds the shipped copy first when it sits next to the package
    monkeypatch.delenv("SDK_TEMPLATES_DIR", raising=False)
    monkeypatch.setattr(_new, "__file__", str(out / "cpp_extension" / "_new.py"))
    assert _new.templates_root("ctypes") == shipped
