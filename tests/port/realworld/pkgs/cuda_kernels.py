"""CUDA-only packages of rendering, sequence and quantized-matmul kernels (NeRF sampling,
gaussian splatting, selective scan, GPTQ): compiled with nvcc against the SDK's headers,
nothing run (no GPU here). Their idioms: cub temporary storage from the caching allocator's
object, Philox seeds from the default CUDA generator, curand, glm, ATen/NativeFunctions.h
included for its headers."""

from __future__ import annotations

from .._spec import Build, Op, Package

NERFACC = Package(
    name="nerfacc",
    version="0.5.3",
    filename="nerfacc-0.5.3.tar.gz",
    sha256="01850cbbd71b6aeab059cbfb695755f8b6604f3fdfe48c44925b4b97c0c324db",
    port_roots=("nerfacc/cuda/csrc",),
    why="NeRF ray marching and importance sampling (CUDA, Philox random numbers)",
    builds=(
        Build(
            "cuda",
            tuple(
                f"nerfacc/cuda/csrc/{f}"
                for f in ("nerfacc.cpp", "scan.cu", "camera.cu", "grid.cu", "pdf.cu")
            ),
            ("nerfacc/cuda/csrc/include",),
            compile_only=True,
        ),
    ),
    ops=(Op("importance_sampling, traverse_grids (compile only)", "cuda"),),
)

_GSPLAT = "gsplat/cuda"
_GSPLAT_INCLUDES = (f"{_GSPLAT}/include", f"{_GSPLAT}/csrc/third_party/glm")
_GSPLAT_BINDINGS = ("Adam", "Intersect", "Null", "Projection", "QuatScaleToCovar")
_GSPLAT_BINDINGS += ("Rasterization", "Relocation", "SphericalHarmonics")
_GSPLAT_KERNELS = ("QuatScaleToCovarCUDA", "SphericalHarmonicsCUDA", "AdamCUDA")
_GSPLAT_KERNELS += ("RelocationCUDA", "Projection2DGSFused")

GSPLAT = Package(
    name="gsplat",
    version="1.5.3",
    filename="gsplat-1.5.3.tar.gz",
    sha256="343f080c470e891ba3c697c03bdf0952cb982d1d535fdc24adb23c2cb4fba906",
    port_roots=(_GSPLAT,),
    why="differentiable gaussian-splatting rasterization (CUDA, glm, cub)",
    builds=(
        Build(
            "cuda",
            (
                f"{_GSPLAT}/ext.cpp",
                *(f"{_GSPLAT}/csrc/{n}.cpp" for n in _GSPLAT_BINDINGS),
                *(f"{_GSPLAT}/csrc/{n}.cu" for n in _GSPLAT_KERNELS),
            ),
            _GSPLAT_INCLUDES,
            compile_only=True,
        ),
        # cub's radix sort with temporary storage from the caching allocator; the sorted
        # buffer is handed back with Tensor.set_ (sdk_tensor_set_tensor_, ABI 1.12)
        Build(
            "intersect", (f"{_GSPLAT}/csrc/IntersectTile.cu",), _GSPLAT_INCLUDES, compile_only=True
        ),
        # dispatched over the complex dtypes too
        Build("null", (f"{_GSPLAT}/csrc/NullCUDA.cu",), _GSPLAT_INCLUDES, compile_only=True),
    ),
    ops=(
        Op("projection, spherical harmonics, adam, relocation (compile only)", "cuda"),
        Op("intersect_tile (compile only)", "intersect"),
        Op("null (compile only)", "null"),
    ),
)

MAMBA_SSM = Package(
    name="mamba-ssm",
    version="2.3.2.post1",
    filename="mamba_ssm-2.3.2.post1.tar.gz",
    sha256="104cc47e9101e5401a675fa2b784f2952b9b037f3b1dd83b5ac544394e95d028",
    port_roots=("csrc/selective_scan",),
    why="Mamba's selective scan (CUDA, cub block scans, complex weights)",
    builds=(
        Build(
            "cuda",
            (
                "csrc/selective_scan/selective_scan.cpp",
                "csrc/selective_scan/selective_scan_fwd_fp32.cu",
            ),
            ("csrc/selective_scan",),
            compile_only=True,
        ),
    ),
    ops=(Op("selective_scan_fwd float32 (compile only)", "cuda"),),
)

_GPTQ = "autogptq_extension"

AUTO_GPTQ = Package(
    name="auto-gptq",
    version="0.7.1",
    filename="auto_gptq-0.7.1.tar.gz",
    sha256="5c61ad380e9b4c603757c254765e9083a90a820cd0aff1b5d2c6f7fd96c85e80",
    # its exllama and marlin kernels include headers the sdist leaves out: not built
    port_roots=(f"{_GPTQ}/cuda_64", f"{_GPTQ}/cuda_256"),
    why="GPTQ 4-bit quantized matmul kernels (CUDA)",
    builds=tuple(
        Build(
            f"cuda_{bits}",
            (
                f"{_GPTQ}/cuda_{bits}/autogptq_cuda_{bits}.cpp",
                f"{_GPTQ}/cuda_{bits}/autogptq_cuda_kernel_{bits}.cu",
            ),
            compile_only=True,
        )
        for bits in (64, 256)
    ),
    ops=tuple(Op(f"vecquant matmuls, {b} threads (compile only)", f"cuda_{b}") for b in (64, 256)),
)
