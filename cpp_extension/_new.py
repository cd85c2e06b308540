"""`python -m cpp_extension new NAME`: scaffold a standalone extension project from templates/.

Templates are plain files under ``templates/<bridge>/`` (pybind11, ctypes, or library:
operators registered with SDK_LIBRARY). Rendering:
- ``{{name}}`` (the package name), ``{{Name}}`` (CamelCase), ``{{sdk_version}}``,
  ``{{abi_major}}``, ``{{abi_next}}`` (abi_major + 1) are replaced in file names and contents;
- a line that is exactly ``{{#cuda}}`` / ``{{^cuda}}`` opens a block kept only with / without
  ``--cuda``; ``{{/cuda}}`` closes it (also inline, within one line);
- a file whose name ends in ``.cuda`` exists only with ``--cuda`` (the suffix is dropped).
"""

from __future__ import annotations

import argparse
import keyword
import os
import re
import sys
from pathlib import Path

from . import _wheel

BRIDGES = ("pybind11", "ctypes", "library")
_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
# Names that would shadow what the generated package imports.
_RESERVED = {"sdk", "cpp_extension", "test", "tests", "setuptools", "pybind11", "numpy"}
_BLOCK = re.compile(r"^\{\{([#^/])cuda\}\}$")
_INLINE = re.compile(r"\{\{([#^])cuda\}\}(.*?)\{\{/cuda\}\}")


def templates_root(bridge: str = "pybind11") -> Path:
    """Where the templates live: $SDK_TEMPLATES_DIR, the installed package, or the repo."""
    here = Path(__file__).resolve().parent
    candidates = [
        os.environ.get("SDK_TEMPLATES_DIR"),
        here / "templates",
        here.parent / "templates",
    ]
    for candidate in candidates:
        if candidate and (Path(candidate) / bridge).is_dir():
            return Path(candidate)
    searched = ", ".join(str(c) for c in candidates if c)
    raise FileNotFoundError(f"cpp_extension new: project templates not found (searched {searched})")


def check_name(name: str) -> None:
    if not _NAME.match(name) or keyword.iskeyword(name):
        raise ValueError(
            f"project name must be a lowercase Python identifier (letters, digits, _), got {name!r}"
        )
    if name in _RESERVED:
        raise ValueError(f"project name {name!r} would shadow a module it imports; pick another")


def _sdk_versions() -> tuple[str, int]:
    try:
        import sdk

        version = str(getattr(sdk, "__version__", "0.1.0"))
        abi = sdk.abi_version() if hasattr(sdk, "abi_version") else (1, 0)
        major = abi[0] if isinstance(abi, tuple) else int(abi) >> 16
        return version, int(major)
    except Exception:  # scaffolding must work even where sdk is not built yet
        return "0.1.0", 1


def render_text(text: str, values: dict[str, str], cuda: bool) -> str:
    out, stack = [], []
    for line in text.splitlines(keepends=True):
        m = _BLOCK.match(line.strip())
        if m:
            if m.group(1) == "/":
                if not stack:
                    raise ValueError("template: {{/cuda}} without an opening block")
                stack.pop()
            else:
                stack.append(cuda if m.group(1) == "#" else not cuda)
            continue
        if all(stack):
            out.append(
                _INLINE.sub(lambda m: m.group(2) if (m.group(1) == "#") == cuda else "", line)
            )
    if stack:
        raise ValueError("template: unclosed {{#cuda}} / {{^cuda}} block")
    result = "".join(out)
    for key, value in values.items():
        result = result.replace("{{" + key + "}}", value)
    return result


def render(
    name: str, dest: str | os.PathLike, cuda: bool = False, bridge: str = "pybind11"
) -> list[Path]:
    """Write a new extension project for `name` into `dest`; returns the files written."""
    check_name(name)
    if bridge not in BRIDGES:
        raise ValueError(f"bridge must be one of {BRIDGES}, got {bridge!r}")
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"cpp_extension new: {dest} exists and is not empty")
    version, abi_major = _sdk_versions()
    values = {
        "name": name,
        "Name": "".join(part.capitalize() for part in name.split("_") if part) or name,
        "sdk_version": version,
        "abi_major": str(abi_major),
        "abi_next": str(abi_major + 1),  # the first incompatible ABI major (a version pin)
        "auditwheel_excludes": " ".join(_wheel.exclude_flags()),
    }
    source = templates_root(bridge) / bridge
    written = []
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        rel = path.relative_to(source).as_posix()
        if "__pycache__" in rel or rel.endswith(".pyc"):
            continue
        if rel.endswith(".cuda"):
            if not cuda:
                continue
            rel = rel[: -len(".cuda")]
        target = dest / render_text(rel, values, cuda)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_text(path.read_text(), values, cuda))
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["new"]:
        argv = argv[1:]
    parser = argparse.ArgumentParser(
        prog="python -m cpp_extension new",
        description="Create a standalone C++ extension project built against this SDK.",
    )
    parser.add_argument("name", help="package name (a lowercase Python identifier)")
    parser.add_argument("--cuda", action="store_true", help="add a CUDA kernel (CUDAExtension)")
    parser.add_argument(
        "--bridge",
        choices=BRIDGES,
        default="pybind11",
        help="pybind11 module (default), ctypes functions, or library of registered operators",
    )
    parser.add_argument("--dir", help="directory to create (default: ./NAME)")
    args = parser.parse_args(argv)
    dest = Path(args.dir) if args.dir else Path.cwd() / args.name
    try:
        files = render(args.name, dest, cuda=args.cuda, bridge=args.bridge)
    except (ValueError, FileExistsError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(
        f"created {dest} ({len(files)} files, {args.bridge} bridge{', CUDA' if args.cuda else ''})"
    )
    print("next steps:")
    print(f"  cd {dest}")
    print("  pip install --no-build-isolation .   # builds against the installed sdk")
    print("  python -m pytest tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
