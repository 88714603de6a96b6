"""Build the Cython extensions; everything else lives in pyproject.toml.

Each extension is one .pyx that ``include``s .pxi files by concern; ``depends``
lists them so that changing a .pxi rebuilds the extensions that include it.
"""
from Cython.Build import cythonize
from setuptools import Extension, setup

PXI = "src/bpe_lesson/_{}.pxi"

extensions = [
    Extension(
        "bpe_lesson._incremental",
        ["src/bpe_lesson/_incremental.pyx"],
        depends=[PXI.format(name) for name in ("hashtable", "scanners", "window_cut", "chunk_counter", "replay")] + ["src/bpe_lesson/_window.h", "src/bpe_lesson/_utf8.h", "src/bpe_lesson/_simd.h"],
        language="c++",
        extra_compile_args=["-O3", "-std=c++17"],
    ),
    Extension(
        "bpe_lesson._encoder",
        ["src/bpe_lesson/_encoder.pyx"],
        depends=[PXI.format(name) for name in ("hashtable", "front_cache", "scanners", "window_cut", "rank_merge", "encode_text")] + ["src/bpe_lesson/_window.h", "src/bpe_lesson/_utf8.h", "src/bpe_lesson/_simd.h"],
        language="c++",
        extra_compile_args=["-O3", "-std=c++17"],
    ),
]

setup(ext_modules=cythonize(extensions, language_level=3, compiler_directives={"boundscheck": False, "wraparound": False}))
