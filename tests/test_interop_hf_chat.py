"""The Hugging Face export behaves like the model's own tokenizer: BOS, roles, chat template.

Independent sides: ``transformers.AutoTokenizer`` loading the folder we write (its
post-processor run by ``tokenizers``, its chat template rendered by Jinja), Meta's
``llama_models`` (``Tokenizer.encode(bos=True)`` and ``ChatFormat``), and Qwen2-7B-Instruct's
``chat_template`` copied from the Hub. ``render_chat`` is the third side.
"""

import json
import random

import pytest

import bpe_lesson
from bpe_lesson.formats.huggingface import save_huggingface
from bpe_lesson.formats.pretrained import from_pretrained
from bpe_lesson.lm.chat import render_chat

from test_interop_pretrained import HELD_OUT

# Qwen2-7B-Instruct's "chat_template", from its tokenizer_config.json on the Hugging Face Hub
QWEN2_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")

PIECES = ["Hi", "What does BPE stand for?", "Byte-pair encoding.", " leading space", "trailing\n", "\n\nnewline first",
          "中文 and 日本語", "émigré naïve", "😀👍🏽", "1,234 + 5 = 1,239", "", "  ", "tab\there", "Ça va?\r\n",
          "<|eot_id|> is text here", "<|begin_of_text|><|start_header_id|>user", "<|im_end|>\n<|im_start|>",
          "code: def f(x):\n    return x\n", "\u200b", "ﬁ ligature", "### Assistant:"]
SPECIAL_TEXT = ("<|eot_id|>", "<|begin_of_text|>", "<|start_header_id|>", "<|im_end|>", "<|im_start|>")


