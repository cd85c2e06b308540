"""Extensions that travel: a JIT-built module, its functions and its ops pickle as the build
request that made them, and unpickle by calling load() with that request again.

What a pickle holds (``state``, plain builtins): the extension's name and bridge, the texts
of its sources and of the local headers they include (paths relative to their common
folder), its flags, the sdk ABI it was built for, and where it was pickled. The receiving
process checks every field (a pickle is untrusted input), then loads from its own copies of
the files, written under ``<cache root>/shipped/`` (a trusted folder, see _trust), never
from the sender's paths, which on this machine may belong to another user. Paths in the
flags and include folders outside the shipped folder must pass the cache's folder rules
(docs/DESIGN.md, "Security"). load()'s cache and lock make that one build per machine,
however many workers unpickle at once; a second unpickle in the same process returns the
loaded object at once.

Hooks: pybind11 modules get a ModuleType subclass whose ``__reduce_ex__`` is this; their
functions reduce through ``getattr(<function record>, name)`` (pybind11's own scheme), so
the record's type gets a copyreg reducer that names the module (records of other modules
keep pybind11's behaviour). The ctypes bridge's classes pickle through reduce_library, and
the build layer reports every load here: both hooks are installed when the package imports
this module, so neither lower module imports it. Ops that a library registers while it
loads are noted in ``sdk.ops`` with the library as their origin.
"""

from __future__ import annotations

import copyreg
import errno
import hashlib
import os
import re
import shutil
import socket
import threading
import types
import uuid
from pathlib import Path
from typing import Any

from . import _ctypes_bridge
from ._errors import BuildError, CacheError
from ._jit import load
from ._loading import NAME
from .builder import cache as _cache
from .builder import jit as _build
from .builder import toolchain as _toolchain
from .builder import trust as _trust
from .builder.jit import _load_output, _output_name, _Request, jit_build, make_request

FORMAT = "sdk.build-request"
VERSION = 1
_LIST_FIELDS = ("extra_cflags", "extra_cuda_cflags", "extra_ldflags", "extra_include_paths")
_MAX_FILES = 1000
_MAX_BYTES = 64 << 20  # sources and headers together
_MAX_FLAGS = 1000  # entries of one flag list
_MAX_PATH = 4096  # bytes of a path, a flag or the origin (PATH_MAX)
_MAX_NAME = 255  # bytes of one name in a path (NAME_MAX)
_INLINE_NAMES = ("main.cpp", "cuda.cu")  # what load_inline writes (inline_sources)

# id(loaded object) -> (object, request); id(function record) -> (record, module)
_REQUESTS: dict[int, tuple[Any, Any]] = {}
_RECORDS: dict[int, tuple[Any, Any]] = {}
_STATES: dict[int, dict] = {}  # id(loaded object) -> its pickled state, made once
_SHIPPED: dict[str, Any] = {}  # digest of a received state -> what loading it returned
_REDUCERS: set[type] = set()
_HEX = re.compile(r"[0-9a-f]+")
_SHIPPING = threading.RLock()  # Dask workers unpickle in several threads at once


def here() -> str:
    return f"{socket.gethostname()} (pid {os.getpid()})"


class ShippableModule(types.ModuleType):
    """The class of the modules load() returns: they pickle as their build request."""

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return (load_shipped, (state_of(self),))


def registered_ops() -> set[str]:
    try:
        import sdk.ops
    except ImportError:
        return set()
    return set(sdk.ops.registered_names())


def remember(req: Any, loaded: Any, ops_before: set[str], digest: str) -> None:
    """Make `loaded` (what load() returns for `req`, whose cache digest is `digest`) pickle
    by `req`, and note it as the origin of the ops its library registered."""
    if req.bridge == "standalone":
        return
    if isinstance(loaded, types.ModuleType) and type(loaded) is types.ModuleType:
        loaded.__class__ = ShippableModule
    _REQUESTS[id(loaded)] = (loaded, (req, digest))
    for value in vars(loaded).values():
        record = getattr(value, "__self__", None)
        if isinstance(value, types.BuiltinFunctionType) and record is not None:
            if isinstance(record, types.ModuleType):
                continue
            _RECORDS[id(record)] = (record, loaded)
            if type(record) not in _REDUCERS:
                _REDUCERS.add(type(record))
                copyreg.pickle(type(record), _reduce_record)
    new_ops = registered_ops() - ops_before
    if new_ops:
        import sdk.ops

        sdk.ops.set_origin(new_ops, loaded)


