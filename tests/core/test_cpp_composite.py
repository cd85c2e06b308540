"""Builds and runs tests/core/cpp/test_composite_api.cpp: torch's composite ops of
sdk/composite.h compared with numpy on the program's fixed inputs (`values` mode), and its own
checks of their errors and of the c10/ATen utilities ported code calls."""

from __future__ import annotations

import itertools
import subprocess
import warnings
from pathlib import Path

import pytest

from tests.core.test_cpp_port_surface import _program

np = pytest.importorskip("numpy")


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    return _program(tmp_path_factory, "test_composite_api")


@pytest.fixture(scope="module")
def values(program: Path) -> dict:
    proc = subprocess.run([str(program), "values"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = {}
    for line in proc.stdout.splitlines():
        name, shape, vals = line.split("|")
        dims = tuple(int(d) for d in shape.split())
        flat = np.array([float(v) for v in vals.split()], dtype=np.float64)
        out[name] = flat.reshape(dims)
    return out


def _inputs():
    x = np.sin(np.arange(24, dtype=np.float64)).reshape(2, 3, 4)
    m = np.sin(np.arange(12, dtype=np.float64) * 0.7).reshape(3, 4)
    v = np.array([0.5, -1.5, 2.0, -0.0, 3.25])
    s = np.array([-0.0, 0.0, -np.nan, np.nan, -np.inf, np.inf, 1.0, -2.0])
    ints = np.array([3, 3, 1, 4, 4, 4, 2, 3, 3])
    return x, m, v, s, ints


def _block_diag(*blocks):
    blocks = [np.atleast_2d(b) for b in blocks]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)))
    r = c = 0
    for b in blocks:
        out[r : r + b.shape[0], c : c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def _scattered(base, index, src):
    out = base.copy()
    out[index] = src
    return out


def _unique_consecutive(a):
    starts = np.concatenate([[True], a[1:] != a[:-1]])
    first = np.flatnonzero(starts)
    return a[starts], np.cumsum(starts) - 1, np.diff(np.append(first, a.size))


def _shift_right(a, s):
    """torch's >> of int32: a shift of the bit width or more gives the sign."""
    return np.where(s < 32, a >> np.minimum(s, 31), np.where(a < 0, -1, 0))


def _references() -> dict:
    x, m, v, s, ints = _inputs()
    masked = np.where(x > 0.5, x, np.nan)
    uc = _unique_consecutive(ints)
    ref = {
        "absolute": np.abs(v),
        "negative": -v,
        "greater": m > 0.1,
        "less_equal": m <= m[::-1],
        "not_equal": ints != 3,
        "ravel": m.T.ravel(),
        "broadcast_to": np.broadcast_to(v, (2, 5)),
        "tile": np.tile(m, (2, 1, 3)),
        "tile_short": np.tile(m, 2),
        "atleast_3d": np.atleast_3d(v),
        "atleast_2d": np.atleast_2d(2.5),
        "fliplr": np.fliplr(m),
        "flipud": np.flipud(m),
        "rot90_1": np.rot90(m),
        "rot90_2": np.rot90(m, 2),
        "rot90_3": np.rot90(x, 3, axes=(2, 0)),
        "rot90_m1": np.rot90(x, -1, axes=(1, 2)),
        "diagflat": np.diagflat(v, 1),
        "column_stack": np.column_stack([v, v * 2, np.ones((5, 2))]),
        "dstack": np.dstack([m, m * 3]),
        "row_stack": np.vstack([v, v]),
        "block_diag": _block_diag(m, 7.0, v),
        "cartesian_prod": np.array(list(itertools.product(range(3), [0, 10]))),
        "select_scatter": _scattered(m, (slice(None), 2), 0.0),
        "slice_scatter": _scattered(x, (..., slice(1, None, 2)), 1.0),
        "diagonal_scatter": _scattered(m, (np.arange(3), np.arange(3) + 1), 5.0),
        "sum_to_size": x.sum(axis=(0, 2)).reshape(3, 1),
        "movedim": np.moveaxis(x, [0, 2], [2, 0]),
        "moveaxis": np.moveaxis(x, 0, -1),
        "deg2rad": np.deg2rad(ints.astype(np.float32)),
        "rad2deg": np.rad2deg(m),
        "signbit": np.signbit(s),
        "signbit_int": np.signbit(np.array([-3, 0, 5])),
        "sinc": np.sinc(np.append(v, 0.0)),
        "logaddexp2": np.logaddexp2(m, m[:, ::-1] * 3),
        # torch's rule (and the SDK's): NaN is not above zero, so 0 (numpy gives NaN)
        "heaviside": np.where(np.isnan(s), 0.0, np.heaviside(s, 0.5)),
        "float_power": np.float_power(np.abs(m), 1.5),
        "float_power_t": np.float_power([2, 3, 4], [-1, 2, 0]),
        "ldexp": np.ldexp(v, [1, 2, -1, 3, 0]),
        "nansum": np.nansum(s[2:4] + 1),
        "nansum_dim": np.nansum(masked, axis=1),
        "aminmax_min": x.min(axis=1),
        "aminmax_max": x.max(),
        "trace": np.trace(m),
        "kron": np.kron(m[:2], [1.0, -1.0]),
        "kron3": np.kron(x[:, :2], m[:, :2]),
        "inner": np.inner(x, m),
        "vdot": np.vdot(v, v[::-1]),
        "dist": np.sum(np.abs(m - m[::-1]) ** 3) ** (1 / 3),
        "isin": np.isin(ints, [4, 2, 9]),
        "isin_invert": np.isin((m > 0).astype(int), [1], invert=True),
        "cov": np.cov(m),
        "cov_weights": np.cov(m, ddof=0, fweights=[1, 2, 1, 3], aweights=[0.5, 1.0, 2.0, 1.0]),
        "corrcoef": np.corrcoef(m),
        "trapezoid": np.trapezoid(m, dx=0.5),
        "trapezoid_x": np.trapezoid(m, x=[0.0, 1.0, 3.0, 3.5]),
        "unique_consecutive.0": uc[0],
        "unique_consecutive.1": uc[1],
        "unique_consecutive.2": uc[2],
        "tril_indices": np.array(np.tril_indices(4, 1, 3)),
        "triu_indices": np.array(np.triu_indices(3, -1, 5)),
        "range": np.arange(1, 4.25, 0.5),
        "hann": np.hanning(8)[:-1],
        "hann_sym": np.hanning(7),
        "hamming": np.hamming(7)[:-1],
        "bartlett_sym": np.bartlett(6),
        "blackman": np.blackman(10)[:-1],
        "softmax_out": np.exp(m) / np.exp(m).sum(axis=1, keepdims=True),
    }
    ref.update(_nn_references(x, m, v))
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a slice of NaNs only: NaN
        ref["logaddexp2_inf"] = np.logaddexp2(s, s)
        ref["nanmean_dim"] = np.nanmean(masked, axis=2, keepdims=True)
    splits = {
        "nonzero_numpy": list(np.nonzero(x > 0.5)),
        "tensor_split_sections": np.array_split(np.arange(10), 3),
        "tensor_split_indices": np.split(x, [1, 3, 9], axis=2),
        "tensor_split_tensor": np.split(x, [1, 2], axis=1),
        "hsplit": np.hsplit(m, 2),
        "vsplit": np.vsplit(x, [1]),
        "dsplit": np.dsplit(x, 2),
    }
    for name, pieces in splits.items():
        ref.update({f"{name}.{i}": p for i, p in enumerate(pieces)})
    bits = np.array([5, -7, 12, -1], dtype=np.int32)
    amounts = np.array([1, 2, 40, 31], dtype=np.int32)
    ref.update(
        {
            "dunder_rshift": bits >> 1,
            "dunder_rshift_t": _shift_right(bits, amounts),
            "dunder_lshift": bits << 3,
            "dunder_and": bits & 6,
            "dunder_or_t": bits | amounts,
            "dunder_xor": bits ^ 3,
            "dunder_inplace": ((bits >> 1) & amounts) ^ 1,
            "shift_inplace": (bits << 2) >> 1,
        }
    )
    return ref


def _softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _im2col(img, k, d, p, s):
    padded = np.pad(img, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (padded.shape[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (padded.shape[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols = np.zeros((img.shape[0], img.shape[1], k[0], k[1], oh, ow))
    for i, j in itertools.product(range(k[0]), range(k[1])):
        r0, c0 = i * d[0], j * d[1]
        cols[:, :, i, j] = padded[:, :, r0 : r0 + s[0] * oh : s[0], c0 : c0 + s[1] * ow : s[1]]
    return cols.reshape(img.shape[0], -1, oh * ow), (oh, ow)


def _col2im(cols, out, k, d, p, s, blocks):
    n, c = cols.shape[0], cols.shape[1] // (k[0] * k[1])
    acc = np.zeros((n, c, out[0] + 2 * p[0], out[1] + 2 * p[1]))
    c6 = cols.reshape(n, c, k[0], k[1], *blocks)
    for i, j in itertools.product(range(k[0]), range(k[1])):
        r0, c0 = i * d[0], j * d[1]
        acc[:, :, r0 : r0 + s[0] * blocks[0] : s[0], c0 : c0 + s[1] * blocks[1] : s[1]] += c6[
            :, :, i, j
        ]
    return acc[:, :, p[0] : p[0] + out[0], p[1] : p[1] + out[1]]


def _conv_transpose1d(x, w, b, stride, pad, out_pad):
    n, cin, length = x.shape
    k = w.shape[2]
    full = np.zeros((n, w.shape[1], (length - 1) * stride + k + out_pad))
    for i in range(length):
        full[:, :, i * stride : i * stride + k] += np.einsum("nc,cok->nok", x[:, :, i], w)
    size = (length - 1) * stride - 2 * pad + k + out_pad
    return full[:, :, pad : pad + size] + b[None, :, None]


def _sdpa(q, k, v, mask=None, causal=False, scale=None):
    s = q @ np.swapaxes(k, -1, -2) * (scale if scale else 1 / np.sqrt(q.shape[-1]))
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    if mask is not None:
        s = s + mask
    return _softmax(s, -1) @ v


def _as_strided_scatter(m):
    out = m.copy().ravel()
    for i, j in itertools.product(range(2), range(2)):
        out[1 + i + 4 * j] = 0.0
    return out.reshape(3, 4)


def _nonzero_static(mask, size, fill):
    nz = np.argwhere(mask)[:size]
    return (
        np.concatenate([nz, np.full((size - len(nz), mask.ndim), fill)]) if len(nz) < size else nz
    )


def _renorm(a, p, dim, maxnorm):
    others = tuple(i for i in range(a.ndim) if i != dim)
    norms = (np.abs(a) ** p).sum(axis=others, keepdims=True) ** (1 / p)
    return a * np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


def _index_reduce(base, index, source, op, include_self):
    out = base.copy()
    groups: dict = {}
    for i, target in enumerate(index):
        groups.setdefault(target, []).append(source[:, i])
    for target, cols in groups.items():
        vals = ([base[:, target]] if include_self else []) + cols
        if op == "mean":
            out[:, target] = np.mean(vals, axis=0)
        else:
            out[:, target] = op.reduce(vals, axis=0)
    return out


def _nn_references(x, m, v) -> dict:
    img = np.sin(np.arange(96, dtype=np.float64)).reshape(2, 2, 4, 6)
    w3 = np.array([0.1, 0.2, 0.3])
    cols, blocks = _im2col(img, (2, 3), (1, 1), (0, 1), (2, 1))
    a, lam = 1.6732632423543772, 1.0507009873554805
    t = _sigmoid(m[::-1])
    bce = (1 - t) * (m * 2) + (1 + 0.5 * t) * np.log1p(np.exp(-(m * 2)))
    plane_mean = img.mean(axis=(2, 3), keepdims=True)
    plane_var = img.var(axis=(2, 3), keepdims=True)
    inorm = (img - plane_mean) / np.sqrt(plane_var + 1e-5)
    logp, target = np.log(_softmax(m, 1)), _softmax(m[:, ::-1], 1)
    rows = [(i, j) for i in range(3) for j in range(i + 1, 3)]
    wt = np.cos(np.arange(18) * 0.3).reshape(3, 2, 3)
    return {
        "one_hot": np.eye(4)[[0, 2, 1]],
        "glu": m[:, :2] * _sigmoid(m[:, 2:]),
        "selu": lam * np.where(v > 0, v, a * np.expm1(v)),
        "celu": np.maximum(v, 0) + np.minimum(0, 0.5 * np.expm1(v / 0.5)),
        "hardshrink": np.where(np.abs(v) > 1.0, v, 0.0),
        "softshrink": np.where(v > 1, v - 1, np.where(v < -1, v + 1, 0.0)),
        "threshold": np.where(v > 0.6, v, -7.0),
        "log_sigmoid": np.log(_sigmoid(v)),
        "hardsigmoid": np.clip(v * 2 + 3, 0, 6) / 6,
        "hardswish": v * 2 * np.clip(v * 2 + 3, 0, 6) / 6,
        "prelu": np.where(x >= 0, x, w3[None, :, None] * x),
        "l1_loss_mean": np.abs(m - m[::-1]).mean(),
        "l1_loss_none": np.abs(m - m[::-1]),
        "smooth_l1_loss": np.where(np.abs(m) < 0.5, m * m, np.abs(m) - 0.25).sum(),
        "huber_loss": np.where(
            np.abs(3 * m) < 1.5, 0.5 * (3 * m) ** 2, 1.5 * (np.abs(3 * m) - 0.75)
        ).mean(),
        "kl_div": (target * (np.log(target) - logp)).sum(),
        "bce_logits": (bce * w3[:, None]).mean(),
        "pixel_unshuffle": img.reshape(2, 2, 2, 2, 3, 2)
        .transpose(0, 1, 3, 5, 2, 4)
        .reshape(2, 8, 2, 3),
        "pixel_round_trip": img,
        "channel_shuffle": np.arange(24.0)
        .reshape(2, 3, 2, 2)
        .transpose(0, 2, 1, 3)
        .reshape(2, 6, 2),
        "im2col": cols,
        "col2im": _col2im(cols, (4, 6), (2, 3), (1, 1), (0, 1), (2, 1), blocks),
        "max_pool1d": x.reshape(2, 3, 2, 2).max(axis=3),
        "avg_pool1d": np.stack(
            [np.pad(x, ((0, 0), (0, 0), (1, 1)))[..., i : i + 3].mean(axis=-1) for i in range(4)],
            -1,
        ),
        "adaptive_avg_pool1d": x.reshape(2, 3, 2, 2).mean(axis=3),
        "conv_transpose1d": _conv_transpose1d(x, wt, np.array([0.5, -0.5]), 2, 1, 1),
        "instance_norm": inorm * np.array([2.0, 3.0])[None, :, None, None]
        + np.array([0.1, -0.1])[None, :, None, None],
        "rms_norm": x
        / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-6)
        * np.array([1.0, 2, 3, 4]),
        "sdpa_causal": _sdpa(x, x[..., ::-1], x * 2, causal=True),
        "sdpa_mask": _sdpa(x, x, x, mask=m[:, :3], scale=0.5),
        "addr": 0.5 * m[:, :3] + 2 * np.outer(v[:3], w3),
        "matrix_power_3": np.linalg.matrix_power(m[:, :3], 3),
        "matrix_power_m2": np.linalg.matrix_power(m[:, :3] + 2 * np.eye(3), -2),
        "matrix_power_0": np.broadcast_to(np.eye(3), (2, 3, 3)),
        "copy": np.full((3, 4), 0.1),
        "as_strided_scatter": _as_strided_scatter(m),
        "nonzero_static_pad": _nonzero_static(m > 0.9, 4, -5),
        "nonzero_static_cut": _nonzero_static(m > 0, 2, -1),
        "renorm": _renorm(x, 2, 1, 1.2),
        "renorm_p1": _renorm(m, 1, 0, 2.0),
        "index_reduce_prod": _index_reduce(m, [0, 2, 0, 1], x[0], np.multiply, True),
        "index_reduce_amax_excl": _index_reduce(m, [0, 2, 0, 1], x[1], np.maximum, False),
        "index_reduce_mean": _index_reduce(m, [0, 2, 0, 1], x[0], "mean", True),
        "pdist": np.array([np.linalg.norm(m[i] - m[j]) for i, j in rows]),
        "pdist_1": np.array([np.abs(m[i] - m[j]).sum() for i, j in rows]),
    }


REFERENCES = _references()


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_composite_op_matches_numpy(values: dict, name: str) -> None:
    assert name in values, f"the program printed no {name}"
    want = np.asarray(REFERENCES[name], dtype=np.float64)
    got = values[name]
    assert got.shape == want.shape, (name, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, equal_nan=True, err_msg=name)


def test_every_printed_value_has_a_reference(values: dict) -> None:
    assert set(values) == set(REFERENCES)


def test_checks_and_utilities_pass(program: Path) -> None:
    proc = subprocess.run([str(program)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failures" in proc.stdout, proc.stdout


def test_expand_helpers_refuse_a_temporary_they_would_borrow(tmp_path: Path) -> None:
    # expand_inplace/expand_outplace may return a borrow of their argument: a temporary
    # would be destroyed before the result is read, so those overloads are deleted (as torch's)
    from tests.core.test_cpp_port_surface import _syntax

    bad = "void f(const sdk::Tensor& a) { auto r = sdk::expand_inplace(a, sdk::ones({3})); }"
    proc = _syntax(tmp_path, f"#include <sdk/expand_utils.h>\n{bad}\n")
    assert proc.returncode != 0 and "deleted" in proc.stderr
    good = "void f(const sdk::Tensor& a, const sdk::Tensor& b) { auto r = sdk::expand_outplace(a, b); }"
    assert _syntax(tmp_path, f"#include <sdk/expand_utils.h>\n{good}\n").returncode == 0
