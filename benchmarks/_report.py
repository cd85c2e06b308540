"""The report of benchmarks/run_all.py: the goals, RESULTS.md's tables and chart.png.

Goals are ratios against torch or numpy (lower time is better unless a row says otherwise) or
absolute values; each table row says whether its goal is met and the summary counts them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

LLTM_SIZES = ((16, 32, 128), (64, 256, 512), (256, 1024, 1024))
LLTM_GOALS = {LLTM_SIZES[0]: 0.8, LLTM_SIZES[1]: 1.0, LLTM_SIZES[2]: 1.0}  # time vs torch
LLTM_MM_GOAL = 1.25  # LLTM op / its matmuls alone, at the largest size
GOALS = {
    "tiny_us": 0.5,
    "tiny_vs_torch": 0.6,
    "gemm_vs_numpy": 0.95,  # GFLOP/s ratio, higher is better
    "elementwise_vs_numpy": 1.0,  # time ratio
    "threaded_vs_best": 1.0,  # time ratio against min(numpy, torch), default thread counts
    "import_s": 0.15,
    "import_mb": 50.0,
    "cold_pybind_s": 5.0,
    "cold_pybind_vs_torch": 0.25,
    "ctypes_build_s": 1.0,
    "warm_load_s": 0.2,
    "autograd_vs_torch": 1.0,
}


# --------------------------------------------------------------------------- the report


class Report:
    """Markdown lines plus every checked goal (for the summary table and the chart)."""

    def __init__(self, has_torch: bool) -> None:
        self.has_torch = has_torch
        self.lines: list[str] = []
        self.goals: list[dict] = []
        self.sections: list[tuple[str, str, str | None]] = []  # title, goal, error

    def check(self, panel: str, label: str, value, limit: float, higher: bool = False) -> str:
        """Record a goal; return its status for a table cell."""
        if value is None:
            return "n/a"
        met = value >= limit if higher else value <= limit
        self.goals.append(
            {
                "panel": panel,
                "label": label,
                "value": value,
                "goal": limit,
                "higher": higher,
                "met": met,
                "section": self.sections[-1][0] if self.sections else "",
            }
        )
        return "met" if met else "**not met**"

    def table(self, head: list[str], rows: list[list[str]]) -> None:
        self.lines += md_table(head, rows)

    def section(self, title: str, goal: str, data: Any) -> bool:
        """Header with its goal; False (after an error line) when the data is an error."""
        self.lines += [f"## {title}", "", f"Goal: {goal}", ""]
        error = data["error"] if isinstance(data, dict) and "error" in data else None
        self.sections.append((title, goal, error))
        if error:
            self.lines += [f"error: {error}", ""]
        return error is None

    def summary(self) -> list[str]:
        """One row per section: its goal, how many checks met, and the ones not met."""
        met = sum(g["met"] for g in self.goals)
        rows = []
        for title, goal, error in self.sections:
            checks = [g for g in self.goals if g["section"] == title]
            missed = [f"{g['label']}: {num(g['value'], 2)}" for g in checks if not g["met"]]
            count = f"{len(checks) - len(missed)} / {len(checks)}" if checks else "n/a"
            rows.append(
                [
                    title.split(" (")[0],
                    goal,
                    f"error: {error}" if error else count,
                    ", ".join(missed),
                ]
            )
        head = ["section", "goal", "met", "not met (measured)"]
        return [f"## Summary: {met} of {len(self.goals)} goal checks met", ""] + md_table(
            head, rows
        )


def md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows] + [""]


def num(x, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def cell(data: Any, fmt: Callable[[Any], str]) -> str:
    """A table cell from a value or a guarded() error."""
    if isinstance(data, dict) and "error" in data:
        return f"error: {data['error']}"
    return fmt(data)


def get(data: Any, *keys):
    """data[k0][k1]... or None when missing or an error."""
    for k in keys:
        if not isinstance(data, dict) or "error" in data or data.get(k) is None:
            return None
        data = data[k]
    return data


def render_build(rep: Report, build: dict) -> None:
    g = GOALS
    rep.section(
        "JIT build of the LLTM op (seconds, fresh processes, fresh cache dirs, no compiler cache, the tutorial's load(name, sources) call)",
        f"cold pybind11 build <= {g['cold_pybind_s']} s and <= {g['cold_pybind_vs_torch']}x torch; "
        f"ctypes build <= {g['ctypes_build_s']} s; warm load <= {g['warm_load_s']} s",
        build,
    )
    pyb, cty, tor = (build.get(c) for c in ("pybind11", "ctypes", "torch"))
    panel = "absolute (value / goal)"
    cold = [
        "pybind11: "
        + rep.check(panel, "cold build pybind11 (s)", get(pyb, "cold", "load"), g["cold_pybind_s"]),
        "ctypes: "
        + rep.check(panel, "cold build ctypes (s)", get(cty, "cold", "load"), g["ctypes_build_s"]),
    ]
    if rep.has_torch:
        cold_ratio = ratio(get(pyb, "cold", "load"), get(tor, "cold", "load"))
        status = rep.check(
            "vs torch (time ratio)", "cold build pybind11", cold_ratio, g["cold_pybind_vs_torch"]
        )
        cold.append("pybind11/torch: " + status)
    warm = [
        f"{b}: " + rep.check(panel, f"warm load {b} (s)", get(d, "warm", "total"), g["warm_load_s"])
        for b, d in (("pybind11", pyb), ("ctypes", cty))
    ]
    steps = [
        ("cold build: load()", "cold", "load", "; ".join(cold)),
        ("cold build: process wall", "cold", "wall", ""),
        ("warm: load() alone, fresh process", "warm", "load", ""),
        ("warm load incl. import, fresh process", "warm", "total", "; ".join(warm)),
        ("rebuild after an edit: load()", "edit", "load", "(info)"),
        ("later rebuilds (3rd build): load()", "edit_later", "load", "(info)"),
    ]
    cols = [pyb, cty] + ([tor] if rep.has_torch else [])
    rows = []
    for label, phase, field, goal in steps:
        row = [label] + [cell(d, lambda d, p=phase, f=field: num(get(d, p, f), 2)) for d in cols]
        if rep.has_torch:
            row.append(num(ratio(get(pyb, phase, field), get(tor, phase, field)), 2))
        rows.append(row + [goal])
    head = ["step", "sdk pybind11", "sdk ctypes"]
    head += ["torch", "pybind11/torch"] if rep.has_torch else []
    rep.table(head + ["goal"], rows)
    if rep.has_torch and isinstance(tor, dict) and "error" not in tor and tor.get("cold") is None:
        rep.lines += [
            "torch's cold build skipped (--quick); its warm load used the user's cache.",
            "",
        ]


def render_lltm(rep: Report, lltm: dict, clock: str) -> None:
    rep.section(
        f"LLTM forward / backward (us per call, {clock} clock, float32, 1 thread)",
        "C++ op (cpp, ctypes) <= 0.8x torch at 16/32/128, <= 1.0x at 64/256/512 and 256/1024/1024 "
        "(ratios of the min times, forward and backward both)",
        lltm,
    )
    rows = []
    for key, variants in lltm.items():
        size = tuple(int(v) for v in key.split(","))
        ref = variants.get("torch")
        for name, data in variants.items():
            if name == "mm":
                continue
            if "error" in data:
                rows.append([key, name, f"error: {data['error']}"] + [""] * (3 + 3 * rep.has_torch))
                continue
            row = [key, name] + [
                num(get(data, p, s), 1)
                for p in ("forward_us", "backward_us")
                for s in ("min", "mean")
            ]
            if rep.has_torch:
                rf = ratio(get(data, "forward_us", "min"), get(ref, "forward_us", "min"))
                rb = ratio(get(data, "backward_us", "min"), get(ref, "backward_us", "min"))
                goal = ""
                if name in ("cpp", "ctypes"):
                    limit = LLTM_GOALS[size]
                    fs = rep.check("LLTM vs torch (time ratio)", f"{key} {name} fwd", rf, limit)
                    bs = rep.check("LLTM vs torch (time ratio)", f"{key} {name} bwd", rb, limit)
                    goal = f"<= {limit}x: fwd {fs}, bwd {bs}"
                row += [num(rf, 2), num(rb, 2), goal]
            rows.append(row)
    head = ["B,F,S", "variant", "fwd min", "fwd mean", "bwd min", "bwd mean"]
    head += ["fwd/torch", "bwd/torch", "goal"] if rep.has_torch else []
    rep.table(head, rows)


def render_lltm_mm(rep: Report, lltm: dict, clock: str) -> None:
    key = ",".join(map(str, LLTM_SIZES[-1]))
    variants = lltm.get(key, {}) if isinstance(lltm, dict) else {}
    mm = variants.get("mm", {"error": "not measured"})
    ok = rep.section(
        f"LLTM at {key} vs its matmuls alone (us, min per call, {clock} clock)",
        f"LLTM op <= {LLTM_MM_GOAL}x the time of its GEMMs done with sdk.addmm / sdk.mm directly "
        "(forward: addmm(b, X, W.t()); backward: dG.t() @ X and dG @ W)",
        mm,
    )
    if not ok:
        return
    rows = [
        [
            "matmuls alone (sdk)",
            num(get(mm, "forward_us", "min"), 1),
            "",
            num(get(mm, "backward_us", "min"), 1),
            "",
            "",
        ]
    ]
    for name in ("cpp", "ctypes", "torch"):
        data = variants.get(name)
        if data is None:
            continue
        if "error" in data:
            rows.append([name, f"error: {data['error']}", "", "", "", ""])
            continue
        f, b = get(data, "forward_us", "min"), get(data, "backward_us", "min")
        rf, rb = ratio(f, get(mm, "forward_us", "min")), ratio(b, get(mm, "backward_us", "min"))
        goal = ""
        if name != "torch":
            fs = rep.check("LLTM vs its matmuls", f"{name} fwd", rf, LLTM_MM_GOAL)
            bs = rep.check("LLTM vs its matmuls", f"{name} bwd", rb, LLTM_MM_GOAL)
            goal = f"fwd {fs}, bwd {bs}"
        rows.append([name, num(f, 1), num(rf, 2), num(b, 1), num(rb, 2), goal])
    rep.table(["variant", "fwd", "fwd / mm", "bwd", "bwd / mm", "goal"], rows)


def core_rows(core: Any, sections: tuple) -> list[dict]:
    return [r for r in core if r.get("section") in sections] if isinstance(core, list) else []


def render_tiny(rep: Report, core: Any) -> None:
    g = GOALS
    goal = f"a + b on 4 elements <= {g['tiny_us']} us and <= {g['tiny_vs_torch']}x torch"
    if not rep.section(
        "Per-op overhead (us per call, 4 float32 elements)",
        goal,
        core if not isinstance(core, list) else None,
    ):
        return
    rows = []
    for r in core_rows(core, ("tiny",)):
        us = {k: None if r[k] is None else r[k] * 1e6 for k in ("sdk", "numpy", "torch")}
        row = [r["case"], num(us["sdk"]), num(us["numpy"]), num(ratio(us["sdk"], us["numpy"]), 2)]
        status = ""
        if r["case"].startswith("a + b"):
            status = "<= 0.5 us: " + rep.check(
                "absolute (value / goal)", "a + b (us)", us["sdk"], g["tiny_us"]
            )
        if rep.has_torch:
            rt = ratio(us["sdk"], us["torch"])
            row += [num(us["torch"]), num(rt, 2)]
            if r["case"].startswith("a + b"):
                status += "; vs torch: " + rep.check(
                    "vs torch (time ratio)", "a + b, 4 elements", rt, g["tiny_vs_torch"]
                )
        rows.append(row + [status])
    head = ["case", "sdk", "numpy", "sdk/numpy"] + (["torch", "sdk/torch"] if rep.has_torch else [])
    rep.table(head + ["goal"], rows)


def render_autograd(rep: Report, ag: Any) -> None:
    goal = "backward of the 20-op chain <= torch (medians)"
    if not rep.section("Autograd: 20-op chain on 8x8 float32 (us per call)", goal, ag):
        return
    rows = [
        [r["library"]]
        + [
            num(r[k] * 1e6, 1)
            for k in ("forward_median", "forward_min", "backward_median", "backward_min")
        ]
        for r in ag
    ]
    rep.table(["library", "fwd median", "fwd min", "bwd median", "bwd min"], rows)
    if rep.has_torch and len(ag) == 2:
        rb = ratio(ag[0]["backward_median"], ag[1]["backward_median"])
        status = rep.check(
            "vs torch (time ratio)", "autograd 20-op bwd", rb, GOALS["autograd_vs_torch"]
        )
        rep.lines += [f"backward sdk/torch (median): {num(rb, 2)}x -- goal {status}", ""]


def render_throughput(rep: Report, core: Any, c_abi: Any) -> None:
    ok = rep.section(
        "Elementwise and reductions vs numpy (time per call, 1 thread)",
        "sdk time <= numpy time (sdk/numpy <= 1.0) on every row",
        core if not isinstance(core, list) else None,
    )
    rows = []
    for r in core_rows(core, ("elementwise", "reductions")) if ok else []:
        rows.append(throughput_row(rep, r["case"], r["sdk"], r["numpy"], r.get("torch")))
    if isinstance(c_abi, dict):
        rows.append(
            ["C ABI rows (bench_core_reduce_linalg)", f"error: {c_abi['error']}", "", "", ""]
            + [""] * (2 * rep.has_torch)
        )
    else:
        # the core alone, called through ctypes: each call carries ~2.5 us of ctypes overhead
        # (the user-facing rows above include sum/max/softmax through sdk itself)
        for r in c_abi:
            if r["case"].startswith(("sum", "amax", "softmax")):
                s, n = r["sdk"], r["numpy"]
                row = [r["case"] + " (C ABI)", ms(s) + " ms", ms(n) + " ms", num(ratio(s, n), 2)]
                rows.append(row + (["-", ""] if rep.has_torch else []) + ["(C ABI, info)"])
    head = ["case", "sdk", "numpy", "sdk/numpy"] + (["torch", "sdk/torch"] if rep.has_torch else [])
    rep.table(head + ["goal"], rows)


def ms(seconds) -> str:
    return num(None if seconds is None else seconds * 1e3, 3)


def throughput_row(rep: Report, case: str, s, n, t) -> list[str]:
    rn = ratio(s, n)
    status = rep.check(
        "vs numpy (time ratio)", case.replace(" float32", ""), rn, GOALS["elementwise_vs_numpy"]
    )
    row = [case, ms(s) + " ms", ms(n) + " ms", num(rn, 2)]
    if rep.has_torch:
        row += ["-" if t is None else ms(t) + " ms", num(ratio(s, t), 2)]
    return row + [status]


def render_gemm(rep: Report, core: Any, c_abi: Any) -> None:
    goal = f"sgemm and dgemm GFLOP/s >= {GOALS['gemm_vs_numpy']}x numpy"
    if not rep.section(
        "GEMM (GFLOP/s, 1 thread)", goal, core if not isinstance(core, list) else None
    ):
        return
    rows = []
    for r in core_rows(core, ("gemm",)):
        rn = ratio(r["sdk"], r["numpy"])
        status = rep.check(
            "GEMM vs numpy (GFLOP/s ratio)",
            r["case"].replace(" (GFLOP/s)", ""),
            rn,
            GOALS["gemm_vs_numpy"],
            higher=True,
        )
        row = [
            r["case"].replace(" (GFLOP/s)", ""),
            num(r["sdk"], 1),
            num(r["numpy"], 1),
            num(rn, 2),
        ]
        if rep.has_torch:
            row += [num(r["torch"], 1), num(ratio(r["sdk"], r["torch"]), 2)]
        rows.append(row + [status])
    for r in c_abi if isinstance(c_abi, list) else []:
        parts = r["case"].split()
        if parts[0] == "mm" and len(parts) == 3:  # "mm float32 1024": square GEMM via the C ABI
            flops = 2.0 * int(parts[2]) ** 3 / 1e9
            s, n = flops / r["sdk"], flops / r["numpy"]
            row = [r["case"] + " (C ABI)", num(s, 1), num(n, 1), num(ratio(s, n), 2)]
            rows.append(row + (["-", ""] if rep.has_torch else []) + ["(C ABI, info)"])
    head = ["case", "sdk", "numpy", "sdk/numpy"] + (["torch", "sdk/torch"] if rep.has_torch else [])
    rep.table(head + ["goal"], rows)


THREADED_PANEL = "default threads: vs min(numpy, torch) (time ratio)"
THREADED_GEMM_PANEL = "default threads: GEMM vs max(numpy, torch) (GFLOP/s ratio)"


def render_threaded(rep: Report, threaded: Any, core: Any) -> None:
    """The core rows again with every library at its default thread count, against the
    better of numpy and torch, beside the sdk's 1-thread time from the same results."""
    if threaded is None:
        return  # results from before the threaded rows existed
    info = threaded if isinstance(threaded, dict) and "error" in threaded else None
    goal = "sdk time <= min(numpy, torch) on every elementwise and reduction row; GEMM >= "
    goal += f"{GOALS['gemm_vs_numpy']}x the better GFLOP/s"
    if not rep.section("Default thread counts (elementwise, reductions, GEMM)", goal, info):
        return
    threads, load = threaded.get("threads") or {}, threaded.get("load_average")
    rep.lines += [
        f"Threads: sdk {threads.get('sdk', '?')}, torch {threads.get('torch', '-')}, numpy's "
        f"BLAS its default; load average at the start {num(load, 1)}. Times in ms; GEMM rows "
        "in GFLOP/s (higher is better).",
        "",
    ]
    single = {r["case"]: r["sdk"] for r in core_rows(core, ("elementwise", "reductions", "gemm"))}
    rows = []
    for r in threaded["results"]:
        gemm = r.get("section") == "gemm"
        others = [v for v in (r["numpy"], r.get("torch")) if v is not None]
        best = (max if gemm else min)(others) if others else None
        # the paired median of the rounds when recorded (robust to one slow round), else
        # the ratio of the best times
        rb = r.get("paired_vs_best") or ratio(r["sdk"], best)
        label = r["case"].replace(" (GFLOP/s)", "").replace(" float32", "")
        if gemm:
            status = rep.check(THREADED_GEMM_PANEL, label, rb, GOALS["gemm_vs_numpy"], True)
            show = lambda v: num(v, 1)  # noqa: E731
        else:
            status = rep.check(THREADED_PANEL, label, rb, GOALS["threaded_vs_best"])
            show = ms
        one = single.get(r["case"])
        rows.append(
            [r["case"], show(r["sdk"]), show(r["numpy"]), show(r.get("torch")), num(rb, 2)]
            + [show(one), status]
        )
    head = ["case", "sdk", "numpy", "torch", "sdk/best", "sdk 1 thread (full run)", "goal"]
    rep.table(head, rows)
    rep.lines += [
        "sdk/best: time over the better of numpy and torch (GEMM: GFLOP/s over the better), "
        "the median over 15 alternating rounds of each round's ratio (7 for GEMM). "
        "The 1-thread column comes from the full run above, under its own load: compare it "
        "with this table's columns only when the two loads match (benchmarks/bench_threads.py "
        "times 1 and N threads in one run).",
        "",
    ]


