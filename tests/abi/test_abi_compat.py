"""ABI compatibility matrix: extensions built against an older ABI, another C++ ABI, another
compiler and another ABI major, each loaded into the current core.

- ABI 1.0: ``tests/abi/abi_1_0/include`` is a frozen copy of the public headers as they were
  at ABI 1.0 (see its README). The LLTM op (pybind11 and ctypes bridges) and a pure-C program
  are compiled against those headers and linked against a stand-in ``libsdk_core.so`` that
  exports exactly the functions the 1.0 ``c_api.h`` declares (what an install of that release
  would have provided), then run against the current core and compared with numpy.
- ``-D_GLIBCXX_USE_CXX11_ABI=0`` and clang (when ``clang++`` is on PATH): the LLTM op built with
  ``load()`` both ways, compared with numpy.
- Another ABI major: a pybind11 module built against headers that say ABI 2.0 fails to import
  with an ImportError naming both versions (the ctypes bridge's twin of this check lives in
  tests/cpp_extension/test_ctypes_bridge.py).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

import sdk
from cpp_extension import load, load_library
from sdk.utils import elf as _elf
from tests.cpp_extension.conftest import run_python

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
OLD_INCLUDE = HERE / "abi_1_0" / "include"
LLTM = REPO / "examples" / "lltm"
CXX = shutil.which("c++") or shutil.which("g++")
CLANG = shutil.which("clang++")

_DECL = re.compile(r"SDK_API\b[^;(]*?\b(sdk_\w+)\s*\(")


def declared_functions(c_api_h: Path) -> set[str]:
    """The function names a c_api.h declares (every public function is marked SDK_API)."""
    return set(_DECL.findall(c_api_h.read_text()))


def undefined_sdk_symbols(path: Path) -> set[str]:
    out = subprocess.run(
        ["nm", "-D", "--undefined-only", str(path)], capture_output=True, text=True, check=True
    ).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()[-1].startswith("sdk_")}


@pytest.fixture(scope="module")
def old_release(tmp_path_factory):
    """A stand-in for the ABI 1.0 release's library: every function its c_api.h declares,
    exported under the real soname. Extensions link against it; at run time the current
    core (loaded by ``import sdk``) satisfies them."""
    if CXX is None:
        pytest.skip("no C++ compiler")
    root = tmp_path_factory.mktemp("abi_1_0")
    names = sorted(declared_functions(OLD_INCLUDE / "sdk" / "c_api.h"))
    assert len(names) > 80, "the 1.0 header parse found too few functions"
    stub = root / "stub.c"
    stub.write_text(
        "".join(f'__attribute__((visibility("default"))) void {n}(void) {{}}\n' for n in names)
    )
    lib = root / "lib"
    lib.mkdir()
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-Wl,-soname,libsdk_core.so", str(stub), "-o",
         str(lib / "libsdk_core.so")],
        check=True,
    )  # fmt: skip
    return {"root": root, "lib": lib, "functions": set(names)}


def lltm_inputs(batch=3, features=5, state=4, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.uniform(-0.5, 0.5, (3 * state, state + features))
    b = rng.uniform(-0.5, 0.5, (1, 3 * state))
    x = rng.standard_normal((batch, features))
    h = rng.standard_normal((batch, state))
    c = rng.standard_normal((batch, state))
    return x, w, b, h, c


def check_lltm(forward, backward):
    """Run an LLTM binding's forward and backward in float64 and compare with numpy."""
    sys.path.insert(0, str(LLTM))
    try:
        import reference
    finally:
        sys.path.remove(str(LLTM))
    x, w, b, h, c = lltm_inputs()
    got = forward(*(sdk.from_numpy(a) for a in (x, w, b, h, c)))
    want = reference.numpy_forward(x, w, b, h, c)
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-10, atol=1e-12)
    rng = np.random.default_rng(1)
    gh, gc = rng.standard_normal(h.shape), rng.standard_normal(c.shape)
    new_h, new_cell, i, o, cand, X, G = got
    grads = backward(
        sdk.from_numpy(gh), sdk.from_numpy(gc), new_cell, i, o, cand, X, G, sdk.from_numpy(w)
    )
    want_g = reference.numpy_backward(gh, gc, x, w, b, h, c)
    # backward returns (d_old_h, d_input, d_weights, d_bias, d_old_cell)
    for g, e in zip(grads, want_g):
        np.testing.assert_allclose(np.asarray(g).reshape(e.shape), e, rtol=1e-9, atol=1e-12)


