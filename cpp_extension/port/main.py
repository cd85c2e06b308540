"""`python -m cpp_extension port SRC... --out DIR | --in-place`: port a torch extension.

C++/CUDA sources and headers and the Python glue are rewritten by the mapping in
`cpp_extension.port_map` (includes, torch::/at::/c10:: namespaces, TORCH_/AT_/C10_ macros,
torch.utils.cpp_extension / torch.ops / torch.library / torch.X in Python); other files are
copied as they are. Porting twice gives the same files as porting once. The summary lists
every torch name left without an SDK counterpart with file:line; the compile probe
(`probe`, on when a compiler is found) adds what the compiler finds in the ported
units, so what is left to do is known before building.

`--table [README]` prints the porting table generated from the mapping, or rewrites it in a
README between the markers; `--coverage` ranks the torch names open-source extensions use
(the census in port_census.json, see docs/porting-census.md) with what the SDK has for each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import files as _port_files
from . import port_map
from .census import CoverageReport, coverage_report, load_census
from .cxx import Missing, Result, defined_macros, port_cxx
from .python import port_python
from .sdk_names import sdk_headers

CXX_SUFFIXES = frozenset(".c .cc .cpp .cxx .c++ .h .hh .hpp .hxx .cu .cuh .inl .ipp .tpp".split())
PY_SUFFIXES = frozenset((".py", ".pyi"))
_SKIP_DIRS = frozenset(
    (".git", ".hg", ".svn", "__pycache__", ".venv", "build", "dist", ".eggs", ".tox")
)
TABLE_BEGIN = "<!-- port-table: generated from cpp_extension/port/port_map.py by `python -m cpp_extension port --table README.md`; edit the mapping, not this table -->"  # noqa: E501
TABLE_END = "<!-- /port-table -->"


@dataclass
class PortReport:
    """What a port did: files (relative path, whether it changed), rewrites by kind, and the
    torch names left without a counterpart."""

    files: list[tuple[str, bool]] = field(default_factory=list)
    rewrites: dict[str, int] = field(default_factory=dict)
    missing: list[Missing] = field(default_factory=list)
    seconds: float = 0.0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (relative path, why)
    # the ported C++ texts and line maps, for the compile probe (cpp_extension.port.probe)
    cxx: dict[str, str] = field(default_factory=dict, repr=False)
    line_maps: dict[str, list[int] | None] = field(default_factory=dict, repr=False)
    notes: list[str] = field(default_factory=list)
    probe: dict | None = None  # units, compiled, seconds of the probe when it ran
    defines: list[str] = field(default_factory=list)  # setup.py's macros, for the probe

    @property
    def changed(self) -> list[str]:
        return [path for path, changed in self.files if changed]

    def add(self, rel: str, before: str, result: Result) -> None:
        self.files.append((rel, result.text != before))
        for kind, n in result.rewrites.items():
            self.rewrites[kind] = self.rewrites.get(kind, 0) + n
        self.missing.extend(sorted(result.missing, key=lambda m: m.line))
        if Path(rel).suffix.lower() in CXX_SUFFIXES:
            self.cxx[rel] = result.text
            self.line_maps[rel] = result.lines
        elif Path(rel).name == "setup.py":
            from .probe import setup_py_macros

            self.defines = sorted({*self.defines, *setup_py_macros(before)})

    def add_probe(self, found) -> None:
        """Merge the compile probe's result (a _port_probe.ProbeResult): its names without
        counterpart that the porter's own scan did not report, its notes, its numbers."""
        known: dict[tuple[str, int], list[str]] = {}
        for m in self.missing:
            known.setdefault((m.path, m.line), []).append(m.name)
        for m in sorted(found.missing, key=lambda m: (m.path, m.line)):
            names = known.setdefault((m.path, m.line), [])
            # the compiler's view of a name the scan reported: `at` of at::_nope, the same name
            if not any(n == m.name or n.startswith(m.name + "::") for n in names):
                names.append(m.name)
                self.missing.append(m)
        order = {path: i for i, (path, _) in enumerate(self.files)}
        self.missing.sort(key=lambda m: (order.get(m.path, len(order)), m.line))
        self.notes.extend(found.notes)
        self.probe = {"units": found.units, "compiled": found.compiled, "seconds": found.seconds}

    def summary(self) -> str:
        lines = [
            f"ported {len(self.files)} files, {len(self.changed)} changed, in {self.seconds:.2f} s"
        ]
        for path in self.changed:
            lines.append(f"  changed {path}")
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.rewrites.items())) or "none"
        lines.append(f"rewrites: {kinds}")
        if self.missing:
            lines.append(f"no SDK counterpart ({len(self.missing)}): left as they are")
            lines.extend(f"  {m}" for m in self.missing)
        else:
            lines.append("no SDK counterpart: none")
        if self.skipped:
            lines.append(f"links, special and large files ({len(self.skipped)}):")
            lines.extend(f"  {path}: {why}" for path, why in self.skipped)
        if self.probe is not None:
            p = self.probe
            cached = p["units"] - p["compiled"]
            lines.append(
                f"compile probe: {p['units']} translation units ({cached} from the cache) "
                f"in {p['seconds']:.2f} s"
            )
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines)

    def as_json(self) -> dict:
        return {
            "files": [{"path": p, "changed": c} for p, c in self.files],
            "rewrites": self.rewrites,
            "missing": [m.__dict__ for m in self.missing],
            "skipped": [{"path": p, "why": w} for p, w in self.skipped],
            "seconds": self.seconds,
            "probe": self.probe,
            "notes": self.notes,
        }


