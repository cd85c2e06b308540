"""The census of torch names real extensions use: counting them in a folder of sources, and
`port --coverage` computed from the committed counts (`cpp_extension/port/port_census.json`).

A census row is a torch name (a header, a qualified name such as `at::zeros`, a macro, a
Tensor method `.contiguous()`, or a feature of a registered op's schema `schema:Tensor(a!)`)
with its occurrences and the number of repositories using it, for CPU sources (.cpp, .h, ...)
and CUDA sources (.cu, .cuh) apart. The file holds names and numbers only.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from . import port_map
from .cxx import is_macro_parameter, macro_parameter_spans
from .sdk_names import SdkHeaders, mask_cxx

CENSUS_FILE = Path(__file__).with_name("port_census.json")
CENSUS_FORMAT = 1
CPU_SUFFIXES = frozenset(".cpp .cc .cxx .c++ .h .hh .hpp .hxx .inl .ipp .tpp".split())
CUDA_SUFFIXES = frozenset((".cu", ".cuh"))
AREAS = ("cpu", "cuda")
# Copies of other projects inside a repository: their code is not the repository's own use.
VENDORED_DIRS = frozenset(
    "third_party thirdparty third-party 3rdparty external extern vendor vendored deps".split()
)
MAX_FILE_BYTES = 2_000_000  # generated tables, amalgamations
KINDS = ("header", "name", "macro", "method", "schema")

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.M)
_QUALIFIED = re.compile(r"(?<![\w$])(?<!\w::)(?:::\s*)?(torch|at|c10)((?:\s*::\s*[A-Za-z_]\w*)+)")
_PASTED = re.compile(r"\s*##")
_MACRO = re.compile(r"(?<![\w$])(?:TORCH|AT|C10)_[A-Z0-9_]*[A-Z0-9](?![\w$])")
# The THC/TH C API torch removed (THCState, THCudaCheck, THCudaTensor_data, THArgCheck, ...)
_LEGACY = re.compile(r"(?<![\w$])TH[A-Z]\w*(?![\w$])")
_LEGACY_WORDS = re.compile(r"^(?:THC[A-Z_]|THCuda|THArgCheck|THAssert|THError|TH[A-Z][a-z]*Tensor)")
_METHOD = re.compile(
    r"(?:\.|->)\s*([a-z_]\w*)\s*(<[^;{}()<>]*(?:<[^;{}()<>]*>[^;{}()<>]*)*>)?\s*\("
)
_DEF_SCHEMA = re.compile(
    r"\.\s*def\s*\(\s*(?:TORCH_SELECTIVE_SCHEMA\s*\(\s*)?((?:\"(?:[^\"\\\n]|\\.)*\"\s*)+)"
)
_LIBRARY = re.compile(r"\bTORCH_LIBRARY(?:_FRAGMENT|_IMPL)?\s*\(\s*(\w+)\s*,\s*(\w+)")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_USING_NAMESPACE = re.compile(r"\busing\s+namespace\s+(?:::\s*)?(torch|at|c10)\s*;")
_BARE = re.compile(r"(?<![\w$.:])(?<!->)([A-Za-z_]\w*)(?!\s*::)")
# Names <cmath>, <algorithm> and CUDA have as well: unqualified, they are not torch's.
_NOT_BARE = frozenset(
    """abs max min exp log sqrt pow floor ceil round sin cos tan tanh erf fmod sum swap fill
    copy sort any all equal sigmoid size empty data begin end count find move forward""".split()
)


def area_of(path: str) -> str | None:
    suffix = os.path.splitext(path)[1].lower()
    if suffix in CUDA_SUFFIXES:
        return "cuda"
    if suffix in CPU_SUFFIXES:
        return "cpu"
    return None


# ---- extraction ------------------------------------------------------------------------------


def _split_top(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def schema_features(schema: str) -> list[str]:
    """The features of an op schema ("name.overload(Tensor(a!) x, *, int[] s=[]) -> Tensor"):
    argument types with alias annotations, `*`, defaults, overloads, return types."""
    schema = " ".join(schema.split())
    head, sep, rest = schema.partition("(")
    if not sep or not re.fullmatch(r"[\w.:]+", head.strip()):
        return []
    depth, i = 1, 0
    while i < len(rest) and depth:
        depth += {"(": 1, ")": -1}.get(rest[i], 0)
        i += 1
    args, tail = rest[: i - 1], rest[i:].strip()
    feats = ["schema:overload"] if "." in head.split("::")[-1] else []
    for arg in _split_top(args):
        arg = arg.strip()
        if arg == "*":
            feats.append("schema:*")
            continue
        decl, eq, _ = arg.partition("=")
        if eq:
            feats.append("schema:default")
        words = decl.rsplit(None, 1)
        if len(words) == 2:
            feats.append("schema:" + schema_type(words[0]))
    if tail.startswith("->"):
        ret = tail[2:].strip()
        if ret.startswith("("):
            inner = ret[1:-1].strip()
            feats.append("schema:->()" if not inner else "schema:->tuple")
            rets = _split_top(inner)
        else:
            rets = [ret]
        for r in rets:
            words = re.sub(r"\s*([,()\[\]])\s*", r"\1", r.strip()).split()
            if words:  # "Tensor", or a named return "Tensor values"
                feats.append("schema:->" + schema_type(words[0]))
    return feats


def schema_type(text: str) -> str:
    """A schema type, spelled the one way: no spaces, alias sets renamed `a` (Tensor(b!) is
    the feature Tensor(a!)), a custom class type reduced to its prefix."""
    text = re.sub(r"\s+", "", text)
    if text.startswith("__torch__.torch.classes."):
        return "__torch__.torch.classes"
    return re.sub(r"\((\w+)(!?)\)", r"(a\2)", re.sub(r"\((\w+)->\*\)", "(a->*)", text))


def _string_literals(chunk: str) -> str:
    return "".join(re.findall(r"\"((?:[^\"\\\n]|\\.)*)\"", chunk))


def extract(text: str, own_macros: set[str], methods: frozenset[str]) -> Counter:
    """(kind, name) -> occurrences in one C++/CUDA source."""
    code = mask_cxx(text)
    found: Counter = Counter()
    paths, pos = [], 0
    for m in _INCLUDE.finditer(text):
        if not code[m.start() : m.start(1)].strip().startswith("#"):
            continue  # inside a comment
        if m.group(1).startswith(port_map.TORCH_INCLUDE_ROOTS):
            found["header", m.group(1).strip()] += 1
        # the path is not code: <THC/THCAtomics.cuh> names no THC function
        paths += [code[pos : m.start(1)], " " * len(m.group(1))]
        pos = m.end(1)
    code = "".join(paths) + code[pos:]
    params = macro_parameter_spans(code)
    for m in _QUALIFIED.finditer(code):
        if _PASTED.match(code, m.end()):
            continue  # a macro completes it by token pasting (`at::k##device`): no name yet
        parts = [p.strip() for p in m.group(2).split("::") if p.strip()]
        if not is_macro_parameter(params, m.start(2), parts[0]):  # `torch::dt` in a #define
            found["name", "::".join([m.group(1), *parts])] += 1
    for m in _MACRO.finditer(code):
        if m.group(0) not in own_macros:
            found["macro", m.group(0)] += 1
    for m in _LEGACY.finditer(code):
        if m.group(0) not in own_macros and _LEGACY_WORDS.match(m.group(0)):
            found["name", m.group(0)] += 1
    for m in _METHOD.finditer(code):
        name = m.group(1)
        if name in methods or (name == "data" and m.group(2)):
            found["method", f".{name}<>()" if name == "data" else f".{name}()"] += 1
    using = _USING_NAMESPACE.search(code)
    if using:  # unqualified candidates; census_repo keeps those the repository qualifies too
        for m in _BARE.finditer(code):
            if m.group(1) not in _NOT_BARE:
                found["bare", f"{using.group(1)}::{m.group(1)}"] += 1
    if _LIBRARY.search(code):
        for m in _LIBRARY.finditer(code):
            if code[m.start() : m.start() + 20].startswith("TORCH_LIBRARY_IMPL"):
                found["schema", f"schema:impl:{m.group(2)}"] += 1
        for m in _DEF_SCHEMA.finditer(text):
            if code[m.start()] != ".":  # the call itself inside a comment
                continue
            for feat in schema_features(_string_literals(m.group(1))):
                found["schema", feat] += 1
    return found


def _sources(repo: Path) -> list[tuple[str, Path]]:
    out = []
    for root, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d.lower() not in VENDORED_DIRS and d != ".git")
        # a copy of torch's own headers (ATen/, c10/ folders) is not a use of them
        dirs[:] = [d for d in dirs if d not in ("ATen", "c10", "aten")]
        for f in sorted(files):
            area = area_of(f)
            p = Path(root) / f
            if area and p.is_file() and p.stat().st_size <= MAX_FILE_BYTES:
                out.append((area, p))
    return out


def repo_commit(repo: Path) -> str:
    """The commit a repository folder was read at: its COMMIT file, else git's HEAD."""
    marker = repo / "COMMIT"
    if marker.is_file():
        return marker.read_text().strip()
    head = repo / ".git" / "HEAD"
    if head.is_file():
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            target = repo / ".git" / ref[5:]
            return target.read_text().strip() if target.is_file() else ""
        return ref
    return ""


