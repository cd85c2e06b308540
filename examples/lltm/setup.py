"""Ahead-of-time build of the LLTM extension: ``python setup.py build_ext --inplace``
or ``pip install --no-build-isolation .`` (builds against the installed sdk)."""

from setuptools import setup

from cpp_extension import BuildExtension, CppExtension

setup(
    name="lltm_cpp",
    ext_modules=[CppExtension("lltm_cpp", ["lltm.cpp"], extra_compile_args=["-O3"])],
    cmdclass={"build_ext": BuildExtension},
)
