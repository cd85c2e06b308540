"""Every public free function of the C++ API (core/include/sdk/*.h, namespace sdk) has a Python
counterpart: sdk.<name>, sdk.nn.functional.<name> (the nn ones, as in torch), or a Tensor method
(the C++ free-function forms of methods), or it is listed below as C++-only with the reason."""

from __future__ import annotations

import re
from pathlib import Path

import sdk
import sdk.nn.functional as F

HEADERS = Path(__file__).resolve().parents[2] / "core" / "include" / "sdk"

_FUNCTION = re.compile(
    r"^(?:inline\s+|constexpr\s+|static\s+)+(?:const\s+)?[\w:<>,\s\*&]+?\b(\w+)\s*\(", re.M
)

# C++-only names and why Python has none (or has it under another spelling).
CPP_ONLY: dict[str, str] = {
    "str_append": "C++ string building for error messages",
    "toAccumulateType": "C++ dtype helper of kernels (at::toAccumulateType)",
    "promoteTypes": "C++ spelling of promote_types; Python has sdk.promote_types",
    "infer_size": "C++ shape helper (ATen/ExpandUtils.h, ATen/InferSize.h)",
    "infer_size_dimvector": "C++ shape helper (ATen/ExpandUtils.h)",
    "infer_size_dv": "C++ shape helper (ATen/InferSize.h)",
    "is_expandable_to": "C++ shape helper (ATen/ExpandUtils.h)",
    "expand_size": "C++ MaybeOwned broadcasting helper; Python has Tensor.expand",
    "expand_inplace": "C++ MaybeOwned broadcasting helper; Python has Tensor.expand_as",
    "expand_outplace": "C++ MaybeOwned broadcasting helper; Python has sdk.broadcast_tensors",
    "has_internal_overlap": "C++ memory-overlap query of kernels (ATen/MemoryOverlap.h)",
    "assert_no_internal_overlap": "C++ memory-overlap check of kernels (ATen/MemoryOverlap.h)",
    "borrow_from_optional_tensor": "C++ MaybeOwned helper for optional arguments",
    "contiguous_strides": "C++ stride helper (c10::contiguous_strides)",
    "maybe_wrap_dim": "C++ dim helper (c10::maybe_wrap_dim); Python wraps negative dims itself",
    "fmap": "C++ container helper (c10::fmap); Python has map/comprehensions",
    "Join": "C++ string helper (c10::Join); Python has str.join",
    "zero": "ATen's out-of-place free form; Python has sdk.zeros_like",
    "copy": "ATen's out-of-place free form; Python has Tensor.clone and copy_",
    "tensor_data": "C++ autograd internals (Variable::tensor_data); Python has detach()",
    "ParseCommandLineFlags": "C++ program's command line (c10/util/Flags.h); Python has argparse",
    "SetUsageMessage": "C++ program's --help text (c10/util/Flags.h); Python has argparse",
    "UsageMessage": "C++ program's --help text (c10/util/Flags.h); Python has argparse",
    "CommandLineFlagsHasBeenParsed": "C++ program's command line (c10/util/Flags.h)",
    "KeyStrRepr": "C++ registry message helper (c10/util/Registry.h)",
    "variable_data": "C++ autograd internals (Variable::variable_data); Python has detach()",
    "nonzero_numpy": "C++ spelling; Python has sdk.nonzero(x, as_tuple=True)",
    "is_variable": "C++ relic of torch's Variable/Tensor split",
    "print": "C++ printing; Python has print(tensor)",
    "backendToDeviceType": "C++ legacy Backend helper; Python has tensor.device",
    "checkBackend": "C++ argument check (ATen/TensorUtils.h)",
    "matrix_H": "C++ spelling of Tensor.mH",
    "im2col": "ATen's spelling of unfold; Python has sdk.nn.functional.unfold",
    "col2im": "ATen's spelling of fold; Python has sdk.nn.functional.fold",
    "log_sigmoid": "ATen's spelling of logsigmoid; Python has sdk.nn.functional.logsigmoid",
    "expand_symint": "SymInt overload; Python sizes are ints (Tensor.expand)",
    "view_symint": "SymInt overload; Python sizes are ints (Tensor.view)",
    "reshape_symint": "SymInt overload; Python sizes are ints (Tensor.reshape)",
    "repeat_symint": "SymInt overload; Python sizes are ints (Tensor.repeat)",
    "narrow_symint": "SymInt overload; Python sizes are ints (Tensor.narrow)",
    "select_symint": "SymInt overload; Python sizes are ints (Tensor.select)",
    "slice_symint": "SymInt overload; Python sizes are ints (Tensor.slice)",
    "as_strided_symint": "SymInt overload; Python sizes are ints (Tensor.as_strided)",
    "split_symint": "SymInt overload; Python sizes are ints (Tensor.split)",
    "split_with_sizes_symint": "SymInt overload; Python sizes are ints (Tensor.split_with_sizes)",
    "new_empty_symint": "SymInt overload; Python sizes are ints (Tensor.new_empty)",
    "new_zeros_symint": "SymInt overload; Python sizes are ints (Tensor.new_zeros)",
    "new_ones_symint": "SymInt overload; Python sizes are ints (Tensor.new_ones)",
    "new_full_symint": "SymInt overload; Python sizes are ints (Tensor.new_full)",
    "globalContext": "C++ extension settings (torch's at::Context); Python has no such object",
    "launch": "C++ task launch on the core's pool (at::launch); Python has threads",
    "str": "C++ string building (c10::str)",
    "to_string": "C++ printing; Python has repr/str",
    "elementSize": "C++ dtype helper; Python has dtype.itemsize",
    "from_c_dtype": "C ABI conversion",
    "to_c": "C ABI conversion",
    "isComplexType": "C++ dtype helper; Python has dtype.is_complex",
    "toRealValueType": "C++ dtype helper; Python has dtype.to_real()",
    "toComplexType": "C++ dtype helper; Python has dtype.to_complex()",
    "isFloatingType": "C++ dtype helper; Python has dtype.is_floating_point",
    "isIntegralType": "C++ dtype helper",
    "isFloat8Type": "C++ dtype helper; Python compares with the sdk.float8_* dtypes",
    "ShowLogInfoToStderr": "C++ logging switch (c10::ShowLogInfoToStderr); Python has logging",
    "toString": "C++ dtype printing; Python has str(dtype)",
    "get_warning_handler": "C++ warning plumbing; Python uses the warnings module",
    "set_warning_handler": "C++ warning plumbing; Python uses the warnings module",
    "warn": "C++ TORCH_WARN backend; Python uses warnings.warn",
    "schema": "operator-registration helper; Python has sdk.library.Library.define",
    "parallel_for": "C++ threading helper; Python code is vectorized",
    "parallel_reduce": "C++ threading helper; Python code is vectorized",
    "get_thread_num": "C++ threading helper",
    "in_parallel_region": "C++ threading helper",
    "device_of": "C++ device guard helper; Python has tensor.device",
    "check_accessor": "C++ accessor checks",
    "check_writable": "C++ data-pointer checks (mutable_data_ptr on read-only memory)",
    "from_blob": "wraps a raw C++ pointer; Python has sdk.from_numpy / sdk.frombuffer-like paths",
    "fromDLPack": "Python has sdk.from_dlpack",
    "toDLPack": "Python has Tensor.__dlpack__",
    "index": "C++ spelling of tensor[...]; Python indexes with []",
    "slice": "C++ spelling of tensor[a:b:c]; Python slices with []",
    "is_non_overlapping_and_dense": "layout query used by C++ kernels",
    "DeviceTypeName": "C++ device printing; Python has str(device)",
    "typeMetaToScalarType": "C++ caffe2::TypeMeta conversion (no TypeMeta in Python)",
    "CPU": "C++ deprecated type objects (at::CPU(kFloat)); Python names dtype= and device=",
    "CUDA": "C++ deprecated type objects (at::CUDA(kFloat)); Python names dtype= and device=",
    "scalarTypeToTypeMeta": "C++ caffe2::TypeMeta conversion (no TypeMeta in Python)",
    "optTypeMetaToScalarType": "C++ caffe2::TypeMeta conversion (no TypeMeta in Python)",
    "empty_symint": "SymInt overload; Python sizes are ints (sdk.empty)",
    "zeros_symint": "SymInt overload; Python sizes are ints (sdk.zeros)",
    "asIntArrayRefUnchecked": "SymInt helper; Python sizes are ints",
    "asIntArrayRefSlow": "SymInt helper; Python sizes are ints",
    "fromIntArrayRefSlow": "SymInt helper; Python sizes are ints",
    "divup": "C++ integer helper (ceil division)",
    "collapse_dims": "C++ helper of CUDA kernels' TensorInfo (ATen/CollapseDims.h)",
    "multiply_integers": "C++ integer helper (math.prod in Python)",
    "sum_integers": "C++ integer helper (sum in Python)",
    "expect_contiguous": "C++ MaybeOwned helper; Python has Tensor.contiguous",
    "maybe_data_ptr": "C++ raw-pointer helper",
    "checkDim": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkDimRange": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkSameDim": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkContiguous": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkAllContiguous": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkSize": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkNumel": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkSameSize": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkAllSameSize": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkSameNumel": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkAllSameNumel": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkSameType": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkAllSameType": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkScalarType": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkScalarTypes": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkSameGPU": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkAllSameGPU": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkDefined": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkAllDefined": "ATen/TensorUtils.h argument check for C++ kernels",
    "checkDeviceType": "ATen/TensorUtils.h argument check for C++ kernels",
    "check_dim_size": "ATen/TensorUtils.h argument check for C++ kernels",
    "cross_entropy_loss": "ATen's internal name; Python has sdk.nn.functional.cross_entropy",
    "upsample_bilinear2d": "ATen's name; Python has sdk.nn.functional.interpolate",
    "grid_sampler": "ATen's name; Python has sdk.nn.functional.grid_sample",
    "is_alias_of": "C++ Tensor method torch's Python lacks (compare untyped_storage()._cdata)",
}


