"""sdk side by side with torch: values, dtypes and shapes of the same calls, gradients, repr."""

# ruff: noqa: B023  (the case tables bind loop variables in lambdas called at once)

from __future__ import annotations

import itertools
import operator

import numpy as np
import pytest

import sdk

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]  # fmt: skip


def to_sdk(x):
    """A torch value (tensor, or nested tuples/lists holding tensors) as sdk's."""
    if isinstance(x, torch.Tensor):
        if x.dtype == torch.bfloat16:
            return sdk.tensor(x.float().numpy()).to(sdk.bfloat16)
        return sdk.tensor(x.detach().numpy())
    if isinstance(x, (list, tuple)):
        return type(x)(to_sdk(v) for v in x)
    if isinstance(x, slice):
        return slice(to_sdk(x.start), to_sdk(x.stop), to_sdk(x.step))
    return x


def _np(t):
    t = t.detach()
    if t.dtype == sdk.bfloat16:
        t = t.float()
    return np.asarray(t.numpy())


def assert_same(s, t, tag=""):
    """sdk result `s` equals torch result `t`: type, dtype, shape and values."""
    if isinstance(t, torch.Tensor):
        assert isinstance(s, sdk.Tensor), f"{tag}: got {type(s).__name__}"
        assert s.dtype.name == str(t.dtype)[6:], f"{tag}: dtype {s.dtype} vs {t.dtype}"
        assert tuple(s.shape) == tuple(t.shape), f"{tag}: shape {tuple(s.shape)} vs {t.shape}"
        ref = (t.float() if t.dtype == torch.bfloat16 else t).detach().numpy()
        got = _np(s)
        if t.dtype.is_floating_point:
            lo = t.dtype in (torch.float16, torch.bfloat16)
            tol = 2e-2 if lo else (1e-5 if t.dtype == torch.float32 else 1e-10)
            np.testing.assert_allclose(got, ref, rtol=tol, atol=tol, equal_nan=True, err_msg=tag)
        else:
            np.testing.assert_array_equal(got, ref, err_msg=tag)
    elif isinstance(t, (tuple, list)):
        assert isinstance(s, (tuple, list)), f"{tag}: got {type(s).__name__}"
        assert len(s) == len(t), f"{tag}: {len(s)} results vs {len(t)}"
        for i, (a, b) in enumerate(zip(s, t)):
            assert_same(a, b, f"{tag}[{i}]")
    elif isinstance(t, float):
        assert s == pytest.approx(t, rel=1e-4), tag
    else:
        assert s == t, f"{tag}: {s!r} vs {t!r}"


def check(fn, *args, tag=""):
    """fn(module, *args) with torch and with sdk; when torch succeeds sdk must agree."""
    try:
        expected = fn(torch, *args)
    except Exception:
        return False  # torch rejects it: sdk may reject or extend
    got = fn(sdk, *to_sdk(args))
    assert_same(got, expected, tag)
    return True


def make(name, shape=(2, 3), seed=0):
    g = np.random.default_rng(seed)
    if name == "bool":
        a = g.random(shape) > 0.5
    elif name == "uint8":
        a = g.integers(0, 6, shape)
    elif name.startswith("int"):
        a = g.integers(-4, 6, shape)
    else:
        a = g.standard_normal(shape)
    return torch.tensor(a).to(getattr(torch, name))


# ---------------------------------------------------------------------------- elementwise

BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
    "lt": operator.lt, "le": operator.le, "eq": operator.eq, "ne": operator.ne,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "maximum": lambda a, b: a.maximum(b) if hasattr(a, "maximum") else None,
    "fn.maximum": "maximum", "fn.minimum": "minimum", "fn.atan2": "atan2", "fn.add": "add",
    "fn.mul": "mul", "fn.div": "div", "fn.sub": "sub", "fn.eq": "eq", "fn.logical_and": "logical_and",
    "fn.logical_xor": "logical_xor", "fn.where": "where", "fn.remainder": "remainder",
    "fn.floor_divide": "floor_divide", "fn.bitwise_and": "bitwise_and",
}  # fmt: skip


def _binary(name):
    op = BINARY[name]
    if op == "where":
        return lambda m, a, b: m.where(a > 0 if a.dtype != m.bool else a, a, b)
    if isinstance(op, str):
        return lambda m, a, b: getattr(m, op)(a, b)
    return lambda m, a, b: op(a, b)


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_binary_ops_dtype_pairs(a, b):
    ta, tb = make(a, seed=1), make(b, (3,), seed=2)  # (2, 3) with (3,): broadcasting too
    ran = [name for name in BINARY if check(_binary(name), ta, tb, tag=f"{name}({a},{b})")]
    assert ran or a == b == "bool"


