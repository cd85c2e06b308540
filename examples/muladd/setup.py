"""Builds muladd_ops: one wheel for every Python 3.9+ (the library uses only Python's limited
API, and only to be importable as muladd_ops._C).

    pip install --no-build-isolation .          # or: python setup.py bdist_wheel
"""

from setuptools import setup

import cpp_extension
from cpp_extension import BuildExtension, CppExtension, CUDAExtension

sources = ["muladd_ops/csrc/muladd.cpp"]
extension = CppExtension
if cpp_extension.CUDA_HOME is not None:  # the CUDA kernels too, when a toolkit is found
    sources.append("muladd_ops/csrc/muladd.cu")
    extension = CUDAExtension

setup(
    name="muladd_ops",
    version="0.1.0",
    packages=["muladd_ops"],
    ext_modules=[
        extension(
            "muladd_ops._C",
            sources,
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]},
            define_macros=[("Py_LIMITED_API", "0x03090000")],
            py_limited_api=True,
        )
    ],
    cmdclass={"build_ext": BuildExtension},
    options={"bdist_wheel": {"py_limited_api": "cp39"}},
    install_requires=["tensor-sdk>=0.1,<2"],
)