def render_imports(rep: Report, imports: dict) -> None:
    g = GOALS
    rep.section(
        "Import cost (fresh processes, median of 5)",
        f"`import sdk` <= {g['import_s']} s and <= {g['import_mb']:.0f} MB peak RSS",
        imports,
    )
    rows = []
    for module, data in imports.items():
        if "error" in data:
            rows.append([module, f"error: {data['error']}", "", ""])
            continue
        goal = ""
        if module == "sdk":
            ts = rep.check(
                "absolute (value / goal)", "import sdk (s)", data["seconds"], g["import_s"]
            )
            rs = rep.check(
                "absolute (value / goal)", "import sdk RSS (MB)", data["rss_mb"], g["import_mb"]
            )
            goal = f"time {ts}, RSS {rs}"
        rows.append(
            [f"import {module}", num(data["seconds"] * 1e3, 1), num(data["rss_mb"], 1), goal]
        )
    rep.table(["module", "time (ms)", "peak RSS (MB)", "goal"], rows)


def render(results: dict) -> Report:
    meta = results["meta"]
    rep = Report(has_torch=meta.get("torch") is not None)
    rep.lines += [
        "# Benchmark results",
        "",
        f"- Date: {meta['date']} (git {meta.get('git', '?')}), mode: {meta.get('mode', '?')}, "
        f"took {meta.get('elapsed_s', '?')} s",
        f"- Machine: {meta['cpu']}, {meta['cores']} cores (load average at start {num(meta.get('load_average'), 1)})",
        f"- Python {meta['python']}, numpy {meta['numpy']}, torch {meta['torch'] or 'not installed'}",
        "- Single-threaded unless a section says otherwise (the default-thread rows), each",
        "  benchmark in a fresh process. The machine is shared and",
        "  noisy: compare ratios within one run, not absolute times across runs.",
        "- Produced by `python benchmarks/run_all.py`; raw numbers in results.json, chart in chart.png.",
        "",
    ]
    head = len(rep.lines)
    render_build(rep, results["build"])
    clock = meta.get("lltm_clock", "wall")
    render_lltm(rep, results["lltm"], clock)
    render_lltm_mm(rep, results["lltm"], clock)
    render_tiny(rep, results["core"])
    render_autograd(rep, results["autograd"])
    render_throughput(rep, results["core"], results["core_c_abi"])
    render_gemm(rep, results["core"], results["core_c_abi"])
    render_threaded(rep, results.get("core_threaded"), results["core"])
    render_imports(rep, results["imports"])
    rep.lines[head:head] = rep.summary()
    return rep