SCALARS = [2, -3, 2.5, True, 1e10, 0.5]


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_scalar_ops(a, scalar):
    t = make(a, seed=3)
    ops = {
        "add": lambda m, x: x + scalar, "radd": lambda m, x: scalar + x,
        "sub": lambda m, x: x - scalar, "rsub": lambda m, x: scalar - x,
        "mul": lambda m, x: x * scalar, "rmul": lambda m, x: scalar * x,
        "div": lambda m, x: x / scalar, "rdiv": lambda m, x: scalar / x,
        "floordiv": lambda m, x: x // scalar, "mod": lambda m, x: x % scalar,
        "pow": lambda m, x: x**scalar if not isinstance(scalar, bool) else x * 1,
        "rpow": lambda m, x: scalar**x, "gt": lambda m, x: x > scalar, "eq": lambda m, x: x == scalar,
        "fn.add": lambda m, x: m.add(x, scalar), "fn.mul": lambda m, x: m.mul(x, scalar),
        "fn.maximum0": lambda m, x: m.clamp(x, min=scalar),
        "where": lambda m, x: m.where(x > 0, x, scalar), "where2": lambda m, x: m.where(x > 0, scalar, x),
        "masked_fill": lambda m, x: x.masked_fill(x > 0, scalar),
        "full_like": lambda m, x: m.full_like(x, scalar),
    }  # fmt: skip
    for name, fn in ops.items():
        if a == "float16" and scalar == 1e10 and name in ("pow", "rpow", "mul", "rmul", "fn.mul"):
            continue  # overflow to inf on both sides, torch raises for some
        check(fn, t, tag=f"{name}({a},{scalar!r})")


UNARY = ["neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu",
         "sign", "reciprocal", "square", "log1p", "expm1", "floor", "ceil", "round", "erf",
         "bitwise_not", "logical_not"]  # fmt: skip


@pytest.mark.parametrize("a", DTYPES)
def test_unary_ops(a):
    t = make(a, seed=4)
    ran = 0
    for name in UNARY:
        ran += check(lambda m, x: getattr(m, name)(x), t, tag=f"{name}({a})")
        ran += check(lambda m, x: getattr(x, name)(), t, tag=f"Tensor.{name}({a})")
    assert ran > 0


def test_special_values():
    t = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -1.0])
    for name in UNARY:
        if name != "sign":  # torch: sign(nan) == 0; sdk keeps nan as numpy does
            check(lambda m, x: getattr(m, name)(x), t, tag=name)
    for op in ("add", "mul", "truediv", "floordiv", "mod", "pow", "lt", "eq", "maximum"):
        check(_binary(op), t, t.flip(0), tag=op)
    check(lambda m, x: x.amax(), t)
    check(lambda m, x: x.sum(), t)
    check(lambda m, x: m.clamp(x, -0.5, 0.5), t)
    check(lambda m, x: m.softmax(x, 0), t[3:])


def test_integer_division_semantics():
    a = torch.tensor([-7, -6, -1, 0, 1, 6, 7])
    b = torch.tensor([2, -2, 3, -3, 2, 4, -4])
    for fn in (
        lambda m, x, y: x // y, lambda m, x, y: x % y, lambda m, x, y: x / y,
        lambda m, x, y: m.div(x, y, rounding_mode="floor"),
        lambda m, x, y: m.div(x, y, rounding_mode="trunc"),
        lambda m, x, y: m.remainder(x, y), lambda m, x, y: x.float() // y,
        lambda m, x, y: x.float() % y, lambda m, x, y: x // 2, lambda m, x, y: x % -3,
    ):  # fmt: skip
        assert check(fn, a, b)
    with pytest.raises((ZeroDivisionError, RuntimeError, ValueError)):
        sdk.tensor([1, 2]) // sdk.tensor([0, 1])


# ---------------------------------------------------------------------------- reductions

REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "std", "var",
              "logsumexp", "all", "any", "softmax", "log_softmax"]  # fmt: skip
DIMS = [(), (0,), (-1,), (1,), ((0, 2),), ((-1, 0),)]


@pytest.mark.parametrize(
    "dtype", ["float32", "float64", "int64", "bool", "float16", "uint8", "int32"]
)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions(name, dtype):
    t = make(dtype, (3, 4, 5), seed=5)
    for args in DIMS:
        for kw in ({}, {"keepdim": True}):
            check(lambda m, x: getattr(m, name)(x, *args, **kw), t, tag=f"{name}{args}{kw}")
            check(lambda m, x: getattr(x, name)(*args, **kw), t, tag=f"T.{name}{args}{kw}")
            check(lambda m, x: getattr(m, name)(x, dim=args[0], **kw) if args else 0, t)


def test_reduction_keywords():
    t = make("float32", (3, 4, 5), seed=6)
    for kw in ({"dim": 1}, {"dim": 1, "keepdim": True}, {"dim": (0, 1)}, {"dim": None},
               {"unbiased": False}, {"correction": 0}, {"dim": 1, "correction": 2}):  # fmt: skip
        for n in ("std", "var", "mean", "sum"):
            check(lambda m, x: getattr(m, n)(x, **kw), t, tag=f"{n}{kw}")
    for n in ("sum", "mean", "prod", "softmax", "log_softmax"):
        args = (1,) if "softmax" in n else ()
        assert check(lambda m, x: getattr(m, n)(x, *args, dtype=m.float64), t, tag=n)
    assert check(lambda m, x: m.sum(x.int(), dtype=m.int64), t)
    assert check(lambda m, x: x.max(dim=1).values, t)
    assert check(lambda m, x: x.min(1, keepdim=True).indices, t)
    assert check(lambda m, x: tuple(x.max(-1)), t)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0,)])
def test_reductions_of_empty(shape):
    t = torch.empty(shape)
    for n in ("sum", "mean", "prod", "amax", "max", "argmax", "all", "any", "std", "logsumexp"):
        for args in ((), (0,), (-1,)):
            check(lambda m, x: getattr(m, n)(x, *args) if n != "logsumexp" or args else 0, t)


