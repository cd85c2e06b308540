"""JIT extensions pickle by build request (cpp_extension/_remote.py): modules, their
functions and their ops unpickle in another process by load() there, cold (builds) or warm
(does not); bad requests and mismatches raise naming the cause."""

from __future__ import annotations

import pickle
import shutil
import textwrap
import uuid

import numpy as np
import pytest

import sdk
from cpp_extension import _remote, load, load_inline
from cpp_extension._errors import BuildError
from tests.cpp_extension.conftest import run_python

pytestmark = pytest.mark.slow

CTYPES_SRC = r"""
#ifndef K_OFFSET
#define K_OFFSET 0.0
#endif
SDK_EXPORT(add_const, "(Tensor x, float c) -> Tensor")
sdk_status add_const(const sdk_tensor* x, double c, sdk_tensor** out) {
  if (sdk_tensor_dtype(x) != SDK_FLOAT64)
    return sdk_set_last_error(SDK_ERROR_TYPE, "add_const: expected a float64 tensor");
  sdk_tensor* src = nullptr;
  sdk_status s = sdk_contiguous(x, &src);
  if (s != SDK_OK) return s;
  s = sdk_empty(sdk_tensor_ndim(src), sdk_tensor_sizes(src), SDK_FLOAT64,
                sdk_tensor_device(src), out);
  if (s == SDK_OK) {
    const double* a = static_cast<const double*>(sdk_tensor_data_ptr(src));
    double* r = static_cast<double*>(sdk_tensor_data_ptr(*out));
    for (int64_t i = 0; i < sdk_tensor_numel(src); ++i) r[i] = a[i] + c + K_OFFSET;
  }
  sdk_tensor_release(src);
  return s;
}
"""

# the child reads a pickle from stdin, calls what it got, and reports whether it built
CHILD = """
import json, pickle, sys
import numpy as np
from cpp_extension import last_load_info
got = pickle.loads(sys.stdin.buffer.read())
out = {call}
print(json.dumps({{"out": np.asarray(out).tolist(), "built": last_load_info().get("built")}}))
"""


def _child(blob: bytes, call: str, **env) -> dict:
    import json
    import subprocess
    import sys

    from tests._support import import_path, subprocess_env

    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD.format(call=call))],
        input=blob,
        capture_output=True,
        timeout=300,
        env=subprocess_env(**env),
        cwd=str(import_path()),
    )
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def test_a_pybind11_module_and_its_function_unpickle_cold_then_warm(ext_dir, tmp_path):
    name = "pk_" + uuid.uuid4().hex[:8]
    m = load_inline(name, cpp_sources="int twice(int x) { return 2 * x; }", functions=["twice"])
    blob = pickle.dumps((m, m.twice), protocol=5)
    same_m, same_f = pickle.loads(blob)
    assert same_m is m and same_f(4) == 8  # in this process: the loaded module itself
    other = str(tmp_path / "other_machine")
    cold = _child(blob, "got[1](21)", SDK_EXTENSIONS_DIR=other)
    assert cold == {"out": 42, "built": True}
    warm = _child(blob, "got[0].twice(5)", SDK_EXTENSIONS_DIR=other)
    assert warm == {"out": 10, "built": False}


def test_a_ctypes_function_from_files_with_a_header_travels_without_the_files(ext_dir, tmp_path):
    src = tmp_path / "src"
    (src / "inc").mkdir(parents=True)
    (src / "inc" / "k.h").write_text("#define K_OFFSET 0.5\n")
    (src / "op.cpp").write_text('#include <sdk/export.h>\n#include "inc/k.h"\n' + CTYPES_SRC)
    name = "pkc_" + uuid.uuid4().hex[:8]
    lib = load(name, [str(src / "op.cpp")], is_python_module=False)
    blob = pickle.dumps(lib.add_const)
    assert pickle.loads(blob) is lib.add_const
    shutil.rmtree(src)  # "another machine": the sources are only in the pickle
    other = tmp_path / "other_machine"
    got = _child(blob, "got(np.arange(3.0), 1.5)", SDK_EXTENSIONS_DIR=str(other))
    assert got == {"out": [2.0, 3.0, 4.0], "built": True}  # K_OFFSET from the header
    copies = list((other / "shipped").glob(f"{name}-*/inc/k.h"))
    assert len(copies) == 1 and copies[0].read_text() == "#define K_OFFSET 0.5\n"


def test_an_op_pickles_with_its_library(ext_dir, tmp_path):
    ns = "pko_" + uuid.uuid4().hex[:8]
    src = f"""
    #include <sdk/library.h>
    sdk::Tensor plus_one(const sdk::Tensor& x) {{ return x + 1.0; }}
    SDK_LIBRARY({ns}, m) {{ m.def("plus_one(Tensor x) -> Tensor"); }}
    SDK_LIBRARY_IMPL({ns}, CPU, m) {{ m.impl("plus_one", &plus_one); }}
    """
    load_inline(f"lib_{ns}", cpp_sources=src, bridge="ctypes")
    op = getattr(sdk.ops, ns).plus_one
    blob = pickle.dumps(op)
    assert pickle.loads(blob) is op or pickle.loads(blob).name == op.name
    got = _child(blob, "got(np.zeros(2)).numpy()", SDK_EXTENSIONS_DIR=str(tmp_path / "other"))
    assert got == {"out": [1.0, 1.0], "built": True}