def cpp_free_functions() -> dict[str, str]:
    """name -> header, for the functions declared at namespace sdk's top level."""
    found: dict[str, str] = {}
    for header in sorted(HEADERS.glob("*.h")):
        stack: list[str] = []
        for line in header.read_text().splitlines():
            opened = re.match(r"^namespace\s+(\w+)\s*\{", line)
            if opened:
                stack.append(opened.group(1))
            elif re.match(r"^\}\s*//\s*namespace", line):
                stack = stack[:-1]
            elif stack == ["sdk"] and (m := _FUNCTION.match(line)):
                name = m.group(1)
                if not (name.startswith("operator") or name.endswith(("_out", "_"))):
                    found.setdefault(name, header.name)
    return found


def has_python_counterpart(name: str) -> bool:
    return hasattr(sdk, name) or hasattr(F, name) or hasattr(sdk.Tensor, name)


def test_scan_finds_the_api():
    names = cpp_free_functions()
    # a sample from several headers: the scan must see them or the check below means nothing
    assert {"matmul", "bucketize", "cdist", "layer_norm", "grid_sampler", "searchsorted"} <= set(
        names
    )
    assert len(names) > 150


def test_every_cpp_function_has_a_python_counterpart_or_a_reason():
    missing = {
        name: header
        for name, header in cpp_free_functions().items()
        if not has_python_counterpart(name) and name not in CPP_ONLY
    }
    assert not missing, (
        f"C++ functions without a Python counterpart or a CPP_ONLY reason: {missing}"
    )


def test_cpp_only_list_has_no_stale_entries():
    names = cpp_free_functions()
    stale = [n for n in CPP_ONLY if n not in names or has_python_counterpart(n)]
    assert not stale, f"CPP_ONLY lists names that are gone or now have a counterpart: {stale}"
