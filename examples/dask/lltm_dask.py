"""The LLTM forward (examples/lltm/lltm.cpp) over a batch chunked across Dask worker
processes, checked against the same op run once in this process.

python lltm_dask.py [--batch 4096] [--chunks 8] [--workers 2]

What crosses to the workers: the op (`ext.forward`, a function of the module load() built)
pickles as its build request, so each worker load()s it from its machine's cache (here the
same cache: no compile); the weights are sdk tensors, pickled with protocol-5 out-of-band
buffers (no copy into the pickle stream); the batch chunks are numpy arrays, which sdk ops
take without a copy (sdk.as_tensor) and hand back the same way (Tensor.numpy()).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import sdk
from cpp_extension import load

HERE = os.path.dirname(os.path.abspath(__file__))
LLTM_CPP = os.path.join(HERE, "..", "lltm", "lltm.cpp")


def build():
    """The LLTM extension, as examples/lltm/jit.py builds it (the same cache entry)."""
    return load("lltm_cpp", [os.path.normpath(LLTM_CPP)], extra_cflags=["-O3"])


def new_h_block(x, old_h, old_cell, *, forward, weights, bias):
    """One chunk of the batch, on a worker: numpy in, numpy out, the C++ op in between."""
    outs = forward(sdk.as_tensor(x), weights, bias, sdk.as_tensor(old_h), sdk.as_tensor(old_cell))
    return outs[0].numpy()  # new_h; .numpy() shares the tensor's memory


def inputs(batch: int, features: int, state: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    return {
        "x": f32(batch, features),
        "h": f32(batch, state),
        "c": f32(batch, state),
        "weights": sdk.from_numpy(f32(3 * state, features + state) * 0.1),
        "bias": sdk.from_numpy(f32(3 * state) * 0.1),
    }


def on_dask(forward, data: dict, chunks: int):
    """new_h for the whole batch: one map_blocks task per chunk of rows."""
    import dask.array as da

    rows = -(-data["x"].shape[0] // chunks)
    x, h, c = (da.from_array(data[k], chunks=(rows, -1)) for k in ("x", "h", "c"))
    state = data["h"].shape[1]
    new_h = da.map_blocks(
        new_h_block, x, h, c,
        forward=forward, weights=data["weights"], bias=data["bias"],
        chunks=(x.chunks[0], (state,)), meta=np.empty((0, 0), np.float32),
    )  # fmt: skip
    return new_h.compute()


def in_one_process(forward, data: dict) -> np.ndarray:
    args = [sdk.as_tensor(data[k]) for k in ("x", "weights", "bias", "h", "c")]
    return forward(*args)[0].numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--state", type=int, default=128)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    from distributed import Client, LocalCluster

    ext = build()
    data = inputs(args.batch, args.features, args.state)
    expected = in_one_process(ext.forward, data)
    start = time.perf_counter()
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        up = time.perf_counter()
        got = on_dask(ext.forward, data, args.chunks)
        done = time.perf_counter()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    print(
        f"LLTM forward, batch {args.batch} in {args.chunks} chunks on {args.workers} workers: "
        f"matches one process (cluster up in {up - start:.1f} s, compute {done - up:.2f} s)"
    )


if __name__ == "__main__":
    main()
