"""``str`` subclasses such as ``numpy.str_`` (issue 39, item 5), and text that is no ``str``.

The compiled encoder takes exact ``str``; its batch path once refused ``numpy.str_``
("encode_batch takes a list of str; item 0 is a str_") that the Python backend
accepted. Every entry point now turns a subclass into a plain ``str`` first; the
reference ids are tiktoken's for the same plain text.
"""

import numpy as np
import pytest

from bpe_lesson import Tokenizer, train

TEXT = "hello world, hello numpy<|endoftext|> caf\u00e9 42\n"


class Loud(str):
    def __str__(self):  # a subclass's own __str__ must not change what is encoded
        return "LOUD"


@pytest.fixture(scope="module")
def trained():
    return train("hello world, hello numpy caf\u00e9 42\n" * 20, 300, special_tokens=["<|endoftext|>"])


@pytest.mark.parametrize("kind", [np.str_, Loud])
def test_str_subclasses_encode_as_their_text_on_every_api(trained, backend, kind):
    tok = Tokenizer(trained.merges, pattern=trained.pattern, special_tokens=trained.special_tokens,
                    backend=backend)
    ref = tok.to_tiktoken()
    text = kind(TEXT)
    want = ref.encode(TEXT, allowed_special="all")
    plain = ref.encode_ordinary(TEXT)
    assert tok.encode(text, allowed_special="all") == want
    assert tok.encode_ordinary(text) == plain  # before: TypeError on the compiled backend
    assert tok.encode_batch([text, text], allowed_special="all") == [want, want]
    assert tok.encode_ordinary_batch([text, text]) == [plain, plain]  # before: TypeError (compiled)
    assert tok.encode_to_numpy(text, allowed_special="all").tolist() == want
    assert [a.tolist() for a in tok.encode_batch_to_numpy([text], allowed_special="all")] == [want]
    assert list(tok.encode_iterable([text], allowed_special="all")) == want
    assert tok.encode_chunk(kind("hello")) == ref.encode_ordinary("hello")
    assert tok.encode(text, disallowed_special=(), dropout=1.0, seed=0) == list(TEXT.encode("utf-8"))


def test_training_on_str_subclasses_learns_the_plain_texts_merges(backend):
    docs = ["hello world hello", "numpy arrays of strings"] * 10
    want = train(docs, 280, algorithm="textbook").merges  # independent: the textbook trainer on plain str
    assert len(want) == 24
    assert train([np.str_(d) for d in docs], 280, backend=backend).merges == want
    assert train(docs, 280, backend=backend).merges == want


@pytest.mark.parametrize("call", ["encode", "encode_ordinary", "encode_to_numpy", "encode_chunk"])
def test_text_that_is_no_str_is_a_type_error_naming_the_call(backend, call):
    tok = Tokenizer([((104, 105), 256)], pattern="gpt4", backend=backend)
    with pytest.raises(TypeError, match=rf"^{call} takes a str, got NoneType$"):
        getattr(tok, call)(None)  # before (encode_ordinary): "bad argument type for built-in operation"
