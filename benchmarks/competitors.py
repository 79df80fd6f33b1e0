"""The other implementations, called in this process: subword-nmt, Hugging Face tokenizers,
sentencepiece, tiktoken and TFDS's SubwordTextEncoder.

Each ``run_*`` trains one competitor the way the report describes; the helpers read its result
back (merge lists, pieces) for the "same as ours" checks. Our own calls are in ``ours.py``,
minbpe's literal loops in ``minbpe.py``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json

from settings import GPT_HF_MIN_FREQUENCY, GPT_SPECIAL, ROOT


def run_snmt(joined: str, n: int) -> str:
    """subword-nmt learn_bpe in-process; returns the codes file text."""
    return run_snmt_stream(io.StringIO(joined), n)


def run_snmt_stream(infile, n: int) -> str:
    """subword-nmt learn_bpe in-process, reading an open text file; returns the codes file text."""
    from subword_nmt.learn_bpe import learn_bpe

    outfile = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):  # its tqdm bar and messages
        learn_bpe(infile, outfile, n, min_frequency=2)
    return outfile.getvalue()


def codes_merges(codes: str) -> list[str]:
    """The merges of a subword-nmt codes file, one "a b" string each."""
    return [line for line in codes.splitlines() if line and not line.startswith("#version")]


def run_hf(lines: list[str], n: int, alphabet: int):
    """tokenizers' BpeTrainer set up as subword-nmt trains: ``</w>``, whitespace words, min 2."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=alphabet + n, min_frequency=2, show_progress=False, end_of_word_suffix="</w>"
    )
    tok.train_from_iterator(iter(lines), trainer=trainer)
    return tok


def hf_merge_pairs(tok) -> list[tuple[str, str]]:
    """The trained tokenizer's merges as pairs (its JSON spells them "a b" or ["a", "b"])."""
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges]


def run_hf_gpt(chunks: list[str], vocab_size: int, min_frequency: int = GPT_HF_MIN_FREQUENCY):
    """tokenizers' byte-level BPE as GPT-2 (and CS336) set it up, trained from the chunks."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=[GPT_SPECIAL], show_progress=False)
    tok.train_from_iterator(iter(chunks), trainer=trainer)
    return tok


def run_spm(lines: list[str], vocab_size: int, model_type: str = "bpe", num_threads: int | None = None):
    """sentencepiece trained in-process on ``lines`` (``model_type`` "bpe" or "unigram", identity
    normalization, other options default unless ``num_threads`` is given), loaded as a
    ``SentencePieceProcessor``."""
    import sentencepiece as spm

    m = io.BytesIO()
    kw = {} if num_threads is None else {"num_threads": num_threads}
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=m, model_type=model_type,
                                   vocab_size=vocab_size, normalization_rule_name="identity", minloglevel=3, **kw)
    return spm.SentencePieceProcessor(model_proto=m.getvalue())


def spm_pieces(sp) -> list[str]:
    """A sentencepiece model's pieces in id order."""
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size())]


def tiktoken_from_trace(trace):
    """A tiktoken ``Encoding`` with the trace's tokens: mergeable ranks are our non-special ids
    renumbered from 0 in id order (cs336 ids: the special is 0, so rank = id - 1), the special
    tokens after them. Returns (encoding, tiktoken id -> our id, ranks in merge order?)."""
    import tiktoken
    from corpora import gpt2_pattern

    from bpe_viz import symbols_to_bytes

    special_ids = {trace.token_to_id(sp): sp for sp in trace.special_tokens}
    ranks: dict[bytes, int] = {}
    to_ours: list[int] = []
    for tid, tok in enumerate(trace.id_to_token):
        if tid not in special_ids:
            ranks[symbols_to_bytes(tok)] = len(to_ours)
            to_ours.append(tid)
    specials = {}
    for tid, sp in special_ids.items():
        specials[sp] = len(to_ours)
        to_ours.append(tid)
    # the 256 bytes in byte order, then merge k's token at rank 255 + k, each token once
    in_order = (len(ranks) == len(to_ours) - len(specials)
                and all(ranks.get(bytes([b])) == b for b in range(256))
                and all(ranks.get(symbols_to_bytes(m.token)) == 255 + m.step for m in trace.merges))
    enc = tiktoken.Encoding(name="bpe-viz-docs", pat_str=gpt2_pattern(), mergeable_ranks=ranks,
                            special_tokens=specials)
    return enc, to_ours, in_order


def load_tfds_reference():
    """TFDS's own ``subword_text_encoder`` module and ``corpus_generator``, through the tests' loader
    (``tests/tfds_reference.py``: the two files of the tensorflow-datasets wheel, run offline with a
    stand-in for TensorFlow); ``(None, None, reason)`` when it is not available."""
    path = ROOT / "tests" / "tfds_reference.py"
    if not path.exists():
        return None, None, "tests/tfds_reference.py is not in this checkout"
    try:
        spec = importlib.util.spec_from_file_location("_bench_tfds_reference", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        stm, _log = mod.load_tfds_subword_text_encoder()
        return stm, mod.corpus_generator, None
    except Exception as exc:  # ImportError when tensorflow-datasets is not installed
        return None, None, f"TFDS's module could not be loaded: {exc}"