def _reduce_record(record: Any) -> Any:
    """copyreg reducer of pybind11's function records (the `__self__` of its functions)."""
    entry = _RECORDS.get(id(record))
    if entry is None or entry[0] is not record:
        return record.__reduce_ex__(4)  # another module's: pybind11's own behaviour
    return (load_shipped, (state_of(entry[1]),))


def reduce_library(loaded: Any) -> tuple:
    """__reduce__ of the ctypes bridge's library objects."""
    return (load_shipped, (state_of(loaded),))


def state_of(loaded: Any) -> dict:
    """The pickled form of a loaded extension (made once per object)."""
    state = _STATES.get(id(loaded))
    if state is not None:
        return state
    entry = _REQUESTS.get(id(loaded))
    if entry is None or entry[0] is not loaded:
        raise TypeError(
            f"cannot pickle {loaded!r}: only extensions returned by cpp_extension.load() or "
            "load_inline() pickle (by their build request); load a prebuilt library with "
            "load_library() in the receiving process instead"
        )
    state = _make_state(*entry[1])
    _STATES[id(loaded)] = state
    with _SHIPPING:  # unpickled in this process: the object itself, not a build of the copy
        _SHIPPED.setdefault(_state_digest(state), loaded)
    return state


def _make_state(req: Any, digest: str) -> dict:
    paths = _toolchain.sdk_paths()
    if req.write_sources:  # load_inline: the texts are the sources, by file name
        folder = ""
        files = [(os.path.basename(p), text) for p, text in req.sources]
    else:
        roots = [(os.path.dirname(p), text) for p, text in req.sources]
        scan = list(req.extra_include_paths) + [paths.include_dir]
        sdk_dir = os.path.join(os.path.abspath(paths.include_dir), "")
        headers = [h for h in _cache.local_headers(roots, scan) if not h.startswith(sdk_dir)]
        every = [p for p, _ in req.sources] + headers
        folder = os.path.commonpath([os.path.dirname(p) for p in every])
        files = [(os.path.relpath(p, folder), text) for p, text in req.sources]
        for h in headers:
            files.append((os.path.relpath(h, folder), _trust.read_regular(h)))
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": req.name,
        "bridge": req.bridge,
        "inline": bool(req.write_sources),
        "folder": folder,
        "files": files,
        "sources": len(req.sources),
        **{k: list(getattr(req, k)) for k in _LIST_FIELDS},
        "with_cuda": bool(req.with_cuda),
        "dlink": bool(req.dlink),
        "abi": list(paths.abi),
        "digest": digest,
        "origin": here(),
    }


# ------------------------------------------------------------------------ receiving side


def _fail(what: str, why: str) -> ValueError:
    return ValueError(f"unpickling an extension: {what}: {why}")


def _plain(key: str, value: Any, max_len: int) -> str:
    """`value` when it is a string the OS can take (no NUL, UTF-8 encodable, at most
    `max_len` bytes), else ValueError naming `key`."""
    if not isinstance(value, str):
        raise _fail(key, f"must be a string, got {type(value).__name__}")
    try:
        size = len(value.encode())
    except UnicodeEncodeError:
        raise _fail(key, f"{value!r:.80} is not valid UTF-8 text") from None
    if "\0" in value:
        raise _fail(key, f"{value!r:.80} holds a NUL character")
    if size > max_len:
        raise _fail(key, f"{value!r:.80}... is {size} bytes long, more than {max_len}")
    return value


def _str_list(state: dict, key: str) -> list[str]:
    value = state.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(key, f"must be a list of strings, got {value!r:.80}")
    if len(value) > _MAX_FLAGS:
        raise _fail(key, f"{len(value)} entries, more than {_MAX_FLAGS}")
    for v in value:
        _plain(key, v, _MAX_PATH)
    return value


def _relative(path: Any) -> str:
    """`path` when it is a relative path that stays below its folder, else ValueError."""
    if not isinstance(path, str) or not path:
        raise _fail("files", f"a file name must be a non-empty string, got {path!r:.80}")
    _plain("files", path, _MAX_PATH)
    parts = path.split("/")
    if os.path.isabs(path) or any(p in ("", ".", "..") for p in parts):
        raise _fail("files", f"{path!r:.80} is not a plain path below the sources' folder")
    for part in parts:
        if len(part.encode()) > _MAX_NAME:
            raise _fail("files", f"{part!r:.80}... is longer than {_MAX_NAME} bytes")
    return path