def test_reductions_of_0d():
    t = torch.tensor(3.5)
    for n in ("sum", "mean", "prod", "amax", "max", "argmax", "all", "any", "softmax", "std"):
        for args in ((), (0,), (-1,)):
            if n == "softmax" and not args:
                continue
            check(lambda m, x: getattr(m, n)(x, *args), t, tag=f"{n}{args}")


# ---------------------------------------------------------------------------- indexing

X = torch.randn(4, 5, 6, generator=torch.Generator().manual_seed(0))
INDICES = [
    (0,), (-1,), (slice(None), 1), (Ellipsis, -1), (None, 0), (slice(1, None, 2),),
    (torch.tensor([0, 2]),), (torch.tensor([0, -1]),), (slice(None), torch.tensor([1, 3])),
    (torch.tensor([0, 1]), torch.tensor([1, 2])), (torch.tensor([0, 1]), slice(None), torch.tensor([1, 2])),
    (0, slice(None), torch.tensor([1, 2])), (torch.tensor([[0, 1], [2, 3]]),), (X[:, 0, 0] > 0,), (X > 0,),
    (X[1, :4, 0] > 0,), (slice(None), X[0, :, 0] > 0), ([0, 2],), ([0, 2], [1, 3]), (Ellipsis, [0, 1]),
    (None, Ellipsis, None), (1, [0, 1], slice(2, 4)), (slice(None), None, [0, 1]), (torch.tensor(1),),
    (torch.tensor([True, False, True, True]),), (-4,), (slice(-3, -1),), (slice(10, 20),), (True,),
    (False,), (Ellipsis, None), (torch.tensor([0, 1]), None, torch.tensor([1, 2])), ([[0], [1]], [0, 1]),
    (slice(None), [[0], [1]], [0, 1]), (0, 0, 0), (0, -1, -1), (slice(None, None, 3), -2, [-1, 0]),
    (torch.tensor([-1, -2]), Ellipsis, torch.tensor(0)), (1, X[1, :, 0] > 0, slice(None, 2)),
]  # fmt: skip


@pytest.mark.parametrize("idx", INDICES, ids=[str(i)[:40] for i in INDICES])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_getitem_setitem(idx, dtype):
    x = X if dtype == "float32" else (X * 10).long()

    def sub(m, t):
        return t[to_sdk(idx) if m is sdk else idx]

    assert check(sub, x, tag="getitem")
    if len(idx) == 1 and isinstance(idx[0], (torch.Tensor, list)):
        assert check(lambda m, t: t[to_sdk(idx[0]) if m is sdk else idx[0]], x, tag="getitem[t]")

    def assign(value_fn):
        def fn(m, t):
            t = t.clone()
            i = to_sdk(idx) if m is sdk else idx
            t[i] = value_fn(m, t, i)
            return t

        return fn

    check(assign(lambda m, t, i: 7), x, tag="setitem scalar")
    check(assign(lambda m, t, i: t[i] * 2), x, tag="setitem tensor")
    check(assign(lambda m, t, i: m.tensor(3.0)), x, tag="setitem 0-d")
    check(assign(lambda m, t, i: t[i][..., :1] + 1 if t[i].ndim else t[i]), x, tag="setitem bcast")


def test_indexing_errors_match_torch():
    x = sdk.zeros(3, 4)
    for bad in [3, -4, (0, 4), (slice(None), 10)]:
        with pytest.raises(IndexError):
            x[bad]
    with pytest.raises(IndexError):
        x[sdk.tensor([3])]
    with pytest.raises(IndexError):
        x[0, 0, 0]
    with pytest.raises((IndexError, TypeError)):
        x[1.5]


# ---------------------------------------------------------------------------- shape / join / misc

