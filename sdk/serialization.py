"""sdk.save / sdk.load: tensors and nested containers in a safe, documented, npz-compatible file.

File format (version 1)
-----------------------
A ZIP archive (stored, not compressed), readable by ``numpy.load(path, allow_pickle=False)``:

- ``manifest.json``: UTF-8 JSON object
  ``{"format": "sdk.save", "version": 1, "root": <node>}`` where ``<node>`` is one of
    - ``{"type": "tensor", "key": "t0", "dtype": "float32", "shape": [2, 3],
      "requires_grad": false, "parameter": false}``
    - ``{"type": "dict", "ordered": bool, "items": [[<key>, <node>], ...]}`` (keys: str,
      int, float, bool or None -- written as ``{"type": ...}`` nodes too when not str)
    - ``{"type": "list" | "tuple", "items": [<node>, ...]}``
    - ``{"type": "int" | "float" | "bool" | "str", "value": ...}``, ``{"type": "none"}``
      (floats inf/nan are written as the strings "inf", "-inf", "nan")
- ``t0.npy``, ``t1.npy``, ...: one standard ``.npy`` member per tensor, C order, with the
  tensor's values. bfloat16 (which numpy lacks) is stored as ``uint16`` holding the raw
  bit pattern, the 8-bit floats as ``uint8`` codes; the manifest's ``dtype`` says how to read
  them back.

Loading never unpickles: members are read with ``allow_pickle=False`` (object arrays
are refused) and the manifest is plain JSON, so a file cannot run code. Files that
are not such archives (e.g. pickles) are rejected with a clear error.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from collections import OrderedDict
from typing import Any, BinaryIO, Union

import numpy as np

import sdk
from sdk import _C
from sdk._dtype import DTYPES, as_dtype, check_raw_tensor

__all__ = ["save", "load"]

FORMAT = "sdk.save"
VERSION = 1
_MANIFEST = "manifest.json"

PathLike = Union[str, "os.PathLike[str]", BinaryIO]


def _dtype_name(t: Any) -> str:
    return str(t.dtype).rsplit(".", 1)[-1]


def _tensor_to_numpy(t: Any) -> np.ndarray:
    a = _C._alias(t)
    if _dtype_name(a) == "bfloat16":
        # bfloat16 is the upper half of a float32: float32 holds it exactly, and its top
        # 16 bits are the bfloat16 bit pattern.
        f = np.array(a.to(sdk.float32), dtype=np.float32, copy=True)
        return (f.view(np.uint32) >> 16).astype(np.uint16)
    if _dtype_name(a).startswith("float8_"):  # the codes themselves
        return np.array(a.contiguous().view(sdk.uint8), order="C", copy=True)
    return np.array(a, order="C", copy=True)


def _numpy_to_tensor(arr: np.ndarray, dtype_name: str) -> Any:
    if dtype_name == "bfloat16":
        if arr.dtype != np.uint16:
            raise ValueError("sdk.load: a bfloat16 member must be stored as uint16")
        f = (arr.astype(np.uint32) << 16).view(np.float32)
        return sdk.tensor(np.array(f, order="C", copy=True)).to(sdk.bfloat16)
    if dtype_name.startswith("float8_") and dtype_name in _FLOATING:
        if arr.dtype != np.uint8:
            raise ValueError(f"sdk.load: a {dtype_name} member must be stored as uint8")
        return sdk.tensor(np.array(arr, order="C", copy=True)).view(getattr(sdk, dtype_name))
    expected = getattr(sdk, dtype_name, None)
    if expected is None:
        raise ValueError(f"sdk.load: unknown dtype {dtype_name!r} in the manifest")
    t = sdk.tensor(np.array(arr, order="C", copy=True))
    if t.dtype != expected:
        t = t.to(expected)
    return t


class _Writer:
    def __init__(self) -> None:
        self.arrays: list[tuple[str, np.ndarray]] = []

    def node(self, obj: Any) -> dict:
        if isinstance(obj, _C.TensorBase):
            key = f"t{len(self.arrays)}"
            self.arrays.append((key, _tensor_to_numpy(obj)))
            from sdk.nn.parameter import Parameter  # lazy: loads all of sdk.nn

            return {
                "type": "tensor",
                "key": key,
                "dtype": _dtype_name(obj),
                "shape": list(obj.shape),
                "requires_grad": bool(obj._requires_grad and obj.grad_fn is None),
                "parameter": isinstance(obj, Parameter),
            }
        if obj is None:
            return {"type": "none"}
        if isinstance(obj, bool):
            return {"type": "bool", "value": obj}
        if isinstance(obj, int):
            return {"type": "int", "value": int(obj)}
        if isinstance(obj, float):
            v: Any = obj if math.isfinite(obj) else repr(obj)
            return {"type": "float", "value": v}
        if isinstance(obj, str):
            return {"type": "str", "value": obj}
        if isinstance(obj, dict):
            items = []
            for k, v in obj.items():
                if not isinstance(k, (str, int, float, bool)) and k is not None:
                    raise TypeError(
                        f"sdk.save: dict keys must be str/int/float/bool/None, got {type(k).__name__}"
                    )
                items.append([k if isinstance(k, str) else self.node(k), self.node(v)])
            return {"type": "dict", "ordered": isinstance(obj, OrderedDict), "items": items}
        if isinstance(obj, (list, tuple)):
            return {
                "type": "tuple" if isinstance(obj, tuple) else "list",
                "items": [self.node(v) for v in obj],
            }
        if isinstance(obj, np.ndarray):
            return self.node(sdk.tensor(obj))
        if isinstance(obj, np.generic):
            return self.node(obj.item())
        raise TypeError(
            f"sdk.save: cannot save an object of type {type(obj).__name__}; supported: tensors, "
            "dict/list/tuple of them, int, float, bool, str, None"
        )


def save(obj: Any, f: PathLike) -> None:
    """Save tensors / nested dicts, lists, tuples of tensors and plain scalars to `f`."""
    writer = _Writer()
    root = writer.node(obj)
    manifest = {"format": FORMAT, "version": VERSION, "root": root}
    fh: Any = open(f, "wb") if isinstance(f, (str, os.PathLike)) else f
    try:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED) as zf:
            zf.writestr(_MANIFEST, json.dumps(manifest))
            for key, arr in writer.arrays:
                buf = io.BytesIO()
                np.lib.format.write_array(buf, arr, allow_pickle=False)
                zf.writestr(key + ".npy", buf.getvalue())
    finally:
        if fh is not f:
            fh.close()


class _Members:
    """The .npy members of an archive, each checked against the bytes present before it is
    read: the zip entry's sizes, the .npy header's dtype and shape, and the manifest's."""

    def __init__(self, zf: zipfile.ZipFile, name: Any, size: int) -> None:
        self.zf, self.name, self.size = zf, name, size

    def _fail(self, key: str, field: str, why: str) -> ValueError:
        return ValueError(f"sdk.load: {self.name}: member {key!r}: {field}: {why}")

    def read(self, key: str, dtype_name: str, shape: list[int]) -> np.ndarray:
        member = key + ".npy"
        try:
            info = self.zf.getinfo(member)
        except KeyError:
            raise ValueError(
                f"sdk.load: {self.name}: the manifest refers to a missing member {key!r}"
            ) from None
        why = _entry_problem(info, self.size)
        if why:
            raise self._fail(key, "size", why)
        expected = _stored_dtype(dtype_name)
        try:
            with self.zf.open(info) as fp:
                version = np.lib.format.read_magic(fp)
                if version not in ((1, 0), (2, 0)):
                    raise ValueError(f"unknown .npy format version {version}")
                header = (
                    np.lib.format.read_array_header_1_0
                    if version == (1, 0)
                    else np.lib.format.read_array_header_2_0
                )
                arr_shape, fortran, arr_dtype = header(fp)
                if arr_dtype.hasobject:
                    raise self._fail(
                        key,
                        "dtype",
                        "refusing pickled data (an object array; sdk.load never unpickles)",
                    )
                if list(arr_shape) != shape:
                    raise self._fail(
                        key, "shape", f"{list(arr_shape)} in the member, {shape} in the manifest"
                    )
                if (
                    arr_dtype.fields is not None
                    or arr_dtype.subdtype is not None
                    or arr_dtype.kind != expected.kind
                    or arr_dtype.itemsize != expected.itemsize
                ):
                    raise self._fail(
                        key, "dtype", f"{arr_dtype} in the member, {dtype_name} in the manifest"
                    )
                raw = fp.read(max(0, info.file_size - fp.tell()))  # at most what was checked
        except ValueError as e:
            if str(e).startswith("sdk.load"):
                raise
            raise self._fail(key, "header", str(e)) from None
        except (zipfile.BadZipFile, EOFError, OSError, SyntaxError, RuntimeError) as e:
            raise self._fail(key, "data", f"{type(e).__name__}: {e}") from None
        # byte count (and bool values) against the shape, as for a pickled tensor
        check_raw_tensor(raw, as_dtype(dtype_name), shape, f"sdk.load: {self.name}: member {key!r}")
        arr = np.frombuffer(raw, dtype=arr_dtype).reshape(arr_shape, order="F" if fortran else "C")
        return arr.astype(expected.newbyteorder("="), copy=False)


