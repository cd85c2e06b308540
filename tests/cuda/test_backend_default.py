"""setup.py's CUDA-backend decision: built where a GPU is visible or SDK_WITH_CUDA asks for it,
skipped (with a note) on a machine without a GPU, so a first install runs no nvcc there."""

from __future__ import annotations

import importlib.util

import pytest

from tests._support import REPO


@pytest.fixture
def setup_py():
    spec = importlib.util.spec_from_file_location("sdk_setup_py", REPO / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # guarded: setup() runs only as __main__
    return module


class _Cuda:
    def __init__(self, found: bool):
        self.found = found

    def find_cuda_toolkit(self):
        if not self.found:
            raise RuntimeError("no CUDA toolkit")
        return "toolkit"


@pytest.mark.parametrize(
    "flag, gpu, found, want",
    [
        ("", False, True, None),  # no GPU: skipped even with a toolkit
        ("", True, True, "toolkit"),
        ("", True, False, None),
        ("auto", False, True, "toolkit"),  # scripts/test.sh, wheels for GPU machines
        ("auto", False, False, None),
        ("1", False, True, "toolkit"),
        ("0", True, True, None),
    ],
)
def test_backend_is_built_where_it_can_run_or_where_asked(
    setup_py, monkeypatch, capsys, flag, gpu, found, want
):
    monkeypatch.setenv("SDK_WITH_CUDA", flag)
    monkeypatch.setattr(setup_py.glob, "glob", lambda pattern: ["/dev/nvidia0"] if gpu else [])
    monkeypatch.setattr(setup_py, "_tooling", lambda name: _Cuda(found))
    assert setup_py.cuda_toolkit() == want
    if not flag and not gpu:
        assert "no GPU here" in capsys.readouterr().err


def test_asking_for_the_backend_without_a_toolkit_is_an_error(setup_py, monkeypatch):
    monkeypatch.setenv("SDK_WITH_CUDA", "1")
    monkeypatch.setattr(setup_py, "_tooling", lambda name: _Cuda(False))
    with pytest.raises(RuntimeError, match="SDK_WITH_CUDA=1 but no CUDA toolkit"):
        setup_py.cuda_toolkit()