I3 = torch.tensor([0, 4, 4])
G = torch.zeros(4, 2, 6, dtype=torch.long)
VIEWS = {
    "view": lambda m, t: t.view(20, 6), "view-1": lambda m, t: t.view(-1, 3),
    "view-tuple": lambda m, t: t.view((2, -1)), "reshape": lambda m, t: t.transpose(0, 1).reshape(5, -1),
    "permute": lambda m, t: t.permute(2, 0, 1), "permute-neg": lambda m, t: t.permute(-1, 0, 1),
    "permute-tuple": lambda m, t: t.permute((1, 2, 0)), "transpose": lambda m, t: t.transpose(-1, 0),
    "unsqueeze": lambda m, t: t.unsqueeze(-1), "squeeze": lambda m, t: t[:, :1].squeeze(),
    "squeeze1": lambda m, t: t[:, :1].squeeze(1), "squeeze-noop": lambda m, t: t.squeeze(0),
    "squeeze-tuple": lambda m, t: t[:1, :1].squeeze((0, 1)), "flatten": lambda m, t: t.flatten(1),
    "flatten2": lambda m, t: t.flatten(0, -2), "expand": lambda m, t: t[:, :1].expand(4, 3, 6),
    "expand-1": lambda m, t: t[:, :1].expand(-1, 3, -1), "expand-new": lambda m, t: t.expand(2, 4, 5, 6),
    "expand_as": lambda m, t: t[:1].expand_as(t), "narrow": lambda m, t: t.narrow(1, 1, 2),
    "narrow-neg": lambda m, t: t.narrow(-1, -3, 2), "select": lambda m, t: t.select(1, -1),
    "unbind": lambda m, t: t.unbind(1), "chunk": lambda m, t: t.chunk(3, 1), "chunk4": lambda m, t: t.chunk(4, -1),
    "chunk7": lambda m, t: t.chunk(7, 0), "chunk-dim": lambda m, t: t.chunk(2, dim=2),
    "split": lambda m, t: t.split(2, 1), "split-list": lambda m, t: t.split([1, 4], 1),
    "split-dim": lambda m, t: t.split(4, dim=-1), "m.split": lambda m, t: m.split(t, [2, 2], 0),
    "cat": lambda m, t: m.cat([t, t], 1), "cat-neg": lambda m, t: m.cat((t, t[:, :2]), -2),
    "cat-dim": lambda m, t: m.cat([t, t], dim=-1), "cat-empty": lambda m, t: m.cat([t, m.empty(0)], 0),
    "cat-mixed": lambda m, t: m.cat([t, t.double()], 0), "cat-int-float": lambda m, t: m.cat([t.long(), t], 0),
    "cat-bool-int": lambda m, t: m.cat([t > 0, t.int()], 0), "concat": lambda m, t: m.concat([t, t]),
    "stack": lambda m, t: m.stack([t, t]), "stack-1": lambda m, t: m.stack([t, t], -1),
    "stack-dim": lambda m, t: m.stack([t, t], dim=2), "stack-mixed": lambda m, t: m.stack([t, t.half()]),
    "hstack": lambda m, t: m.hstack([t, t]), "vstack": lambda m, t: m.vstack([t, t]),
    "movedim": lambda m, t: m.movedim(t, 0, -1), "movedim-t": lambda m, t: m.movedim(t, (0, 1), (2, 0)),
    "t": lambda m, t: t[0].t(), "T2": lambda m, t: t[0].T, "mT": lambda m, t: t.mT,
    "contiguous": lambda m, t: t.transpose(0, 2).contiguous(),
    "is_contiguous": lambda m, t: t.transpose(0, 2).is_contiguous(),
    "stride": lambda m, t: t.transpose(0, 2).stride(), "stride1": lambda m, t: t[:, ::2].stride(1),
    "size": lambda m, t: tuple(t.size()), "size-1": lambda m, t: t.size(-1), "shape[1:]": lambda m, t: tuple(t.shape[1:]),
    "numel": lambda m, t: t.numel(), "dim": lambda m, t: t.dim(), "len": lambda m, t: len(t),
    "storage_offset": lambda m, t: t[1:, 2:].storage_offset(),
    "view_as": lambda m, t: t.view(-1).view_as(t), "reshape_as": lambda m, t: t.reshape(-1).reshape_as(t),
    "index_select": lambda m, t: t.index_select(1, to_sdk(I3) if m is sdk else I3),
    "gather": lambda m, t: t.gather(1, to_sdk(G) if m is sdk else G),
    "where": lambda m, t: m.where(t > 0, t, 0.0), "where-s": lambda m, t: m.where(t > 0, 1.0, 0.0),
    "where-i": lambda m, t: m.where(t > 0, 1, 0), "where-1": lambda m, t: m.where(t > 0),
    "where-mixed": lambda m, t: m.where(t > 0, t.double(), t), "where-int": lambda m, t: m.where(t > 0, t.long(), 2.5),
    "where-bcast": lambda m, t: m.where(t[0] > 0, t, t[:, :1]),
    "masked_fill": lambda m, t: t.masked_fill(t > 0, 0), "masked_fill-t": lambda m, t: t.masked_fill(t[0] > 0, m.tensor(3.0)),
    "masked_fill-int": lambda m, t: t.long().masked_fill(t > 0, 2),
    "clamp": lambda m, t: t.clamp(-0.5, 0.5), "clamp-min": lambda m, t: t.clamp(min=0),
    "clamp-max": lambda m, t: t.clamp(max=0), "clamp-int": lambda m, t: t.long().clamp(0, 1),
    "clamp-int-float": lambda m, t: (t * 3).long().clamp(0.5, 1.5), "clamp-t": lambda m, t: t.clamp(t[0], t[0] + 1),
    "clip": lambda m, t: m.clip(t, -1, 1), "clamp_": lambda m, t: t.clone().clamp_(0, 1),
    "softmax": lambda m, t: m.softmax(t, 1), "softmax-neg": lambda m, t: t.softmax(-1),
    "softmax-dtype": lambda m, t: t.softmax(-1, dtype=m.float64), "log_softmax": lambda m, t: m.log_softmax(t, dim=0),
    "softmax-half": lambda m, t: t.half().softmax(1), "softmax-big": lambda m, t: (t * 1000).softmax(1),
    "nonzero": lambda m, t: (t > 0).nonzero(), "argwhere": lambda m, t: m.argwhere(t > 0),
    "nonzero-tuple": lambda m, t: (t[0] > 0).nonzero(as_tuple=True),
    "item": lambda m, t: t[0, 0, 0].item(), "tolist": lambda m, t: t[0, 0].tolist(),
    "float()": lambda m, t: float(t[0, 0, 0]), "int()": lambda m, t: int(t[0, 0, 0] * 10),
    "bool()": lambda m, t: bool(t[0, 0, 0] > 0), "zeros_like": lambda m, t: m.zeros_like(t, dtype=m.int32),
    "full_like": lambda m, t: m.full_like(t, 2), "ones": lambda m, t: m.ones(2, 3, dtype=m.int64),
    "ones-tuple": lambda m, t: m.ones((2, 3)), "full": lambda m, t: m.full((2, 3), 1.5),
    "full-int": lambda m, t: m.full((2, 3), 2), "full-bool": lambda m, t: m.full((2,), True),
    "arange": lambda m, t: m.arange(5), "arange-f": lambda m, t: m.arange(0, 1, 0.25),
    "arange-neg": lambda m, t: m.arange(5, 0, -2), "arange-dtype": lambda m, t: m.arange(5, dtype=m.float32),
    "linspace": lambda m, t: m.linspace(0, 1, 5), "eye": lambda m, t: m.eye(3, 2),
    "tensor-list": lambda m, t: m.tensor([1, 2.5]), "tensor-bool": lambda m, t: m.tensor([True, False]),
    "tensor-int": lambda m, t: m.tensor([[1, 2], [3, 4]]), "tensor-scalar": lambda m, t: m.tensor(3),
    "tensor-empty": lambda m, t: m.tensor([]), "tensor-nested-empty": lambda m, t: m.tensor([[], []]),
    "tensor-f64": lambda m, t: m.tensor(2.5, dtype=m.float64), "as_tensor": lambda m, t: m.as_tensor([1, 2], dtype=m.float32),
    "tensor-of-tensors": lambda m, t: m.tensor([t[0, 0, 0].item(), 2.0]),
    "new_zeros": lambda m, t: t.new_zeros(2, 3), "new_full": lambda m, t: t.new_full((2,), 7),
    "new_tensor": lambda m, t: t.new_tensor([1, 2]), "type_as": lambda m, t: t.long().type_as(t),
    "to-dtype": lambda m, t: t.to(m.float16), "to-other": lambda m, t: t.to(t.double()),
    "in-place add_": lambda m, t: t.clone().add_(t, alpha=2), "sub_": lambda m, t: t.clone().sub_(1),
    "mul_-bcast": lambda m, t: t.clone().mul_(t[0]), "div_": lambda m, t: t.clone().div_(2),
    "pow_": lambda m, t: t.clone().pow_(2), "fill_": lambda m, t: t.clone().fill_(3),
    "zero_": lambda m, t: t.clone().zero_(), "copy_": lambda m, t: t.clone().copy_(t[0]),
    "masked_fill_": lambda m, t: t.clone().masked_fill_(t > 0, 1.0), "exp_": lambda m, t: t.clone().exp_(),
    "iadd": lambda m, t: _iadd(t), "broadcast_to": lambda m, t: m.broadcast_to(t[0], (2, 5, 6)),
    "broadcast_tensors": lambda m, t: m.broadcast_tensors(t[0], t[:, :1]),
    "broadcast_shapes": lambda m, t: tuple(m.broadcast_shapes((2, 1), (3,))),
    "scatter_add": lambda m, t: m.zeros(4, 5, 6).scatter_add(1, to_sdk(G) if m is sdk else G, t[:, :2]),
    "index_add": lambda m, t: t.index_add(1, to_sdk(I3) if m is sdk else I3, t[:, :3]),
    "reversed": lambda m, t: list(reversed(t))[0], "contains": lambda m, t: 0.5 in t,
    "iter": lambda m, t: [r.sum().item() for r in t],
    "numpy-roundtrip": lambda m, t: m.from_numpy(t.numpy()[::-1].copy()),
    "sum-bool-int": lambda m, t: (t > 0).sum(), "mean-int-raises": lambda m, t: t.long().mean(),
    "eq-scalar": lambda m, t: (t == t[0, 0, 0].item()).sum(),
    "isnan": lambda m, t: m.isnan(t / (t * 0)), "isinf": lambda m, t: (1 / (t * 0)).isinf(),
    "isfinite": lambda m, t: m.isfinite(t / (t > 0)), "isnan-int": lambda m, t: m.isnan(t.long()),
    "clamp_min": lambda m, t: t.clamp_min(0), "clamp_max": lambda m, t: m.clamp_max(t, 0.1),
    "flip": lambda m, t: t.flip(0), "flip2": lambda m, t: m.flip(t, (0, -1)), "flip-int": lambda m, t: t.long().flip([1]),
    "norm": lambda m, t: t.norm(), "norm-dim": lambda m, t: m.norm(t, dim=1), "norm-p1": lambda m, t: t.norm(p=1, dim=(0, 2), keepdim=True),
    "norm-inf": lambda m, t: t.norm(float("inf")), "norm-3": lambda m, t: t.norm(3, -1),
    "allclose": lambda m, t: m.allclose(t, t + 1e-7), "allclose-no": lambda m, t: t.allclose(t + 1e-3),
    "isclose": lambda m, t: m.isclose(t, t.round()), "isclose-tol": lambda m, t: m.isclose(t, t * 1.01, rtol=0.02),
    "isclose-int": lambda m, t: m.isclose(t.long(), t.long() + 1, atol=1), "equal": lambda m, t: m.equal(t, t.clone()),
    "equal-no": lambda m, t: t.equal(t[:1]),
}  # fmt: skip


