"""CUDA for extensions: toolkit discovery, the architecture list (-gencode), nvcc flags, -ccbin,
relocatable device code and the device-link step.

Everything that needs no GPU is pure Python and unit-tested; GPU and nvcc queries are cached
per process and injectable (the ``supported=``/``visible=`` arguments) so tests run anywhere.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
import warnings
from dataclasses import dataclass
from typing import Iterable, Sequence

from ._errors import BuildError

ARCH_ENV_VARS = ("SDK_CUDA_ARCH_LIST", "TORCH_CUDA_ARCH_LIST")

# Named families -> their compute capabilities (the last one gets +PTX when asked for).
ARCH_FAMILIES: dict[str, tuple[str, ...]] = {
    "kepler": ("3.5", "3.7"),
    "maxwell": ("5.0", "5.2"),
    "pascal": ("6.0", "6.1"),
    "volta": ("7.0",),
    "turing": ("7.5",),
    "ampere": ("8.0", "8.6"),
    "ada": ("8.9",),
    "lovelace": ("8.9",),
    "hopper": ("9.0",),
    "blackwell": ("10.0", "12.0"),
}

# The documented default when no list is given and no GPU is visible: one SASS per major
# generation still supported, PTX of the newest so future GPUs JIT-compile it. Entries this
# nvcc does not support are dropped (CUDA 13 dropped everything below 7.5).
PORTABLE_ARCHS = ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0")

ACCEPTED_FORMS = (
    "X.Y (e.g. 8.6), X.Y+PTX (also embed PTX), X.Ya (arch-specific, e.g. 9.0a), "
    "X.Yf (family-specific, e.g. 10.0f), or a family name ("
    + ", ".join(sorted({k.capitalize() for k in ARCH_FAMILIES}))
    + ", optionally +PTX); separate entries with spaces or semicolons"
)

_ARCH_RE = re.compile(r"^(\d{1,2})\.(\d{1,2})([af]?)(\+ptx)?$", re.IGNORECASE)
_NAME_RE = re.compile(r"^([a-z]+)(\+ptx)?$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class Arch:
    """One compute capability: 9.0a -> Arch(9, 0, "a"); ptx embeds PTX besides SASS."""

    major: int
    minor: int
    suffix: str = ""  # "", "a" (arch-specific) or "f" (family-specific)
    ptx: bool = False

    @property
    def number(self) -> str:
        return f"{self.major}{self.minor}{self.suffix}"

    @property
    def sm(self) -> str:
        return f"sm_{self.number}"

    @property
    def compute(self) -> str:
        return f"compute_{self.number}"

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}{self.suffix}" + ("+PTX" if self.ptx else "")


# ----------------------------------------------------------------------------- toolkit


@dataclass(frozen=True)
class CudaToolkit:
    """A CUDA toolkit: root folder, nvcc, include and library folders, release version."""

    root: str
    nvcc: str
    include_dir: str
    library_dir: str
    version: tuple[int, int]
    found_by: str  # "CUDA_HOME", "CUDA_PATH", "nvcc on PATH" or "/usr/local/cuda"


def _has_runtime_headers(root: str) -> str | None:
    for sub in ("include", os.path.join("targets", "x86_64-linux", "include")):
        if os.path.isfile(os.path.join(root, sub, "cuda_runtime.h")):
            return os.path.join(root, sub)
    return None


def library_dir_of(root: str) -> str:
    """lib64, lib or targets/<arch>/lib: the first that holds libcudart."""
    subs = ("lib64", "lib", os.path.join("targets", "x86_64-linux", "lib"))
    for sub in subs:
        d = os.path.join(root, sub)
        if os.path.isdir(d) and any(n.startswith("libcudart.so") for n in os.listdir(d)):
            return d
    return os.path.join(root, "lib64")


def _root_from_nvcc(nvcc: str) -> str | None:
    """The toolkit around an nvcc found on PATH: resolve symlinks; when nvcc is a wrapper
    script elsewhere (as some distributions install it), ask it where it lives."""
    real = os.path.realpath(nvcc)
    root = os.path.dirname(os.path.dirname(real))
    if _has_runtime_headers(root):
        return root
    try:
        out = subprocess.run(
            [nvcc, "-v", "--dryrun", "-x", "cu", os.devnull],
            capture_output=True,
            text=True,
            timeout=60,
        )
        text = out.stdout + out.stderr
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"^#\$ TOP=(.+)$", text, re.MULTILINE)
    if m:
        top = os.path.normpath(m.group(1).strip())
        if _has_runtime_headers(top):
            return top
    return None


def _nvcc_version(nvcc: str) -> tuple[int, int]:
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise BuildError(f"cannot run {nvcc} --version: {e}") from None
    m = re.search(r"release (\d+)\.(\d+)", out.stdout)
    if not m:
        raise BuildError(f"cannot read the CUDA version from `{nvcc} --version`:\n{out.stdout}")
    return int(m.group(1)), int(m.group(2))


def _toolkit_key() -> tuple:
    return tuple(os.environ.get(v, "") for v in ("CUDA_HOME", "CUDA_PATH", "PATH", "NVCC"))


def find_cuda_toolkit() -> CudaToolkit:
    """CUDA_HOME, CUDA_PATH, nvcc on PATH (symlinks and wrapper scripts resolved), then
    /usr/local/cuda. Raises BuildError naming every place that was looked at."""
    return _find_cached(_toolkit_key())


@functools.lru_cache(maxsize=8)
def _find_cached(_key: tuple) -> CudaToolkit:
    looked: list[str] = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if not home:
            looked.append(f"${var} (not set)")
            continue
        nvcc = os.path.join(home, "bin", "nvcc")
        if _has_runtime_headers(home) and os.path.isfile(nvcc):
            return _make_toolkit(home, nvcc, var)
        raise BuildError(
            f"{var}={home} does not look like a CUDA toolkit (expected bin/nvcc and "
            f"include/cuda_runtime.h under it): fix or unset {var}"
        )
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc")
    if nvcc:
        root = _root_from_nvcc(nvcc)
        if root:
            return _make_toolkit(root, nvcc, "nvcc on PATH")
        looked.append(f"nvcc on PATH ({nvcc}: no include/cuda_runtime.h found around it)")
    else:
        looked.append("nvcc on PATH (not found)")
    default = "/usr/local/cuda"
    if _has_runtime_headers(default) and os.path.isfile(os.path.join(default, "bin", "nvcc")):
        return _make_toolkit(default, os.path.join(default, "bin", "nvcc"), default)
    looked.append(f"{default} (missing)")
    raise BuildError(
        "CUDA toolkit not found; looked at: "
        + "; ".join(looked)
        + ". Install the CUDA toolkit (nvcc), or set CUDA_HOME to its root folder."
    )


def _make_toolkit(root: str, nvcc: str, found_by: str) -> CudaToolkit:
    root = os.path.normpath(root)
    include_dir = _has_runtime_headers(root) or os.path.join(root, "include")
    return CudaToolkit(root, nvcc, include_dir, library_dir_of(root), _nvcc_version(nvcc), found_by)


def cuda_available_for_build() -> bool:
    """True when a toolkit is found (no exception)."""
    try:
        find_cuda_toolkit()
        return True
    except BuildError:
        return False


# ----------------------------------------------------------------------------- archs


def parse_arch_list(text: str) -> list[Arch]:
    """Parse SDK_CUDA_ARCH_LIST syntax. Unknown but well-formed numbers are kept (nvcc
    decides); malformed entries raise ValueError listing the accepted forms."""
    entries = [e for e in re.split(r"[\s;,]+", text.strip()) if e]
    if not entries:
        raise ValueError(f"empty CUDA architecture list {text!r}; accepted: {ACCEPTED_FORMS}")
    result: list[Arch] = []
    for entry in entries:
        m = _ARCH_RE.match(entry)
        if m:
            suffix = m.group(3).lower()
            result.append(Arch(int(m.group(1)), int(m.group(2)), suffix, bool(m.group(4))))
            continue
        m = _NAME_RE.match(entry)
        if m and m.group(1).lower() in ARCH_FAMILIES:
            caps = ARCH_FAMILIES[m.group(1).lower()]
            for i, cap in enumerate(caps):
                major, minor = cap.split(".")
                ptx = bool(m.group(2)) and i == len(caps) - 1
                result.append(Arch(int(major), int(minor), "", ptx))
            continue
        raise ValueError(
            f"invalid CUDA architecture {entry!r} in {text!r}; accepted: {ACCEPTED_FORMS}"
        )
    return _dedupe(result)


def _dedupe(archs: Iterable[Arch]) -> list[Arch]:
    merged: dict[tuple[int, int, str], bool] = {}
    for a in archs:
        key = (a.major, a.minor, a.suffix)
        merged[key] = merged.get(key, False) or a.ptx
    return [Arch(k[0], k[1], k[2], ptx) for k, ptx in sorted(merged.items())]


def arch_list_from_env(environ: dict | None = None) -> tuple[str | None, str | None]:
    """(value, variable) of the first non-empty arch variable, else (None, None)."""
    env = os.environ if environ is None else environ
    for var in ARCH_ENV_VARS:
        value = env.get(var, "").strip()
        if value:
            return value, var
    return None, None


@functools.lru_cache(maxsize=8)
def nvcc_supported_codes(nvcc: str) -> frozenset[str] | None:
    """sm_XY names from `nvcc --list-gpu-code` (None when this nvcc cannot tell)."""
    try:
        out = subprocess.run(
            [nvcc, "--list-gpu-code"], capture_output=True, text=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    codes = frozenset(re.findall(r"\bsm_\d+[a-z]?\b", out))
    return codes or None


@functools.lru_cache(maxsize=1)
def visible_gpu_capabilities() -> tuple[Arch, ...]:
    """Compute capabilities of the visible GPUs: nvidia-smi, else the driver API; () if none."""
    caps: list[Arch] = []
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run(
                [smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=30,
            )
            if out.returncode == 0:
                for line in out.stdout.split():
                    m = re.match(r"^(\d+)\.(\d+)$", line.strip())
                    if m:
                        caps.append(Arch(int(m.group(1)), int(m.group(2))))
        except (OSError, subprocess.SubprocessError):
            pass
    if not caps:
        caps = _driver_capabilities()
    return tuple(_dedupe(caps))


def _driver_capabilities() -> list[Arch]:
    """cuDeviceGetAttribute through libcuda (no toolkit needed); [] without a driver."""
    import ctypes

    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return []
    try:
        if lib.cuInit(0) != 0:
            return []
        count = ctypes.c_int(0)
        if lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
            return []
        caps = []
        for i in range(count.value):
            dev = ctypes.c_int(0)
            major, minor = ctypes.c_int(0), ctypes.c_int(0)
            if lib.cuDeviceGet(ctypes.byref(dev), i) != 0:
                continue
            # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76
            lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)
            lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
            caps.append(Arch(major.value, minor.value))
        return caps
    except (AttributeError, OSError):
        return []


def _plain_supported(supported: frozenset[str] | None) -> list[tuple[int, int]]:
    """(major, minor) of the plain sm_XY codes nvcc supports, ascending."""
    out = []
    for code in supported or ():
        m = re.match(r"^sm_(\d+)(\d)$", code)
        if m:
            out.append((int(m.group(1)), int(m.group(2))))
    return sorted(out)


def resolve_archs(
    arch_list: str | None = None,
    *,
    supported: frozenset[str] | None = None,
    visible: Sequence[Arch] | None = None,
    cuda_version: tuple[int, int] | None = None,
) -> tuple[list[Arch], str]:
    """The architectures to build for and where they came from.

    Order: `arch_list`, SDK_CUDA_ARCH_LIST / TORCH_CUDA_ARCH_LIST, the visible GPUs (PTX of
    the newest added), else PORTABLE_ARCHS that nvcc supports with PTX of the newest.
    `supported` is nvcc's sm_XY set (None: unknown); `visible` the GPUs' capabilities.
    """
    source = "argument"
    if arch_list is None:
        arch_list, source = arch_list_from_env()
    if arch_list is not None:
        archs = parse_arch_list(arch_list)
        if supported:
            unknown = [str(a) for a in archs if f"sm_{a.major}{a.minor}" not in supported]
            if unknown:
                warnings.warn(
                    f"{source}: nvcc does not list {', '.join(unknown)} among its supported "
                    "architectures (`nvcc --list-gpu-code`); passing them to nvcc anyway",
                    stacklevel=2,
                )
        return archs, str(source)
    if visible is None:
        visible = visible_gpu_capabilities()
    plain = _plain_supported(supported)
    if visible:
        archs = []
        for cap in visible:
            key = (cap.major, cap.minor)
            if plain and key < plain[0]:
                raise BuildError(
                    f"a visible GPU has compute capability {cap.major}.{cap.minor}, which this "
                    f"nvcc no longer supports (oldest: {plain[0][0]}.{plain[0][1]}); install an "
                    "older CUDA toolkit, or set SDK_CUDA_ARCH_LIST to build for other GPUs"
                )
            if plain and key > plain[-1]:
                # newer than this nvcc knows: its newest arch as PTX, which the driver JITs
                archs.append(Arch(plain[-1][0], plain[-1][1], "", True))
            else:
                archs.append(Arch(cap.major, cap.minor))
        archs = _dedupe(archs)
        archs[-1] = Arch(archs[-1].major, archs[-1].minor, archs[-1].suffix, True)
        return archs, "visible GPUs"
    return portable_archs(supported, cuda_version), "portable default (no GPU visible)"


def portable_archs(
    supported: frozenset[str] | None = None, cuda_version: tuple[int, int] | None = None
) -> list[Arch]:
    """PORTABLE_ARCHS filtered to what nvcc supports, PTX on the newest."""
    keep = []
    for text in PORTABLE_ARCHS:
        major, minor = (int(x) for x in text.split("."))
        arch = Arch(major, minor)
        if supported is not None:
            if arch.sm not in supported:
                continue
        elif cuda_version is not None:
            # without nvcc's list: the documented drops (CUDA 12: < 5.0, CUDA 13: < 7.5)
            floor = (7, 5) if cuda_version >= (13, 0) else (5, 0)
            if (major, minor) < floor:
                continue
        keep.append(arch)
    if not keep:
        raise BuildError(
            "none of the default CUDA architectures are supported by this nvcc; "
            f"set SDK_CUDA_ARCH_LIST ({ACCEPTED_FORMS})"
        )
    keep[-1] = Arch(keep[-1].major, keep[-1].minor, keep[-1].suffix, True)
    return keep


def gencode_flags(archs: Sequence[Arch]) -> list[str]:
    """-gencode pairs: SASS for each arch, PTX where asked."""
    flags = []
    for a in archs:
        flags.append(f"-gencode=arch={a.compute},code={a.sm}")
        if a.ptx:
            flags.append(f"-gencode=arch={a.compute},code={a.compute}")
    return flags


def _user_sets_arch(flags: Sequence[str]) -> bool:
    for f in flags:
        if f.startswith(("-gencode", "--generate-code", "-arch", "--gpu-architecture")):
            return True
        if f.startswith(("-code", "--gpu-code")):
            return True
    return False


def arch_flags(user_flags: Sequence[str] = (), nvcc: str | None = None) -> list[str]:
    """-gencode flags for this build, unless the user's nvcc flags already pick archs."""
    if _user_sets_arch(user_flags):
        return []
    supported = nvcc_supported_codes(nvcc) if nvcc else None
    version = None
    if nvcc:
        try:
            version = _nvcc_version(nvcc)
        except BuildError:
            version = None
    try:
        archs, _ = resolve_archs(supported=supported, cuda_version=version)
    except ValueError as e:
        raise BuildError(str(e)) from None
    return gencode_flags(archs)


