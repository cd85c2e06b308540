"""sru (simple recurrent units) and beamgrad (differentiable beam search): CPU ops registered
with torch's op registry (the legacy RegisterOperators and TORCH_LIBRARY), called through
torch.ops / sdk.ops; their CUDA sources compile."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

# SRU's elementwise recurrence (inference): U is [L, B, H*k] from the grouped matmul, c is the
# carried cell state. Sizes small enough to read, k = 3 (no skip projection) and k = 4.
L, B, H = 5, 3, 4
SCALE_X = 0.7


def _sru_inputs(rng, k=3, bidir=False, custom=False):
    d = 2 if bidir else 1
    w_shape = (L, B, d * H * 2) if custom else (d * H * 2,)
    return {
        "U": rng.standard_normal((L, B, d * H * k)).astype(np.float32),
        "x": rng.standard_normal((L, B, d * H)).astype(np.float32),
        "w": (rng.standard_normal(w_shape) * 0.5).astype(np.float32),
        "b": (rng.standard_normal(d * H * 2) * 0.1).astype(np.float32),
        "c0": rng.standard_normal((B, d * H)).astype(np.float32),
        "pad": np.isin(np.arange(L * B).reshape(L, B), [2, 7, 13]),  # padded tokens
        "k": k,
        "custom": custom,
    }


def _sru_call(name, activation, skip=True, pad=False):
    def call(ns, fw, i):
        mask = fw.tensor(i["pad"]) if pad else None
        args = (fw.tensor(i["U"]), fw.tensor(i["x"]), fw.tensor(i["w"]), fw.tensor(i["b"]))
        return getattr(ns, name)(
            *args, fw.tensor(i["c0"]), mask, L, B, H, i["k"], activation, skip, SCALE_X, i["custom"]
        )

    return call


def _activation(kind, x):
    if kind == 1:
        return np.tanh(x)
    if kind == 2:
        return np.maximum(x, 0)
    if kind == 3:
        return 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))
    return x


def _sru_ref(activation, skip=True, pad=False):
    """Unidirectional: for each step, forget gate f = sigmoid(u1 + wf*c + bf), reset gate
    r = sigmoid(u2 + wr*c + br), c' = f*c + (1-f)*u0, h = r*g(c') + (1-r)*x'; padded tokens
    leave h at 0 and c unchanged."""

    def ref(i):
        k, custom = i["k"], i["custom"]
        u = i["U"].astype(np.float64).reshape(L, B, H, k)
        c = i["c0"].astype(np.float64).copy()
        h = np.zeros((L, B, H))
        sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
        for t in range(L):
            if custom:
                w = i["w"].reshape(L, B, H, 2)[t]
                wf, wr = w[..., 0], w[..., 1]
            else:
                wf, wr = i["w"][:H], i["w"][H:]
            f = sig(u[t, ..., 1] + wf * c + i["b"][:H])
            r = sig(u[t, ..., 2] + wr * c + i["b"][H:])
            c_new = (c - u[t, ..., 0]) * f + u[t, ..., 0]
            xv = (u[t, ..., 3] if k == 4 else i["x"][t] * SCALE_X) if skip else 0.0
            h_new = (_activation(activation, c_new) - xv) * r + xv
            keep = ~i["pad"][t][:, None] if pad else np.ones((B, 1), bool)
            h[t] = np.where(keep, h_new, 0.0)
            c = np.where(keep, c_new, c)
        return h, c

    return ref


SRU = Package(
    name="sru",
    version="2.6.0",
    filename="sru-2.6.0.tar.gz",
    sha256="e472e32bb3492d10faa121a29f985660c81fb649989924da90c8d1fcafd1152c",
    port_roots=("sru/csrc",),
    why="simple recurrent units: the elementwise recurrence of inference, on CPU",
    builds=(
        Build("cpu", ("sru/csrc/sru_cpu_impl.cpp",), namespace="sru_cpu"),
        Build(
            "cuda",
            ("sru/csrc/sru_cuda_impl.cpp", "sru/csrc/sru_cuda_kernel.cu"),
            compile_only=True,
        ),
    ),
    ops=(
        Op("cpu_forward_tanh", "cpu", _sru_inputs, _sru_call("cpu_forward", 1), _sru_ref(1)),
        Op(
            "cpu_forward_relu_pad",
            "cpu",
            _sru_inputs,
            _sru_call("cpu_forward", 2, pad=True),
            _sru_ref(2, pad=True),
        ),
        Op(
            "cpu_forward_k4_custom",
            "cpu",
            lambda rng: _sru_inputs(rng, k=4, custom=True),
            _sru_call("cpu_forward", 3),
            _sru_ref(3),
        ),
        Op(
            "cpu_forward_noskip",
            "cpu",
            _sru_inputs,
            _sru_call("cpu_forward", 0, skip=False),
            _sru_ref(0, skip=False),
        ),
        Op(
            "cpu_bi_forward",
            "cpu",
            lambda rng: _sru_inputs(rng, bidir=True),
            _sru_call("cpu_bi_forward", 1, pad=True),
        ),
        Op("sru_cuda_forward (compile only)", "cuda"),
    ),
)


# beamgrad: log-probabilities [B, T, K, V] in, the beams' scores, tokens and back-pointers out.
BG_B, BG_T, BG_K, BG_V = 2, 6, 3, 11
BG_ALPHA = 0.6


def _log_probs(rng, k=BG_K):
    logits = rng.standard_normal((BG_B, BG_T, k, BG_V)).astype(np.float32) * 2
    m = logits.max(-1, keepdims=True)
    lse = m + np.log(np.exp(logits - m).sum(-1, keepdims=True))
    return {
        "lp": (logits - lse).astype(np.float32),
        "steps": np.array([BG_T, BG_T - 2], np.int64),
        "lengths": rng.integers(0, 40, (4, 5)).astype(np.int32),
    }


def _decode(ns, fw, i, eos=2, k=BG_K):
    # log_probs, steps, eos_token, min_length, length_penalty_alpha, banned_tokens,
    # no_repeat_ngram_size, repetition_penalty, validate
    return ns.decode(
        fw.tensor(i["lp"]), fw.tensor(i["steps"]), eos, 2, BG_ALPHA, None, 0, 1.0, True
    )


def _greedy(ns, fw, i):
    """One beam and no end token: the search takes each step's most likely token."""
    out = ns.decode(fw.tensor(i["lp"]), None, -1, 0, 0.0, None, 0, 1.0, True)
    return out[3], out[7]  # tokens, raw_scores


