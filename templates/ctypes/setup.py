"""Builds {{name}}/_lib.so: a plain shared library, loaded by the ctypes bridge. It uses no
Python C API, so its wheel is tagged py3-none-<platform>: one wheel for every Python 3."""

{{^cuda}}
from cpp_extension import AnyPythonWheel, BuildExtension, CppExtension
{{/cuda}}
{{#cuda}}
from cpp_extension import AnyPythonWheel, BuildExtension, CUDAExtension
{{/cuda}}
from setuptools import setup

{{^cuda}}
setup(
    ext_modules=[CppExtension("{{name}}._lib", ["csrc/{{name}}.cpp"], extra_compile_args=["-O3"])],
    cmdclass={
        "build_ext": BuildExtension.with_options(no_python_abi_suffix=True),
        "bdist_wheel": AnyPythonWheel,
    },
)
{{/cuda}}
{{#cuda}}
setup(
    ext_modules=[
        CUDAExtension(
            "{{name}}._lib",
            ["csrc/{{name}}.cpp", "csrc/{{name}}_cuda.cu"],
            define_macros=[("WITH_CUDA", None)],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]},
        )
    ],
    cmdclass={
        "build_ext": BuildExtension.with_options(no_python_abi_suffix=True),
        "bdist_wheel": AnyPythonWheel,
    },
)
{{/cuda}}