# ----------------------------------------------------------------------------- flags

# Compiler caches and distributors: programs that run the compiler named after them in CXX/CC
# (builder.toolchain.split_launcher uses this too).
LAUNCHERS = frozenset({"ccache", "sccache", "distcc", "icecc"})


def host_compiler(environ: dict | None = None) -> str | None:
    """The host compiler for nvcc's -ccbin: CXX, else CC (launchers such as ccache skipped)."""
    env = os.environ if environ is None else environ
    for var in ("CXX", "CC"):
        value = env.get(var, "").strip()
        if not value:
            continue
        for word in shlex.split(value):
            if os.path.basename(word) in LAUNCHERS or word.startswith("-"):
                continue
            return shutil.which(word) or word
    return None


# -Werror=return-type for nvcc (see _toolchain.WARNING_FLAGS): its front end's diagnostic 940
# ("missing return statement") covers device and host functions, and the host compiler gets
# the gcc flag. `-Xcudafe --diag_warning=940 --compiler-options -Wno-error=return-type` in
# extra_cuda_cflags turns it off (the user's flags come last).
# torch's name: what every nvcc compile gets; torch's list also defines
# __CUDA_NO_HALF_OPERATORS__ and friends, which the SDK's half types do not need
COMMON_NVCC_FLAGS = ["--expt-relaxed-constexpr"]
NVCC_WARNING_FLAGS = ["-Xcudafe", "--diag_error=940", "--compiler-options", "-Werror=return-type"]