def _walk(src: Path, exclude: Path | None) -> list[Path]:
    """Every entry below `src` (or `src` itself, a file), links and special files included
    (classified later, by lstat); symbolic links to folders are listed, never entered."""
    if not src.is_dir():
        return [src]
    found = []
    for root, dirs, files in os.walk(src):  # followlinks=False: links to folders are in dirs
        here = Path(root)
        found.extend(here / d for d in sorted(dirs) if (here / d).is_symlink())
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIP_DIRS
            and not d.endswith(".egg-info")
            and not (here / d).is_symlink()
            and (exclude is None or (here / d).resolve() != exclude)
        )
        found.extend(here / f for f in sorted(files))
    return found


def port_text(
    text: str,
    rel: str,
    include_dir: str | None = None,
    own_macros: set[str] | None = None,
    cxx_in_strings: bool = False,
) -> Result | None:
    """Port one file's text by its suffix; None for a file the porter copies unchanged.
    `own_macros`: the macros the project defines (default: those this file defines);
    `cxx_in_strings`: port C++ sources held in Python strings (load_inline's) too."""
    suffix = Path(rel).suffix.lower()
    if suffix in CXX_SUFFIXES:
        return port_cxx(text, rel, sdk_headers(include_dir), own_macros)
    if suffix in PY_SUFFIXES:
        return port_python(text, rel, sdk_headers(include_dir) if cxx_in_strings else None)
    return None


def port_paths(
    sources: list[str | os.PathLike],
    out: str | os.PathLike | None = None,
    *,
    in_place: bool = False,
    include_dir: str | None = None,
    cxx_in_strings: bool = False,
) -> PortReport:
    """Port files and folders into `out` (same layout below their common folder), or in
    place. Returns the report; raises FileNotFoundError / ValueError on bad arguments."""
    if (out is None) == (not in_place):
        raise ValueError("cpp_extension port: give exactly one of --out DIR and --in-place")
    start = time.perf_counter()
    srcs = [Path(s).resolve() for s in sources]
    for s in srcs:
        if not s.exists():
            raise FileNotFoundError(f"cpp_extension port: {s} does not exist")
    out_dir = Path(out).resolve() if out is not None else None
    roots = [s if s.is_dir() else s.parent for s in srcs]
    base = Path(os.path.commonpath([str(r) for r in roots]))
    if out_dir is not None and any(out_dir == s for s in srcs):
        raise ValueError(f"cpp_extension port: --out {out_dir} is a source; use --in-place")
    report = PortReport()
    entries = [
        _port_files.classify(path, path.relative_to(base).as_posix(), roots)
        for src in srcs
        for path in _walk(src, out_dir)
    ]
    if out_dir is not None:
        _port_files.check_targets(entries, roots, out_dir, base)
    sources = _read_sources(entries, report)
    # A project's own macros (AT_DISPATCH_CASE_MY_TYPES in its dispatch.h) stay its own in
    # every file that uses them.
    own_macros: set[str] = set()
    for entry, data, _ in sources:
        if entry.path.suffix.lower() in CXX_SUFFIXES:
            own_macros |= defined_macros(data.decode("utf-8", errors="surrogateescape"))
    for entry, data, mode in sources:
        text = data.decode("utf-8", errors="surrogateescape")
        result = port_text(text, entry.rel, include_dir, own_macros, cxx_in_strings)
        report.add(entry.rel, text, result)
        if out_dir is not None or result.text != text:
            target = entry.path
            if out_dir is not None:
                target = _port_files.make_parents(out_dir, entry.rel) / Path(entry.rel).name
            data = result.text.encode("utf-8", errors="surrogateescape")
            _port_files.write_file(target, data, mode)
    ported = {id(entry) for entry, _, _ in sources}
    for entry in entries:
        if entry.kind == "skip" or id(entry) in ported:
            continue
        _copy_unchanged(entry, out_dir, report)
    report.seconds = time.perf_counter() - start
    return report


