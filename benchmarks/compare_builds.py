"""Bit-for-bit comparison of two builds of the core over a matrix of ops, dtypes and layouts.

    python benchmarks/compare_builds.py --save old.npz     # with the build before a change
    python benchmarks/compare_builds.py --against old.npz  # with the build after it

Every elementwise op (unary, binary, ternary), every reduction, and the index, scatter, scan,
sort, softmax, join and linalg ops run on every dtype, on
contiguous, transposed, sliced, broadcast and scalar operands, small (tails, one thread) and
large (several threads); each result's bytes, or the class of the exception it raised, is
recorded. A compile-time change (fewer instantiations, another loop driver) must leave every
result the same, to the bit. The build under test is the one `import sdk` finds (PYTHONPATH).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import sdk

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16"]
DTYPES += ["float32", "float64"]
UNARY = "abs neg exp log sqrt rsqrt sin cos tanh sigmoid relu gelu reciprocal log1p expm1 erf"
UNARY += " floor ceil round sign trunc frac tan asin acos atan sinh cosh asinh acosh atanh log2"
UNARY += " log10 exp2 silu mish erfc erfinv square isnan isinf isfinite isposinf isneginf"
UNARY += " logical_not bitwise_not"
BINARY = "add sub mul div pow maximum minimum eq ne lt le gt ge remainder fmod floor_divide"
BINARY += " atan2 hypot logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor"
BINARY += " copysign logaddexp fmax fmin"
REDUCE = ["sum", "prod", "mean", "amax", "amin", "all", "any"]


def values(shape: tuple, dtype: str, seed: int) -> sdk.Tensor:
    """Values of every kind a kernel treats apart: negatives, zeros of both signs, NaN, inf."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        a = rng.random(n) < 0.5
    elif dtype in ("float16", "bfloat16", "float32", "float64"):
        a = (rng.standard_normal(n) * 3).astype(np.float64)
        a[:: max(1, n // 7)] = 0.0
        a[1 :: max(1, n // 5)] = -0.0
        if n > 40:
            a[3], a[11], a[29] = np.nan, np.inf, -np.inf
        a = a.astype(np.float32)
    else:
        lo = 0 if dtype == "uint8" else -9
        a = rng.integers(lo, 10, n).astype(np.int64)
    t = sdk.from_numpy(np.ascontiguousarray(a.reshape(shape)))
    return t.to(getattr(sdk, dtype))


def as_bytes(r) -> np.ndarray:
    if isinstance(r, (tuple, list)):
        return np.concatenate([as_bytes(v) for v in r])
    if not isinstance(r, sdk.Tensor):
        return np.frombuffer(np.asarray(r).tobytes(), np.uint8)
    if r.dtype == sdk.bfloat16:  # numpy has no bfloat16; to float32 is exact
        r = r.to(sdk.float32)
    a = r.contiguous().numpy()
    return np.frombuffer(np.ascontiguousarray(a).tobytes() + str(a.dtype).encode(), np.uint8)


def record(out: dict, key: str, fn, *args, **kwargs) -> None:
    try:
        out[key] = as_bytes(fn(*args, **kwargs))
    except Exception as e:  # the class of the error is a result too
        out[key] = np.frombuffer(("ERR:" + type(e).__name__).encode(), np.uint8)


def layouts(dtype: str, seed: int) -> dict:
    """Named operands of one dtype: small ones of odd sizes (vector tails) and a large one."""
    base = values((37, 19), dtype, seed)
    return {
        "contig": base,
        "t": values((19, 37), dtype, seed + 1).t(),
        "slice": values((74, 57), dtype, seed + 2)[::2, 1::3],
        "big": values((300, 257), dtype, seed + 3),
    }


def binary_cases(out: dict, dt: str, xs: dict, ys: dict) -> None:
    row, col = values((37, 1), dt, 5), values((1, 19), dt, 6)
    f32 = values((37, 19), "float32", 7)
    for op in BINARY.split():
        fn = getattr(sdk, op, None)
        if fn is None:
            continue
        for lay in xs:
            record(out, f"b/{op}/{dt}/{lay}", fn, xs[lay], ys[lay])
        record(out, f"b/{op}/{dt}/bcast", fn, row, col)
        record(out, f"b/{op}/{dt}/mix", fn, xs["contig"], ys["t"])
        for s in (3, 2.5):
            record(out, f"b/{op}/{dt}/s{s}", fn, xs["contig"], s)
            record(out, f"b/{op}/{dt}/rs{s}", fn, s, xs["big"])
        record(out, f"b/{op}/{dt}/promote", fn, xs["contig"], f32)


def ternary_cases(out: dict, dt: str, xs: dict, ys: dict) -> None:
    x, y, z = xs["contig"], ys["contig"], layouts(dt, 21)["t"]
    record(out, f"t/lerp/{dt}", sdk.lerp, x, y, 0.3)
    record(out, f"t/addcmul/{dt}", sdk.addcmul, x, y, z, value=2)
    record(out, f"t/addcdiv/{dt}", sdk.addcdiv, x, y, z)
    record(out, f"t/clamp/{dt}", sdk.clamp, x, -1, 2)
    record(out, f"t/clampt/{dt}", sdk.clamp, xs["big"], y[:1, :1], z[:1, :1])
    record(out, f"t/where/{dt}", sdk.where, ys["t"] > 0 if dt != "bool" else y, x, z)
    record(out, f"t/isclose/{dt}", sdk.isclose, x, y)


def elementwise_cases(out: dict) -> None:
    for dt in DTYPES:
        xs, ys = layouts(dt, 1), layouts(dt, 11)
        for op in UNARY.split():
            fn = getattr(sdk, op, None)
            if fn is None:
                continue
            for lay, x in xs.items():
                record(out, f"u/{op}/{dt}/{lay}", fn, x)
        binary_cases(out, dt, xs, ys)
        ternary_cases(out, dt, xs, ys)


def reduce_cases(out: dict) -> None:
    big1d = {dt: values((200_003,), dt, 31) for dt in DTYPES}
    tall = {dt: values((3000, 67), dt, 32) for dt in DTYPES}
    for dt in DTYPES:
        xs = layouts(dt, 41)
        xs["big1d"], xs["tall"], xs["tall_t"] = big1d[dt], tall[dt], tall[dt].t()
        for op in REDUCE:
            fn = getattr(sdk, op)
            for lay, x in xs.items():
                record(out, f"r/{op}/{dt}/{lay}/all", fn, x)
                if x.dim() == 2:
                    for d in (0, 1):
                        record(out, f"r/{op}/{dt}/{lay}/{d}", fn, x, d)
            if op not in ("sum", "prod", "mean"):
                continue
            for odt in ("float32", "float64", "int64", "float16", "int32"):
                for lay in ("contig", "slice", "tall_t", "big1d"):
                    key = f"r/{op}/{dt}/{lay}/dtype={odt}"
                    record(out, key, fn, xs[lay], 0, dtype=getattr(sdk, odt))


def index_cases(out: dict) -> None:
    """Index, scatter, scan, sort, softmax, shape and linalg ops: every dtype, two layouts."""
    idx = sdk.from_numpy(np.random.default_rng(3).integers(0, 19, (37, 19)).astype(np.int64))
    i1 = sdk.from_numpy(np.array([4, 0, 18, 4, 7], np.int64))
    for dt in DTYPES:
        for lay, x in layouts(dt, 51).items():
            y = x if lay != "big" else x[:37, :19]
            m = values(tuple(x.shape), "bool", 52)
            k = f"{dt}/{lay}"
            i1c = i1.clamp(max=x.shape[0] - 1)
            record(out, f"i/index_select/{k}", sdk.index_select, x, 0, i1c)
            record(out, f"i/gather/{k}", sdk.gather, y, 1, idx)
            record(out, f"i/take/{k}", sdk.take, x, i1)
            record(out, f"i/masked_select/{k}", sdk.masked_select, x, m)
            record(out, f"i/masked_fill/{k}", sdk.masked_fill, x, m, 1)
            record(out, f"i/repeat_interleave/{k}", sdk.repeat_interleave, x, 2, 1)
            record(out, f"i/scatter/{k}", sdk.scatter, y, 1, idx, y)
            record(out, f"i/scatter_v/{k}", sdk.scatter, y, 1, idx, 2)
            record(out, f"i/scatter_add/{k}", sdk.scatter_add, y, 1, idx, y)
            for red in ("sum", "prod", "mean", "amax", "amin"):
                for inc in (True, False):
                    fn = sdk.scatter_reduce
                    record(out, f"i/sr/{red}/{inc}/{k}", fn, y, 1, idx, y, red, include_self=inc)
            record(out, f"i/index_add/{k}", sdk.index_add, x, 0, i1c, x[:5])
            record(out, f"i/index_copy/{k}", sdk.index_copy, x, 0, i1[:2] % 3, x[:2])
            record(out, f"i/index_fill/{k}", sdk.index_fill, x, 1, i1c[:3] % x.shape[1], 3)
            for op in ("cumsum", "cumprod", "cummax", "cummin", "softmax", "log_softmax"):
                for d in (0, 1):
                    record(out, f"s/{op}/{d}/{k}", getattr(sdk, op), x, d)
            for d in (0, 1):
                record(out, f"s/sort/{d}/{k}", sdk.sort, x, d)
                record(out, f"s/sortd/{d}/{k}", sdk.sort, x, d, descending=True)
                record(out, f"s/topk/{d}/{k}", sdk.topk, x, 3, d)
                record(out, f"s/topks/{d}/{k}", sdk.topk, x, 3, d, largest=False)
                record(out, f"s/kthvalue/{d}/{k}", sdk.kthvalue, x, 2, d)
                record(out, f"s/median/{d}/{k}", sdk.median, x, d)
            record(out, f"j/cat/{k}", sdk.cat, [x, x[1:]], 0)
            record(out, f"j/stack/{k}", sdk.stack, [x, x], 1)
            record(out, f"j/flip/{k}", sdk.flip, x, [0, 1])
            record(out, f"j/roll/{k}", sdk.roll, x, 3, 1)
            record(out, f"j/permute/{k}", lambda t: t.permute(1, 0).contiguous(), x)
            record(out, f"j/tril/{k}", sdk.tril, x, 1)
            record(out, f"l/matmul/{k}", sdk.matmul, x, x.t())
            record(out, f"l/einsum/{k}", sdk.einsum, "ij,kj->ik", x, x)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="NPZ")
    g.add_argument("--against", metavar="NPZ")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--only", choices=["elementwise", "reduce", "index"], help="one family of ops")
    args = p.parse_args()
    sdk.set_num_threads(args.threads)
    out: dict = {}
    for name, cases in (("elementwise", elementwise_cases), ("reduce", reduce_cases)):
        if args.only in (None, name):
            cases(out)
    if args.only in (None, "index"):
        index_cases(out)
    if args.save:
        np.savez_compressed(args.save, **{k.replace("/", "|"): v for k, v in out.items()})
        print(f"{len(out)} cases saved to {args.save} ({sdk.__file__})")
        return 0
    ref = {k.replace("|", "/"): v for k, v in np.load(args.against).items()}
    diff = [k for k in ref if k not in out or not np.array_equal(ref[k], out[k])]
    diff += [k for k in out if k not in ref]
    errs = sum(bytes(v[:4]) == b"ERR:" for v in out.values())
    print(
        f"{len(out)} cases ({errs} raise), {len(diff)} differ from {args.against} ({sdk.__file__})"
    )
    for k in diff[:40]:
        print("  differs:", k)
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