def census_repo(repo: Path, methods: frozenset[str]) -> dict[str, Counter]:
    """area -> Counter of (kind, name) for one repository folder; ("files", "") counts the
    files using a torch name."""
    files = [(a, p, p.read_text(encoding="utf-8", errors="replace")) for a, p in _sources(repo)]
    own: set[str] = set()
    for _, _, text in files:
        own.update(_DEFINE.findall(text))
    counts: dict[str, Counter] = {a: Counter() for a in AREAS}
    for area, _, text in files:
        found = extract(text, own, methods)
        counts[area].update(found)
        counts[area]["files", ""] += 1 if any(k[0] != "bare" for k in found) else 0
    # After `using namespace at;`, a bare `Tensor` is at::Tensor when the repository writes
    # at::Tensor somewhere too (an unqualified name alone could be anyone's).
    qualified = {k[1] for a in AREAS for k in counts[a] if k[0] == "name"}
    for area in AREAS:
        for key in [k for k in counts[area] if k[0] == "bare"]:
            n = counts[area].pop(key)
            if key[1] in qualified:
                counts[area]["name", key[1]] += n
    return counts


def build_census(root: str | os.PathLike, methods: frozenset[str]) -> dict:
    """The census of a folder holding one folder per repository (named owner+name); the
    repositories that use no torch name are listed apart."""
    rows: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0] * 5)
    repos, unused, used = [], [], []
    for repo in sorted(p for p in Path(root).iterdir() if p.is_dir()):
        name = repo.name.replace("+", "/", 1)
        counts = census_repo(repo, methods)
        files = {a: counts[a].pop(("files", ""), 0) for a in AREAS}
        entry = {"repo": name, "commit": repo_commit(repo), "files": files}
        if not any(files.values()):
            unused.append(entry)
            continue
        repos.append(entry)
        used.append(set(counts["cpu"]) | set(counts["cuda"]))
        for key in used[-1]:
            row = rows[key]
            for i, area in enumerate(AREAS):
                if counts[area][key]:
                    row[2 * i] += counts[area][key]
                    row[2 * i + 1] += 1
            row[4] += 1
    order = sorted(rows, key=_order)
    index = {key: i for i, key in enumerate(order)}
    for entry, keys in zip(repos, used):  # which names each repository uses, by row
        entry["uses"] = sorted(index[k] for k in keys)
    return {
        "format": CENSUS_FORMAT,
        "about": "torch names used by open-source extensions: [name, kind, cpu occurrences, "
        "cpu repos, cuda occurrences, cuda repos, repos]; a repository's `uses` are row "
        "numbers (from 0); see docs/porting-census.md",
        "repos": repos,
        "repos_without_torch_names": unused,
        "tensor_methods": sorted(methods),
        "names": [[name, kind, *rows[kind, name]] for kind, name in order],
    }


