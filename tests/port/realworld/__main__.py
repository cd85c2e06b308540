"""`python -m tests.port.realworld [--all | NAME...] [--doc PATH]`: port, build and check
published torch extensions (see docs/porting-realworld.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import _doc, _fetch, _run
from .packages import PACKAGES


def _append_missing(path: str, results: list[dict]) -> None:
    """One line per build whose ops are not yet ported (package | build: ops | the names the
    porter reported, file:line | the first compiler error), unless the file has it already."""
    target = Path(path)
    seen = set(target.read_text().splitlines()) if target.exists() else set()
    new = []
    for pkg in results:
        builds: dict[tuple[str, str, str], list[str]] = {}
        for op in pkg["ops"]:
            if op["status"] == "not yet":
                names = "; ".join(op["missing"]) or "(porter reported none)"
                builds.setdefault((op["build"], names, op["reason"]), []).append(op["op"])
        for (build, names, reason), ops in builds.items():
            line = f"{pkg['package']} | {build}: {', '.join(ops)} | {names} | {reason}"
            if line not in seen:
                seen.add(line)
                new.append(line)
    with open(target, "a") as f:
        f.writelines(line + "\n" for line in new)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.port.realworld", description=__doc__)
    p.add_argument("names", nargs="*", help="packages to run (default with --all: every one)")
    p.add_argument("--all", action="store_true", help="run every package in the table")
    p.add_argument("--list", action="store_true", help="list the packages and their ops")
    p.add_argument("--doc", metavar="PATH", help="write the results table (markdown) to PATH")
    p.add_argument(
        "--missing-log",
        metavar="PATH",
        help="append a line per op not yet ported (package, op, names, error) to PATH",
    )
    p.add_argument("--no-torch", action="store_true", help="compare with numpy references only")
    args = p.parse_args(argv)
    if args.list:
        for pkg in PACKAGES.values():
            print(f"{pkg.name}=={pkg.version}: {', '.join(op.name for op in pkg.ops)}")
        return 0
    unknown = [n for n in args.names if n not in PACKAGES]
    if unknown:
        p.error(f"unknown package(s) {unknown}; known: {sorted(PACKAGES)}")
    names = list(PACKAGES) if args.all else args.names
    if not names and not args.doc and not args.missing_log:
        p.error("give package names, --all, --list, --doc or --missing-log")
    torch_py = None if args.no_torch else _run.torch_python()
    print(f"cache: {_fetch.cache_root()}; originals built with: {torch_py or 'none (numpy only)'}")
    failed = 0
    for name in names:
        print(f"{name}:", flush=True)
        try:
            _run.run_package(PACKAGES[name], torch_py, log=lambda s: print(s, flush=True))
        except _fetch.FetchError as exc:
            print(f"  fetch failed: {exc}")
            failed += 1
    if args.missing_log:
        _append_missing(args.missing_log, _run.load_results())
    if args.doc:
        _doc.write(args.doc, _run.load_results())
        print(f"wrote {args.doc}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