def python_flags() -> list[str]:
    import pybind11

    return [f"-I{pybind11.get_include()}", f"-I{sysconfig.get_paths()['include']}"]


def compile_old(src: Path, out: Path, old_release, *extra: str) -> Path:
    """Compile `src` into a shared library the way an ABI 1.0 install would have."""
    cmd = [CXX, "-std=c++17", "-O1", "-shared", "-fPIC", "-fvisibility=hidden",
           f"-I{OLD_INCLUDE}", *extra, str(src), "-o", str(out),
           f"-L{old_release['lib']}", "-lsdk_core"]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"build against the ABI 1.0 headers failed:\n{proc.stderr}"
    return out


def test_snapshot_is_abi_1_0_and_current_only_adds():
    old_h = (OLD_INCLUDE / "sdk" / "c_api.h").read_text()
    assert "#define SDK_ABI_VERSION_MAJOR 1" in old_h
    assert "#define SDK_ABI_VERSION_MINOR 0" in old_h
    old = declared_functions(OLD_INCLUDE / "sdk" / "c_api.h")
    new = declared_functions(REPO / "core" / "include" / "sdk" / "c_api.h")
    assert old - new == set(), "functions were removed from the ABI within major 1"
    assert new - old, "the snapshot should predate at least one addition"


def test_old_functions_keep_their_prototypes():
    """Within a major version a function's declaration never changes (whitespace aside)."""

    def prototypes(path: Path) -> dict[str, str]:
        text = re.sub(r"/\*.*?\*/", " ", path.read_text(), flags=re.S)
        protos = {}
        for m in re.finditer(r"SDK_API\b([^;]*?)\b(sdk_\w+)\s*\(([^;]*?)\)\s*;", text):
            protos[m.group(2)] = " ".join((m.group(1) + "(" + m.group(3) + ")").split())
        return protos

    old = prototypes(OLD_INCLUDE / "sdk" / "c_api.h")
    new = prototypes(REPO / "core" / "include" / "sdk" / "c_api.h")
    changed = {k: (v, new.get(k)) for k, v in old.items() if new.get(k) != v}
    assert not changed, f"prototypes changed since ABI 1.0: {changed}"


def test_pybind11_extension_built_against_abi_1_0(old_release, tmp_path):
    so = tmp_path / ("lltm_abi10" + sysconfig.get_config_var("EXT_SUFFIX"))
    compile_old(LLTM / "lltm.cpp", so, old_release, "-DSDK_EXTENSION_NAME=lltm_abi10",
                *python_flags())  # fmt: skip
    used = undefined_sdk_symbols(so)
    assert used and used <= old_release["functions"], used - old_release["functions"]
    mod = load_library(so)
    check_lltm(mod.forward, mod.backward)


def test_ctypes_extension_built_against_abi_1_0(old_release, tmp_path):
    so = compile_old(LLTM / "lltm_ctypes.cpp", tmp_path / "lltm_ctypes_abi10.so", old_release)
    used = undefined_sdk_symbols(so)
    assert used and used <= old_release["functions"], used - old_release["functions"]
    ops = load_library(so)
    abi = _elf.ElfFile(str(so)).read_u32(
        _elf.ElfFile(str(so)).dynamic_symbols()["sdk_extension_abi_version"]
    )
    assert abi == (1 << 16) | 0, "the binary should record ABI 1.0"
    check_lltm(ops.lltm_forward, ops.lltm_backward)