def _iadd(t):
    t = t.clone()
    t += 1
    t *= t
    t -= 0.5
    t /= 2
    return t


@pytest.mark.parametrize("name", list(VIEWS))
def test_shape_and_misc_ops(name):
    assert check(VIEWS[name], X, tag=name) or name.endswith("-raises")


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
                 ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (5, 3, 4)),
                 ((3,), (5, 3, 4)), ((5, 2, 3), (3,)), ((0, 3), (3, 4)), ((2, 0), (0, 4)), ((2, 3), (4, 5))]  # fmt: skip


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_broadcasting(sa, sb):
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(*sa, generator=g), torch.randn(*sb, generator=g)
    check(lambda m, x, y: x @ y, a, b)
    check(lambda m, x, y: m.matmul(x, y), a, b)
    check(lambda m, x, y: x.double() @ y.double(), a, b)
    check(lambda m, x, y: (x * 5).long() @ (y * 5).long(), a, b)
    check(lambda m, x, y: x.transpose(-1, 0) @ y if x.ndim > 1 else x @ y, a, b)


def test_matmul_family():
    g = torch.Generator().manual_seed(2)
    a, b = torch.randn(2, 3, generator=g), torch.randn(3, 4, generator=g)
    for name, fn in {
        "mm": lambda m, x, y: m.mm(x, y), "mm-T": lambda m, x, y: m.mm(y.t(), x.t()),
        "addmm": lambda m, x, y: m.addmm(m.ones(4), x, y, beta=0.5, alpha=2),
        "addmm-2d": lambda m, x, y: m.addmm(m.ones(2, 1), x, y),
        "addmm-0d": lambda m, x, y: m.addmm(m.tensor(1.5), x, y),
        "bmm": lambda m, x, y: m.bmm(x.unsqueeze(0), y.unsqueeze(0)),
        "mv": lambda m, x, y: m.mv(x, y[:, 0]), "dot": lambda m, x, y: m.dot(x[0], y[:, 0]),
        "inner": lambda m, x, y: m.inner(x[0], y[:, 0]),
        "half": lambda m, x, y: x.half() @ y.half(), "bf16": lambda m, x, y: x.bfloat16() @ y.bfloat16(),
        "int32": lambda m, x, y: (x * 4).int() @ (y * 4).int(),
        "Tensor.mm": lambda m, x, y: x.mm(y), "Tensor.matmul": lambda m, x, y: x.matmul(y),
        "rmatmul-view": lambda m, x, y: x[:, ::2] @ y[::2],
        "linear": lambda m, x, y: m.nn.functional.linear(x, y.t(), y[0]),
    }.items():  # fmt: skip
        assert check(fn, a, b, tag=name)


