"""Adversarial calls of every public sdk function and Tensor method, run by test_no_crash.py
in a child process (python -m tests.qa.crash_cases START): one line per case on stdout."""

from __future__ import annotations

import inspect
import math
import sys

import numpy as np

import sdk

# Exceptions that are a sensible answer to bad input; anything else is reported.
SENSIBLE = (TypeError, ValueError, IndexError, RuntimeError, NotImplementedError, OverflowError,
            MemoryError, ZeroDivisionError, OSError)  # fmt: skip


def values():
    """Adversarial arguments (name, factory) -- factories so aliasing/in-place cannot leak."""
    f = sdk.float32
    return [
        ("None", lambda: None),
        ("str", lambda: "abc"),
        ("list", lambda: [1, 2]),
        ("nested_ragged", lambda: [[1, 2], [3]]),
        ("huge_int", lambda: 2**62),
        ("neg_int", lambda: -5),
        ("int_2", lambda: 2),
        ("float_nan", lambda: math.nan),
        ("float_inf", lambda: math.inf),
        ("bool", lambda: True),
        ("dtype", lambda: sdk.int64),
        ("tuple_neg", lambda: (-1, -2)),
        ("tuple_huge", lambda: (2**40, 2**40)),
        ("t_0d", lambda: sdk.tensor(1.5)),
        ("t_empty", lambda: sdk.empty(0, 3)),
        ("t_empty1", lambda: sdk.empty(0)),
        ("t_2x3", lambda: sdk.randn(2, 3)),
        ("t_3x2_T", lambda: sdk.randn(2, 3).t()),
        ("t_strided", lambda: sdk.randn(4, 6)[::2, ::3]),
        ("t_expanded", lambda: sdk.randn(1, 3).expand(4, 3)),
        ("t_nan", lambda: sdk.tensor([math.nan, math.inf, -math.inf, 0.0])),
        ("t_bool", lambda: sdk.tensor([[True, False, True]])),
        ("t_int", lambda: sdk.tensor([[1, 0, -2]])),
        ("t_u8", lambda: sdk.tensor([[0, 255, 7]], dtype=sdk.uint8)),
        ("t_f16", lambda: sdk.randn(2, 3).half()),
        ("t_bf16", lambda: sdk.randn(2, 3).bfloat16()),
        ("t_f64_4d", lambda: sdk.randn(2, 1, 3, 1, dtype=sdk.float64)),
        ("t_grad", lambda: sdk.randn(2, 3, requires_grad=True)),
        ("t_long_idx", lambda: sdk.tensor([0, 5, -9])),
        ("np_arr", lambda: np.ones((2, 3), dtype=np.float32)),
        ("np_f64_nc", lambda: np.ones((3, 4))[:, ::2]),
        ("t_big1d", lambda: sdk.arange(1000, dtype=f)),
    ]


def public_functions():
    out = []
    for name in sorted(sdk.__all__):
        obj = getattr(sdk, name, None)
        if callable(obj) and not isinstance(obj, type) and not isinstance(obj, sdk.dtype):
            if name in ("set_num_threads", "set_default_dtype", "manual_seed", "set_printoptions"):
                continue  # global state: covered separately
            out.append(("sdk." + name, obj))
    return out


def tensor_methods():
    out = []
    skip = {"backward", "register_hook", "apply_", "cuda", "numpy", "tolist", "__reduce_ex__",
            "__deepcopy__", "retain_grad", "share_memory_", "__dlpack__", "data_ptr",
            "__setattr__", "__delattr__", "__init__", "__new__", "__init_subclass__", "__getattribute__",
            "__reduce__", "__subclasshook__", "__class__", "__dir__", "__sizeof__", "__format__"}  # fmt: skip
    for name in sorted(dir(sdk.Tensor)):
        if name in skip or (name.startswith("_") and not name.startswith("__")):
            continue
        attr = inspect.getattr_static(sdk.Tensor, name)
        if isinstance(attr, property) or not callable(getattr(sdk.Tensor, name)):
            continue
        out.append(("Tensor." + name, name))
    return out


