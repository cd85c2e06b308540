"""The caching allocator's object (get(), allocate()'s DataPtr, recordStream) and the default
CUDA generator's Philox state (philox_cuda_state, unpack), as published CUDA extensions use
them: the torch-idiom source in idioms/ is ported, built as plain C++ and run against the
host-memory stand-in backend, which records each block's streams (no GPU needed)."""

from __future__ import annotations

import json

import pytest

from cpp_extension.port import main as _port
from tests._support import REPO, build_once, run_folder
from tests.cuda.conftest import build_fake_backend, gpu_available, run_python
from tests.cuda.test_fast_path import FAKE_STREAM_USES

pytestmark = pytest.mark.skipif(gpu_available(), reason="a real GPU is visible")

IDIOMS = REPO / "tests" / "cuda" / "idioms"

SCRIPT = (
    FAKE_STREAM_USES
    + """
import json, sys
import cpp_extension
def error(fn, *args):
    try:
        fn(*args)
    except Exception as e:
        return [[c.__name__ for c in type(e).__mro__], str(e)]
    return None
m = cpp_extension.load("workspace_rng", [os.environ["SRC"]])
r = {}
a = m.keep_workspace(4096, 0x1234)
r["uses"] = uses(a)
m.release_workspaces()
r["uses_after_release"] = uses(a)
t = sdk.ones(8, device="cuda")
m.record_borrowed(t, 0x5678)
r["borrowed_uses"] = uses(t.data_ptr())
r["empty"] = m.empty_workspace_is_null()
r["raw"] = m.raw_roundtrip(1000)
sdk.manual_seed(123)
r["draws"] = m.philox_inputs(4, 2, -1) + m.philox_inputs(5, 2, 0)
r["device1"] = m.philox_inputs(1, 1, 1)
sdk.cuda.manual_seed(7)
r["reseeded"] = m.philox_inputs(4, 1, 0)
core = ctypes.CDLL(os.path.join(os.path.dirname(sdk.__file__), "lib", "libsdk_core.so"))
core.sdk_last_error_message.restype = ctypes.c_char_p
r["raw_null"] = core.sdk_cuda_raw_record_stream(None, ctypes.c_void_p(0x1234))
r["raw_unknown"] = core.sdk_cuda_raw_record_stream(ctypes.c_void_p(0x42), ctypes.c_void_p(1))
r["raw_unknown_msg"] = core.sdk_last_error_message().decode()
r["bad_device"] = error(m.philox_inputs, 4, 1, 5)
r["generator_object"] = error(m.philox_from_generator)
print(json.dumps(r))
"""
)


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    """The idiom source ported (the porter must find every name) and its JIT cache."""
    out = tmp_path_factory.mktemp("ported")
    report = _port.port_paths([IDIOMS], out)
    assert [(m.path, m.line, m.name) for m in report.missing] == []
    return out / "workspace_rng.cpp", run_folder(tmp_path_factory, "workspace_rng_cache")


@pytest.fixture(scope="module")
def results(tmp_path_factory, ported):
    fake = build_once(run_folder(tmp_path_factory, "fake_backend"), build_fake_backend)
    src, cache = ported
    proc = run_python(
        SCRIPT,
        SDK_CUDA_LIBRARY=str(fake),
        SDK_CUDA_FAKE="1",
        SDK_FAKE_CUDA_DEVICES="2",
        SRC=str(src),
        SDK_EXTENSIONS_DIR=str(cache),
        MAX_JOBS="2",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_workspace_records_its_stream_until_it_goes(results):
    assert results["uses"] == [0x1234]
    assert results["uses_after_release"] == []  # the DataPtr freed its block


def test_memory_the_allocator_did_not_hand_out_is_left_alone(results):
    assert results["borrowed_uses"] == []


def test_the_c_function_ignores_null_and_refuses_a_pointer_it_did_not_hand_out(results):
    assert results["raw_null"] == 0
    assert results["raw_unknown"] == 1  # SDK_ERROR_VALUE
    assert "record_stream" in results["raw_unknown_msg"]


def test_allocate_zero_bytes_and_raw_roundtrip(results):
    assert results["empty"] is True
    assert results["raw"] is True


def test_philox_offsets_advance_in_whole_calls_of_four(results):
    # seed 123; increment 4 twice, then 5 (rounded to 8) twice, on the current device (0)
    assert results["draws"] == [[123, 0], [123, 4], [123, 8], [123, 16]]
    assert results["device1"] == [[123, 0]]  # each device keeps its own offset
    assert results["reseeded"] == [[7, 0]]  # sdk.cuda.manual_seed starts the sequence over


def test_bad_device_and_generator_object_are_refused(results):
    kinds, msg = results["bad_device"]
    assert "ValueError" in kinds and "getDefaultCUDAGenerator: no CUDA device 5" in msg
    kinds, msg = results["generator_object"]
    assert "ValueError" in kinds and "default generator" in msg


def test_without_cuda_the_generator_and_allocator_say_why(results, ported, monkeypatch):
    import cpp_extension

    src, cache = ported
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(cache))  # the build the fake run made
    m = cpp_extension.load("workspace_rng", [str(src)])
    with pytest.raises(RuntimeError, match="getDefaultCUDAGenerator: CUDA is not available: .+"):
        m.philox_inputs(4, 1, -1)
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        m.keep_workspace(16, 0)
