"""A torch extension package built by setup.py: rowops._C from csrc/rowops.cpp."""

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="rowops",
    version="0.1.0",
    packages=["rowops"],
    ext_modules=[
        CppExtension(
            name="rowops._C",
            sources=["csrc/rowops.cpp"],
            extra_compile_args={"cxx": ["-O2"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
    install_requires=["torch"],
)