def _order(key: tuple[str, str]) -> tuple[str, str]:
    return key[1], key[0]


def dump_census(census: dict) -> str:
    """JSON with one repository and one name a line: small diffs when the census is rerun."""

    def rows(items: list) -> str:
        return "[\n  " + ",\n  ".join(json.dumps(x, sort_keys=True) for x in items) + "\n ]"

    parts = []
    for key in sorted(census):
        value = census[key]
        text = rows(value) if key in ("names", "repos") and value else json.dumps(value)
        parts.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


# ---- coverage --------------------------------------------------------------------------------
# Names the SDK will not have, by family, each with the reason. An entry is a regular
# expression a whole census name matches (headers by path, methods as `.name()`). Headers
# are also refused by port_map.INCLUDES_WITHOUT_COUNTERPART, the porter's own reasons.
_NS = r"(?:at|c10|torch)::"
REFUSALS: tuple[tuple[str, str], ...] = (
    (
        r"THC?[A-Z].*",
        "THC was removed from torch itself: its tensor C API (THCudaTensor, THFloatTensor, "
        "...) has no counterpart, use sdk::Tensor",
    ),
    (
        r"at::native(::.*)?|ATen/native/.*",
        "ATen's internal kernels are not part of the SDK",
    ),
    (
        rf"({_NS})?(detail|impl)::.*|at::cuda::detail::(?!(getDefaultCUDAGenerator|"
        r"canUse32BitIndexMath|TensorInfo|getTensorInfo|IndexToOffset|CUDA_NUM_THREADS|"
        r"GET_BLOCKS)$).*|c10::cuda::impl::.*|"
        r"(?!ATen/cuda/detail/(TensorInfo|IndexUtils|UnpackRaw)\.cuh$|"
        r"ATen/cuda/detail/KernelUtils\.h$)(ATen|c10|torch)/(.*/)?(detail|impl)/.*",
        "torch's internals (detail/impl namespaces)",
    ),
    (
        r"(at|torch)::_(?!isnan$|isinf$)\w+",  # ATen/NumericUtils.h's two are public helpers
        "torch's private ops (a leading underscore): call the public op",
    ),
    (r"torch::jit(::.*)?|torch/csrc/jit/.*", "no TorchScript: register ops with SDK_LIBRARY"),
    (r"torch/csrc/python_headers\.h", "torch's wrapper of <Python.h>: include <Python.h>"),
    (
        r"torch::autograd::profiler::.*|torch/csrc/autograd/record_function_ops\.h",
        "torch's profiler internals: mark a range with RECORD_FUNCTION (SDK_RECORD_FUNCTION)",
    ),
    (
        rf"({_NS})?(GeneratorImpl|CPUGeneratorImpl)",
        "generator internals: take a generator with sdk::get_generator_or_default",
    ),
    (
        rf"({_NS})?((Tensor|String|Tuple|List|Dict|Optional|Int|Float|Bool|None|Number|Any|"
        r"Interface|Function)Type(::\w+)*|TypeKind(::\w+)*|TypePtr|Symbol(::\w+)*|"
        r"FunctionSchema)",
        "no TorchScript types or symbols (c10::TensorType, TypeKind, Symbol, FunctionSchema): "
        "an op's types are its schema string's",
    ),
    (
        r"at::jit(::.*)?|ATen/code_template\.h",
        "no code templates of TorchScript's fusers (at::jit::CodeTemplate): format the source "
        "with std::string",
    ),
    (
        r"torch::deploy(::.*)?|torch/csrc/deploy/.*",
        "torch::deploy (embedded Python interpreters) was removed from torch itself",
    ),
    (r"ATen/TypeDefault\.h", "removed from torch itself (ATen's per-backend types before 1.8)"),
    (
        r"schema:(->)?Dict\(.*",
        "the op registry has no dictionary values: pass the keys and the values as two lists",
    ),
    (
        rf"({_NS})?(getCustomClassType|getCustomClassTypeMap|isCustomClassRegistered|"
        r"registerCustomClass|registerCustomClassMethod|getCustomClass|ClassType|ClassTypePtr|"
        r"QualifiedName)",
        "no TorchScript class types: a custom class has the one name class_<T>(ns, Name) gives "
        "it (schema type __torch__.torch.classes.ns.Name), with no ClassType object to look up, "
        "rename or register again",
    ),
    (
        rf"({_NS})?(IValue|ivalue::.*|Dict|GenericDict)|ATen/core/ivalue\.h",
        "no IValue or its containers: registered ops take typed arguments",
    ),
    (r"torch::nn::.*|torch/nn/.*", "no C++ nn modules: write the layer with sdk:: ops"),
    (
        r"at::vec::(CPU_CAPABILITY::.*|VectorizedN|\w*vnni\w*|cvt\w+)|"
        r"ATen/cpu/vec/(vec256|vec512|vec_quant).*",
        "at::vec's per-ISA parts (VNNI packing, fp8 conversions, VectorizedN): sdk/vec.h has "
        "Vectorized<T>, map, reduce_all and convert as portable loops",
    ),
    (
        r"at::TensorIterator(Config|Base)?(::.*)?",
        "no TensorIterator: loop over accessors or data_ptr",
    ),
    (
        rf"({_NS})?(kQ(U?Int\w*)|ScalarType::QU?Int\w*|Q(U?Int\w*)|DispatchKey::Quantized\w*|"
        r"QScheme\w*|k?Per(Tensor|Channel)Affine\w*|Quantizer(Ptr)?|new_qtensor)|"
        r"\.(dequantize|q_scale|q_zero_point|q_per_channel_\w+|qscheme|is_quantized)\(\)|"
        r"ATen/quantized/.*",
        "no quantized tensors: keep the integers and their scale and zero point in plain tensors",
    ),
    (
        rf"({_NS})?(kXPU|kMPS|kHIP|kMTIA|kPrivateUse1|DeviceType::(XPU|MPS|HIP|MTIA|PrivateUse1)|"
        r"xpu::.*|hip::.*|mps::.*|cuda::getCurrentHIPStream\w*)|"
        r"at::(kMLU|kMUSA|kXLA|AtenTypeXPU(::.*)?)|TORCH_MLU_CHECK|"
        r"\.is_(xpu|mps|hip|mtia|privateuseone|vulkan|ipu|maia)\(\)|c10/(xpu|hip)/.*|ATen/(hip|mps|xpu)/.*",
        "the SDK runs on CPU and CUDA only",
    ),
    (
        r"at::check_generator",
        "no generator objects for CUDA kernels: take the device's default one with "
        "sdk::get_generator_or_default(std::nullopt, sdk::cuda::detail::getDefaultCUDAGenerator())",
    ),
    (
        rf"({_NS})?(TensorImpl|StorageImpl(::\w+)?|Allocator|GetCPUAllocator|"
        r"DispatchKeySet|DispatchKey(::\w+)?)|\.(unsafeGetTensorImpl|unsafeGetStorageImpl|"
        r"unsafeReleaseTensorImpl|key_set)\(\)|c10/core/(Allocator|CPUAllocator|TensorImpl|"
        r"StorageImpl)\.h",
        "tensor internals (TensorImpl, StorageImpl, allocators, dispatch keys): use data_ptr(), "
        "sizes(), strides(), and storage() (sdk::Storage) for the memory tensors share",
    ),
    (
        r"torch::serialize::.*|torch/serialize/archive\.h",
        "no C++ serialization archives: save tensors from Python",
    ),
    (
        r"torch::utils::.*|torch::python::.*|torch/csrc/utils/.*|torch/csrc/(Exceptions|THP)\.h",
        "torch's internal Python-binding utilities",
    ),
    (r"torch/csrc/inductor/.*", "AOTInductor's C shim: the SDK's C ABI is sdk/c_api.h"),
    (r"torch/csrc/distributed/.*|c10d::.*", "no distributed process groups"),
    (
        r"ATen/cudnn/.*|(at|torch)::native::getCudnnHandle",
        "no cuDNN handles: call cuDNN directly",
    ),
    (
        r"(at|torch)::(sparse(_\w+)?|_sparse\w*|kSparse\w*|Layout::Sparse\w*)|ATen/SparseTensorUtils\.h|\.(indices|dense_dim|sparse_dim|coalesce|"
        r"is_coalesced|_indices|_values|crow_indices|col_indices)\(\)",
        "no sparse tensors: keep the indices and the values as dense tensors",
    ),
    (
        r"c10/util/flat_hash_map\.h|ska::.*",
        "torch's copy of a third-party hash map: use std::unordered_map",
    ),
    (
        rf"({_NS})?(k?Float8_e8m0fnu|ScalarType::Float8_e8m0fnu|k?Float4_\w+|"
        r"ScalarType::Float4_\w+)(::\w+)*|"
        r"torch::headeronly::ScalarType::(Float8_e8m0fnu|Float4_\w+)|"
        r"(c10|torch/headeronly)/util/(Float8_e8m0fnu|Float4_\w+)\.h",
        "no e8m0fnu or 4-bit float dtypes in the core's dtype table (the other four 8-bit floats "
        "are there): keep the bytes in a uint8 tensor (kByte) and convert in the kernel",
    ),
    (
        rf"({_NS})?(k?ComplexHalf|ScalarType::ComplexHalf)|"
        r"torch::headeronly::ScalarType::ComplexHalf",
        "no complex32 (ComplexHalf) in the core's dtype table (complex64 and complex128 are "
        "there): keep float16 parts as a last dimension of 2 in a float16 tensor",
    ),
    (
        rf"({_NS})?(kUInt(16|32|64)|ScalarType::UInt(16|32|64))|"
        r"torch::headeronly::ScalarType::UInt(16|32|64)",
        "no unsigned dtypes wider than 8 bits: use the signed dtype of the same width",
    ),
    (
        rf"{_NS}unique_dim",
        "no unique along a dimension: sdk::unique (and sdk.unique) cover the flattened tensor "
        "only; for unique slices move `dim` first, reshape to rows and deduplicate the rows "
        "on the CPU (a std::map keyed by a row's values)",
    ),
    (
        r"\.meta\(\)",
        "not a Tensor method in the census's uses: XPU oneDNN contexts' meta() (no XPU)",
    ),
)
_REFUSALS = tuple((re.compile(pattern), reason) for pattern, reason in REFUSALS)