# ---------------------------------------------------------------------------- autograd


def _setitem_graph(m, a, b):
    c = a * 1
    c[0] = b[1]
    c[:, 1] = 2.0
    c[c > 1.0] = 0.0
    return (c * c).sum()


def _into_zeros(m, a, b):
    out = m.zeros(3, 4, dtype=m.float64)
    out[0] = a[0] * 2
    out[1:, :2] = b[1:, :2]
    return out.pow(2).sum()


def _inplace(m, a, b):
    c = a * 1
    c.mul_(b).add_(1).exp_()
    return c.sum()


GRAD_CASES = {
    "arith": (lambda m, a, b: (a * b + a - b / 3 + 2 ** a.tanh()).sum(), "ab"),
    "broadcast": (lambda m, a, b: (a * b[0] + b[:, :1]).sum(), "ab"),
    "div-pow": (lambda m, a, b: (a / b.abs().add(1) + b.abs() ** a.sigmoid()).sum(), "ab"),
    "matmul": (lambda m, a, b: (a @ b.t()).tanh().sum(), "ab"),
    "matmul-bcast": (lambda m, a, b: (a.unsqueeze(0).expand(2, 3, 4) @ b.t()).sum(), "ab"),
    "matmul-vec": (lambda m, a, b: (a @ b[0]).pow(2).sum() + (a[0] @ b[1]), "ab"),
    "addmm": (lambda m, a, b: m.addmm(b[:, 0], a, b.t(), beta=0.5, alpha=2).sum(), "ab"),
    "softmax": (lambda m, a, b: (m.softmax(a, 1) * b).sum() + (m.log_softmax(a, 0) * b).sum(), "ab"),
    "logsumexp": (lambda m, a, b: m.logsumexp(a, 1).sum() * b.sum(), "ab"),
    "reductions": (lambda m, a, b: a.mean(0).sum() + a.amax(1).sum() + a.std() + a.var(1).sum() + a.prod(), "ab"),
    "max-dim": (lambda m, a, b: a.max(1)[0].sum() + a.min(0).values.sum() + a.max() + b.min(), "ab"),
    "sum-dims": (lambda m, a, b: a.sum((0, 1), keepdim=True).sum() + (a.sum(-1, keepdim=True) * b).sum(), "ab"),
    "basic-index": (lambda m, a, b: a[1:, ::2].sum() + a[:, -1].sum() + a[0, 1], "ab"),
    "adv-index": (lambda m, a, b: a[[0, 0, 2]].sum() + a[:, [1, 1]].pow(2).sum() + a[a > 0].sum(), "ab"),
    "setitem": (_setitem_graph, "ab"),
    "setitem-into-zeros": (_into_zeros, "ab"),
    "inplace": (_inplace, "ab"),
    "cat-stack": (lambda m, a, b: (m.cat([a, b], 1) ** 2).sum() + m.stack([a, b]).prod(0).sum(), "ab"),
    "chunk-split": (lambda m, a, b: sum((c * (i + 1)).sum() for i, c in enumerate(a.chunk(2, 1))) + b.split([1, 2], 0)[1].sum(), "ab"),
    "views": (lambda m, a, b: (a.t().reshape(2, 6) * b.view(2, 6)).sum() + a.unsqueeze(0).expand(2, 3, 4).sum(), "ab"),
    "where-mask": (lambda m, a, b: m.where(a > 0, a, b * 2).sum() + a.masked_fill(b > 0, 0.5).pow(2).sum(), "ab"),
    "clamp": (lambda m, a, b: a.clamp(-0.5, 0.5).sum() + a.clamp(min=0).sum() + a.clamp(b, b + 1).sum(), "ab"),
    "unary": (lambda m, a, b: (a.exp() + a.sin() + a.cos() + a.sigmoid() + a.relu() + a.abs() + a.square() + a.erf() + a.expm1()).sum(), "ab"),
    "unary-pos": (lambda m, a, b: (b.abs().add(0.5).log() + b.abs().add(0.5).sqrt() + b.abs().add(0.5).rsqrt() + b.abs().log1p() + b.abs().add(0.5).reciprocal()).sum(), "ab"),
    "nn-functional": (lambda m, a, b: (m.nn.functional.gelu(a) + m.nn.functional.elu(a) + m.nn.functional.relu(b)).sum(), "ab"),
    "mse": (lambda m, a, b: m.nn.functional.mse_loss(a, b), "ab"),
    "cross-entropy": (lambda m, a, b: m.nn.functional.cross_entropy(a, m.tensor([0, 3, 1])), "ab"),
    "gather": (lambda m, a, b: a.gather(1, m.tensor([[0, 0], [1, 3], [2, 2]])).sum() * 2, "ab"),
    "maximum-atan2": (lambda m, a, b: m.maximum(a, b).sum() + m.minimum(a, b).sum() + m.atan2(a, b).sum(), "ab"),
    "reuse": (lambda m, a, b: (a * a * a).sum() + (a @ a.t()).sum(), "ab"),
    "to-dtype": (lambda m, a, b: (a.float() * 2).double().sum() + a.to(m.float32).double().sum(), "ab"),
    "norm": (lambda m, a, b: (a * a).sum().sqrt(), "ab"),
    "rsub": (lambda m, a, b: (1 - a).sum() + m.rsub(a, b).sum() * 3, "ab"),
    "squeeze": (lambda m, a, b: a.unsqueeze(1).squeeze(1).sum() + a[:1].squeeze(0).sum(), "ab"),
    "bmm": (lambda m, a, b: m.bmm(a.unsqueeze(0), b.t().unsqueeze(0)).sum(), "ab"),
    "index_select": (lambda m, a, b: a.index_select(0, m.tensor([2, 0, 2])).pow(2).sum(), "ab"),
    "var-corr": (lambda m, a, b: a.var(0, unbiased=False).sum() + a.std(1, keepdim=True).sum(), "ab"),
    "non-scalar-backward": (lambda m, a, b: a * b, "ab"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradients_match_torch(name):
    fn, _ = GRAD_CASES[name]
    g = torch.Generator().manual_seed(3)
    ta = torch.randn(3, 4, dtype=torch.float64, generator=g).requires_grad_()
    tb = torch.randn(3, 4, dtype=torch.float64, generator=g).requires_grad_()
    sa, sb = to_sdk(ta).requires_grad_(), to_sdk(tb).requires_grad_()
    tout, sout = fn(torch, ta, tb), fn(sdk, sa, sb)
    assert_same(sout, tout, "value")
    seed = torch.randn(tout.shape, dtype=torch.float64, generator=g)
    tout.backward(seed)
    sout.backward(to_sdk(seed))
    for s, t in ((sa, ta), (sb, tb)):
        if t.grad is None:
            assert s.grad is None
        else:
            assert_same(s.grad, t.grad, "grad")


def test_autograd_function_like_torch():
    class Exp(sdk.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            r = x.exp() * k
            ctx.save_for_backward(r)
            ctx.k = k
            return r

        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return g * r, None

    x = sdk.randn(3, dtype=sdk.float64, requires_grad=True)
    y = Exp.apply(x, 2.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(x.detach().numpy()))
    assert sdk.autograd.gradcheck(lambda t: Exp.apply(t, 3.0), (x,))


# ---------------------------------------------------------------------------- repr

REPRS = [
    "T.tensor([1., 2., 3.])", "T.tensor([1, 2, 3])", "T.tensor([True, False])", "T.tensor(3.5)",
    "T.tensor(3)", "T.tensor([])", "T.zeros(2, 3)", "T.zeros(2, 3, dtype=T.float64)",
    "T.zeros(2, 3, dtype=T.int32)", "T.zeros(2, 3, dtype=T.float16)", "T.zeros(2, 3, dtype=T.bfloat16)",
    "T.ones(2, 3, dtype=T.uint8)", "T.tensor([1e-5, 1.0])", "T.tensor([1e10, 1.0])", "T.tensor([0.1, 0.25])",
    "T.tensor([float('nan'), float('inf'), -float('inf'), 1.0])", "T.tensor([float('nan'), 0.5])",
    "T.arange(2000)", "T.arange(2000.)", "T.arange(12.).reshape(3, 4)", "T.arange(1200.).reshape(30, 40)",
    "T.arange(1200).reshape(3, 20, 20)", "T.tensor([[1.5, -2.25], [100.125, 0.]])",
    "T.tensor([1.0, 2.0], requires_grad=True)", "T.tensor([1.0, 2.0], requires_grad=True) * 2",
    "T.tensor([1.0, 2.0], requires_grad=True).sum()", "T.empty(0, 3)", "T.zeros(2, 0)",
    "T.tensor([123456789.0])", "T.tensor([1, -2], dtype=T.int8)", "T.tensor(2.5, dtype=T.float64)",
    "T.tensor([1.12345678, 2.0], dtype=T.float64)", "T.tensor([-0.0, 0.0])", "T.tensor([1e-10, 1e-12])",
    "T.arange(6).reshape(1, 2, 3)", "T.tensor([[True]])", "T.tensor([3.0]).half()", "T.tensor(1.5).bfloat16()",
    "T.tensor([1e20, 1e-20])", "T.tensor([1., 2.]).double()", "T.linspace(-1, 1, 30)",
    "T.tensor([[0.001, 1000.0]])", "T.tensor([-5, 10000000000])", "T.tensor(float('nan'))",
    "T.zeros(3)", "T.tensor([1e8, 1.0])", "T.tensor([1e9])",
]  # fmt: skip


@pytest.mark.parametrize("expr", REPRS)
def test_repr_like_torch(expr):
    expected = repr(eval(expr.replace("T.", "torch."))).replace("torch.", "")
    got = repr(eval(expr.replace("T.", "sdk."))).replace("sdk.", "")
    assert got == expected


def test_repr_of_dtypes_shapes_devices():
    assert repr(sdk.float32) == "sdk.float32"
    assert repr(sdk.zeros(2, 3).shape) == "sdk.Size([2, 3])"
    assert repr(sdk.device("cpu")) == repr(torch.device("cpu"))
    assert str(sdk.tensor([1.0, 2.0])) == str(torch.tensor([1.0, 2.0]))
    assert f"{sdk.tensor(2.5):.2f}" == f"{torch.tensor(2.5):.2f}"


# ---------------------------------------------------------------------------- known core bugs


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.tensor([1, 2], dtype=m.uint8) + m.tensor(2),
        lambda m: m.tensor([1.0, 2.0], dtype=m.float16) * m.tensor(2.0),
        lambda m: m.tensor([1.0, 2.0]) * m.tensor(2.0, dtype=m.float64),
        lambda m: m.tensor([1, 2], dtype=m.int32) - m.tensor([3])[0],
        lambda m: m.maximum(m.tensor([1, 2], dtype=m.int8), m.tensor(0)),
        lambda m: m.where(
            m.tensor([True, False]), m.tensor([1.0, 2.0], dtype=m.float16), m.tensor(0.0)
        ),
        lambda m: m.tensor([1.0, 2.0], dtype=m.bfloat16).add(m.tensor(1.0), alpha=2),
    ],
    ids=["u8+0d_i64", "f16*0d_f32", "f32*0d_f64", "i32-0d_i64", "maximum", "where", "add_alpha"],
)
def test_zero_dim_tensor_promotion(fn):
    assert_same(fn(sdk), fn(torch))


def test_clip_grad_norm_like_torch():
    g = torch.Generator().manual_seed(5)
    grads = [torch.randn(3, 4, generator=g), torch.randn(4, generator=g)]
    for max_norm, norm_type in ((0.5, 2.0), (100.0, 2.0), (0.3, 1.0), (0.2, float("inf"))):
        tp = [torch.zeros_like(x).requires_grad_() for x in grads]
        sp = [sdk.zeros(*x.shape, requires_grad=True) for x in grads]
        for p, q, x in zip(tp, sp, grads):
            p.grad = x.clone()
            q.grad = to_sdk(x)
        tn = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type)
        sn = sdk.nn.utils.clip_grad_norm_(sp, max_norm, norm_type)
        assert sn.item() == pytest.approx(tn.item(), rel=1e-5)
        for p, q in zip(tp, sp):
            np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_dropout_like_torch():
    x = sdk.ones(20000)
    y = sdk.nn.functional.dropout(x, 0.25)
    kept = float((y != 0).float().mean())
    assert kept == pytest.approx(0.75, abs=0.02)
    v = y.numpy()
    assert np.all((v == 0) | np.isclose(v, 1 / 0.75))
    d = sdk.nn.Dropout(0.5)
    d.eval()
    assert d(x) is x or sdk.equal(d(x), x)
    assert repr(d) == repr(torch.nn.Dropout(0.5))
    with pytest.raises(ValueError):
        sdk.nn.Dropout(1.5)