def cases():
    """(label, thunk) for every case, deterministic order."""
    vals = values()
    base = [("t_2x3", lambda: sdk.randn(2, 3)), ("t_int", lambda: sdk.tensor([[1, 0, -2]])),
            ("t_empty", lambda: sdk.empty(0, 3)), ("t_0d", lambda: sdk.tensor(1.5)),
            ("t_bool", lambda: sdk.tensor([[True, False, True]]))]  # fmt: skip
    out = []
    for fname, fn in public_functions():
        out.append((f"{fname}()", lambda fn=fn: fn()))
        for vn, v in vals:
            out.append((f"{fname}({vn})", lambda fn=fn, v=v: fn(v())))
        for bn, b in base:
            for vn, v in vals:
                out.append((f"{fname}({bn}, {vn})", lambda fn=fn, b=b, v=v: fn(b(), v())))
            out.append((f"{fname}({bn}, {bn}, {bn})", lambda fn=fn, b=b: fn(b(), b(), b())))
    for label, name in tensor_methods():
        for bn, b in base:
            out.append((f"{label}[{bn}]()", lambda name=name, b=b: getattr(b(), name)()))
            for vn, v in vals:
                out.append(
                    (f"{label}[{bn}]({vn})", lambda name=name, b=b, v=v: getattr(b(), name)(v()))
                )
            out.append((f"{label}[{bn}](0, 99)", lambda name=name, b=b: getattr(b(), name)(0, 99)))
            out.append((f"{label}[{bn}](-9, 1)", lambda name=name, b=b: getattr(b(), name)(-9, 1)))
    out += special_cases()
    return out