def refusal(name: str, kind: str) -> str | None:
    """The documented reason the SDK has no counterpart for `name`, or None."""
    if kind == "header":
        known = [p for p in port_map.INCLUDES_WITHOUT_COUNTERPART if name.startswith(p)]
        if known:
            return port_map.INCLUDES_WITHOUT_COUNTERPART[max(known, key=len)]
    for pattern, reason in _REFUSALS:
        if pattern.fullmatch(name):
            return reason
    return None


def _porter_has(name: str, kind: str, sdk: SdkHeaders) -> bool:
    """Whether the porter maps `name` to something the SDK's headers declare: the porter
    itself is run on a line using the name, so the answer is the porter's."""
    from .cxx import port_cxx

    if kind == "method":
        bare = name[1:].split("<")[0].split("(")[0]
        if "<>" in name:  # .data<T>() is the porter's rename
            bare = port_map.TEMPLATE_METHOD_RENAMES.get(bare, bare)
        return bare in sdk.names
    if kind == "name" and "::" not in name:  # the removed TH/THC C API
        if name in port_map.THC_ARG_CHECKS:  # rewritten where its message is a plain string
            return port_map.THC_ARG_CHECKS[name] in sdk.macros
        if name in port_map.THC_CALLS:  # rewritten to today's spelling, where it exists
            target = port_map.THC_CALLS[name][0].split("::")[1:]
            return sdk.has_qualified(target) is None
        if name not in port_map.MACROS:  # else mapped as a macro, or declared by sdk/thc.h
            return name in sdk.namespace_names
    if kind == "header":
        probe = f"#include <{name}>\n"
    elif kind == "macro":
        probe = f"{name}\n"
    else:
        probe = f"auto probe = {name};\n"
    return not port_cxx(probe, "probe.cpp", sdk, set()).missing


