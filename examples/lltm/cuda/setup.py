"""Ahead-of-time build of the LLTM CUDA extension: ``python setup.py build_ext --inplace``.

Needs nvcc (CUDA_HOME, or nvcc on PATH); no GPU is needed to build. Architectures come from
SDK_CUDA_ARCH_LIST (e.g. ``SDK_CUDA_ARCH_LIST="8.0;9.0+PTX"``), else the visible GPUs, else
a portable default.
"""

from setuptools import setup

from cpp_extension import BuildExtension, CUDAExtension

setup(
    name="lltm_cuda",
    ext_modules=[
        CUDAExtension(
            "lltm_cuda",
            ["lltm_cuda.cpp", "lltm_cuda_kernel.cu"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