_MAX_DEFLATE_RATIO = 1032  # deflate never expands more: a larger uncompressed size is a lie


def _entry_problem(info: zipfile.ZipInfo, archive_size: int) -> str | None:
    """Why a zip entry's sizes cannot be right for an archive of `archive_size` bytes (its
    bytes would lie past the end, or it would inflate more than deflate can), else None:
    checked before the entry is read, so that nothing is allocated for a lie."""
    if info.compress_type == zipfile.ZIP_STORED:
        limit = info.compress_size
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        limit = info.compress_size * _MAX_DEFLATE_RATIO
    else:
        return f"compression method {info.compress_type} is not read"
    if info.header_offset + info.compress_size > archive_size or info.file_size > limit:
        return f"{info.file_size} bytes declared, more than the archive holds ({archive_size})"
    return None


def _stored_dtype(name: Any) -> np.dtype:
    """The numpy dtype a tensor of sdk dtype `name` is stored as (bfloat16: uint16)."""
    for d in DTYPES:
        if d.name == name:
            if name.startswith("float8_"):
                return np.dtype(np.uint8)
            return np.dtype(np.uint16 if name == "bfloat16" else d._np)
    known = ", ".join(d.name for d in DTYPES)
    raise ValueError(f"sdk.load: unknown dtype {name!r} in the manifest (known: {known})")