def test_c_program_built_against_abi_1_0(old_release, tmp_path):
    """A program linked against the 1.0 library runs on the current one (by soname)."""
    src = tmp_path / "main.c"
    src.write_text(
        r"""
#include <stdio.h>
#include <sdk/c_api.h>
int main(void) {
  if (SDK_ABI_CHECK() != SDK_OK) {
    printf("refused: %s\n", sdk_last_error_message());
    return 1;
  }
  int64_t sizes[2] = {2, 3};
  sdk_scalar v = {2.5, 0, SDK_SCALAR_FLOAT, 0};
  sdk_device cpu = {SDK_CPU, 0};
  sdk_tensor *t = NULL, *s = NULL;
  if (sdk_full(2, sizes, v, SDK_FLOAT64, cpu, &t) != SDK_OK) return 2;
  if (sdk_reduce(SDK_SUM, t, 0, NULL, 0, -1, NULL, &s) != SDK_OK) return 3;
  printf("%g %u\n", *(const double*)sdk_tensor_data_ptr(s), sdk_abi_version());
  sdk_tensor_release(t);
  sdk_tensor_release(s);
  return 0;
}
"""
    )
    exe = tmp_path / "main"
    proc = subprocess.run(
        ["cc", "-std=c99", f"-I{OLD_INCLUDE}", str(src), "-o", str(exe),
         f"-L{old_release['lib']}", "-lsdk_core"],
        capture_output=True, text=True,
    )  # fmt: skip
    if proc.returncode != 0 and "undeclared" in proc.stderr + proc.stdout:
        pytest.fail(f"the C program uses names the 1.0 header lacks:\n{proc.stderr}")
    assert proc.returncode == 0, proc.stderr
    lib_dir = str(Path(sdk.get_library_path()).parent)
    run = subprocess.run([str(exe)], capture_output=True, text=True,
                         env={"LD_LIBRARY_PATH": lib_dir})  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    total, version = run.stdout.split()
    assert float(total) == 15.0
    assert int(version) >> 16 == 1 and int(version) & 0xFFFF >= 1


# An op library in C as written against ABI 1.11: it checks the ABI it was built for when it
# loads, registers an op and reads its arguments; OLDER_THAN_1_12 below makes its header.
OP_LIBRARY_1_11 = r"""
#include <sdk/c_api.h>

/* the sum of an int[] (the minor version it was built against, when asked with an empty
   list) */
static sdk_status total_kernel(void* ctx, const sdk_op* op, sdk_values* v) {
  const int64_t* d = NULL;
  int64_t n = 0, k, sum = 0;
  sdk_status st = sdk_values_get_int_list(v, 0, &d, &n);
  (void)ctx;
  (void)op;
  if (st != SDK_OK) return st;
  for (k = 0; k < n; ++k) sum += d[k];
  sdk_values_clear(v);
  return sdk_values_push_int(v, n == 0 ? SDK_ABI_VERSION_MINOR : sum);
}

__attribute__((constructor)) static void register_ops(void) {
  sdk_library* lib = NULL;
  if (SDK_ABI_CHECK() != SDK_OK ||
      sdk_library_open(SDK_LIBRARY_DEF, "{NS}", -1, "abi_1_11.c", &lib) != SDK_OK ||
      sdk_library_define(lib, "total(int[] xs) -> int") != SDK_OK ||
      sdk_library_impl(lib, "total", -1, total_kernel, NULL, NULL) != SDK_OK) {
    sdk_library_record_error(sdk_last_error_message());
  }
}
"""


def c_api_1_11(tmp_path: Path) -> Path:
    """An include folder whose sdk/c_api.h is the current one without its ABI 1.12 additions
    (the sections titled "(ABI 1.12)": storages, custom classes; and SDK_VALUE_OBJECT) and
    with minor version 11."""
    text = (REPO / "core" / "include" / "sdk" / "c_api.h").read_text()
    while (title := text.find("(ABI 1.12)  ")) >= 0:
        start = text.rindex("/* ====", 0, title)  # the section's opening rule
        body = text.index("/* ====", title)  # its closing rule
        end = text.index("/* ====", body + 1)  # the next section's opening rule
        text = text[:start] + text[end:]
    text = re.sub(r"\n\s*SDK_VALUE_OBJECT = 14[^\n]*", "", text)
    text = text.replace("SDK_VALUE_LIST = 13,", "SDK_VALUE_LIST = 13")
    text = re.sub(r"#define SDK_ABI_VERSION_MINOR \d+", "#define SDK_ABI_VERSION_MINOR 11", text)
    assert "sdk_class" not in text and "OBJECT" not in text and "sdk_storage" not in text
    inc = tmp_path / "include_1_11" / "sdk"
    inc.mkdir(parents=True)
    (inc / "c_api.h").write_text(text)
    return inc.parent


