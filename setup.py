"""Build the Cython extension; everything else lives in pyproject.toml.

One extension, ``bpe_lesson._compiled._native``: one .pyx that ``include``s each
.pxi of ``src/bpe_lesson/_compiled/`` once. ``depends`` lists every other file of
that folder (.pxd, .pxi, .h), so that changing any of them rebuilds it.
"""
import glob

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

COMPILED = "src/bpe_lesson/_compiled"

extensions = [
    Extension(
        "bpe_lesson._compiled._native",
        [f"{COMPILED}/_native.pyx"],
        depends=sorted(glob.glob(f"{COMPILED}/*.pxd") + glob.glob(f"{COMPILED}/*.pxi") + glob.glob(f"{COMPILED}/*.h")),
        language="c++",
        include_dirs=[numpy.get_include()],  # the encoder makes its arrays with NumPy's C API
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-std=c++17"],
    ),
]

setup(ext_modules=cythonize(extensions, language_level=3, compiler_directives={"boundscheck": False, "wraparound": False}))
