"""Builds the operator library {{name}}._C: one wheel for every Python 3.9+ (abi3), since the
library uses only Python's limited API. The package metadata is in pyproject.toml."""

{{^cuda}}
from cpp_extension import BuildExtension, CppExtension
{{/cuda}}
{{#cuda}}
from cpp_extension import BuildExtension, CUDAExtension
{{/cuda}}
from setuptools import setup

{{^cuda}}
library = CppExtension(
    "{{name}}._C",
    ["csrc/{{name}}.cpp"],
    extra_compile_args=["-O3"],
    define_macros=[("Py_LIMITED_API", "0x03090000")],
    py_limited_api=True,
)
{{/cuda}}
{{#cuda}}
library = CUDAExtension(
    "{{name}}._C",
    ["csrc/{{name}}.cpp", "csrc/{{name}}_cuda.cu"],
    extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]},
    define_macros=[("Py_LIMITED_API", "0x03090000")],
    py_limited_api=True,
)
{{/cuda}}

wheel = {"py_limited_api": "cp39"}  # the wheel's tag: cp39-abi3

setup(
    ext_modules=[library],
    cmdclass={"build_ext": BuildExtension},
    options={"bdist_wheel": wheel},
)