def nvcc_flags(
    user_flags: Sequence[str] = (),
    *,
    nvcc: str | None = None,
    rdc: bool = False,
    opt: str = "-O2",
) -> list[str]:
    """nvcc compile flags: C++17, -fPIC host code, archs, -ccbin, -rdc; the user's last."""
    flags = ["-std=c++17", "--compiler-options", "-fPIC", opt, *COMMON_NVCC_FLAGS]
    flags += NVCC_WARNING_FLAGS
    if not any(f.startswith(("-ccbin", "--compiler-bindir")) for f in user_flags):
        cc = host_compiler()
        if cc:
            flags += ["-ccbin", cc]
    if rdc and not any(f.startswith(("-rdc", "--relocatable-device-code")) for f in user_flags):
        flags.append("-rdc=true")
    flags += arch_flags(user_flags, nvcc)
    return flags + list(user_flags)


def link_flags(toolkit: CudaToolkit, rdc: bool = False) -> list[str]:
    """Linker flags for cudart (and cudadevrt with relocatable device code), with an rpath."""
    libs = ["-lcudadevrt", "-lcudart"] if rdc else ["-lcudart"]
    return [f"-L{toolkit.library_dir}", *libs, f"-Wl,-rpath,{toolkit.library_dir}"]


def dlink_flags(compile_flags: Sequence[str]) -> list[str]:
    """Flags of the device-link step (nvcc -dlink): the archs and -ccbin of the compile."""
    keep = []
    it = iter(compile_flags)
    for f in it:
        if f.startswith(("-gencode", "--generate-code", "-arch", "-code")):
            keep.append(f)
        elif f in ("-ccbin", "--compiler-bindir"):
            keep += [f, next(it, "")]
    return keep