_LAYOUTS = [((3, 4), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 1, 4), (2, 1, 0)),
            ((1, 5, 1), (2, 0, 1)), ((3, 4, 5), (1, 0, 2)), ((4, 1), (1, 0)),
            ((2, 2, 3), (2, 1, 0))]  # fmt: skip


@pytest.mark.parametrize("shape,perm", _LAYOUTS)
@pytest.mark.parametrize("view", ["permuted", "sliced", "expanded"])
def test_like_and_clone_strides_match_torch(shape, perm, view):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    src = a[:1] if view == "expanded" else a
    s, t = sdk.from_numpy(src).permute(*perm), torch.from_numpy(src).permute(*perm)
    if view == "sliced":
        s, t = s[..., ::2], t[..., ::2]
    elif view == "expanded":
        size = list(t.shape)
        size[perm.index(0)] = 3
        s, t = s.expand(*size), t.expand(*size)
    for name in ["empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"]:
        assert getattr(sdk, name)(s).stride() == getattr(torch, name)(t).stride(), name
        got = getattr(sdk, name)(s, memory_format=sdk.contiguous_format).stride()
        assert got == getattr(torch, name)(t, memory_format=torch.contiguous_format).stride()
    assert s.clone().stride() == t.clone().stride()
    np.testing.assert_array_equal(s.clone().numpy(), t.clone().numpy())
