"""Every status-returning function of sdk/c_api.h called through ctypes with NULL pointers and
bogus enum codes (run in a child by test_no_crash.py; one line per case on stdout)."""

from __future__ import annotations

import ctypes
import re
import sys
from pathlib import Path

import sdk

HEADER = Path(sdk.get_include()) / "sdk" / "c_api.h"


class Scalar(ctypes.Structure):
    _fields_ = [("f", ctypes.c_double), ("i", ctypes.c_int64), ("kind", ctypes.c_int32),
                ("padding", ctypes.c_int32)]  # fmt: skip


class Device(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int32), ("index", ctypes.c_int32)]


INTS = {"int64_t": ctypes.c_int64, "int32_t": ctypes.c_int32, "sdk_dtype": ctypes.c_int32,
        "sdk_status": ctypes.c_int32, "size_t": ctypes.c_size_t, "uint64_t": ctypes.c_uint64,
        "int": ctypes.c_int, "double": ctypes.c_double, "uint32_t": ctypes.c_uint32}  # fmt: skip
# Not fallible on bad input by design: the error-state accessors themselves.
SKIP = {"sdk_last_error_kind", "sdk_set_last_error"}


def declarations():
    """(name, [param type strings]) of every function returning sdk_status."""
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    out = []
    for m in re.finditer(r"SDK_API\s+sdk_status\s+(\w+)\s*\(([^)]*)\)\s*;", text):
        params = [p.strip() for p in m.group(2).replace("\n", " ").split(",") if p.strip()]
        types = [re.sub(r"\s*\b\w+$", "", p) if not p.endswith("*") else p for p in params]
        types = [t.replace("const ", "").strip() for t in types]
        if m.group(1) not in SKIP:
            out.append((m.group(1), [t for t in types if t not in ("", "void")]))
    return out


def arg_sets(types):
    """Argument tuples: all NULL/zero, then bogus codes (-1, 99, huge) for the integers."""

    def make(intval, kind, dev):
        args = []
        for t in types:
            if "*" in t or t in ("sdk_deleter",) or t.endswith("_fn"):
                args.append(None)
            elif t == "sdk_scalar":
                args.append(Scalar(float("nan"), intval, kind, 0))
            elif t == "sdk_device":
                args.append(Device(dev, 7))
            elif t == "double":
                args.append(ctypes.c_double(float("nan")))
            elif t in INTS:
                args.append(INTS[t](intval))
            else:
                args.append(None)
        return args

    return [make(0, 0, 1), make(-1, 7, 99), make(99, -1, 0), make(2**40, 2, 2)]


def cases():
    lib = ctypes.CDLL(sdk.get_library_path())
    lib.sdk_last_error_message.restype = ctypes.c_char_p
    out = []
    for name, types in declarations():
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int32
        for k, args in enumerate(arg_sets(types)):
            out.append((f"{name}#{k}", fn, args, lib))
    return out


def main(start: int) -> None:
    all_cases = cases()
    if start < 0:
        print(len(all_cases))
        return
    for i in range(start, len(all_cases)):
        label, fn, args, lib = all_cases[i]
        sys.stdout.write(f"START {i}\n")
        sys.stdout.flush()
        status = fn(*args)
        msg = lib.sdk_last_error_message() or b""
        if status == 0:
            sys.stdout.write(f"OK {i} {label} (status 0 with NULL/bogus arguments)\n")
        elif not msg:
            sys.stdout.write(f"BAD {i} {label}: status {status} without a message\n")
        else:
            sys.stdout.write(f"RAISED {i}\n")


if __name__ == "__main__":
    main(int(sys.argv[1]))
