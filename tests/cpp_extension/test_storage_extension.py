"""An extension written the way real ones use tensor storage (warp-ctc's `grads.storage()`
test, xformers' `q.storage().is_alias_of(k.storage())`, k2's `storage().nbytes()`, FlashMLA's
`has_storage()`, gsplat's `out.set_(result)`, FBGEMM's `at::empty({0}).set_(t.storage(),
offset, sizes, strides)`, tutel's `recordStream(t.storage().data_ptr(), ...)`, the
`storage().use_count() == 1` test of an unshared output), written in torch's spelling, ported
by the porter with nothing left unported, built, and called from Python."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import sdk
from cpp_extension import load_inline
from cpp_extension.port import sdk_names
from cpp_extension.port.cxx import port_cxx
from tests._support import kept_folder, toolchain_key
from tests.cpp_extension.conftest import REPO

TORCH_SOURCE = textwrap.dedent(
    r"""
    #include <torch/extension.h>
    #include <ATen/Storage.h>
    #include <c10/cuda/CUDACachingAllocator.h>

    #include <vector>

    using torch::Tensor;

    // FlashMLA: the pointer of an optional tensor, nullptr when it has no storage
    template <typename PtrT>
    static inline PtrT* get_tensor_ptr(const at::Tensor& tensor) {
      return tensor.has_storage() ? (PtrT*)tensor.data_ptr() : nullptr;
    }

    bool has_pointer(const c10::optional<Tensor>& t) {
      return get_tensor_ptr<float>(t.has_value() ? *t : Tensor()) != nullptr;
    }

    // k2 and the usual questions: the allocation behind a view
    static bool resizable(const Tensor& t) {
      const c10::Storage& s = t.storage();
      return s.resizable();
    }

    std::vector<int64_t> storage_facts(const Tensor& t) {
      const int64_t uses = t.storage().use_count();
      const char* base = static_cast<const char*>(t.storage().data());
      return {static_cast<int64_t>(t.storage().nbytes()),
              static_cast<const char*>(t.data_ptr()) - base, uses, resizable(t) ? 1 : 0,
              t.storage() ? 1 : 0};
    }

    // an output may be written in place only when nothing else views its memory
    bool unshared(const Tensor& out) { return out.storage().use_count() == 1; }

    // xformers: q, k and v packed in one allocation
    bool packed_qkv(const Tensor& q, const Tensor& k, const Tensor& v) {
      return q.storage().is_alias_of(k.storage()) && q.storage().is_alias_of(v.storage());
    }

    // gsplat: the preallocated output takes the result's memory
    void take_result(Tensor out, const Tensor& keys) {
      Tensor sorted = std::get<0>(keys.sort());
      out.set_(sorted);
    }

    // FBGEMM: a new tensor over an existing storage, with the source's geometry
    Tensor view_over_storage(const Tensor& t, int64_t extra_offset) {
      return at::empty({0}, t.options())
          .set_(t.storage(), t.storage_offset() + extra_offset, t.sizes(), t.strides());
    }

    // tutel: the memory is used on another stream (a no-op for CPU memory)
    void record_on_current_stream(const Tensor& t) {
      c10::cuda::CUDACachingAllocator::recordStream(t.storage().data_ptr(),
                                                     c10::cuda::getCurrentCUDAStream());
    }

    // a reset_ that frees the memory: what set_() is used for
    void release_memory(Tensor t) { t.set_(); }
    """
)
FUNCTIONS = ["has_pointer", "storage_facts", "unshared", "packed_qkv", "take_result",
             "view_over_storage", "release_memory"]  # fmt: skip


@pytest.fixture(scope="module")
def ported() -> str:
    headers = sdk_names.sdk_headers(str(REPO / "core" / "include"))
    result = port_cxx(TORCH_SOURCE, "storage_ext.cpp", headers)
    assert [m.name for m in result.missing] == [], result.missing
    return result.text


@pytest.fixture(scope="module")
def ext(ported, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv(
        "SDK_EXTENSIONS_DIR", str(kept_folder(tmp_path_factory, "storage_ext", *toolchain_key()))
    )
    try:
        yield load_inline("storage_ext", cpp_sources=ported, functions=FUNCTIONS)
    finally:
        mp.undo()


def test_the_port_rewrites_every_storage_name(ported):
    assert "#include <sdk/storage.h>" in ported and "const sdk::Storage& s" in ported
    assert "sdk::cuda::CUDACachingAllocator::recordStream" in ported
    assert not any(word in ported for word in ("torch", "at::", "c10"))


def test_storage_facts_of_a_view(ext):
    a = sdk.arange(12, dtype=sdk.float32).reshape(3, 4)
    row = a[2]
    nbytes, offset, uses, resizable, defined = ext.storage_facts(row)
    assert (nbytes, offset, resizable, defined) == (48, 32, 1, 1)
    assert uses == 2  # a and row, as torch counts (the temporary Storage does not count)
    arr = np.arange(5.0)
    assert ext.storage_facts(sdk.from_numpy(arr))[0:4:3] == [40, 0]  # wrapped: not resizable


def test_use_count_tells_an_unshared_output(ext):
    out = sdk.zeros(4)
    assert ext.unshared(out)
    view = out[1:]
    assert not ext.unshared(out) and not ext.unshared(view)
    del view
    assert ext.unshared(out)


def test_packed_qkv_is_found_by_aliasing(ext):
    qkv = sdk.randn(2, 3, 8)
    q, k, v = qkv.unbind(1)
    assert ext.packed_qkv(q, k, v)
    assert not ext.packed_qkv(q, k, v.clone())


def test_optional_tensor_pointer(ext):
    assert ext.has_pointer(sdk.ones(2)) and not ext.has_pointer(None)


def test_set_changes_the_callers_tensor(ext):
    keys = sdk.tensor([3, 1, 2])
    out = sdk.empty(0, dtype=keys.dtype)
    ext.take_result(out, keys)
    assert out.tolist() == [1, 2, 3]  # the Python object sees the new memory and shape
    ext.release_memory(out)
    assert out.shape == (0,) and out.untyped_storage().nbytes() == 0


def test_view_over_storage_is_checked_against_its_bytes(ext):
    t = sdk.arange(10.0)[2:6]
    v = ext.view_over_storage(t, 1)
    assert v.tolist() == [3.0, 4.0, 5.0, 6.0]
    assert v.untyped_storage()._cdata == t.untyped_storage()._cdata
    with pytest.raises(RuntimeError, match="reach element 10 but the storage holds 10 elements"):
        ext.view_over_storage(t, 5)
