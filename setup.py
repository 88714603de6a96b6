"""Build the Cython extensions; everything else lives in pyproject.toml."""
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "bpe_lesson._incremental",
        ["src/bpe_lesson/_incremental.pyx"],
        language="c++",
        extra_compile_args=["-O3", "-std=c++17"],
    ),
    Extension(
        "bpe_lesson._encoder",
        ["src/bpe_lesson/_encoder.pyx"],
        language="c++",
        extra_compile_args=["-O3", "-std=c++17"],
    ),
]

setup(ext_modules=cythonize(extensions, language_level=3, compiler_directives={"boundscheck": False, "wraparound": False}))