def schema_probe(feature: str) -> tuple[str, str]:
    """(dispatch key, op schema) that uses one schema feature, for the SDK's parser."""
    what = feature.removeprefix("schema:")
    if what.startswith("impl:"):
        return what[5:], ""
    if what == "overload":
        return "", "probe.out(Tensor x) -> Tensor"
    if what == "*":
        return "", "probe(Tensor x, *, int y) -> Tensor"
    if what == "default":
        return "", "probe(int x=0) -> ()"
    if what == "->()":
        return "", "probe(Tensor x) -> ()"
    if what == "->tuple":
        return "", "probe(Tensor x) -> (Tensor, Tensor)"
    if what.endswith("__torch__.torch.classes"):  # a class type, reduced to its prefix
        what += ".probe.Probe"
    if what.startswith("->"):
        return "", f"probe(Tensor x) -> {what[2:]}"
    return "", f"probe({what} x) -> ()"


_probe_count = 0


def _schema_has(feature: str) -> bool:
    """Whether the SDK's op registry accepts a schema using `feature` (defined in a fresh
    namespace, then dropped)."""
    global _probe_count
    try:
        from sdk import library
    except Exception:  # no built SDK: nothing can be checked
        return False
    key, schema = schema_probe(feature)
    _probe_count += 1
    ns = f"_port_census_probe_{os.getpid()}_{_probe_count}"
    try:
        lib = library.Library(ns, "IMPL" if key else "FRAGMENT", key)
        try:
            if schema:
                lib.define(schema)
        finally:
            lib._destroy()
    except Exception:
        return False
    return True


