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
  bit pattern; the manifest's ``dtype`` says how to read it back.

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

__all__ = ["save", "load"]

FORMAT = "sdk.save"
VERSION = 1
_MANIFEST = "manifest.json"

PathLike = Union[str, "os.PathLike[str]", BinaryIO]


def _dtype_name(t: Any) -> str:
    return str(t.dtype).rsplit(".", 1)[-1]


def _tensor_to_numpy(t: Any) -> np.ndarray:
    import sdk
    from sdk import _C

    a = _C._alias(t)
    if _dtype_name(a) == "bfloat16":
        # bfloat16 is the upper half of a float32: float32 holds it exactly, and its top
        # 16 bits are the bfloat16 bit pattern.
        f = np.array(a.to(sdk.float32), dtype=np.float32, copy=True)
        return (f.view(np.uint32) >> 16).astype(np.uint16)
    return np.array(a, order="C", copy=True)


def _numpy_to_tensor(arr: np.ndarray, dtype_name: str) -> Any:
    import sdk

    if dtype_name == "bfloat16":
        if arr.dtype != np.uint16:
            raise ValueError("sdk.load: a bfloat16 member must be stored as uint16")
        f = (arr.astype(np.uint32) << 16).view(np.float32)
        return sdk.tensor(np.array(f, order="C", copy=True)).to(sdk.bfloat16)
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
        from sdk import _C

        if isinstance(obj, _C.TensorBase):
            key = f"t{len(self.arrays)}"
            self.arrays.append((key, _tensor_to_numpy(obj)))
            from sdk.nn.parameter import Parameter

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
            import sdk

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


def _read_node(node: Any, arrays: Any, seen: set) -> Any:
    if not isinstance(node, dict) or "type" not in node:
        raise ValueError("sdk.load: malformed manifest node")
    kind = node["type"]
    if kind == "tensor":
        key = node["key"]
        if not isinstance(key, str) or key not in arrays.files:
            raise ValueError(f"sdk.load: manifest refers to a missing member {key!r}")
        arr = arrays[key]
        if not isinstance(arr, np.ndarray):
            raise ValueError(f"sdk.load: member {key!r} is not a .npy array")
        if list(arr.shape) != list(node.get("shape", arr.shape)):
            raise ValueError(
                f"sdk.load: member {key!r} has shape {list(arr.shape)}, manifest says {node['shape']}"
            )
        t = _numpy_to_tensor(arr, node["dtype"])
        if node.get("parameter"):
            from sdk.nn.parameter import Parameter

            return Parameter(t, requires_grad=bool(node.get("requires_grad", True)))
        if node.get("requires_grad"):
            t.requires_grad_(True)
        return t
    if kind == "none":
        return None
    if kind in ("bool", "int", "str"):
        return {"bool": bool, "int": int, "str": str}[kind](node["value"])
    if kind == "float":
        return float(node["value"])
    if kind in ("list", "tuple"):
        items = [_read_node(v, arrays, seen) for v in node["items"]]
        return tuple(items) if kind == "tuple" else items
    if kind == "dict":
        out: dict = OrderedDict() if node.get("ordered") else {}
        for k, v in node["items"]:
            key = k if isinstance(k, str) else _read_node(k, arrays, seen)
            out[key] = _read_node(v, arrays, seen)
        return out
    raise ValueError(f"sdk.load: unknown node type {kind!r} in the manifest")


def load(f: PathLike) -> Any:
    """Load what ``sdk.save`` wrote. Never unpickles; refuses anything else."""
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
        arrays = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as e:
        raise ValueError(f"sdk.load: refusing to load {name}: {e}") from None
    with arrays:
        if _MANIFEST not in arrays.files:
            raise ValueError(f"sdk.load: {name} has no {_MANIFEST}; not an sdk.save archive")
        raw = arrays.zip.read(_MANIFEST)
        try:
            manifest = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(f"sdk.load: {name} has an unreadable manifest: {e}") from None
        if manifest.get("format") != FORMAT:
            raise ValueError(
                f"sdk.load: {name} is not an sdk.save archive (format {manifest.get('format')!r})"
            )
        if manifest.get("version", 0) > VERSION:
            raise ValueError(
                f"sdk.load: {name} has format version {manifest['version']}; this sdk reads up to {VERSION}"
            )
        try:
            return _read_node(manifest["root"], arrays, set())
        except ValueError as e:
            if "allow_pickle" in str(e) or "pickled" in str(e):
                raise ValueError(f"sdk.load: refusing pickled data in {name}: {e}") from None
            raise