def test_a_python_op_travels_by_name_and_a_missing_one_says_so():
    import sdk.library as L

    ns = "pkp_" + uuid.uuid4().hex[:8]

    @L.custom_op(f"{ns}::neg", mutates_args=())
    def neg(x: sdk.Tensor) -> sdk.Tensor:
        return -x

    op = getattr(sdk.ops, ns).neg
    assert pickle.loads(pickle.dumps(op)).name == f"{ns}::neg"
    proc = run_python(
        f"import pickle, sdk; pickle.loads({pickle.dumps(op)!r})", check=False, timeout=60
    )
    assert proc.returncode != 0
    assert f"unpickling op {ns}::neg: it is not registered here" in proc.stderr
    assert "defined in Python" in proc.stderr


def _state():
    return {
        "format": "sdk.build-request", "version": 1, "name": "x", "bridge": "ctypes",
        "inline": True, "folder": "", "files": [("main.cpp", b"int f();")], "sources": 1,
        "extra_cflags": [], "extra_cuda_cflags": [], "extra_ldflags": [],
        "extra_include_paths": [], "with_cuda": False, "dlink": False, "abi": [1, 0],
        "digest": "ab" * 32, "origin": "elsewhere",
    }  # fmt: skip


BAD_STATES = [
    ({"format": "other"}, "format: not a pickled build request"),
    ({"version": 2}, "version: 2 is not 1"),
    ({"name": "a b"}, "name: must be a C identifier"),
    ({"bridge": "standalone"}, "bridge: must be 'pybind11' or 'ctypes'"),
    ({"inline": 1}, "inline: must be a bool"),
    ({"extra_cflags": "-O3"}, "extra_cflags: must be a list of strings"),
    ({"files": []}, "files: must be a list of 1 to"),
    ({"files": [("../evil.cpp", b"")]}, "is not a plain path below"),
    ({"files": [("/etc/evil.cpp", b"")]}, "is not a plain path below"),
    ({"files": [("a/./b.cpp", b"")]}, "is not a plain path below"),
    ({"files": [("main.cpp", "text")]}, "must be bytes"),
    ({"files": [("main.cpp",)]}, "(path, bytes) pair"),
    ({"sources": 2}, "sources: must count 1 to 1 files"),
    ({"folder": "relative"}, "folder: must be an absolute path"),
    ({"folder": "/somewhere"}, "an inline request carries only its source texts"),
    ({"abi": [1]}, "abi: must be [major, minor]"),
    ({"origin": None}, "origin: must be a string"),
    ({"digest": "xyz"}, "digest: must be 64 hex digits"),
]


@pytest.mark.parametrize("change,text", BAD_STATES, ids=[t for _, t in BAD_STATES])
def test_malformed_build_requests_are_refused_naming_the_field(change, text):
    state = {**_state(), **change}
    with pytest.raises(ValueError, match="unpickling an extension: ") as info:
        _remote.load_shipped(state)
    assert text in str(info.value)


def test_another_abi_major_is_refused_naming_both_sides(ext_dir):
    state = {**_state(), "abi": [99, 0], "origin": "node7 (pid 1)"}
    with pytest.raises(ImportError, match=r"pickled on node7 \(pid 1\) for sdk ABI 99.0") as e:
        _remote.load_shipped(state)
    assert _remote.here() in str(e.value)


def test_no_compiler_on_the_receiver_names_it_and_the_sender(ext_dir, monkeypatch):
    import sdk as _sdk  # noqa: F401  (the ABI comes from the loaded core)
    from cpp_extension.builder import toolchain as _toolchain

    abi = list(_toolchain.sdk_paths().abi)
    state = {**_state(), "abi": abi, "name": "pk_nocxx_" + uuid.uuid4().hex[:6]}
    monkeypatch.setenv("CXX", "/nonexistent/g++")
    with pytest.raises(BuildError) as info:
        _remote.load_shipped(state)
    msg = str(info.value)
    assert "(pickled on elsewhere) could not be built on " + _remote.here() in msg
    assert "no C++ compiler here, and this machine's cache holds no intact build" in msg


def test_a_worker_without_a_compiler_loads_from_a_copied_cache(ext_dir, tmp_path):
    name = "pkcopy_" + uuid.uuid4().hex[:8]
    lib = load_inline(name, cpp_sources=CTYPES_SRC, bridge="ctypes")
    blob = pickle.dumps(lib.add_const)
    copied = tmp_path / "worker_cache"
    shutil.copytree(ext_dir, copied, symlinks=True)  # "build once, ship the cache folder"
    env = {"SDK_EXTENSIONS_DIR": str(copied), "CXX": "/nonexistent/g++"}
    got = _child(blob, "got(np.ones(2), 2.0)", **env)
    assert got["out"] == [3.0, 3.0]
    empty = {"SDK_EXTENSIONS_DIR": str(tmp_path / "empty"), "CXX": "/nonexistent/g++"}
    code = f"import pickle; pickle.loads({blob!r})"
    proc = run_python(code, check=False, timeout=60, **empty)
    assert proc.returncode != 0 and "no C++ compiler here" in proc.stderr
    assert f"extension '{name}' (pickled on " in proc.stderr


def test_prebuilt_and_unknown_objects_do_not_pickle(tmp_path):

    class Fake:
        pass

    with pytest.raises(TypeError, match="only extensions returned by cpp_extension.load"):
        _remote.state_of(Fake())


def test_numpy_inputs_to_an_unpickled_function_match_numpy(ext_dir):
    name = "pkn_" + uuid.uuid4().hex[:8]
    lib = load_inline(name, cpp_sources=CTYPES_SRC, bridge="ctypes")
    f = pickle.loads(pickle.dumps(lib.add_const))
    x = np.random.default_rng(1).standard_normal(5)
    np.testing.assert_allclose(f(x, 2.0).numpy(), x + 2.0)