def test_op_library_built_against_abi_1_11_runs(tmp_path):
    """An op library built against the ABI 1.11 header loads on a newer core (its ABI check
    passes), registers and runs; the core still checks its arguments."""
    import uuid

    ns = "abi111_" + uuid.uuid4().hex[:8]
    src = tmp_path / "abi_1_11.c"
    src.write_text(OP_LIBRARY_1_11.replace("{NS}", ns))
    out = tmp_path / "libabi_1_11.so"
    proc = subprocess.run(
        ["cc", "-std=c99", "-shared", "-fPIC", f"-I{c_api_1_11(tmp_path)}", str(src), "-o",
         str(out), f"-L{Path(sdk.get_library_path()).parent}", "-lsdk_core"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    sdk.ops.load_library(out)
    total = getattr(sdk.ops, ns).total
    assert total([]) == 11  # built against 1.11
    assert total([4, -1, 9]) == 12
    with pytest.raises(TypeError, match="argument 'xs' must be int\\[\\], not"):
        total("12")


@pytest.mark.parametrize("bridge", ["pybind11", "ctypes"])
def test_old_cxx11_abi(ext_dir, bridge):
    """The pre-C++11 std::string ABI in the extension does not meet the core: only C crosses."""
    name, src = ("lltm_oldabi", "lltm.cpp") if bridge == "pybind11" else (
        "lltm_ctypes_oldabi", "lltm_ctypes.cpp")  # fmt: skip
    mod = load(name, [str(LLTM / src)], extra_cflags=["-D_GLIBCXX_USE_CXX11_ABI=0", "-O1"],
               is_python_module=bridge == "pybind11")  # fmt: skip
    if bridge == "pybind11":
        check_lltm(mod.forward, mod.backward)
    else:
        check_lltm(mod.lltm_forward, mod.lltm_backward)


@pytest.mark.skipif(CLANG is None, reason="clang++ is not on PATH")
@pytest.mark.parametrize("bridge", ["pybind11", "ctypes"])
def test_clang_built_extension(ext_dir, bridge, monkeypatch):
    monkeypatch.setenv("CXX", CLANG)
    monkeypatch.setenv("CC", shutil.which("clang") or CLANG)
    name, src = ("lltm_clang", "lltm.cpp") if bridge == "pybind11" else (
        "lltm_ctypes_clang", "lltm_ctypes.cpp")  # fmt: skip
    mod = load(name, [str(LLTM / src)], extra_cflags=["-O1"], verbose=True,
               is_python_module=bridge == "pybind11")  # fmt: skip
    if bridge == "pybind11":
        check_lltm(mod.forward, mod.backward)
    else:
        check_lltm(mod.lltm_forward, mod.lltm_backward)
    so = Path(mod.__file__)
    comment = subprocess.run(["readelf", "-p", ".comment", str(so)], capture_output=True,
                             text=True).stdout  # fmt: skip
    assert "clang" in comment, "the extension was not compiled by clang"


def test_other_major_is_refused_with_both_versions(tmp_path):
    """A pybind11 module built against ABI 2.0 headers: ImportError naming 2.0 and ours."""
    inc = tmp_path / "include"
    shutil.copytree(Path(sdk.get_include()), inc)
    c_api = inc / "sdk" / "c_api.h"
    text = c_api.read_text()
    assert "#define SDK_ABI_VERSION_MAJOR 1\n" in text
    c_api.write_text(
        text.replace("#define SDK_ABI_VERSION_MAJOR 1\n", "#define SDK_ABI_VERSION_MAJOR 2\n")
        .replace(re.search(r"#define SDK_ABI_VERSION_MINOR \d+\n", text).group(0),
                 "#define SDK_ABI_VERSION_MINOR 0\n")
    )  # fmt: skip
    src = tmp_path / "future.cpp"
    src.write_text(
        "#include <sdk/extension.h>\n"
        "sdk::Tensor twice(const sdk::Tensor& x) { return x * 2; }\n"
        'PYBIND11_MODULE(future_ext, m) { m.def("twice", &twice); }\n'
    )
    so = tmp_path / ("future_ext" + sysconfig.get_config_var("EXT_SUFFIX"))
    lib_dir = str(Path(sdk.get_library_path()).parent)
    proc = subprocess.run(
        [CXX, "-std=c++17", "-O0", "-shared", "-fPIC", f"-I{inc}", *python_flags(), str(src),
         "-o", str(so), f"-L{lib_dir}", "-lsdk_core"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    major, minor = sdk.abi_version()
    out = run_python(
        f"""
        import sdk, sys
        sys.path.insert(0, {str(tmp_path)!r})
        try:
            import future_ext
        except ImportError as e:
            print("IMPORTERROR", e)
        else:
            print("IMPORTED")
        """
    ).stdout
    assert "IMPORTERROR" in out, out
    assert "2.0" in out and f"{major}.{minor}" in out, out
