"""The tutorial's setup.py ported by renaming (torch.utils.cpp_extension -> cpp_extension)."""

from setuptools import setup

import cpp_extension

setup(
    name="lltm_cpp",
    ext_modules=[cpp_extension.CppExtension("lltm_cpp", ["lltm.cpp"])],
    cmdclass={"build_ext": cpp_extension.BuildExtension},
)