def _read_sources(entries: list, report: PortReport) -> list[tuple]:
    """(entry, bytes, mode) of the sources to port: regular files with a C++/CUDA or Python
    suffix of at most MAX_REWRITE bytes; links and special files go to the report."""
    found = []
    for entry in entries:
        if entry.kind != "file":
            report.skipped.append((entry.rel, entry.why))
            continue
        suffix = entry.path.suffix.lower()
        if suffix not in CXX_SUFFIXES and suffix not in PY_SUFFIXES:
            continue
        try:
            fd, st = _port_files.open_regular(entry.path)
        except _port_files.NotRegular as e:
            entry.kind, entry.why = "skip", f"skipped: {e.strerror}"
            report.skipped.append((entry.rel, entry.why))
            continue
        if st.st_size > _port_files.MAX_REWRITE:
            os.close(fd)
            continue  # copied unchanged (see _copy_unchanged), reported there
        data = _port_files.read_fd(fd, _port_files.MAX_REWRITE)
        if len(data) <= _port_files.MAX_REWRITE:
            found.append((entry, data, st.st_mode))
    return found


def _copy_unchanged(entry, out_dir: Path | None, report: PortReport) -> None:
    """A file the porter does not rewrite: a link or regular file copied into --out (links
    as links), left alone in place; too-large sources are reported."""
    if entry.kind == "link":
        if out_dir is not None:
            target = _port_files.make_parents(out_dir, entry.rel) / Path(entry.path.name)
            _port_files.write_link(target, entry.link_text)
        return
    try:
        fd, st = _port_files.open_regular(entry.path)
    except _port_files.NotRegular as e:
        report.skipped.append((entry.rel, f"skipped: {e.strerror}"))
        return
    suffix = entry.path.suffix.lower()
    if suffix in CXX_SUFFIXES or suffix in PY_SUFFIXES:
        how = "copied unchanged" if out_dir is not None else "left unchanged"
        limit = _port_files.MAX_REWRITE
        report.skipped.append((entry.rel, f"{how}: {st.st_size} bytes, over the {limit} ported"))
    report.files.append((entry.rel, False))
    if out_dir is None:
        os.close(fd)
        return
    target = _port_files.make_parents(out_dir, entry.rel) / Path(entry.path.name)
    _port_files.copy_fd(fd, target, st.st_mode)


# ---- the porting table -----------------------------------------------------------------------


def _code(text: str) -> str:
    return f"`{text}`"


def port_table() -> str:
    """The README's porting table, from port_map alone (not from the headers: the table
    says what the porter rewrites, whatever this SDK version has)."""
    rows: list[tuple[str, str]] = []
    for torch_name, ours in port_map.PYTHON_MODULES.items():
        dynamic = ours in port_map.PYTHON_DYNAMIC
        note = "(registered at run time)" if dynamic else "where the SDK has X"
        rows.append((_code(f"{torch_name}.X"), f"`{ours}.X` {note}"))
    rows.extend(port_map.BEHAVIOUR)
    for torch_name, ours in port_map.ENVIRONMENT.items():
        rows.append((_code(torch_name), ours if " " in ours else _code(ours)))
    for torch_ns, ours in port_map.NAMESPACES.items():
        rows.append((_code(f"{torch_ns}::X"), _code(f"{ours}::X")))
    for prefix, ours in port_map.MACRO_PREFIXES.items():
        rows.append((_code(f"{prefix}X"), f"`{ours}X` where the SDK defines it"))
    for torch_name, ours in port_map.MACROS.items():
        rows.append((_code(torch_name), _code(ours)))
    for torch_name, path in port_map.UNSET_SWITCHES.items():
        rows.append((_code(torch_name), f"left unset: {path}"))
    for torch_name, (ours, dropped) in port_map.THC_CALLS.items():
        args = ", ".join(["state"] * dropped + ["..."])
        rows.append((_code(f"{torch_name}({args})"), _code(f"{ours}(...)")))
    for torch_name, ours in port_map.THC_ARG_CHECKS.items():
        rows.append(
            (
                _code(f'{torch_name}(cond, n, "msg")'),
                _code(f'{ours}(cond, "invalid argument ", n, ": ", "msg")'),
            )
        )
    for torch_name, ours in port_map.TEMPLATE_METHOD_RENAMES.items():
        rows.append((_code(f"x.{torch_name}<T>()"), _code(f"x.{ours}<T>()")))
    by_target: dict[str, list[str]] = {}
    for torch_header, ours in port_map.INCLUDES.items():
        by_target.setdefault(ours, []).append(torch_header)
    for prefix, ours in port_map.INCLUDE_PREFIXES.items():
        by_target.setdefault(ours, []).append(prefix + "*")
    for ours, headers in by_target.items():
        rows.append((", ".join(f"`<{h}>`" for h in headers), f"`<{ours}>`"))
    for prefix, reason in port_map.INCLUDES_WITHOUT_COUNTERPART.items():
        rows.append(
            (f"`<{prefix}...>`" if prefix.endswith("/") else f"`<{prefix}>`", f"none: {reason}")
        )
    lines = ["| torch | here |", "|---|---|"]
    lines.extend(f"| {a} | {b} |" for a, b in rows)
    return "\n".join(lines)