def special_cases():
    """Hand-written cases: aliasing out=, huge sizes, bad index tensors, serialization junk."""
    t = lambda: sdk.randn(3, 4)  # noqa: E731
    sc = []

    def add(label, fn):
        sc.append((label, fn))

    for op in ("add", "sub", "mul", "div", "maximum", "pow", "atan2", "remainder"):
        add(f"{op} out=input", lambda op=op: (lambda a: getattr(sdk, op)(a, a, out=a))(t()))
        add(
            f"{op} out=view", lambda op=op: (lambda a: getattr(sdk, op)(a, a[0], out=a[:, :1]))(t())
        )
        add(f"{op} out=T", lambda op=op: (lambda a: getattr(sdk, op)(a.t(), 1, out=a))(t()))
        add(
            f"{op} out=int",
            lambda op=op: getattr(sdk, op)(t(), 2, out=sdk.empty(3, 4, dtype=sdk.int32)),
        )
        add(f"{op} out=wrong", lambda op=op: getattr(sdk, op)(t(), 2, out=sdk.empty(7)))
    for op in ("mm", "matmul", "bmm"):
        add(
            f"{op} out=input",
            lambda op=op: (lambda a: getattr(sdk, op)(a, a, out=a))(sdk.randn(3, 3)),
        )
        add(
            f"{op} out=expanded",
            lambda op=op: getattr(sdk, op)(
                sdk.randn(3, 3), sdk.randn(3, 3), out=sdk.zeros(1, 3).expand(3, 3)
            ),
        )
    add("addmm out=bias", lambda: (lambda b: sdk.addmm(b, b, b, out=b))(sdk.randn(3, 3)))
    add("cat out=input", lambda: (lambda a: sdk.cat([a, a], out=a))(t()))
    add("empty huge", lambda: sdk.empty(2**62))
    add("empty huge2", lambda: sdk.empty(2**31, 2**31, 2**31))
    add("zeros neg", lambda: sdk.zeros(-1, 3))
    add("ones overflow", lambda: sdk.ones(2**63 - 1, 2))
    add("full nan int", lambda: sdk.full((2,), math.nan, dtype=sdk.int64))
    add("full inf int", lambda: sdk.full((2,), math.inf, dtype=sdk.int32))
    add("tensor nan int", lambda: sdk.tensor([math.nan], dtype=sdk.int64))
    add("tensor huge int", lambda: sdk.tensor([2**70]))
    add("tensor obj", lambda: sdk.tensor([object()]))
    add(
        "tensor deep",
        lambda: sdk.tensor(
            [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
        ),
    )
    add("arange huge", lambda: sdk.arange(0, 2**62, 1))
    add("arange zero step", lambda: sdk.arange(0, 10, 0))
    add("arange nan", lambda: sdk.arange(0, math.nan))
    add("linspace neg", lambda: sdk.linspace(0, 1, -3))
    add("randint empty range", lambda: sdk.randint(5, 5, (3,)))
    add("randperm neg", lambda: sdk.randperm(-1))
    add("view huge", lambda: t().view(2**40, -1))
    add("view bad", lambda: t().t().view(12))
    add("reshape -1 -1", lambda: t().reshape(-1, -1))
    add("expand smaller", lambda: t().expand(2, 4))
    add("expand neg", lambda: t().expand(-2, 4))
    add("permute dup", lambda: t().permute(0, 0))
    add("index huge", lambda: t()[sdk.tensor([2**40])])
    add("index neg huge", lambda: t()[sdk.tensor([-(2**40)])])
    add("index float tensor", lambda: t()[sdk.tensor([0.5])])
    add("index bool wrong", lambda: t()[sdk.tensor([True, False])])
    add("index too many", lambda: t()[0, 0, 0])
    add("index 2 ellipsis", lambda: t()[..., ...])
    add("setitem bad shape", lambda: t().__setitem__(0, sdk.ones(5)))
    add("setitem huge idx", lambda: t().__setitem__(sdk.tensor([99]), 1.0))
    add("gather bad idx", lambda: t().gather(1, sdk.tensor([[99]])))
    add("gather neg idx", lambda: t().gather(1, sdk.tensor([[-99]])))
    add(
        "scatter_add bad idx",
        lambda: sdk.zeros(3, 4).scatter_add(1, sdk.tensor([[99]]), sdk.ones(1, 1)),
    )
    add("index_select bad", lambda: t().index_select(0, sdk.tensor([7])))
    add("index_add bad", lambda: t().index_add(0, sdk.tensor([7]), sdk.ones(1, 4)))
    add("index_put bad", lambda: t().index_put_((sdk.tensor([7]),), sdk.tensor(1.0)))
    add("masked_fill bad mask", lambda: t().masked_fill(sdk.ones(3, 4), 1.0))
    add("where int cond", lambda: sdk.where(sdk.ones(3, 4), t(), t()))
    add("split zero", lambda: t().split(0))
    add("chunk zero", lambda: t().chunk(0))
    add("chunk neg", lambda: t().chunk(-1))
    add("narrow oob", lambda: t().narrow(0, 2, 5))
    add("select oob", lambda: t().select(0, 3))
    add("unbind empty", lambda: sdk.empty(0, 3).unbind(1))
    add("stack mismatch", lambda: sdk.stack([sdk.ones(2), sdk.ones(3)]))
    add("stack empty list", lambda: sdk.stack([]))
    add("cat empty list", lambda: sdk.cat([]))
    add("cat 0d", lambda: sdk.cat([sdk.tensor(1.0), sdk.tensor(2.0)]))
    add("matmul 0d", lambda: sdk.matmul(sdk.tensor(1.0), sdk.tensor(2.0)))
    add("softmax empty", lambda: sdk.softmax(sdk.empty(0, 3), 1))
    add("softmax dim oob", lambda: sdk.softmax(t(), 5))
    add("sum dim dup", lambda: t().sum((0, 0)))
    add("sum dim oob", lambda: t().sum(9))
    add("var empty", lambda: sdk.empty(0).var())
    add("max empty", lambda: sdk.empty(0).max())
    add("argmax empty dim", lambda: sdk.empty(0, 3).argmax(1))
    add("from_dlpack junk", lambda: sdk.from_dlpack(object()))
    add("from_numpy obj", lambda: sdk.from_numpy(np.array([object()])))
    add("from_numpy complex256", lambda: sdk.from_numpy(np.ones(2, dtype=np.clongdouble)))
    add(
        "from_numpy readonly",
        lambda: sdk.from_numpy(np.frombuffer(b"\0" * 16, dtype=np.float32)).fill_(1),
    )
    add("from_numpy neg strides", lambda: sdk.from_numpy(np.arange(6.0)[::-1]))
    add("from_numpy 0 strides", lambda: sdk.from_numpy(np.broadcast_to(np.ones(3), (4, 3))))
    add(
        "from_numpy unaligned",
        lambda: sdk.from_numpy(np.frombuffer(b"\0" * 17, dtype=np.uint8)[1:].view(np.float32)),
    )
    add("from_numpy big-endian", lambda: sdk.from_numpy(np.ones(3, dtype=">f4")))
    add("as_tensor generator", lambda: sdk.as_tensor(x for x in range(3)))
    add("tensor dict", lambda: sdk.tensor({1: 2}))
    add("to bad dtype", lambda: t().to("float99"))
    add("to device cuda:99", lambda: t().to("cuda:99"))
    add("to device junk", lambda: t().to("tpu"))
    add("item of many", lambda: t().item())
    add("bool of many", lambda: bool(t()))
    add("int of empty", lambda: int(sdk.empty(0)))
    add("len 0d", lambda: len(sdk.tensor(1.0)))
    add("iter 0d", lambda: list(sdk.tensor(1.0)))
    add("hash", lambda: hash(t()))
    add("save junk path", lambda: sdk.save(t(), "/nonexistent/dir/x.pt"))
    add("load junk", lambda: sdk.load("/etc/hostname"))
    add("load missing", lambda: sdk.load("/nonexistent.pt"))
    add(
        "backward twice",
        lambda: (lambda y: (y.backward(), y.backward()))(
            (sdk.randn(2, requires_grad=True) * 2).sum()
        ),
    )
    add("backward non-scalar", lambda: (sdk.randn(2, requires_grad=True) * 2).backward())
    add("backward no grad", lambda: sdk.randn(2).sum().backward())
    add("grad bad shape", lambda: (sdk.randn(2, requires_grad=True) * 2).backward(sdk.ones(3)))
    add("requires_grad int", lambda: sdk.tensor([1, 2]).requires_grad_())
    add("set_num_threads 0", lambda: sdk.set_num_threads(0))
    add("set_num_threads neg", lambda: sdk.set_num_threads(-3))
    add("set_default_dtype int", lambda: sdk.set_default_dtype(sdk.int64))
    add("manual_seed neg", lambda: sdk.manual_seed(-1))
    add("manual_seed huge", lambda: sdk.manual_seed(2**70))
    add("pow neg int", lambda: sdk.tensor([2, 3]) ** -1)
    add("int div zero", lambda: sdk.tensor([2, 3]) // 0)
    add("int rem zero", lambda: sdk.tensor([2, 3]) % 0)
    add("int min div -1", lambda: sdk.tensor([-(2**63)]) // -1)
    add("int min rem -1", lambda: sdk.tensor([-(2**63)]) % -1)
    add("int8 min div -1", lambda: sdk.tensor([-128], dtype=sdk.int8) // -1)
    add("abs int min", lambda: sdk.tensor([-(2**63)]).abs())
    add("float to int nan", lambda: sdk.tensor([math.nan, math.inf]).long())
    add("float to u8 neg", lambda: sdk.tensor([-1.0, 1e10]).byte())
    add("clamp min>max", lambda: t().clamp(1, -1))
    add("clamp nan", lambda: t().clamp(math.nan, 1))
    add("normal_ neg std", lambda: t().normal_(0, -1))
    add("uniform_ reversed", lambda: t().uniform_(1, -1))
    add("random_ empty", lambda: t().random_(5, 5))
    add("empty_strided neg", lambda: sdk.empty_strided((2, 2), (-1, 1)))
    add("empty_strided overlap huge", lambda: sdk.empty_strided((2, 2), (2**61, 1)))
    add("deepcopy", lambda: __import__("copy").deepcopy(sdk.randn(2, requires_grad=True)))
    add("pickle", lambda: __import__("pickle").loads(__import__("pickle").dumps(t().t())))
    add("repr huge", lambda: repr(sdk.zeros(10**6)))
    add("repr nan 0d", lambda: repr(sdk.tensor(math.nan)))
    add("format", lambda: f"{t():.2f}")
    return sc


def main(start: int) -> None:
    all_cases = cases()
    if start < 0:
        print(len(all_cases))
        return
    write = sys.stdout.write
    for i in range(start, len(all_cases)):
        label, fn = all_cases[i]
        write(f"START {i}\n")
        sys.stdout.flush()
        try:
            fn()
            write(f"OK {i}\n")
        except SENSIBLE:
            write(f"RAISED {i}\n")
        except BaseException as e:  # noqa: BLE001  (reported, not hidden)
            msg = str(e).replace("\n", " ")[:150]
            write(f"BAD {i} {type(e).__name__}: {msg} | {label}\n")


if __name__ == "__main__":
    main(int(sys.argv[1]))