@dataclass
class CoverageRow:
    """One census name with its standing: "counterpart", "refused" (with the reason) or
    "missing"."""

    rank: int
    name: str
    kind: str
    occurrences: dict[str, int]  # area -> occurrences
    repos: dict[str, int]  # area -> repositories
    total_repos: int
    status: str
    reason: str = ""


@dataclass
class CoverageReport:
    """`port --coverage`: the census names ranked, each with its status."""

    repos: int
    rows: list[CoverageRow]
    # per repository (that lists them), the names it uses
    uses: list[list[CoverageRow]] = field(default_factory=list)

    def repos_ready(self) -> int:
        """Repositories whose every torch name has a counterpart or a refusal."""
        return sum(all(r.status != "missing" for r in names) for names in self.uses)

    def share(self, area: str, statuses: tuple[str, ...] = ("counterpart",)) -> float:
        """The share of `area`'s occurrences whose names have one of `statuses`."""
        total = sum(r.occurrences[area] for r in self.rows)
        done = sum(r.occurrences[area] for r in self.rows if r.status in statuses)
        return done / total if total else 1.0

    def open_names(self, area: str = "cpu", min_repos: int = 2) -> list[CoverageRow]:
        """Missing names `min_repos` or more repositories use in `area`, most used first."""
        rows = [r for r in self.rows if r.status == "missing" and r.repos[area] >= min_repos]
        return sorted(rows, key=lambda r: (-r.repos[area], -r.occurrences[area], r.name))

    def summary(self) -> str:
        lines = [f"census: {len(self.rows)} torch names in {self.repos} repositories"]
        if self.uses:
            lines.append(
                f"repositories whose every torch name has a counterpart or a refusal: "
                f"{self.repos_ready()} of {len(self.uses)}"
            )
        for area in AREAS:
            has = self.share(area)
            both = self.share(area, ("counterpart", "refused"))
            lines.append(
                f"{area}: {100 * has:.2f}% of occurrences have a counterpart, "
                f"{100 * (both - has):.2f}% refused, {100 * (1 - both):.2f}% missing; "
                f"names used by >=2 repositories still missing: {len(self.open_names(area))}"
            )
        return "\n".join(lines)

    def table(self) -> str:
        lines = ["rank  name  kind  cpu-occurrences cpu-repos  cuda-occurrences cuda-repos  status"]
        for r in self.rows:
            why = f" ({r.reason})" if r.reason else ""
            lines.append(
                f"{r.rank}  {r.name}  {r.kind}  {r.occurrences['cpu']} {r.repos['cpu']}  "
                f"{r.occurrences['cuda']} {r.repos['cuda']}  {r.status}{why}"
            )
        return "\n".join(lines)

    def as_json(self) -> dict:
        return {
            "repos": self.repos,
            "share": {a: self.share(a) for a in AREAS},
            "share_with_refused": {a: self.share(a, ("counterpart", "refused")) for a in AREAS},
            "repos_ready": self.repos_ready(),
            "names": [r.__dict__ for r in self.rows],
        }