def update_readme(path: str | os.PathLike) -> bool:
    """Write the table between the markers of `path`; True when the file changed."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    begin, end = text.find(TABLE_BEGIN), text.find(TABLE_END)
    if begin < 0 or end < begin:
        raise ValueError(f"{p}: the markers {TABLE_BEGIN!r} ... {TABLE_END!r} are missing")
    new = text[: begin + len(TABLE_BEGIN)] + "\n" + port_table() + "\n" + text[end:]
    if new == text:
        return False
    p.write_text(new, encoding="utf-8")
    return True


def coverage(include_dir: str | None = None, census: str | None = None) -> CoverageReport:
    """The census of real extensions' torch names (cpp_extension/port/port_census.json, or
    `census`), each ranked with its status: counterpart, refused (why) or missing."""
    return coverage_report(load_census(census), include_dir)


# ---- command line ----------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m cpp_extension port",
        description="Port a torch C++/CUDA extension (sources, headers, setup.py, Python glue) "
        "to the SDK, and list what has no SDK counterpart.",
    )
    p.add_argument("sources", nargs="*", metavar="SRC", help="files or folders to port")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--out", metavar="DIR", help="write ported copies here (same layout)")
    where.add_argument("--in-place", action="store_true", help="rewrite the files themselves")
    p.add_argument(
        "--cxx-in-strings",
        action="store_true",
        help="also port C++ sources held in Python strings (load_inline's cpp_sources)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--strict", action="store_true", help="exit with status 1 when a name has no counterpart"
    )
    p.add_argument(
        "--probe",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="compile each ported translation unit syntax-only against the SDK's headers and "
        "report its errors as names without counterpart (default: when a compiler is found)",
    )
    p.add_argument(
        "--table",
        nargs="?",
        const="-",
        metavar="README",
        help="print the porting table (or rewrite it between the markers of README)",
    )
    p.add_argument(
        "--coverage",
        action="store_true",
        help="rank the torch names real extensions use (the census) with their status: "
        "counterpart, refused or missing, and the share of uses covered",
    )
    p.add_argument("--census", metavar="FILE", help="census file for --coverage (default: ours)")
    return p


def _run_probe(report: PortReport, required: bool) -> None:
    """The compile probe over the port's C++ (see probe.py); without a compiler, a note
    (or, when --probe asked for it, a note that says the request could not be met)."""
    from . import probe as _port_probe

    compilers = _port_probe.find_compilers()
    if compilers is None:
        asked = " (--probe was given)" if required else ""
        report.notes.append(f"no C++ compiler found: the compile probe did not run{asked}")
        return
    if report.cxx:
        found = _port_probe.probe(
            report.cxx, report.line_maps, compilers=compilers, defines=report.defines
        )
        report.add_probe(found)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.table is not None:
        if args.table == "-":
            print(port_table())
        else:
            changed = update_readme(args.table)
            print(f"{args.table}: porting table {'updated' if changed else 'already current'}")
        return 0
    if args.coverage:
        try:
            report = coverage(census=args.census)
        except (OSError, ValueError) as e:
            print(e, file=sys.stderr)
            return 2
        print(json.dumps(report.as_json(), indent=1) if args.json else report.summary())
        if not args.json:
            print(report.table())
        return 0
    if not args.sources:
        _parser().error("give files or folders to port (or --table / --coverage)")
    if not args.out and not args.in_place:
        _parser().error("give --out DIR or --in-place")
    try:
        report = port_paths(
            args.sources, args.out, in_place=args.in_place, cxx_in_strings=args.cxx_in_strings
        )
    except (OSError, ValueError) as e:
        print(e, file=sys.stderr)
        return 2
    if args.probe is not False:
        _run_probe(report, required=args.probe is True)
    print(json.dumps(report.as_json(), indent=1) if args.json else report.summary())
    return 1 if args.strict and report.missing else 0