def _greedy_ref(i):
    lp = i["lp"][:, :, 0, :]
    return lp.argmax(-1)[..., None].astype(np.int32), np.cumsum(lp.max(-1), 1)[..., None]


def _backward(ns, fw, i):
    out = ns.decode(fw.tensor(i["lp"]), fw.tensor(i["steps"]), 2, 2, BG_ALPHA, None, 0, 1.0, True)
    grad = fw.tensor(np.ones((BG_B, BG_K), np.float32))
    # grad_final, parents, tokens, lengths, from_logprob, steps, vocab_size, alpha
    args = (grad, out[4], out[3], out[5], out[8], fw.tensor(i["steps"]), BG_V, BG_ALPHA)
    return ns.final_scores_backward(*args)


def _gnmt(i):
    length = np.maximum(i["lengths"], 1).astype(np.float64)
    return ((5 + length) / 6) ** BG_ALPHA


BEAMGRAD = Package(
    name="beamgrad",
    version="2.3.0",
    filename="beamgrad-2.3.0.tar.gz",
    sha256="557ceba74e5dc6f056e658602d7dd0a583ea7c25a6ee50bd83488baae80fb556",
    port_roots=("python/csrc", "src", "include", "cuda"),
    why="differentiable beam search: exact search forward, surrogate gradients backward",
    builds=(
        Build(
            "cpu",
            (
                "python/csrc/cpu_ops.cpp",
                "src/c_api.cpp",
                "src/cpu_features.cpp",
                "src/decoder.cpp",
                "src/kernels_scalar.cpp",
                "src/kernels_x86.cpp",
            ),
            ("include", "src"),
            defines=("Py_LIMITED_API=0x030A0000",),  # its abi3 build
            namespace="beamgrad",
            cflags=("-ffp-contract=off",),  # the package's own build: no contraction
        ),
        Build(
            "cuda",
            ("python/csrc/cuda_ops.cpp", "cuda/dbs_cuda.cu"),
            ("include", "src"),
            defines=("Py_LIMITED_API=0x030A0000",),
            compile_only=True,
        ),
    ),
    ops=(
        Op(
            "length_penalty",
            "cpu",
            _log_probs,
            lambda ns, fw, i: ns.length_penalty(fw.tensor(i["lengths"]), BG_ALPHA),
            _gnmt,
        ),
        Op("decode_greedy", "cpu", lambda rng: _log_probs(rng, k=1), _greedy, _greedy_ref),
        Op("decode", "cpu", _log_probs, _decode),
        Op("final_scores_backward", "cpu", _log_probs, _backward),
        Op("decode (compile only)", "cuda"),
    ),
)