def load_census(path: str | os.PathLike | None = None) -> dict:
    """The census file, checked: a ValueError names what is wrong with it."""
    path = Path(path) if path is not None else CENSUS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"port census: cannot read {path}: {e}") from e
    except ValueError as e:
        raise ValueError(f"port census: {path} is not JSON: {e}") from e
    if not isinstance(data, dict) or data.get("format") != CENSUS_FORMAT:
        raise ValueError(f"port census: {path} is not a census of format {CENSUS_FORMAT}")
    for i, row in enumerate(data.get("names", ())):
        ok = (
            isinstance(row, list)
            and len(row) == 7
            and isinstance(row[0], str)
            and row[1] in KINDS
            and all(isinstance(n, int) and n >= 0 for n in row[2:])
        )
        if not ok:
            raise ValueError(f"port census: {path}: row {i} is not [name, kind, 5 counts]: {row!r}")
    if not isinstance(data.get("repos"), list):
        raise ValueError(f"port census: {path} has no list of repositories")
    count = len(data.get("names", ()))
    for n, entry in enumerate(data["repos"]):
        uses = entry.get("uses", []) if isinstance(entry, dict) else None
        if not isinstance(uses, list) or not all(
            isinstance(i, int) and 0 <= i < count for i in uses
        ):
            raise ValueError(f"port census: {path}: repository {n} has bad `uses` rows")
    return data


