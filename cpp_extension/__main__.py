"""`python -m cpp_extension`: info (toolchain and paths), clean (the JIT cache), new (a project),
port (a torch extension to the SDK), repair (auditwheel without the SDK's own libraries)."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from ._errors import BuildError
from .builder import cache as _cache
from .builder import plan as _plan
from .builder import toolchain as _toolchain

# Subcommands added by other modules: name -> (help, add_arguments(parser), run(args) -> int).
# `new NAME` (project scaffolding) registers itself here when it lands.
EXTRA_COMMANDS: dict[str, tuple[str, Callable, Callable]] = {}


def _speedups(launcher: list[str], named: bool = True) -> str:
    """Which of the JIT's build speed-ups apply to a one-source pybind11 build here, under
    `launcher` (`named`: by the user; one found on PATH gives way to them)."""
    from .builder import pch as _pch

    toolchain = _plan.Toolchain(
        {"cxx"}, identities=_cache.toolchains_file(), launcher=launcher, launcher_named=named
    )
    ident = toolchain.identity()
    off = _pch.off_reason(ident, toolchain.fast_path_launcher)
    pch = f"off ({off})" if off else "on"
    jobs = toolchain.split_codegen_jobs(["-O2"], 1, _toolchain.default_jobs())
    split = (
        f"on, {jobs} jobs"
        if jobs
        else "off (needs gcc, 2+ jobs, make, no compiler cache; SDK_EXTENSIONS_NO_LTO)"
    )
    return f"precompiled header {pch}; split code generation {split}; {_runtime_line(ident)}"


def _cache_line(launcher: list[str], named: bool) -> str:
    """The compiler cache row of `info`: which one, and whether it steps aside."""
    if not launcher:
        return "none (install ccache to speed up rebuilds)"
    if named:
        return launcher[0]
    return f"{launcher[0]} (found on PATH: gives way to the precompiled header and split codegen)"


def _runtime_line(ident: str) -> str:
    """Whether the installed pybind11 runtime object and precompiled header fit a default
    load() here."""
    from .builder import runtime as _runtime

    paths = _toolchain.sdk_paths()
    flags = _runtime.installed_flags(paths.include_dir)
    lines = []
    for what, name, key_name, key_of in (
        ("pybind11 runtime object", _runtime.OBJECT_NAME, _runtime.KEY_NAME, _runtime.object_key),
        ("precompiled header", _runtime.PCH_SEED_NAME, _runtime.PCH_KEY_NAME, _runtime.key),
    ):
        if not (Path(paths.library_dir) / name).is_file():
            lines.append(f"no installed {what} (first builds are slower; `prepare` makes it)")
            continue
        try:
            key = key_of(flags, ident, paths.include_dir)
            fits = _runtime.installed_file(paths.library_dir, name, key_name, key)
        except (OSError, ImportError):
            fits = None
        if fits:
            lines.append(f"installed {what} fits default flags")
            continue
        made = _runtime.installed_record(paths.library_dir, key_name)
        lines.append(
            f"installed {what} is for another setup (made with pybind11 "
            f"{made.get('pybind11', '?')}, {made.get('compiler', '?')}; reinstall sdk to "
            "refresh it)"
        )
    return "; ".join(lines)


def _compiler_line(language: str) -> str:
    try:
        argv = _toolchain.compiler_command(language)
    except BuildError as e:
        return f"not found ({str(e).splitlines()[-1]})"
    ident = _toolchain.compiler_identity(argv, _cache.toolchains_file())
    first = ident.split(": ", 1)[-1].splitlines()[0] if ": " in ident else ident
    return f"{' '.join(argv)} ({first})"


def cmd_info(args: argparse.Namespace) -> int:
    paths = _toolchain.sdk_paths()
    try:
        import sdk

        sdk_version = getattr(sdk, "__version__", "unknown")
    except Exception as e:  # report, do not fail: info is what people run when things break
        sdk_version = f"not importable ({e})"
    try:
        import pybind11

        pybind11_version = pybind11.__version__
    except ImportError:
        pybind11_version = "not installed (pip install pybind11)"
    try:
        ninja = _toolchain.ninja_executable()
    except BuildError as e:
        ninja = f"not found: {e}"
    try:
        launcher, named = _toolchain.choose_launcher()
        cache_line = _cache_line(launcher, named)
    except BuildError as e:  # a wrong SDK_EXTENSIONS_LAUNCHER: builds would fail with this
        launcher, named, cache_line = [], True, f"error: {e}"
    rows = [
        ("python", sys.version.split()[0] + f" ({sys.executable})"),
        ("sdk", sdk_version),
        ("sdk ABI", f"{paths.abi[0]}.{paths.abi[1]}"),
        ("include path", paths.include_dir),
        ("library", paths.library_path + ("" if paths.library_exists else "  (MISSING)")),
        ("pybind11", pybind11_version),
        ("C++ compiler", _compiler_line("cxx")),
        ("C compiler", _compiler_line("c")),
        ("ninja", ninja),
        ("compiler cache", cache_line),
        ("parallel jobs", str(_toolchain.default_jobs())),
        ("pybind11 builds", _speedups(launcher, named)),
        ("JIT cache", str(_cache.extensions_root() / _cache.flavor(paths.abi[0]))),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    return 0


def _clean_targets(root: Path, name: str | None) -> list[os.DirEntry]:
    """The entries of the cache root to remove: every flavor folder (py311_abi1, ...), or
    the build folders `name` in them. Listed with lstat only: a link is itself an entry
    (removed as a link, never followed)."""
    found = []
    with os.scandir(root) as flavors:
        for flavor in sorted(flavors, key=lambda e: e.name):
            if name is None:
                if flavor.is_dir(follow_symlinks=False) or flavor.is_symlink():
                    found.append(flavor)
                continue
            if not flavor.is_dir(follow_symlinks=False):
                continue
            with os.scandir(flavor.path) as builds:
                found.extend(e for e in builds if e.name == name)
    return found


def _remove(entry: os.DirEntry) -> None:
    """Remove one cache entry without following links (rmtree opens each folder relative to
    its parent's descriptor on Linux, so a link swapped in meanwhile is removed as a link)."""
    if entry.is_dir(follow_symlinks=False):
        shutil.rmtree(entry.path)
    else:
        os.unlink(entry.path)


def cmd_clean(args: argparse.Namespace) -> int:
    """Remove cached builds, only ever inside the cache root (resolved first): `name` must be
    an extension name (a C identifier: no path, no '..', no pattern)."""
    from ._errors import CacheError
    from ._loading import NAME
    from .builder import trust as _trust

    if args.name is not None and not NAME.match(args.name):
        print(
            f"clean: {args.name!r} is not an extension name (a C identifier, as given to "
            "load()); clean removes only cached builds inside the cache folder",
            file=sys.stderr,
        )
        return 2
    try:  # the physical root, found as the kernel does, through trusted folders only
        root = _trust.trusted_folders(_cache.extensions_root(), create=False)
    except FileNotFoundError:
        print(f"nothing to clean under {_cache.extensions_root()}")
        return 0 if args.name is None else 1
    except CacheError as e:
        print(f"clean: {e}", file=sys.stderr)
        return 2
    targets = _clean_targets(root, args.name)
    if args.name and not targets:
        print(f"no cached build named {args.name!r} under {root}")
        return 1
    for entry in targets:
        _remove(entry)
        print(f"removed {entry.path}")
    if not targets:
        print(f"nothing to clean under {root}")
    return 0


def cmd_prepare(args: argparse.Namespace) -> int:
    """Make the installed pybind11 runtime object and precompiled header for load()'s default
    flags in the sdk package (what setup.py makes unless SDK_DEFER_PYBIND11_RUNTIME=1)."""
    import tempfile

    from .builder import runtime as _runtime

    lib_dir = _toolchain.sdk_paths().library_dir
    if _installed_fits():
        print(f"pybind11's runtime object and the precompiled header in {lib_dir} are up to date")
        return 0
    with tempfile.TemporaryDirectory(prefix="sdk-prepare-") as work:
        why_not = _runtime.build_installed(
            _toolchain.sdk_paths().include_dir, Path(lib_dir), Path(work)
        )
    if why_not:
        print(f"prepare: nothing made in {lib_dir}: {why_not}", file=sys.stderr)
        return 1
    print(f"made pybind11's runtime object and the precompiled header in {lib_dir}")
    return 0


def _installed_fits() -> bool:
    """Whether the installed runtime object (and header, unless SDK_EXTENSIONS_NO_PCH) fit a
    default load() here, as `prepare` would make them."""
    from .builder import runtime as _runtime

    paths = _toolchain.sdk_paths()
    try:
        argv = _toolchain.compiler_command("cxx")
        ident = _toolchain.compiler_identity(argv, _cache.toolchains_file())
        flags = _runtime.installed_flags(paths.include_dir)
        if not _runtime.installed_object(flags, ident, paths.include_dir, paths.library_dir):
            return False
        if os.environ.get("SDK_EXTENSIONS_NO_PCH", "") not in ("", "0"):
            return True
        key = _runtime.key(flags, ident, paths.include_dir)
        return _runtime.installed_pch(key, paths.library_dir) is not None
    except (OSError, ImportError, BuildError):
        return False


def cmd_repair(args: argparse.Namespace) -> int:
    from . import _wheel

    try:
        for wheel in args.wheel:
            print(_wheel.repair(wheel, args.wheel_dir, args.plat))
    except (FileNotFoundError, RuntimeError) as e:
        print(f"repair: {e}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["new"] and "new" not in EXTRA_COMMANDS:
        try:
            from . import _new  # scaffolding, owns its own argument parsing
        except ImportError:
            print("`new` is not available in this version", file=sys.stderr)
            return 2
        return _new.main(argv[1:])
    if argv[:1] == ["port"] and "port" not in EXTRA_COMMANDS:
        from .port import main as _port  # the porter, owns its own argument parsing

        return _port.main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m cpp_extension", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("new", help="scaffold an extension project (python -m cpp_extension new -h)")
    sub.add_parser("port", help="port a torch extension (python -m cpp_extension port -h)")
    sub.add_parser("info", help="versions, include/library paths, compilers, cache folder")
    clean = sub.add_parser("clean", help="delete cached JIT builds (all, or one by name)")
    clean.add_argument("name", nargs="?", help="extension name; omit to clean everything")
    sub.add_parser(
        "prepare",
        help="make the sdk package's pybind11 runtime object and precompiled header (setup.py "
        "makes them unless SDK_DEFER_PYBIND11_RUNTIME=1)",
    )
    repair = sub.add_parser(
        "repair",
        help="auditwheel repair an extension's wheel, keeping the SDK's own libraries out",
    )
    repair.add_argument("wheel", nargs="+", help="wheel file(s) built by pip wheel / bdist_wheel")
    repair.add_argument("-w", "--wheel-dir", default="wheelhouse", help="output folder")
    repair.add_argument("--plat", help="manylinux tag (default: the best one auditwheel finds)")
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "info": cmd_info,
        "clean": cmd_clean,
        "prepare": cmd_prepare,
        "repair": cmd_repair,
    }
    for name, (help_text, add_args, run) in EXTRA_COMMANDS.items():
        add_args(sub.add_parser(name, help=help_text))
        handlers[name] = run
    args = parser.parse_args(argv)
    return handlers[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