def dialogs(seed, n=50):
    """``n`` conversations of 1-8 messages, user and assistant in turn, a system message first
    half the time; contents joined from ``PIECES`` (unicode, whitespace, special-token text)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        msgs = [{"role": "system", "content": rng.choice(PIECES)}] if rng.random() < 0.5 else []
        for k in range(rng.randint(1, 8)):
            content = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3)))
            msgs.append({"role": ("user", "assistant")[k % 2], "content": content})
        out.append(msgs)
    return out


def whole_string_safe(msgs):
    """No content spells a special token or opens with a line break: the only two places where
    encoding the rendered string whole (``apply_chat_template``) differs from piece by piece."""
    return all(not any(s in m["content"] for s in SPECIAL_TEXT) and m["content"][:1] not in "\r\n"
               or m["content"] == "" for m in msgs)


def chat_ids(hf, msgs, gen):
    out = hf.apply_chat_template(msgs, tokenize=True, add_generation_prompt=gen, return_dict=False)
    return list(out)


@pytest.fixture(scope="module")
def llama3_export(tmp_path_factory):
    from transformers import AutoTokenizer

    tok = from_pretrained("llama3")
    folder = str(tmp_path_factory.mktemp("llama3")) + "/"
    save_huggingface(tok, folder)
    return tok, folder, AutoTokenizer.from_pretrained(folder)


@pytest.fixture(scope="module")
def meta():
    from llama_models.llama3.chat_format import ChatFormat
    from llama_models.llama3.tokenizer import Tokenizer

    return ChatFormat(Tokenizer.get_instance())


def meta_ids(fmt, msgs, gen):
    from llama_models.datatypes import RawMessage

    ids = fmt.encode_dialog_prompt([RawMessage(**m) for m in msgs]).tokens
    return ids if gen else ids[:-len(fmt._encode_header("assistant"))]


# ---- Llama 3 -----------------------------------------------------------------------------------

def test_llama3_export_starts_with_begin_of_text_as_metas_encoder(llama3_export, meta):
    tok, folder, hf = llama3_export
    for text in [t for t in HELD_OUT if "<|" not in t][:40] + ["", "hi"]:  # Meta's encode: "<|" as text
        want = meta.tokenizer.encode(text, bos=True, eos=False)
        assert want[0] == 128000
        assert hf.encode(text) == want and hf(text)["input_ids"] == want, text[:40]
        assert hf.encode(text, add_special_tokens=False) == meta.tokenizer.encode(text, bos=False, eos=False)
    assert (hf.bos_token, hf.eos_token, hf.pad_token) == ("<|begin_of_text|>", "<|eot_id|>",
                                                           "<|finetune_right_pad_id|>")
    assert hf.pad_token_id == meta.tokenizer.pad_id != hf.eos_token_id == meta.tokenizer.eot_id
    import tokenizers
    raw = tokenizers.Tokenizer.from_file(folder + "tokenizer.json")  # the post-processor, without transformers
    assert raw.encode("hi").ids == [128000, 6151] and raw.encode("hi", add_special_tokens=False).ids == [6151]


def test_llama3_apply_chat_template_equals_render_chat_and_chat_format(llama3_export, meta, backend):
    tok, _, hf = llama3_export
    tok.backend = backend
    n_safe = 0
    for n, msgs in enumerate(dialogs(52)):
        for gen in (False, True):
            ours = render_chat(tok, msgs, "llama3", add_generation_prompt=gen)[0]
            assert ours == meta_ids(meta, msgs, gen), f"dialog {n}"
            # the same string always; the same ids where encoding it whole cannot differ
            rendered = hf.apply_chat_template(msgs, tokenize=False, add_generation_prompt=gen)
            assert rendered == tok.decode(ours), f"dialog {n}"
            theirs = chat_ids(hf, msgs, gen)
            assert theirs.count(128000) == rendered.count("<|begin_of_text|>")  # no second BOS
            if whole_string_safe(msgs):
                assert theirs == ours, f"dialog {n}: {msgs}"
            else:  # Hugging Face encodes the one string, special-token text as the tokens
                assert theirs == tok.encode(rendered, allowed_special="all"), f"dialog {n}"
        n_safe += whole_string_safe(msgs)
    assert 15 <= n_safe < 50  # both kinds were tried


def test_llama3_template_keeps_whitespace_as_chat_format_does(llama3_export, meta):
    tok, _, hf = llama3_export
    msgs = [{"role": "user", "content": "  hi  "}, {"role": "assistant", "content": "ok\n"}]
    assert chat_ids(hf, msgs, True) == meta_ids(meta, msgs, True) == render_chat(tok, msgs, "llama3", True)[0]


def test_llama4_export_starts_with_begin_of_text_as_metas_encoder(tmp_path):
    from llama_models.llama4.tokenizer import Tokenizer
    from transformers import AutoTokenizer

    save_huggingface(from_pretrained("llama4"), str(tmp_path) + "/")
    hf, meta4 = AutoTokenizer.from_pretrained(str(tmp_path)), Tokenizer.get_instance()
    for text in [t for t in HELD_OUT if "<|" not in t][:20] + ["hi"]:
        assert hf.encode(text) == meta4.encode(text, bos=True, eos=False), text[:40]
    assert hf.pad_token_id == meta4.pad_id != hf.eos_token_id == meta4.special_tokens["<|eot|>"]
    assert hf.bos_token_id == meta4.bos_id and hf.chat_template is None  # no llama4 template here


def test_tekken_export_starts_with_s_as_mistrals_encoder(tmp_path):
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    from transformers import AutoTokenizer

    from bpe_lesson.formats.pretrained import pretrained_path

    save_huggingface(from_pretrained("tekken"), str(tmp_path) + "/")
    hf, ref = AutoTokenizer.from_pretrained(str(tmp_path)), Tekkenizer.from_file(pretrained_path("tekken"))
    texts = [t for t in HELD_OUT if not any(s in t for s in ("<s>", "</s>", "[INST]", "<unk>", "<pad>"))]
    assert len(texts) >= 12  # Hugging Face finds Tekken's specials in text, Mistral's encoder never
    for text in texts:
        assert hf.encode(text) == ref.encode(text, bos=True, eos=False), text[:40]
    assert (hf.bos_token_id, hf.eos_token_id, hf.pad_token_id, hf.unk_token_id) == (
        ref.bos_id, ref.eos_id, ref.pad_id, ref.unk_id)


# ---- Qwen (ChatML) ------------------------------------------------------------------------------

def test_qwen_export_adds_no_bos_and_its_template_is_qwens(tmp_path):
    from transformers import AutoTokenizer

    tok = from_pretrained("qwen")
    save_huggingface(tok, str(tmp_path) + "/")
    hf = AutoTokenizer.from_pretrained(str(tmp_path))
    assert hf.encode("Hello world") == tok.encode("Hello world") and hf.bos_token is None
    assert (hf.eos_token, hf.pad_token) == ("<|im_end|>", "<|endoftext|>") and hf.pad_token_id != hf.eos_token_id
    n_safe = 0
    for n, msgs in enumerate(dialogs(53)):
        for gen in (False, True):
            rendered = hf.apply_chat_template(msgs, tokenize=False, add_generation_prompt=gen)
            hub = hf.apply_chat_template(msgs, chat_template=QWEN2_TEMPLATE, tokenize=False,
                                         add_generation_prompt=gen)
            ours = render_chat(tok, msgs, "chatml", add_generation_prompt=gen)[0]
            assert rendered == hub == tok.decode(ours), f"dialog {n}"
            if whole_string_safe(msgs):
                assert chat_ids(hf, msgs, gen) == ours, f"dialog {n}: {msgs}"
        n_safe += whole_string_safe(msgs)
    assert n_safe >= 15


def test_qwen3_5_export_names_qwens_roles_and_adds_no_bos(tmp_path):
    from transformers import AutoTokenizer

    tok = from_pretrained("qwen3.5")
    save_huggingface(tok, str(tmp_path) + "/")
    hf = AutoTokenizer.from_pretrained(str(tmp_path))
    assert hf.encode("Hello world") == tok.encode("Hello world") and hf.bos_token is None
    assert (hf.eos_token, hf.pad_token) == ("<|im_end|>", "<|endoftext|>") and hf.chat_template is None


# ---- our own tokenizers ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def own(prose_docs):
    specials = ["<|endoftext|>", "<|pad|>", "<s>", "<|im_start|>", "<|im_end|>"]
    return bpe_lesson.train(prose_docs[:60], 600, pattern="gpt4", special_tokens=specials)


@pytest.mark.parametrize("template", ["plain", "chatml"])
def test_own_tokenizer_takes_bos_roles_and_a_chat_template(own, tmp_path, template):
    from transformers import AutoTokenizer

    folder = str(tmp_path) + "/"
    save_huggingface(own, folder, bos_token="<s>", add_bos=True, chat_template=template)
    hf = AutoTokenizer.from_pretrained(folder)
    s = own.special_tokens
    assert hf.encode("a short text") == [s["<s>"]] + own.encode("a short text")
    assert (hf.eos_token, hf.pad_token) == ("<|endoftext|>", "<|pad|>")  # pad is not EOS
    assert hf.pad_token_id == s["<|pad|>"] != hf.eos_token_id
    n_safe = 0
    for n, msgs in enumerate(dialogs(54, 30)):
        if not whole_string_safe(msgs) or template == "plain" and any(
                m["content"] == "" and m["role"] != "assistant" for m in msgs):
            continue  # "plain": an empty user turn is "\n\n" right after ":\n", a line break first
        n_safe += 1
        for gen in (False, True):
            ours = render_chat(own, msgs, template, add_generation_prompt=gen)[0]
            assert chat_ids(hf, msgs, gen) == ours, f"dialog {n}: {msgs}"
    assert n_safe >= 5


def test_own_tokenizer_without_options_has_no_bos_and_no_template(own, tmp_path):
    from transformers import AutoTokenizer

    save_huggingface(own, str(tmp_path) + "/")
    config = json.load(open(tmp_path / "tokenizer_config.json", encoding="utf-8"))
    assert "chat_template" not in config and json.load(open(tmp_path / "tokenizer.json"))["post_processor"] is None
    assert AutoTokenizer.from_pretrained(str(tmp_path)).encode("hi there") == own.encode("hi there")


def test_model_settings_can_be_overridden(tmp_path):
    tok = from_pretrained("llama3")
    save_huggingface(tok, str(tmp_path) + "/", eos_token="<|end_of_text|>", add_bos=False, chat_template=False)
    config = json.load(open(tmp_path / "tokenizer_config.json", encoding="utf-8"))
    assert config["eos_token"] == "<|end_of_text|>" and "chat_template" not in config
    assert json.load(open(tmp_path / "tokenizer.json", encoding="utf-8"))["post_processor"] is None


def test_bad_options_are_refused_naming_the_argument(own, tmp_path):
    with pytest.raises(ValueError, match=r"bos_token='<bos>' is not a special token .*: \['<\|endoftext\|>', "
                                         r"'<\|pad\|>', '<s>'"):
        save_huggingface(own, tmp_path, bos_token="<bos>", add_bos=True)
    plain = bpe_lesson.Tokenizer([], special_tokens={"<|endoftext|>": 256})
    with pytest.raises(ValueError, match=r"add_bos=True needs a BOS token.*bos_token=\.\.\..*'<\|endoftext\|>'"):
        save_huggingface(plain, tmp_path, add_bos=True)
    with pytest.raises(ValueError, match=r"chat_template='llama3' writes the special token\(s\) "
                                         r"\['<\|begin_of_text\|>', '<\|start_header_id\|>'"):
        save_huggingface(own, tmp_path, chat_template="llama3")
    with pytest.raises(ValueError, match=r"chat_template='llama' is neither one of \['chatml', 'llama3', 'plain'\]"):
        save_huggingface(own, tmp_path, chat_template="llama")
    with pytest.raises(ValueError, match=r"chat_template goes into tokenizer_config\.json.*path is a file"):
        save_huggingface(own, tmp_path / "t.json", chat_template="chatml")
    assert list(tmp_path.iterdir()) == []  # refused before anything is written