def _field(node: dict, name: str, types: Any, what: str) -> Any:
    """node[name] when it is one of `types`; ValueError naming the field otherwise."""
    if name not in node:
        raise ValueError(f"sdk.load: malformed manifest: a {what} node has no {name!r}")
    value = node[name]
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _tuple(types)):
        raise ValueError(
            f"sdk.load: malformed manifest: {what} {name!r} is {type(value).__name__}: "
            f"{value!r:.60}"
        )
    return value


def _tuple(types: Any) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _read_tensor(node: dict, members: _Members) -> Any:
    key = _field(node, "key", str, "tensor")
    dtype_name = _field(node, "dtype", str, "tensor")
    shape = _field(node, "shape", list, "tensor")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
        raise ValueError(f"sdk.load: malformed manifest: tensor shape {shape!r:.60}")
    parameter = bool(node.get("parameter", False))
    requires_grad = bool(node.get("requires_grad", parameter))  # parameters: True unless said
    if requires_grad and dtype_name not in _FLOATING:
        raise ValueError(
            f"sdk.load: member {key!r}: requires_grad: only floating point tensors can, not "
            f"{dtype_name}"
        )
    t = _numpy_to_tensor(members.read(key, dtype_name, shape), dtype_name)
    if parameter:
        from sdk.nn.parameter import Parameter  # lazy: loads all of sdk.nn

        return Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