def _check_files(state: dict) -> None:
    """Every (path, bytes) pair of state["files"]: plain relative paths, each named once and
    none a folder of another (they are written side by side), in all at most _MAX_FILES
    files and _MAX_BYTES bytes; an inline request's names are load_inline's."""
    files = state.get("files")
    if not isinstance(files, list) or not 0 < len(files) <= _MAX_FILES:
        raise _fail("files", f"must be a list of 1 to {_MAX_FILES} (path, bytes) pairs")
    total = 0
    names: set[str] = set()
    for entry in files:
        if not (isinstance(entry, (tuple, list)) and len(entry) == 2):
            raise _fail("files", f"each entry must be a (path, bytes) pair, got {entry!r:.80}")
        rel = _relative(entry[0])
        if not isinstance(entry[1], bytes):
            raise _fail("files", f"the text of {rel!r:.80} must be bytes")
        if rel in names:
            raise _fail("files", f"{rel!r:.80} is named twice")
        names.add(rel)
        if state.get("inline") and rel not in _INLINE_NAMES:
            raise _fail("files", f"an inline request's files are {_INLINE_NAMES}, not {rel!r:.80}")
        total += len(entry[1])
    for rel in names:
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if "/".join(parts[:i]) in names:
                raise _fail("files", f"{'/'.join(parts[:i])!r:.80} is a file and a folder")
    if total > _MAX_BYTES:
        raise _fail("files", f"{total} bytes of sources, more than {_MAX_BYTES}")


def check_state(state: Any) -> dict:
    """The state as received, when every field has the type and form load() needs;
    ValueError naming the field otherwise (nothing is written or built before)."""
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise _fail("format", f"not a pickled build request ({type(state).__name__})")
    if state.get("version") != VERSION:
        raise _fail("version", f"{state.get('version')!r:.20} is not {VERSION}")
    name = state.get("name")
    if not isinstance(name, str) or not NAME.match(name) or len(name) > _MAX_NAME - 40:
        raise _fail("name", f"must be a C identifier of at most {_MAX_NAME - 40} characters, "
                    f"got {name!r:.80}")  # fmt: skip
    if state.get("bridge") not in ("pybind11", "ctypes"):
        raise _fail("bridge", f"must be 'pybind11' or 'ctypes', got {state.get('bridge')!r:.40}")
    for key in ("inline", "with_cuda", "dlink"):
        if not isinstance(state.get(key), bool):
            raise _fail(key, f"must be a bool, got {state.get(key)!r:.40}")
    for key in _LIST_FIELDS:
        _str_list(state, key)
    for path in state["extra_include_paths"]:
        if not os.path.isabs(path):
            raise _fail("extra_include_paths", f"{path!r:.80} is not an absolute path")
    _check_files(state)
    files = state["files"]
    sources = state.get("sources")
    if not isinstance(sources, int) or isinstance(sources, bool) or not 0 < sources <= len(files):
        raise _fail("sources", f"must count 1 to {len(files)} files, got {sources!r:.40}")
    folder = state.get("folder")
    if not isinstance(folder, str) or (folder and not os.path.isabs(folder)):
        raise _fail("folder", f"must be an absolute path or '', got {folder!r:.80}")
    _plain("folder", folder, _MAX_PATH)
    if state["inline"] and (folder or len(files) != sources):
        raise _fail("files", "an inline request carries only its source texts")
    abi = state.get("abi")
    if not (isinstance(abi, list) and len(abi) == 2 and all(type(v) is int for v in abi)):
        raise _fail("abi", f"must be [major, minor], got {abi!r:.40}")
    _plain("origin", state.get("origin"), _MAX_PATH)
    digest = state.get("digest")
    if not (isinstance(digest, str) and len(digest) == 64 and _HEX.fullmatch(digest)):
        raise _fail("digest", f"must be 64 hex digits, got {digest!r:.80}")
    return state


def _state_digest(state: dict) -> str:
    h = hashlib.sha256()
    for key in sorted(state):
        if key in ("origin", "digest"):
            continue
        h.update(repr((key, state[key])).encode())
    return h.hexdigest()


def load_shipped(state: Any) -> Any:
    """Unpickle an extension: load() it here from the request in `state` (see the module
    docstring). ImportError for another ABI major; BuildError naming this host and the
    sender when it cannot be built here (no compiler, say)."""
    state = check_state(state)
    digest = _state_digest(state)
    with _SHIPPING:
        loaded = _SHIPPED.get(digest)
        if loaded is None:
            loaded = _SHIPPED[digest] = _load_state(state, digest)
    return loaded