# torch names whose namespace rewrite lands on an SDK name of another meaning: the porter's
# output compiles to something else or not at all, so they count as refused, not counterparts
# (port_map.TORCH_ONLY_NAMES gives a name its own rewrite instead).
FALSE_FRIENDS: dict[str, str] = {
    "torch::nn::init::uniform_": "no C++ nn modules (torch::nn::init would become sdk::init, a "
    "custom class's constructor)",
}


def status_of(name: str, kind: str, sdk: SdkHeaders) -> tuple[str, str]:
    if name in FALSE_FRIENDS:
        return "refused", FALSE_FRIENDS[name]
    if kind == "schema":
        if _schema_has(name):
            return "counterpart", ""
    elif _porter_has(name, kind, sdk):
        return "counterpart", ""
    reason = refusal(name, kind)
    return ("refused", reason) if reason else ("missing", "")


def coverage_report(census: dict | None = None, include_dir: str | None = None) -> CoverageReport:
    """Each census name ranked (by repositories, then occurrences) with its status against
    the SDK's headers (default: the SDK's own) and the porter's mapping."""
    from .sdk_names import sdk_headers

    census = load_census() if census is None else census
    sdk = sdk_headers(include_dir)
    ranked = sorted(census["names"], key=lambda r: (-r[6], -(r[2] + r[4]), r[0]))
    rows, by_row = [], {}
    for rank, (name, kind, occ_cpu, rep_cpu, occ_cuda, rep_cuda, total) in enumerate(ranked, 1):
        status, reason = status_of(name, kind, sdk)
        rows.append(
            CoverageRow(
                rank, name, kind, {"cpu": occ_cpu, "cuda": occ_cuda},
                {"cpu": rep_cpu, "cuda": rep_cuda}, total, status, reason,
            )
        )  # fmt: skip
        by_row[name, kind] = rows[-1]
    names = census["names"]
    uses = [
        [by_row[names[i][0], names[i][1]] for i in entry["uses"]]
        for entry in census["repos"]
        if "uses" in entry
    ]
    return CoverageReport(len(census["repos"]), rows, uses)


def missing_list(report: CoverageReport) -> str:
    """The names without counterpart or refusal, CPU first: `rank name occurrences repos
    area`, one a line, ranked by repositories then occurrences within each area."""
    lines = []
    for area in AREAS:
        rows = [r for r in report.rows if r.status == "missing" and r.repos[area]]
        rows.sort(key=lambda r: (-r.repos[area], -r.occurrences[area], r.name))
        for i, r in enumerate(rows, 1):
            lines.append(f"{i} {r.name} {r.occurrences[area]} {r.repos[area]} {area}")
    return "\n".join(lines) + "\n"