_FLOATING = frozenset(d.name for d in DTYPES if d.is_floating_point)
_SCALARS = {"bool": bool, "int": int, "str": str}


def _read_node(node: Any, members: _Members) -> Any:
    """The object a manifest node describes; ValueError for any node of the wrong shape."""
    if not isinstance(node, dict) or not isinstance(node.get("type"), str):
        raise ValueError(f"sdk.load: malformed manifest node {node!r:.60}")
    kind = node["type"]
    if kind == "tensor":
        return _read_tensor(node, members)
    if kind == "none":
        return None
    if kind in _SCALARS:
        return _field(node, "value", _SCALARS[kind], kind)
    if kind == "float":
        value = _field(node, "value", (int, float, str), kind)
        if isinstance(value, str) and value not in ("inf", "-inf", "nan"):
            raise ValueError(f"sdk.load: malformed manifest: float value {value!r:.60}")
        return float(value)
    if kind in ("list", "tuple"):
        items = [_read_node(v, members) for v in _field(node, "items", list, kind)]
        return tuple(items) if kind == "tuple" else items
    if kind == "dict":
        out: dict = OrderedDict() if node.get("ordered") else {}
        for item in _field(node, "items", list, kind):
            if not isinstance(item, list) or len(item) != 2:
                raise ValueError(f"sdk.load: malformed manifest: dict item {item!r:.60}")
            k, v = item
            key = k if isinstance(k, str) else _read_node(k, members)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise ValueError(f"sdk.load: malformed manifest: dict key {k!r:.60}")
            out[key] = _read_node(v, members)
        return out
    raise ValueError(f"sdk.load: unknown node type {kind!r:.60} in the manifest")


def load(f: PathLike) -> Any:
    """Load what ``sdk.save`` wrote. Never unpickles; refuses anything else with ValueError
    (a manifest of the wrong shape, a member whose sizes, dtype or shape disagree with the
    manifest or with the bytes present)."""
    fh: Any = open(f, "rb") if isinstance(f, (str, os.PathLike)) else f
    try:
        data = fh.read()
    finally:
        if fh is not f:
            fh.close()
    name = f if isinstance(f, (str, os.PathLike)) else "<file object>"
    if not zipfile.is_zipfile(io.BytesIO(data)):
        hint = " (it looks like a pickle, which sdk.load never runs)" if data[:1] == b"\x80" else ""
        raise ValueError(f"sdk.load: {name} is not an sdk.save archive{hint}")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
        raise ValueError(f"sdk.load: {name} is a damaged archive: {e}") from None
    with zf:
        try:
            why = _entry_problem(zf.getinfo(_MANIFEST), len(data))
            if why:
                raise ValueError(why)
            raw = zf.read(_MANIFEST)
        except KeyError:
            raise ValueError(
                f"sdk.load: {name} has no {_MANIFEST}; not an sdk.save archive"
            ) from None
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError) as e:
            raise ValueError(f"sdk.load: {name} has an unreadable manifest: {e}") from None
        try:
            manifest = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            raise ValueError(f"sdk.load: {name} has an unreadable manifest: {e}") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            what = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
            raise ValueError(f"sdk.load: {name} is not an sdk.save archive (format {what!r:.60})")
        version = manifest.get("version", 0)
        if not isinstance(version, int) or isinstance(version, bool):
            raise ValueError(f"sdk.load: {name}: malformed manifest: version {version!r:.60}")
        if version > VERSION:
            raise ValueError(
                f"sdk.load: {name} has format version {version}; this sdk reads up to {VERSION}"
            )
        if "root" not in manifest:
            raise ValueError(f"sdk.load: {name}: malformed manifest: no 'root'")
        try:
            return _read_node(manifest["root"], _Members(zf, name, len(data)))
        except RecursionError:
            raise ValueError(f"sdk.load: {name}: the manifest is nested too deeply") from None