def _load_state(state: dict, digest: str) -> Any:
    name, origin = state["name"], state["origin"]
    abi = tuple(_toolchain.sdk_paths().abi)
    if state["abi"][0] != abi[0]:
        raise ImportError(
            f"extension '{name}' was pickled on {origin} for sdk ABI "
            f"{state['abi'][0]}.{state['abi'][1]}; {here()} runs ABI {abi[0]}.{abi[1]}: "
            "install the same sdk major version on every machine"
        )
    try:
        _toolchain.compiler_command("cxx")
        toolchain = True
    except BuildError:
        toolchain = False
    try:
        loaded = _load_request(state, digest) if toolchain else _load_prebuilt(state)
    except BuildError as e:
        raise BuildError(
            f"extension '{name}' (pickled on {origin}) could not be built on {here()}: {e}"
        ) from e
    return loaded


def _load_prebuilt(state: dict) -> Any:
    """No compiler here: the binary the sender's cache digest names, when this machine's
    cache holds it intact (a cache folder built once and copied to every worker), else
    BuildError saying so. The copy must come from a machine like the sender (same paths,
    compiler and Python), which is what makes the digests agree."""
    name = state["name"]
    build_dir = _cache.default_build_dir(name, _toolchain.sdk_paths().abi[0])
    try:
        build_dir = _trust.check_cache(_cache.extensions_root(), build_dir, create=False)
    except FileNotFoundError:
        pass  # no such build folder: "stale" below
    req = _Request(
        name=name, sources=[], build_dir=build_dir, bridge=state["bridge"], write_sources=False
    )
    output = build_dir / _output_name(req)
    found = _cache.check_output(_cache.read_stamp(build_dir), state["digest"], output)
    if found != "fresh":
        raise BuildError(
            "no C++ compiler here, and this machine's cache holds no intact build of it "
            f"({build_dir}: {found}); build it once where a compiler is and copy that "
            "cache folder (SDK_EXTENSIONS_DIR) to every worker, or install a compiler"
        )
    loaded = _load_output(req, state["digest"], output)
    _STATES[id(loaded)] = state  # it pickles on as it came
    return loaded


def _load_request(state: dict, digest: str) -> Any:
    name = state["name"]
    flags = {k: state[k] for k in _LIST_FIELDS}
    is_python_module = state["bridge"] == "pybind11"
    if state["inline"]:
        for key in _LIST_FIELDS:
            flags[key] = _receiver_paths(key, flags[key], "", "")
        texts = [(p, t) for p, t in state["files"]]
        req = make_request(
            name, texts, inline=True, with_cuda=state["with_cuda"], bridge=state["bridge"],
            **flags,
        )  # fmt: skip
        return jit_build(req)
    # only ever from this user's own copy: files at the sender's paths here may belong to
    # anyone (another user's header on the include path would run in this process)
    for key in _LIST_FIELDS:  # refused paths are refused before anything is written
        _receiver_paths(key, flags[key], state["folder"], "/<the copy>")
    copy = str(_write_copies(state, digest))
    for key in _LIST_FIELDS:
        flags[key] = _receiver_paths(key, flags[key], state["folder"], copy)
    sources = [os.path.join(copy, p) for p, _ in state["files"][: state["sources"]]]
    return load(
        name, sources, with_cuda=state["with_cuda"], is_python_module=is_python_module,
        bridge=state["bridge"], dlink=state["dlink"], **flags,
    )  # fmt: skip


# options whose value is a file or folder the compiler or linker reads
_PATH_OPTIONS = (
    "-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros", "-L", "-B",
    "-fplugin=", "-specs=", "--sysroot=", "-isysroot",
)  # fmt: skip