PANEL_NOTES = {
    "LLTM vs torch (time ratio)": "lower is better",
    "LLTM vs its matmuls": "time ratio, lower is better",
    "vs torch (time ratio)": "lower is better",
    "vs numpy (time ratio)": "lower is better",
    "GEMM vs numpy (GFLOP/s ratio)": "higher is better",
    "absolute (value / goal)": "lower is better; 1.0 = the goal",
    THREADED_PANEL: "lower is better",
    THREADED_GEMM_PANEL: "higher is better",
}


def draw_chart(goals: list[dict], path: Path, title: str) -> None:
    """Horizontal bars per panel, green when the goal is met; a black tick marks each bar's goal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [p for p in PANEL_NOTES if any(g["panel"] == p for g in goals)]
    sizes = [sum(g["panel"] == p for g in goals) for p in panels]
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(10, 1.2 + 0.32 * sum(sizes) + 0.6 * len(panels)),
        gridspec_kw={"height_ratios": [n + 1.5 for n in sizes]},
        squeeze=False,
    )
    for ax, panel in zip(axes[:, 0], panels):
        items = [g for g in goals if g["panel"] == panel]
        scale = [g["goal"] if panel.startswith("absolute") else 1.0 for g in items]
        values = [g["value"] / s for g, s in zip(items, scale)]
        limits = [g["goal"] / s for g, s in zip(items, scale)]
        ys = range(len(items))
        ax.barh(ys, values, color=["#4c9a2a" if g["met"] else "#c0392b" for g in items], height=0.6)
        for y, limit in zip(ys, limits):
            ax.plot([limit, limit], [y - 0.42, y + 0.42], color="black", lw=2)
        for y, v in zip(ys, values):
            ax.text(v, y, f" {v:.2f}", va="center", fontsize=7)
        labels = [g["label"] for g in items]
        if panel.startswith("absolute"):
            labels = [f"{g['label']}: {g['value']:.2f} / {g['goal']}" for g in items]
        ax.set_yticks(list(ys), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, max(max(values), max(limits)) * 1.15)
        ax.set_title(f"{panel} ({PANEL_NOTES[panel]}); black tick = goal", fontsize=9, loc="left")
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.985))
    fig.savefig(path, dpi=110)
    plt.close(fig)
