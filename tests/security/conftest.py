"""What the security tests share: another local user, folders they can reach, small binaries.

The cross-user cases need root: the test process (the victim, uid 0) prepares what another
user (the attacker, uid 65534 'nobody') then creates or changes with its own uid, through
``subprocess.run(user=..., group=...)``. They are skipped when the tests do not run as root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ATTACKER = 65534  # 'nobody' on Linux


def needs_root():
    return pytest.mark.skipif(
        os.geteuid() != 0, reason="cross-user cases run as root, with a second uid"
    )


def as_attacker(script: str) -> None:
    """Run a shell script as the attacker (uid and gid 65534, no other groups)."""
    proc = subprocess.run(
        ["/bin/sh", "-ec", script],
        user=ATTACKER,
        group=ATTACKER,
        extra_groups=[],
        capture_output=True,
        text=True,
        cwd="/",
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )
    assert proc.returncode == 0, f"the attacker's script failed:\n{script}\n{proc.stderr}"


@pytest.fixture
def public_dir():
    """A fresh folder under /tmp that every user may enter and create in, with the sticky
    bit (mode 1777, owned by root, as /tmp is), unlike pytest's tmp_path (in
    /tmp/pytest-of-root, mode 0700); removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="sdk-security-", dir="/tmp"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def cache_env(monkeypatch):
    """set(root): point SDK_EXTENSIONS_DIR at `root` for this test (no ccache, 2 jobs)."""
    monkeypatch.setenv("MAX_JOBS", "2")
    monkeypatch.setenv("SDK_EXTENSIONS_NO_CCACHE", "1")

    def set_root(root: Path) -> Path:
        monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(root))
        return root

    return set_root


def compile_c(source: str, out: Path, *flags: str) -> Path:
    """A shared library from C source (the stubs and planted binaries of these tests)."""
    src = out.with_suffix(".c")
    src.write_text(source)
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    subprocess.run([cc, "-shared", "-fPIC", *flags, str(src), "-o", str(out)], check=True)
    return out


def abi_version() -> int:
    """The running core's ABI version, as a ctypes-bridge library records it."""
    from cpp_extension import _ctypes_bridge

    return int(_ctypes_bridge.core().sdk_abi_version())