# fpscan: a first-order linear recurrence h_t = a_t * h_{t-1} + b_t as a parallel scan, CUDA
# only; its kernels use CUDA's own __half and __nv_bfloat16, which torch's headers bring.
FPSCAN = Package(
    name="fpscan",
    version="0.1.2",
    filename="fpscan-0.1.2.tar.gz",
    sha256="b8d79cf782e7cc540c61ed4df73fe7aab28147fbedcb1dbf6379649aac911626",
    port_roots=("csrc",),
    why="first-order parallel scan (CUDA)",
    builds=(
        Build(
            "cuda",
            ("csrc/main.cpp", "csrc/dimwise/dimwise_scan_final.cu", "csrc/full_scan/full_scan.cu"),
            ("csrc",),
            compile_only=True,
        ),
    ),
    ops=(Op("scan (compile only)", "cuda"),),
)


# torch-discounted-cumsum: discounted cumulative sums along rows (reinforcement learning's
# returns), a pybind11 module its Python layer builds with load(); a per-row discount.
DC_B, DC_T = 6, 9


def _discount_inputs(dtype):
    def inputs(rng):
        return {
            "x": rng.standard_normal((DC_B, DC_T)).astype(dtype),
            "gamma": rng.uniform(0.5, 1.0, DC_B).astype(dtype),
        }

    return inputs


def _discounted_ref(right):
    """Left: y[t] = x[t] + gamma * y[t-1]; right: y[t] = x[t] + gamma * y[t+1]."""

    def ref(i):
        x = i["x"][:, ::-1] if right else i["x"]
        y = x.copy()
        for t in range(1, DC_T):
            y[:, t] = x[:, t] + i["gamma"] * y[:, t - 1]
        return y[:, ::-1] if right else y

    return ref


def _discounted(side):
    return lambda ns, fw, i: getattr(ns, f"discounted_cumsum_{side}_cpu")(
        fw.tensor(i["x"]), fw.tensor(i["gamma"])
    )


DISCOUNTED_CUMSUM = Package(
    name="torch-discounted-cumsum",
    version="1.1.0",
    filename="torch_discounted_cumsum-1.1.0.tar.gz",
    sha256="34e6a7e10f416a7aa84e5fb4e00d6a84a0cfbb0a68bcf22a3434488360f0ea37",
    port_roots=("torch_discounted_cumsum",),
    why="reinforcement learning: discounted cumulative sums (returns) along rows",
    builds=(
        Build("cpu", ("torch_discounted_cumsum/discounted_cumsum_cpu.cpp",)),
        Build(
            "cuda",
            (
                "torch_discounted_cumsum/discounted_cumsum_cuda.cpp",
                "torch_discounted_cumsum/discounted_cumsum_cuda_kernel.cu",
            ),
            compile_only=True,
        ),
    ),
    ops=(
        Op("discounted_cumsum_left", "cpu", _discount_inputs(np.float32), _discounted("left"),
           _discounted_ref(False), rtol=1e-5, atol=1e-5),
        Op("discounted_cumsum_right", "cpu", _discount_inputs(np.float32), _discounted("right"),
           _discounted_ref(True), rtol=1e-5, atol=1e-5),
        Op("discounted_cumsum_right (float64)", "cpu", _discount_inputs(np.float64),
           _discounted("right"), _discounted_ref(True)),
        Op("discounted_cumsum_left, right (CUDA, compile only)", "cuda"),
    ),
)  # fmt: skip