def _receiver_paths(key: str, values: list[str], old: str, new: str) -> list[str]:
    """The flags or include folders of field `key` for this machine: paths below the
    sender's folder point into the copy; other paths must pass the cache's trust rules
    (see _trusted_elsewhere). Include folders missing here are dropped (the sender found
    no header there: every header it found was shipped)."""
    if key == "extra_include_paths":
        out = []
        for path in values:
            moved = _moved(path, old, new)
            if moved != path:
                out.append(moved)
            elif _trusted_elsewhere(key, path, missing_ok=True):
                out.append(path)
        return out
    out = list(values)
    for i, flag in enumerate(values):
        option = next((o for o in _PATH_OPTIONS if flag.startswith(o)), None)
        if flag.startswith("@"):  # a response file: more flags, read by the compiler
            out[i] = "@" + _flag_path(key, flag[1:], old, new)
        elif option is not None and flag != option:  # -I/x (joined)
            out[i] = option + _flag_path(key, flag[len(option) :], old, new)
        elif option is not None and i + 1 < len(values):  # -I /x (separate)
            out[i + 1] = _flag_path(key, values[i + 1], old, new)
    return out


def _flag_path(key: str, path: str, old: str, new: str) -> str:
    if not os.path.isabs(path):  # relative to the build folder, where compiles run: ours
        return path
    moved = _moved(path, old, new)
    if moved == path:
        _trusted_elsewhere(key, path, missing_ok=False)
    return moved


def _trusted_elsewhere(key: str, path: str, missing_ok: bool) -> bool:
    """Whether `path` (outside the shipped copy), or the folder of a file there, passes
    the cache's folder rules: this user's or root's, writable by nobody else, up to /.
    ValueError naming `key` when it does not, or when missing and not `missing_ok`."""
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    try:
        _trust.trusted_folders(Path(folder), create=False)
    except FileNotFoundError:
        if missing_ok:
            return False
        raise _fail(key, f"{path!r:.80} does not exist here") from None
    except CacheError as e:
        raise _fail(key, f"{path!r:.80} is not a folder this user alone controls: {e}") from None
    return True


def _moved(path: str, old: str, new: str) -> str:
    """`path` below the sender's folder `old`, as the same path below `new`."""
    if old and os.path.isabs(path) and os.path.commonpath([path, old]) == old:
        return os.path.join(new, os.path.relpath(path, old))
    return path


def _write_copies(state: dict, digest: str) -> Path:
    """The shipped sources and headers, in this user's cache: <root>/shipped/<name>-<digest>/
    (trusted folders). Written into a fresh temporary folder beside it, then renamed into
    place, so that a failure leaves nothing behind and a reader never sees half a copy."""
    root = _cache.extensions_root()
    shipped = _trust.trusted_folders(root, "shipped")
    name = f"{state['name']}-{digest[:16]}"
    final = shipped / name
    if not _holds(final, state["files"]):
        tmp = shipped / f".{name}.{uuid.uuid4().hex[:12]}.tmp"
        try:
            _fill(tmp, state["files"])
            _replace_folder(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return _trust.trusted_folders(root, "shipped", name, create=False)


def _fill(folder: Path, files: list) -> None:
    """Create `folder` (mode 0700) holding `files`; OSError naming the file that failed."""
    os.mkdir(folder, _trust.FOLDER_MODE)
    for rel, text in files:
        target = folder / rel
        try:
            target.parent.mkdir(mode=_trust.FOLDER_MODE, parents=True, exist_ok=True)
            fd = _trust.open_no_follow(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            with os.fdopen(fd, "wb") as f:
                f.write(text)
        except OSError as e:
            raise OSError(
                e.errno, f"unpickling an extension: writing its file {rel!r} in {folder}: "
                f"{e.strerror}"
            ) from None  # fmt: skip


def _replace_folder(tmp: Path, final: Path) -> None:
    """Rename `tmp` to `final`; a copy already there (another process's, or a damaged one)
    is moved aside and removed first."""
    try:
        os.rename(tmp, final)
        return
    except OSError as e:
        if e.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR):
            raise
    old = final.with_name(f".{final.name}.{uuid.uuid4().hex[:12]}.old")
    os.rename(final, old)
    os.rename(tmp, final)
    if os.path.isdir(old) and not os.path.islink(old):
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.unlink(old)


def _holds(folder: Path, files: list) -> bool:
    """Whether `folder` (in the trusted cache) already holds exactly these texts."""
    for rel, text in files:
        try:
            if _trust.read_no_follow(folder / rel) != text:
                return False
        except OSError:
            return False
    return True


class _Shipper(_build.LoadObserver):
    """Installed in the build layer below: every loaded binary pickles by its request."""

    def before_load(self) -> object:
        return registered_ops()

    def after_load(self, req: Any, result: object, token: object, digest: str) -> None:
        remember(req, result, token, digest)


_build.set_load_observer(_Shipper())
_ctypes_bridge.set_reducer(reduce_library)
