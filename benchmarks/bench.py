#!/usr/bin/env python3
"""Benchmark bpe-viz against subword-nmt, Hugging Face tokenizers, tiktoken and sentencepiece.

    python benchmarks/bench.py [--merges 1000 5000 10000] [--repeat 3] [--out docs/benchmarks.md]
    python benchmarks/bench.py --quick     # --merges 1000 10000 --repeat 1, for a quick look
    python benchmarks/bench.py --only long,big,rss --out /tmp/bench.md   # some sections only

Sections (``--only``, comma-separated; the default runs them all): ``main`` (everything on the
documentation text listed below), ``gpt``, ``spm``, ``unigram``, ``long``, ``big`` and ``rss`` (the
last six at the end).

Corpus: the text of Python's own documentation topics (``pydoc_data.topics``), so every machine
with Python has it. What is measured:

* training time, median of ``--repeat`` runs, the competitors alternating inside each repeat
  (the machines are noisy: compare medians and ratios, not single runs):
  bpe-viz ``train_bpe(text, N, preset="subword-nmt")`` keeping every snapshot (and the same
  with ``tie_break="first"``), subword-nmt ``learn_bpe`` in-process, and the tokenizers
  ``BpeTrainer``; whether our merges equal subword-nmt's, merge for merge;
* peak memory during training: tracemalloc peak for bpe-viz and subword-nmt (both pure Python),
  and the growth of the peak resident set (VmHWM) in a fresh process for all three
  (tokenizers is native code, invisible to tracemalloc);
* snapshot access: ``trace[k]`` with its segmentation, pair counts and vocabulary, cold, for
  random k on the largest trace;
* encoding the whole text with the largest merge table: ``bpe_viz.encode`` vs subword-nmt's
  ``BPE.process_line`` on every line vs ``Tokenizer.encode_batch``;
* a slider step of the training stepper: ``MergeExplorer.from_trace`` on a fresh 10,000-merge
  trace (matplotlib's Agg backend), ``ex.step = k`` timed for random k (seeded) and for
  consecutive k (as Play moves), with the default chart and, for comparison, no chart
  (``--all-charts``: every chart);
* notebook run time: every ``notebooks/*.ipynb`` executed headless with nbclient in a fresh
  kernel (the time includes the kernel's start-up, measured on its own too);
* ``gpt``: GPT-style byte-level BPE, the ``cs336`` preset (GPT-2 pattern, ``<|endoftext|>``, 256
  bytes, byte-order ties): training on the documentation text until pairs run out, ours vs the
  tokenizers ``BpeTrainer`` with a ByteLevel pre-tokenizer; CS336's own speed test
  (``../shared/fixtures/external/cs336/corpus.en``, vocab_size 500, limit 1.5 s); encoding the
  text with that tokenizer, ours vs tiktoken (an ``Encoding`` built from our merges) vs minbpe's
  encode loop written out literally, same ids checked;
* ``spm``: SentencePiece's BPE, the ``sentencepiece`` preset: training on the documentation text to
  vocab_size 1,000 / 4,000 / 8,000, ours vs sentencepiece trained in-process on the same lines
  (``text.split("\n")``, identity normalization), same pieces checked id for id; encoding every line
  with the 8,000 model, ours (one call on the whole text) vs ``sp.encode(lines)`` (batch) vs
  ``sp.encode`` line by line, same ids checked line by line; BPE-dropout (p = 0.1), ours vs
  sentencepiece's sampling (``enable_sampling=True, alpha=0.1``), times only;
* ``unigram``: the Unigram LM, sentencepiece flavour, on the documentation text to vocab_size
  1,000 / 4,000 with every round kept, ours vs sentencepiece's unigram trainer in-process (its
  default thread count, and ``num_threads=1``): training time, the peak resident set of fresh
  processes (VmHWM), seed pieces and rounds (sentencepiece's from its own log), whether the final
  pieces agree and the largest score difference; reading a round (``trace[k]``, its fields and a
  few words' segmentation, cold, random k); encoding every line with the 4,000 model vs
  ``sp.encode``, same pieces checked line by line; the hf-course flavour on the course's four
  sentences to vocab_size 100; SubwordTextEncoder at target_vocab_size 1,000 / 4,000, ours vs
  TFDS's own module (loaded offline by ``tests/tfds_reference.py``), same subwords checked;
* ``long``: one long word, the 1994 compression view (and minbpe's ``BasicTokenizer``): the
  documentation text with every whitespace character made ``_``, its first 50,000 / 100,000 /
  200,000 characters, 100 merges; ours vs a literal recount loop (every step recounts every
  adjacent pair), same merges checked, and how our time grows when the length doubles;
* ``big``: a bigger corpus (~5 MB, 60,000 distinct words), generated here, seeded: Zipf-distributed
  words from an order-3 character model of the documentation's words; ours vs subword-nmt at
  1,000 and 3,000 merges: time, same merges, tracemalloc peak, whole-process peak RSS;
* ``rss``: the whole-process peak resident set (imports, input and training included) of a
  fresh process that imports only its competitor, ours vs subword-nmt, on the documentation
  text at 10,000 merges and on the bigger corpus at 3,000 merges.

Results are printed and written as Markdown to ``--out``.
"""

from __future__ import annotations

import argparse
import array
import bisect
import collections
import contextlib
import datetime
import gc
import hashlib
import io
import itertools
import json
import math
import os
import platform
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run from a checkout without installing
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))  # the literal reference loop lives with the tests

from bpe_viz import train_bpe  # noqa: E402
from reference import recount_bpe as _recount_bpe  # noqa: E402

try:  # written concurrently with this benchmark: report "not available" until it exists
    from bpe_viz import encode as _bpe_encode  # noqa: E402
except ImportError:
    _bpe_encode = None
from bpe_viz import train_unigram  # noqa: E402

try:  # written concurrently with this benchmark: reported "not in this checkout" until it exists
    from bpe_viz.engine.subword_text_encoder.model import train_subword_text_encoder  # noqa: E402
except ImportError:
    train_subword_text_encoder = None

TARGETS = {
    "train_ratio": 0.5,  # ours / subword-nmt training time
    "memory_ratio": 2.0,  # ours / subword-nmt tracemalloc peak
    "snapshot_ms": 20.0,  # median cold snapshot access at the largest N
    "encode_ratio": 1.0,  # ours / subword-nmt apply-bpe
    "slider_ms": 150.0,  # median wall time of one slider step, default chart
    "notebook_s": 10.0,  # each notebook executed headless, kernel start-up included
    "long_ratio": 0.5,  # ours / the recount loop on the longest single word
    "long_doubling": 2.2,  # our time when the single word's length doubles
    "big_train_ratio": 0.5,  # ours / subword-nmt training time on the bigger corpus
    "rss_ratio": 2.0,  # ours / subword-nmt whole-process peak RSS
    "gpt_train_ratio": 5.0,  # ours / tokenizers, cs336 preset on the docs text until pairs run out
    "cs336_speed_s": 1.5,  # CS336's test_train_bpe_speed limit: corpus.en to vocab_size 500
    "gpt_encode_ratio": 0.5,  # ours / the literal minbpe encode loop, cs336 tokenizer, docs text
    "unigram_round_ms": 20.0,  # median cold read of a Unigram round (fields + a few segmentations)
}
SECTIONS = ("main", "gpt", "spm", "unigram", "long", "big", "rss")
SNAPSHOT_SAMPLES = 50
SLIDER_MERGES = 10000
SLIDER_SAMPLES = 60
SLIDER_OTHER_SAMPLES = 30  # chart "none" (and with --all-charts the others), for comparison only
SLIDER_SENTENCE = "The tokenizer splits unfamiliar words into subword units."
NOTEBOOK_TIMEOUT = 600  # seconds per cell
LONG_LENGTHS = (50_000, 100_000, 200_000)  # characters of the single word; each twice the last
LONG_MERGES = 100
BIG_SEED = 1994
BIG_TYPES = 60_000  # distinct words of the bigger corpus
BIG_BYTES = 5_000_000  # its approximate size in UTF-8
BIG_ORDER = 3  # order of the character model the words are drawn from
BIG_ZIPF = 1.0  # exponent: the word of rank r occurs about in proportion to 1 / r ** BIG_ZIPF
BIG_MAX_LEN = 24  # longer generated words are drawn again
BIG_LINE_WORDS = (8, 16)  # words per line, uniform: 12 on average
BIG_MERGES = (1000, 3000)
RSS_DOCS_MERGES = 10_000
RSS_TIMEOUT = 1800  # seconds per child process
GPT_HUGE_VOCAB = 100_000  # a vocab_size never reached: training stops when pairs run out
GPT_SPECIAL = "<|endoftext|>"
GPT_HF_CHUNK = 1 << 16  # characters per piece of text fed to tokenizers (cut at pre-token starts)
GPT_HF_MIN_FREQUENCY = 1  # CS336 counts every pair; tokenizers stops below min_frequency
GPT_HF_MIN_FREQUENCY_ALT = 0  # tokenizers' default, run once for its merge count
CS336_DIR = ROOT.parent / "shared" / "fixtures" / "external" / "cs336"
CS336_CORPUS = CS336_DIR / "corpus.en"
CS336_REFERENCE = CS336_DIR / "train-bpe-reference-merges.txt"
CS336_VOCAB = 500
SPM_VOCABS = (1000, 4000, 8000)  # SentencePiece BPE: vocab sizes trained; encoding uses the last
SPM_DROPOUT = 0.1  # BPE-dropout probability (sentencepiece's alpha)
UNIGRAM_VOCABS = (1000, 4000)  # Unigram (sentencepiece flavour): vocab sizes; encoding uses the last
UNIGRAM_SCORE_TOL = 1e-4  # largest score difference from sentencepiece the issue allows
UNIGRAM_ROUND_SAMPLES = 30  # random rounds read per trace
UNIGRAM_ROUND_WORDS = 5  # words whose segmentation is read at each of those rounds
UNIGRAM_BAD_SHOWN = 5  # lines encoded differently from sentencepiece shown in the report, at most
UNIGRAM_SEED = 2018  # Kudo 2018
UNIGRAM_COURSE_SENTENCES = (  # the Hugging Face course, chapter 6, section 7
    "This is the Hugging Face Course.",
    "This chapter is about tokenization.",
    "This section shows several tokenizer algorithms.",
    "Hopefully, you will be able to understand how they are trained and generate tokens.",
)
UNIGRAM_COURSE_VOCAB = 100
UNIGRAM_COURSE_MIN_REPEAT = 5  # it takes a fraction of a second: a few more runs
STE_TARGETS = (1000, 4000)  # SubwordTextEncoder: target_vocab_size on the documentation text


# -- corpus ---------------------------------------------------------------------------------
def load_text() -> str:
    import pydoc_data.topics

    return "\n".join(pydoc_data.topics.topics.values())


def snmt_lines(text: str) -> list[str]:
    """The lines as subword-nmt and tokenizers get them: whitespace runs made one space, empty
    lines dropped (the same words, in the same order, as ``train_bpe`` splits the text into)."""
    out = []
    for line in text.splitlines():
        words = line.split()
        if words:
            out.append(" ".join(words))
    return out


def hf_initial_alphabet(lines: list[str]) -> int:
    """Size of the vocabulary tokenizers' BpeTrainer starts from with end_of_word_suffix:
    every character, plus every word-final character with the suffix."""
    chars, finals = set(), set()
    for line in lines:
        for w in line.split():
            chars.update(w)
            finals.add(w[-1])
    return len(chars) + len(finals)


# -- competitors --------------------------------------------------------------------------------
def run_ours(text: str, n: int, tie_break: str | None = None):
    kw = {} if tie_break is None else {"tie_break": tie_break}
    return train_bpe(text, n, preset="subword-nmt", **kw)


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


def run_hf(lines: list[str], n: int, alphabet: int):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=alphabet + n, min_frequency=2, show_progress=False, end_of_word_suffix="</w>"
    )
    tok.train_from_iterator(iter(lines), trainer=trainer)
    return tok


def codes_merges(codes: str) -> list[str]:
    return [line for line in codes.splitlines() if line and not line.startswith("#version")]


def hf_num_merges(tok) -> int:
    return len(json.loads(tok.to_str())["model"]["merges"])


def timed(fn, *args):
    gc.collect()
    t0 = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - t0, result


def traced_peak(fn, *args) -> int:
    """tracemalloc peak (bytes) while ``fn`` runs, its result kept alive until the end."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    gc.collect()
    return peak


def rss_growth(which: str, n: int) -> float | None:
    """Growth of the peak RSS (MiB) while training in a fresh process, input already loaded."""
    cmd = [sys.executable, os.path.abspath(__file__), "--_rss", which, str(n)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=600).stdout
        return json.loads(out.strip().splitlines()[-1])["mib"]
    except Exception as exc:  # report, don't die
        print(f"  rss {which} N={n} failed: {exc}", file=sys.stderr)
        return None


def peak_rss_kib() -> int:
    """This process's peak resident set in KiB: VmHWM (Linux: starts afresh at exec, unlike
    ru_maxrss, which a child inherits from the parent that forked it), else ru_maxrss."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _rss_child(which: str, n: int) -> None:
    text = load_text()
    lines = snmt_lines(text)
    joined = "\n".join(lines) + "\n"
    alphabet = hf_initial_alphabet(lines)
    import subword_nmt.learn_bpe  # noqa: F401  (imports before the baseline)
    import tokenizers  # noqa: F401

    gc.collect()
    before = peak_rss_kib()
    if which == "ours":
        result = run_ours(text, n)
    elif which == "snmt":
        result = run_snmt(joined, n)
    else:
        result = run_hf(lines, n, alphabet)
    after = peak_rss_kib()
    del result
    print(json.dumps({"mib": (after - before) / 1024}))


# -- a long single sequence: the 1994 compression view ------------------------------------------
def one_word(text: str) -> str:
    """The text as a single word: every whitespace character (what ``str.split`` splits on)
    made ``_``."""
    return "".join("_" if c.isspace() else c for c in text)


def run_ours_long(seq: str, n: int):
    """Ours on one word: no end-of-word marker, ties to the first pair met, every pair counts."""
    return train_bpe([seq], n, preset="hf-course", min_frequency=1)


def recount_bpe(symbols, num_merges: int) -> list[tuple[tuple[str, str], int]]:
    """minbpe's ``BasicTokenizer.train``, literally (``tests/reference.py.recount_bpe``):
    every step recounts every pair of the whole sequence; returns [(pair, count)]."""
    return _recount_bpe(symbols, num_merges)[0]


def first_difference(ours: list, theirs: list) -> str | None:
    """None if the two merge lists are equal, else where and how they first differ (for a
    Markdown table cell: "|" escaped)."""
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return f"merge {i + 1}: ours {a!r}, theirs {b!r}".replace("|", "\\|")
    if len(ours) != len(theirs):
        return f"ours made {len(ours):,} merges, theirs {len(theirs):,}"
    return None


def bench_long(text: str, repeat: int, log) -> dict:
    """Time ours and the recount loop on the first LONG_LENGTHS characters of the text made one
    word, LONG_MERGES merges, ``repeat`` times each (alternating); check they make the same merges."""
    seq = one_word(text)
    assert len(seq.split()) == 1
    run_ours_long(seq[:2000], 10)  # warm-up, untimed
    recount_bpe(seq[:2000], 10)
    load = os.getloadavg()[0]
    rows = []
    for length in LONG_LENGTHS:
        s = seq[:length]
        t = {"length": length, "ours": [], "loop": []}
        for r in range(repeat):
            log(f"long: {length:,} characters, {LONG_MERGES} merges, repeat {r + 1}/{repeat}")
            secs, trace = timed(run_ours_long, s, LONG_MERGES)
            t["ours"].append(secs)
            secs, loop = timed(recount_bpe, s, LONG_MERGES)
            t["loop"].append(secs)
        ours_m = [(m.pair, m.count) for m in trace.merges]
        t["diff"] = first_difference(ours_m, loop)
        t["n_ours"], t["n_loop"] = len(ours_m), len(loop)
        del trace, loop
        rows.append(t)
    return {"rows": rows, "available": len(seq), "repeat": repeat, "load": (load, os.getloadavg()[0])}


def report_long(res: dict) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of ``bench_long``'s result."""
    checks, rows_md = [], []
    prev = None
    for t in res["rows"]:
        mo, ml = med(t["ours"]), med(t["loop"])
        t["doubling"] = None
        if prev is not None and t["length"] == 2 * prev["length"]:
            t["doubling"] = (mo / med(prev["ours"]), ml / med(prev["loop"]))
        rows_md.append([f"{t['length']:,}", fmt_s(mo), fmt_s(ml), f"{mo / ml:.2f}",
                        "" if t["doubling"] is None else f"×{t['doubling'][0]:.2f}",
                        "" if t["doubling"] is None else f"×{t['doubling'][1]:.2f}",
                        f"{t['n_ours']} / {t['n_loop']}",
                        "yes" if t["diff"] is None else f"no ({t['diff']})"])
        prev = t
    longest = res["rows"][-1]
    ratio = med(longest["ours"]) / med(longest["loop"])
    checks.append([f"long word: ours / recount loop at {longest['length']:,} characters",
                   f"≤ {TARGETS['long_ratio']}", f"{ratio:.2f}", verdict(ratio <= TARGETS["long_ratio"])])
    prev = None
    for t in res["rows"]:
        if t["doubling"] is not None:
            d = t["doubling"][0]
            checks.append([f"long word: our time, {prev['length']:,} → {t['length']:,} characters",
                           f"≤ ×{TARGETS['long_doubling']}", f"×{d:.2f}", verdict(d <= TARGETS["long_doubling"])])
        prev = t
    same = [t["diff"] is None for t in res["rows"]]
    checks.append([f"long word: same {LONG_MERGES} merges as the recount loop, every length", "yes",
                   ", ".join("yes" if x else "no" for x in same), verdict(all(same))])
    table = md_table(["characters", "ours s", "recount loop s", "ours / loop", "ours, length ×2",
                      "loop, length ×2", "merges made (ours / loop)", "same merges (pair and count)"], rows_md)
    md = f"""## Long single word

{table}

The 1994 compression view (and minbpe's `BasicTokenizer`): the documentation text with every
whitespace character (what `str.split` splits on) replaced by `_`, so it is one word of
{res["available"]:,} characters; its first {", ".join(f"{n:,}" for n in LONG_LENGTHS)} characters,
{LONG_MERGES} merges. Medians of {res["repeat"]} run(s), ours then the loop within each repeat.

* ours: `train_bpe([seq], {LONG_MERGES}, preset="hf-course", min_frequency=1)`: no end-of-word
  marker, ties to the first pair met, still keeping a snapshot after every merge.
* recount loop (in this benchmark, `recount_bpe`): minbpe's `BasicTokenizer.train` on the
  characters: each step counts every adjacent pair into a fresh dict, takes `max` by count (the
  first pair met among equals), merges it left to right, non-overlapping. Tokens are the merged
  strings, not minbpe's integer ids, so a token made by two different merges is one token, as in ours.
* "length ×2": the median time at this length over the median at half of it (linear: ×2).
* "same merges": our `(pair, count)` list equals the loop's, merge for merge; otherwise the
  first difference is shown.

Load average (1 min) {res["load"][0]:.2f} before this section, {res["load"][1]:.2f} after.
"""
    return checks, [("Long single word", table)], md


# -- GPT-style byte-level BPE: the cs336 preset ---------------------------------------------------
def run_ours_gpt(text: str, vocab_size: int):
    """Ours as CS336 trains: the GPT-2 pattern, <|endoftext|>, 256 bytes, byte-order ties."""
    return train_bpe(text, vocab_size=vocab_size, preset="cs336")


def gpt2_pretokens(text: str) -> list[str]:
    """The GPT-2 pattern's pieces of ``text`` (``regex.findall``, no special token split out)."""
    import regex

    from bpe_viz.engine.text.pretokenize import GPT2_PATTERN

    return regex.findall(GPT2_PATTERN, text)


def gpt2_chunks(text: str, size: int = GPT_HF_CHUNK) -> list[str]:
    """``text`` cut into pieces of about ``size`` characters, each cut where a GPT-2 pre-token
    starts (the caller checks that the pieces' pre-tokens, one piece at a time, are the whole
    text's)."""
    import regex

    from bpe_viz.engine.text.pretokenize import GPT2_PATTERN

    starts = [m.start() for m in regex.finditer(GPT2_PATTERN, text)]
    cuts, pos = [], size
    while True:
        i = bisect.bisect_left(starts, pos)
        if i >= len(starts):
            break
        cuts.append(starts[i])
        pos = starts[i] + size
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


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


def hf_merge_pairs(tok) -> list[tuple[str, str]]:
    """The trained tokenizer's merges as pairs (its JSON spells them "a b" or ["a", "b"])."""
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges]


def run_cs336(path: Path):
    """CS336's ``test_train_bpe_speed`` call: read corpus.en, train to vocab_size 500."""
    return train_bpe(path.read_text(encoding="utf-8"), vocab_size=CS336_VOCAB, preset="cs336")


def tiktoken_from_trace(trace):
    """A tiktoken ``Encoding`` with the trace's tokens: mergeable ranks are our non-special ids
    renumbered from 0 in id order (cs336 ids: the special is 0, so rank = id - 1), the special
    tokens after them. Returns (encoding, tiktoken id -> our id, ranks in merge order?)."""
    import tiktoken

    from bpe_viz import symbols_to_bytes
    from bpe_viz.engine.text.pretokenize import GPT2_PATTERN

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
    enc = tiktoken.Encoding(name="bpe-viz-docs", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                            special_tokens=specials)
    return enc, to_ours, in_order


# minbpe (Karpathy), minbpe/base.py and minbpe/regex.py, literally: integer ids, the byte values
# 0..255, merge k making id 255 + k.
def _minbpe_get_stats(ids, counts=None):
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):  # iterate consecutive elements
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def _minbpe_merge(ids, pair, idx):
    newids = []
    i = 0
    while i < len(ids):
        # if not at the very last position AND the pair matches, replace it
        if ids[i] == pair[0] and i < len(ids) - 1 and ids[i + 1] == pair[1]:
            newids.append(idx)
            i += 2
        else:
            newids.append(ids[i])
            i += 1
    return newids


class MinbpeLoop:
    """minbpe's ``RegexTokenizer.encode`` (``allowed_special="all"``), literally, with the GPT-2
    pattern and the trace's merges: ``merges`` maps a pair of minbpe ids to the new id, its rank.
    ``to_ours`` maps minbpe ids to the trace's ids (done after timing)."""

    def __init__(self, trace):
        import regex

        from bpe_viz.engine.text.alphabet import BYTE_SYMBOLS
        from bpe_viz.engine.text.pretokenize import GPT2_PATTERN

        self.compiled_pattern = regex.compile(GPT2_PATTERN)
        sym = {BYTE_SYMBOLS[b]: b for b in range(256)}  # our symbol -> minbpe id
        self.to_ours = [trace.token_to_id(BYTE_SYMBOLS[b]) for b in range(256)]
        self.merges = {}
        for m in trace.merges:
            idx = 255 + m.step
            self.merges.setdefault((sym[m.pair[0]], sym[m.pair[1]]), idx)
            sym.setdefault(m.token, idx)
            self.to_ours.append(trace.token_to_id(m.token, made_at=m.step))
        self.special_tokens = {}
        for sp in trace.special_tokens:
            self.special_tokens[sp] = len(self.to_ours)
            self.to_ours.append(trace.token_to_id(sp))

    def _encode_chunk(self, text_bytes):
        # return the token ids
        # let's begin. first, convert all bytes to integers in range 0..255
        ids = list(text_bytes)
        while len(ids) >= 2:
            # find the pair with the lowest merge index
            stats = _minbpe_get_stats(ids)
            pair = min(stats, key=lambda p: self.merges.get(p, float("inf")))
            # subtle: if there are no more merges available, the key will
            # result in an inf for every single pair, and the min will be
            # just the first pair in the list, arbitrarily
            # we can detect this terminating case by a membership check
            if pair not in self.merges:
                break  # nothing else can be merged anymore
            # otherwise let's merge the best pair (lowest merge index)
            idx = self.merges[pair]
            ids = _minbpe_merge(ids, pair, idx)
        return ids

    def encode_ordinary(self, text):
        """Encoding that ignores any special tokens."""
        # split text into chunks of text by categories defined in regex pattern
        text_chunks = self.compiled_pattern.findall(text)
        # all chunks of text are encoded separately, then results are joined
        ids = []
        for chunk in text_chunks:
            chunk_bytes = chunk.encode("utf-8")  # raw bytes
            chunk_ids = self._encode_chunk(chunk_bytes)
            ids.extend(chunk_ids)
        return ids

    def encode(self, text):
        """minbpe's ``encode(text, allowed_special="all")``."""
        import regex

        special = self.special_tokens
        if not special:
            return self.encode_ordinary(text)
        special_pattern = "(" + "|".join(regex.escape(k) for k in special) + ")"
        special_chunks = regex.split(special_pattern, text)
        ids = []
        for part in special_chunks:
            if part in special:
                ids.append(special[part])
            else:
                ids.extend(self.encode_ordinary(part))
        return ids


def first_id_difference(trace, ours: list[int], theirs: list[int]) -> str | None:
    """None if the id lists are equal, else where and how they first differ (a table cell)."""
    toks = trace.id_to_token
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return (f"token {i:,}: ours {a} {toks[a]!r}, theirs {b} "
                    f"{toks[b] if 0 <= b < len(toks) else '?'!r}").replace("|", "\\|")
    if len(ours) != len(theirs):
        return f"ours {len(ours):,} tokens, theirs {len(theirs):,}"
    return None


def bench_gpt(text: str, repeat: int, log) -> dict:
    """The cs336 preset: training on the documentation text until pairs run out, ours vs
    tokenizers; CS336's own speed test on corpus.en; encoding the text, ours vs tiktoken vs the
    literal minbpe loop. ``repeat`` runs per timing, competitors alternating."""
    load = os.getloadavg()[0]
    res = {"repeat": repeat}

    # 1. training until pairs run out: V from one run with a huge vocab_size (also the warm-up)
    log(f"gpt: cs336 preset, vocab_size={GPT_HUGE_VOCAB:,}, to find where pairs run out")
    secs, full = timed(run_ours_gpt, text, GPT_HUGE_VOCAB)
    vocab = full.vocab_size
    res["full"] = {"secs": secs, "stop": full.stop_reason, "vocab": vocab, "merges": len(full.merges)}
    del full
    gc.collect()

    chunks = gpt2_chunks(text)
    whole = gpt2_pretokens(text)
    res["chunks"] = {"n": len(chunks), "size": GPT_HF_CHUNK,
                     "same": [p for c in chunks for p in gpt2_pretokens(c)] == whole}
    line_pre = [p for line in text.splitlines(keepends=True) for p in gpt2_pretokens(line)]
    only_ws = all(p.isspace() for p in (collections.Counter(whole) - collections.Counter(line_pre))
                  + (collections.Counter(line_pre) - collections.Counter(whole)))
    res["pretokens"] = {"whole": len(whole), "whole_distinct": len(set(whole)),
                        "lines": len(line_pre), "lines_distinct": len(set(line_pre)), "only_ws": only_ws}
    run_hf_gpt(chunks[:1], 300)  # warm-up, untimed
    train = {"ours": [], "hf": []}
    for r in range(repeat):
        log(f"gpt: training to vocab_size={vocab:,}, repeat {r + 1}/{repeat}")
        secs, trace = timed(run_ours_gpt, text, vocab)
        train["ours"].append(secs)
        secs, hf_tok = timed(run_hf_gpt, chunks, vocab)
        train["hf"].append(secs)
    from bpe_viz.engine.text.alphabet import bytes_to_symbols

    hf_pre = [p for c in chunks for p, _ in hf_tok.pre_tokenizer.pre_tokenize_str(c)]
    res["hf_pre_same"] = hf_pre == [bytes_to_symbols(p) for p in whole]
    del hf_pre
    hf_pairs = hf_merge_pairs(hf_tok)
    ours_pairs = [m.pair for m in trace.merges]
    res["train"] = train
    res["ours_merges"], res["ours_vocab"], res["ours_stop"] = len(ours_pairs), trace.vocab_size, trace.stop_reason
    res["hf_merges"], res["hf_vocab"] = len(hf_pairs), hf_tok.get_vocab_size()
    diff = None
    for i, (a, b) in enumerate(zip(ours_pairs, hf_pairs)):
        if a != b:  # what both pairs counted just before, by our snapshot
            counts = trace[i].pair_counts
            diff = {"step": i + 1, "ours": a, "hf": b, "ours_count": counts.get(a), "hf_count": counts.get(b)}
            break
    res["merge_diff"] = diff
    del hf_tok, hf_pairs
    gc.collect()
    other = GPT_HF_MIN_FREQUENCY_ALT
    log(f"gpt: tokenizers once more with min_frequency={other} (merge count only, untimed)")
    tok = run_hf_gpt(chunks, vocab, min_frequency=other)
    res["hf_alt"] = {"min_frequency": other, "merges": len(hf_merge_pairs(tok))}
    del tok
    gc.collect()
    res["load_train"] = (load, os.getloadavg()[0])

    # 2. CS336's speed test
    load = os.getloadavg()[0]
    if CS336_CORPUS.is_file():
        cs = {"secs": [], "path": CS336_CORPUS}
        for r in range(repeat):
            log(f"gpt: CS336 speed test (corpus.en, vocab_size={CS336_VOCAB}), repeat {r + 1}/{repeat}")
            secs, cs_trace = timed(run_cs336, CS336_CORPUS)
            cs["secs"].append(secs)
        cs["merges"], cs["vocab"] = len(cs_trace.merges), cs_trace.vocab_size
        cs["bytes"] = CS336_CORPUS.stat().st_size
        if CS336_REFERENCE.is_file():
            ref = [ln for ln in CS336_REFERENCE.read_text(encoding="utf-8").splitlines() if ln.strip()]
            cs["ref_n"] = len(ref)
            cs["ref_diff"] = first_difference([" ".join(m.pair) for m in cs_trace.merges], ref)
        del cs_trace
    else:
        cs = {"skipped": "../shared absent"}
    cs["load"] = (load, os.getloadavg()[0])
    res["cs336"] = cs

    # 3. encoding the documentation text with the trace of 1.
    load = os.getloadavg()[0]
    enc, tk_to_ours, res["ranks_in_order"] = tiktoken_from_trace(trace)
    loop = MinbpeLoop(trace)
    enc.encode("warm up", allowed_special="all")  # untimed
    loop.encode("warm up")
    times = {"ours": [], "ours_fresh": [], "tiktoken": [], "loop": []}
    ours_ids = fresh_ids = None
    for r in range(repeat):
        log(f"gpt: encoding the text ({len(trace.merges):,} merges), repeat {r + 1}/{repeat}")
        if _bpe_encode is not None:
            trace.__dict__.pop("_encode_cache", None)  # cold: every distinct word segmented anew
            secs, ours_ids = timed(lambda: _bpe_encode(text, trace).ids)
            times["ours"].append(secs)
        secs, tk_ids = timed(lambda: enc.encode(text, allowed_special="all"))
        times["tiktoken"].append(secs)
        secs, loop_ids = timed(loop.encode, text)
        times["loop"].append(secs)
        if _bpe_encode is not None:
            fresh = run_ours_gpt(text, vocab)  # untimed: a trace that has never encoded
            secs, fresh_ids = timed(lambda: _bpe_encode(text, fresh).ids)
            times["ours_fresh"].append(secs)
            del fresh
    res["times"] = times
    tk_mapped = [tk_to_ours[t] for t in tk_ids]
    loop_mapped = [loop.to_ours[t] for t in loop_ids]
    res["n_tokens"] = {"ours": None if ours_ids is None else len(ours_ids), "tiktoken": len(tk_ids),
                       "loop": len(loop_ids)}
    if ours_ids is not None:
        ours_ids = list(ours_ids)
        res["tk_diff"] = first_id_difference(trace, ours_ids, tk_mapped)
        res["loop_diff"] = first_id_difference(trace, ours_ids, loop_mapped)
        res["fresh_diff"] = first_id_difference(trace, ours_ids, list(fresh_ids))
    else:
        res["tk_diff"] = res["loop_diff"] = res["fresh_diff"] = "ours not available"
    res["tk_vs_loop"] = first_id_difference(trace, tk_mapped, loop_mapped)
    res["enc_merges"] = len(trace.merges)
    res["load_enc"] = (load, os.getloadavg()[0])
    del trace, enc, loop
    gc.collect()
    return res


def report_gpt(res: dict) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of ``bench_gpt``'s result."""
    checks = []
    rep = res["repeat"]
    full, pre = res["full"], res["pretokens"]
    vocab = full["vocab"]

    # 1. training
    mo, mh = med(res["train"]["ours"]), med(res["train"]["hf"])
    ratio = mo / mh
    t_train = md_table(
        ["", "median s", "runs s", "merges made", "vocabulary size", "ours / tokenizers"],
        [[f'ours `train_bpe(text, vocab_size={vocab:,}, preset="cs336")`', fmt_s(mo),
          ", ".join(fmt_s(x) for x in res["train"]["ours"]), f"{res['ours_merges']:,}",
          f"{res['ours_vocab']:,}", f"{ratio:.2f}"],
         [f"tokenizers `BpeTrainer(vocab_size={vocab:,}, min_frequency={GPT_HF_MIN_FREQUENCY})`", fmt_s(mh),
          ", ".join(fmt_s(x) for x in res["train"]["hf"]), f"{res['hf_merges']:,}", f"{res['hf_vocab']:,}",
          "1.00"]])
    checks.append([f"GPT-2-style training (cs336 preset), docs text to vocab_size {vocab:,}: ours / tokenizers",
                   f"≤ {TARGETS['gpt_train_ratio']}", f"{ratio:.2f}", verdict(ratio <= TARGETS["gpt_train_ratio"])])
    d = res["merge_diff"]
    if d is None:
        diff_txt = ("The two merge lists are equal." if res["ours_merges"] == res["hf_merges"]
                    else "One merge list is a prefix of the other.")
    else:
        tie = d["ours_count"] == d["hf_count"]
        diff_txt = (f"The merge lists first differ at merge {d['step']:,}: ours {d['ours']!r} (count "
                    f"{d['ours_count']}), tokenizers {d['hf']!r}, which our snapshot just before counts "
                    f"{d['hf_count']} times: {'a tie, broken differently' if tie else 'NOT a tie'}"
                    " (CS336 takes the greater pair of byte strings; tokenizers has its own rule), and"
                    " from then on the intermediate tokens differ, hence slightly different merge counts.")

    # 2. CS336 speed test
    cs = res["cs336"]
    if "skipped" in cs:
        t_cs = f"Skipped: {cs['skipped']} (`{CS336_CORPUS}` not found)."
        checks.append([f"CS336 speed test: corpus.en to vocab_size {CS336_VOCAB}, median",
                       f"< {TARGETS['cs336_speed_s']} s", f"skipped: {cs['skipped']}", "n/a"])
        cs_txt = ""
    else:
        mc = med(cs["secs"])
        ref = ("reference file absent" if "ref_n" not in cs
               else ("yes" if cs["ref_diff"] is None else f"no ({cs['ref_diff']})"))
        t_cs = md_table(["input", "vocab_size", "median s", "runs s", "merges made", "vocabulary size",
                         "same merges as CS336's reference", f"< {TARGETS['cs336_speed_s']} s"],
                        [[f"corpus.en ({cs['bytes']:,} bytes)", CS336_VOCAB, fmt_s(mc),
                          ", ".join(fmt_s(x) for x in cs["secs"]), f"{cs['merges']:,}", f"{cs['vocab']:,}", ref,
                          verdict(mc < TARGETS["cs336_speed_s"])]])
        checks.append([f"CS336 speed test: corpus.en to vocab_size {CS336_VOCAB}, median",
                       f"< {TARGETS['cs336_speed_s']} s", f"{mc:.3f} s (max {max(cs['secs']):.3f})",
                       verdict(mc < TARGETS["cs336_speed_s"])])
        if "ref_n" in cs:
            checks.append(["CS336 `test_train_bpe`: our corpus.en merges equal train-bpe-reference-merges.txt",
                           "yes", "yes" if cs["ref_diff"] is None else "no", verdict(cs["ref_diff"] is None)])
        cs_txt = (f"Load average (1 min) {cs['load'][0]:.2f} before this part, {cs['load'][1]:.2f} after.")

    # 3. encoding
    t = res["times"]
    eo, ef, et, el = med(t["ours"]), med(t["ours_fresh"]), med(t["tiktoken"]), med(t["loop"])
    n = res["n_tokens"]

    def same(diff):
        return "yes" if diff is None else f"no ({diff})"

    t_enc = md_table(
        ["", "median s", "runs s", "tokens", "ours / this", "same ids as ours"],
        [["ours `bpe_viz.encode(text, trace).ids`, word cache cleared", fmt_s(eo),
          ", ".join(fmt_s(x) for x in t["ours"]), "n/a" if n["ours"] is None else f"{n['ours']:,}", "1.00", ""],
         ["ours, first encode on a freshly trained trace", fmt_s(ef), ", ".join(fmt_s(x) for x in t["ours_fresh"]),
          "", "", same(res["fresh_diff"])],
         ["tiktoken `Encoding.encode(text, allowed_special=\"all\")`", fmt_s(et),
          ", ".join(fmt_s(x) for x in t["tiktoken"]), f"{n['tiktoken']:,}",
          "n/a" if eo is None else f"{eo / et:.2f}", same(res["tk_diff"])],
         ["minbpe-style loop (`MinbpeLoop.encode`)", fmt_s(el), ", ".join(fmt_s(x) for x in t["loop"]),
          f"{n['loop']:,}", "n/a" if eo is None else f"{eo / el:.2f}", same(res["loop_diff"])]])
    eratio = None if eo is None else eo / el
    checks.append([f"encoding the docs text (cs336 preset, {res['enc_merges']:,} merges): ours / minbpe-style loop",
                   f"≤ {TARGETS['gpt_encode_ratio']}", "not available" if eratio is None else f"{eratio:.2f}",
                   verdict(None if eratio is None else eratio <= TARGETS["gpt_encode_ratio"])])
    for who, key in (("tiktoken", "tk_diff"), ("the minbpe-style loop", "loop_diff")):
        checks.append([f"encoding the docs text: same ids as {who}, every token", "yes",
                       "yes" if res[key] is None else "no", verdict(res[key] is None)])

    chunks = res["chunks"]
    md = f"""## GPT-style byte-level BPE (the cs336 preset)

### Training until pairs run out

{t_train}

Ours: `train_bpe(text, vocab_size=V, preset="cs336")` on the documentation text: the GPT-2
pattern, `<|endoftext|>` split out as a special token, all 256 bytes in the alphabet from the
start, ties to the greater pair of byte strings, every pair counts (min frequency 1), a snapshot
kept after every merge. V is where pairs run out: one untimed run with `vocab_size={GPT_HUGE_VOCAB:,}`
stopped with `stop_reason="{full["stop"]}"` after {full["merges"]:,} merges, vocabulary size
{vocab:,} (1 special + 256 bytes + merges; {full["secs"]:.2f} s); the timed runs train to
`vocab_size={vocab:,}` (they stop with `"{res["ours_stop"]}"`, the same {res["ours_merges"]:,} merges).

tokenizers: `Tokenizer(models.BPE())`, `pre_tokenizers.ByteLevel(add_prefix_space=False)`,
`trainers.BpeTrainer(vocab_size={vocab:,}, min_frequency={GPT_HF_MIN_FREQUENCY},
initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<|endoftext|>"],
show_progress=False)`, `train_from_iterator` over the whole text cut into {chunks["n"]} pieces of
about {chunks["size"]:,} characters, each cut where a GPT-2 pre-token starts (so its threads share
the work; the pieces' pre-tokens, one piece at a time, equal the whole text's:
{"yes" if chunks["same"] else "NO"}; tokenizers' own ByteLevel pre-tokenization of the pieces equals
our GPT-2 pre-tokens of the whole text in its byte spelling: {"yes" if res["hf_pre_same"] else "NO"}).
Fed line by line instead (`splitlines(keepends=True)`), the pattern would see each line alone
and cut differently where lines meet ({"only whitespace pre-tokens differ" if pre["only_ws"]
else "NOT only whitespace pre-tokens differ"}: `"\\n  "` before an indented line becomes `"\\n"`
and `"  "`): {pre["lines"]:,} pre-tokens ({pre["lines_distinct"]:,} distinct) instead of the whole
text's {pre["whole"]:,} ({pre["whole_distinct"]:,} distinct), which ours trains on; hence the
pieces cut at pre-token starts, not at line ends. It stops when its vocabulary reaches `vocab_size`
or no pair is left; with `min_frequency={res["hf_alt"]["min_frequency"]}` (one more run, untimed) it made
{res["hf_alt"]["merges"]:,} merges (the timed setting: {res["hf_merges"]:,}). Native code, multi-threaded.

{diff_txt}

Medians of {rep} run(s), ours then tokenizers within each repeat. Load average (1 min)
{res["load_train"][0]:.2f} before this part, {res["load_train"][1]:.2f} after.

### CS336's speed test

{t_cs}

Stanford CS336 assignment 1's `test_train_bpe_speed`: training on its `corpus.en` to
`vocab_size={CS336_VOCAB}` with `<|endoftext|>` must take under {TARGETS['cs336_speed_s']} s. Timed here:
reading the file (UTF-8) and `train_bpe(text, vocab_size={CS336_VOCAB}, preset="cs336")`, {rep} run(s),
median (the test itself times one run). "same merges": our merges, in GPT-2's byte spelling,
equal the assignment's `train-bpe-reference-merges.txt` line for line. {cs_txt}

### Encoding with the cs336 tokenizer

{t_enc}

The whole documentation text encoded with a trace of the timed training above ({res['enc_merges']:,}
merges): {rep} run(s) each, ours, tiktoken, the loop, then ours on a fresh trace within each repeat.

* ours: `bpe_viz.encode(text, trace).ids` with the trace's word cache cleared before each
  timing (`trace.__dict__.pop("_encode_cache")`), so every distinct pre-token is segmented
  anew; the rank and id tables the trace builds on first use stay built (as a tokenizer object
  is made before it encodes). The second row encodes on a trace freshly trained (untimed) in each
  repeat, so those tables are built inside the timing too.
* tiktoken: `tiktoken.Encoding(name="bpe-viz-docs", pat_str=GPT2_PATTERN, mergeable_ranks=...,
  special_tokens={{"<|endoftext|>": {vocab - 1}}})`, built before timing: the mergeable ranks are our
  non-special ids renumbered from 0 (rank = id - 1: the cs336 layout gives the special id 0),
  the bytes of each token from `symbols_to_bytes`; the 256 single bytes in byte order and each
  merge's token at rank 255 + its step, each token once: {"yes" if res["ranks_in_order"] else "NO"}.
  Its ids are mapped back to ours before comparing. Native code (one thread for one `encode`).
* minbpe-style loop (in this benchmark, `MinbpeLoop`): minbpe's `RegexTokenizer.encode`
  literally (`encode_ordinary`: `regex.findall` with the GPT-2 pattern, each piece's UTF-8 bytes,
  then while at least 2 ids: `get_stats`, the pair of lowest merge index by
  `min(stats, key=lambda p: merges.get(p, inf))`, stop if it is not a merge, `merge` every
  occurrence), no cache; ids are byte values then 255 + merge step, mapped to ours after timing.
* "same ids": the mapped id lists equal ours token for token (otherwise the first difference).
  tiktoken and the loop agree with each other: {same(res["tk_vs_loop"])}.

Load average (1 min) {res["load_enc"][0]:.2f} before this part, {res["load_enc"][1]:.2f} after.
"""
    console = [("GPT-style training (cs336 preset)", t_train), ("CS336 speed test", t_cs),
               ("GPT-style encoding (cs336 preset)", t_enc)]
    return checks, console, md


# -- SentencePiece BPE --------------------------------------------------------------------------
def run_ours_spm(text: str, vocab_size: int):
    return train_bpe(text, vocab_size=vocab_size, preset="sentencepiece")


def run_spm(lines: list[str], vocab_size: int):
    """sentencepiece trained in-process on ``lines`` (BPE, identity normalization, other options
    default), loaded as a ``SentencePieceProcessor``."""
    import sentencepiece as spm

    m = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=m, model_type="bpe",
                                   vocab_size=vocab_size, normalization_rule_name="identity", minloglevel=3)
    return spm.SentencePieceProcessor(model_proto=m.getvalue())


def first_piece_difference(ours: list[str], theirs: list[str]) -> str | None:
    """None if the piece lists are equal, else where and how they first differ (a table cell)."""
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return f"id {i:,}: ours {a!r}, sentencepiece {b!r}".replace("|", "\\|")
    if len(ours) != len(theirs):
        return f"ours {len(ours):,} pieces, sentencepiece {len(theirs):,}"
    return None


def bench_spm(text: str, repeat: int, log) -> dict:
    """SentencePiece's BPE: training at each of ``SPM_VOCABS``, ours vs sentencepiece in-process;
    encoding every line with the largest model, ids checked line by line; BPE-dropout's cost.
    ``repeat`` runs per timing, competitors alternating."""
    lines = text.split("\n")
    res = {"repeat": repeat, "lines": len(lines)}
    load = os.getloadavg()[0]
    run_ours_spm(text, SPM_VOCABS[0])  # warm-up, untimed
    run_spm(lines, SPM_VOCABS[0])

    # 1. training
    train = []
    for vocab in SPM_VOCABS:
        ours_s, sp_s = [], []
        for r in range(repeat):
            log(f"spm: training to vocab_size={vocab:,}, repeat {r + 1}/{repeat}")
            secs, trace = timed(run_ours_spm, text, vocab)
            ours_s.append(secs)
            secs, sp = timed(run_spm, lines, vocab)
            sp_s.append(secs)
        pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
        train.append({"vocab": vocab, "ours": ours_s, "sp": sp_s, "merges": len(trace.merges),
                      "pieces": len(pieces), "diff": first_piece_difference(trace.id_to_token, pieces)})
        if vocab != SPM_VOCABS[-1]:
            del trace, sp
            gc.collect()
    res["train"] = train
    res["load_train"] = (load, os.getloadavg()[0])

    # 2. encoding every line with the largest model
    load = os.getloadavg()[0]
    res["enc_vocab"] = SPM_VOCABS[-1]
    times = {"ours": [], "sp_batch": [], "sp_loop": []}
    if _bpe_encode is not None:
        log(f"spm: checking the ids of every line (vocab_size={SPM_VOCABS[-1]:,}, untimed)")
        per_line = [_bpe_encode(line, trace).ids for line in lines]  # also builds the trace's tables
        theirs = [sp.encode(line) for line in lines]
        bad = [i for i, (a, b) in enumerate(zip(per_line, theirs)) if list(a) != b]
        res["bad_lines"] = len(bad)
        res["first_bad"] = None if not bad else (bad[0], first_id_difference(trace, list(per_line[bad[0]]),
                                                                             theirs[bad[0]]))
        per_line_flat = [i for ids in per_line for i in ids]
        del per_line, theirs
    else:
        res["bad_lines"] = res["first_bad"] = None
    sp.encode(lines[:100])  # warm-up, untimed
    ours_ids = None
    for r in range(repeat):
        log(f"spm: encoding every line (vocab_size={SPM_VOCABS[-1]:,}), repeat {r + 1}/{repeat}")
        if _bpe_encode is not None:
            trace.__dict__.pop("_encode_cache", None)  # cold: every distinct word segmented anew
            secs, ours_ids = timed(lambda: _bpe_encode(text, trace).ids)
            times["ours"].append(secs)
        secs, batch = timed(sp.encode, lines)
        times["sp_batch"].append(secs)
        secs, looped = timed(lambda: [sp.encode(line) for line in lines])
        times["sp_loop"].append(secs)
    res["enc_times"] = times
    res["enc_tokens"] = {"ours": None if ours_ids is None else len(ours_ids),
                         "sp_batch": sum(map(len, batch)), "sp_loop": sum(map(len, looped))}
    res["batch_same_as_loop"] = batch == looped
    res["whole_is_lines"] = None if ours_ids is None else list(ours_ids) == per_line_flat
    del batch, looped, ours_ids
    res["load_enc"] = (load, os.getloadavg()[0])

    # 3. BPE-dropout
    load = os.getloadavg()[0]
    times = {"ours": [], "sp": []}
    tokens = {"ours": [], "sp": []}
    for r in range(repeat):
        log(f"spm: encoding with dropout {SPM_DROPOUT}, repeat {r + 1}/{repeat}")
        if _bpe_encode is not None:
            trace.__dict__.pop("_encode_cache", None)
            secs, ids = timed(lambda: _bpe_encode(text, trace, dropout=SPM_DROPOUT, seed=0).ids)
            times["ours"].append(secs)
            tokens["ours"].append(len(ids))
        secs, out = timed(lambda: sp.encode(lines, enable_sampling=True, alpha=SPM_DROPOUT))
        times["sp"].append(secs)
        tokens["sp"].append(sum(map(len, out)))
    res["drop_times"], res["drop_tokens"] = times, tokens
    res["load_drop"] = (load, os.getloadavg()[0])
    del trace, sp
    gc.collect()
    return res


def report_spm(res: dict) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of ``bench_spm``'s result."""
    checks = []
    rep = res["repeat"]

    def runs(xs):
        return ", ".join(fmt_s(x) for x in xs)

    def ratio(a, b):
        return "n/a" if a is None or b is None else f"{a / b:.2f}"

    # 1. training
    rows = []
    for t in res["train"]:
        mo, ms = med(t["ours"]), med(t["sp"])
        same = "yes" if t["diff"] is None else f"no ({t['diff']})"
        rows.append([f"{t['vocab']:,}", fmt_s(mo), runs(t["ours"]), fmt_s(ms), runs(t["sp"]), ratio(mo, ms),
                     f"{t['merges']:,}", same])
        checks.append([f"SentencePiece BPE: same pieces as sentencepiece at {t['vocab']:,}", "yes",
                       "yes" if t["diff"] is None else "no", verdict(t["diff"] is None)])
    t_train = md_table(["vocab_size", "ours median s", "ours runs s", "sentencepiece median s",
                        "sentencepiece runs s", "ours / sentencepiece", "our merges", "same pieces"], rows)

    # 2. encoding
    t, n = res["enc_times"], res["enc_tokens"]
    eo, eb, el = med(t["ours"]), med(t["sp_batch"]), med(t["sp_loop"])
    t_enc = md_table(
        ["", "median s", "runs s", "tokens", "ours / this"],
        [["ours `encode(text, trace).ids`, one call, word cache cleared", fmt_s(eo), runs(t["ours"]),
          "n/a" if n["ours"] is None else f"{n['ours']:,}", "1.00"],
         ["sentencepiece `sp.encode(lines)`, batch", fmt_s(eb), runs(t["sp_batch"]), f"{n['sp_batch']:,}",
          ratio(eo, eb)],
         ["sentencepiece `[sp.encode(l) for l in lines]`", fmt_s(el), runs(t["sp_loop"]), f"{n['sp_loop']:,}",
          ratio(eo, el)]])
    bad, lines = res["bad_lines"], res["lines"]
    if bad is None:
        same_txt, ok = "not available", None
    elif bad == 0:
        same_txt, ok = "yes", True
    else:
        i, d = res["first_bad"]
        same_txt, ok = f"no: {bad:,} of {lines:,} lines differ, first line {i + 1:,} ({d})", False
    checks.append(["SentencePiece encoding: same ids on every line", "yes",
                   same_txt if ok is not False else f"no ({bad:,} of {lines:,} lines)", verdict(ok)])

    # 3. BPE-dropout
    t, n = res["drop_times"], res["drop_tokens"]
    do, ds = med(t["ours"]), med(t["sp"])
    t_drop = md_table(
        ["", "median s", "runs s", "tokens (median)", "ours / this"],
        [[f"ours `encode(text, trace, dropout={SPM_DROPOUT}, seed=0).ids`", fmt_s(do), runs(t["ours"]),
          "n/a" if not n["ours"] else f"{med(n['ours']):,}", "1.00"],
         [f"sentencepiece `sp.encode(lines, enable_sampling=True, alpha={SPM_DROPOUT})`", fmt_s(ds), runs(t["sp"]),
          f"{med(n['sp']):,}", ratio(do, ds)]])

    whole = {None: "not available", True: "yes", False: "NO"}[res["whole_is_lines"]]
    loads = ", ".join(f"{name} {a:.2f} → {b:.2f}" for name, (a, b) in
                      (("training", res["load_train"]), ("encoding", res["load_enc"]),
                       ("dropout", res["load_drop"])))
    md = f"""## SentencePiece BPE

SentencePiece's BPE, ours against sentencepiece {version_of("sentencepiece")} on the documentation text, both
in this process. Ours is `train_bpe(text, vocab_size=V, preset="sentencepiece")`, keeping a snapshot
after every merge; sentencepiece is trained on the same lines (`text.split("\\n")`, {lines:,} of them)
through `sentence_iterator` and `model_writer`, with `model_type="bpe"`,
`normalization_rule_name="identity"` and its default thread count (`num_threads` unset; this machine
has {os.cpu_count()} logical CPUs), then loaded with `SentencePieceProcessor(model_proto=...)`, inside
the timing. "same pieces" compares `[sp.id_to_piece(i) for i in range(sp.get_piece_size())]` with our
`trace.id_to_token`, id for id; encoding and dropout use the {res["enc_vocab"]:,} models, our trace's
word cache cleared before each timing (its tables built once before, by the untimed id check) and
sentencepiece's batch calls on its own thread pool (`num_threads=-1`). Medians of {rep} run(s), ours
then sentencepiece within each repeat; sentencepiece is native C++, so the ratios are reported, not
targeted.

### Training

{t_train}

### Encoding every line (vocab_size {res["enc_vocab"]:,})

{t_enc}

Same ids as sentencepiece on every line (ours `encode(line, trace).ids` vs `sp.encode(line)`, untimed):
{same_txt}. Our one call on the whole text gives the per-line ids one after another: {whole};
sentencepiece's batch equals its loop: {"yes" if res["batch_same_as_loop"] else "NO"}.

### BPE-dropout (p = {SPM_DROPOUT})

{t_drop}

Load average (1 min) before → after: {loads}.
"""
    console = [("SentencePiece BPE training", t_train), ("SentencePiece BPE encoding", t_enc),
               ("SentencePiece BPE-dropout", t_drop)]
    return checks, console, md


# -- Unigram LM (the sentencepiece flavour) and SubwordTextEncoder -----------------------------
def run_ours_unigram(text: str, vocab_size: int):
    return train_unigram(text, vocab_size=vocab_size, flavour="sentencepiece")


def run_spm_unigram(lines: list[str], vocab_size: int, num_threads: int | None = None):
    """sentencepiece's unigram trainer in-process on ``lines`` (identity normalization, other
    options default unless ``num_threads`` is given), loaded as a ``SentencePieceProcessor``."""
    import sentencepiece as spm

    m = io.BytesIO()
    kw = {} if num_threads is None else {"num_threads": num_threads}
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=m, model_type="unigram",
                                   vocab_size=vocab_size, normalization_rule_name="identity", minloglevel=3, **kw)
    return spm.SentencePieceProcessor(model_proto=m.getvalue())


def f32_sum(values) -> float:
    """A running sum in 32-bit floats, as sentencepiece adds scores along a path."""
    acc = array.array("f", [0.0])
    for v in values:
        acc[0] = acc[0] + v
    return acc[0]


def compare_unigram(trace, sp) -> dict:
    """How our final vocabulary compares with sentencepiece's model: the piece sets, the largest
    score difference over the pieces both have, and the id layout."""
    theirs = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    their_score = {p: sp.get_score(i) for i, p in enumerate(theirs)}
    ours = list(trace.id_to_token)
    scores = trace.final.pieces
    common = [p for p in scores if p in their_score]
    moved = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    return {"same_set": set(ours) == set(theirs), "only_ours": len(set(ours) - set(theirs)),
            "only_theirs": len(set(theirs) - set(ours)), "pieces": len(theirs),
            "max_diff": max((abs(scores[p] - their_score[p]) for p in common), default=None),
            "moved": len(moved) + abs(len(ours) - len(theirs)),
            # in sentencepiece's own model, the largest score gap between two pieces whose ids
            # we swapped (a near-tie ordered the other way)
            "moved_gap": max((abs(their_score[ours[i]] - their_score[theirs[i]]) for i in moved
                              if ours[i] in their_score), default=None)}


# A fresh process training one competitor (argv: which = ours / sp / sp1, checkout, vocab_size):
# the documentation text and its lines are loaded before the baseline. Prints JSON: the peak
# resident set (KiB) at start, after the import, before training and at the end, and the pieces.
_UNIGRAM_RSS_CHILD = r"""
import gc, io, json, sys

def hwm():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

which, root, vocab = sys.argv[1], sys.argv[2], int(sys.argv[3])
start = hwm()
import pydoc_data.topics
if which == "ours":
    sys.path.insert(0, root)
    from bpe_viz.engine.unigram.model import train_unigram
else:
    import sentencepiece as spm
imported = hwm()
text = "\n".join(pydoc_data.topics.topics.values())
lines = text.split("\n")
gc.collect()
before = hwm()
if which == "ours":
    trace = train_unigram(text, vocab_size=vocab, flavour="sentencepiece")
    made = len(trace.id_to_token)
else:
    m = io.BytesIO()
    kw = {"num_threads": 1} if which == "sp1" else {}
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=m, model_type="unigram",
                                   vocab_size=vocab, normalization_rule_name="identity", minloglevel=3, **kw)
    made = spm.SentencePieceProcessor(model_proto=m.getvalue()).get_piece_size()
print(json.dumps({"start": start, "imported": imported, "before": before, "peak": hwm(), "made": made}))
"""

# sentencepiece trained once more with its log on (minloglevel=0), in a fresh process, to read what
# it did: its thread count, its seed pieces, its EM rounds (argv: vocab_size).
_SPM_LOG_CHILD = r"""
import io, sys, pydoc_data.topics, sentencepiece as spm
text = "\n".join(pydoc_data.topics.topics.values())
spm.SentencePieceTrainer.train(sentence_iterator=iter(text.split("\n")), model_writer=io.BytesIO(),
                               model_type="unigram", vocab_size=int(sys.argv[1]),
                               normalization_rule_name="identity", minloglevel=0)
"""


def unigram_rss(which: str, vocab: int) -> dict | None:
    """Peak resident set (MiB) of a fresh process training ``which`` to ``vocab``: at start, after
    the import, before training (input loaded) and at the end; None if the child failed."""
    cmd = [sys.executable, "-c", _UNIGRAM_RSS_CHILD, which, str(ROOT), str(vocab)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=RSS_TIMEOUT).stdout
        r = json.loads(out.strip().splitlines()[-1])
        return {k: (v / 1024 if k != "made" else v) for k, v in r.items()}
    except Exception as exc:  # report, don't die
        print(f"  unigram rss {which} vocab_size={vocab} failed: {exc}", file=sys.stderr)
        return None


def spm_unigram_log(vocab: int) -> dict:
    """What sentencepiece's own log says about one training (default threads): ``num_threads``,
    the seed pieces, the EM rounds (one ``EM sub_iter=0`` line each) and the size after each."""
    try:
        err = subprocess.run([sys.executable, "-c", _SPM_LOG_CHILD, str(vocab)], capture_output=True, text=True,
                             check=True, timeout=RSS_TIMEOUT).stderr
    except Exception as exc:  # report, don't die
        print(f"  sentencepiece log at vocab_size={vocab} failed: {exc}", file=sys.stderr)
        return {}
    threads = re.search(r"^\s*num_threads: (\d+)", err, re.M)
    seeds = re.search(r"Initialized (\d+) seed", err)
    return {"threads": int(threads[1]) if threads else None, "seeds": int(seeds[1]) if seeds else None,
            "rounds": len(re.findall(r"EM sub_iter=0 ", err))}


def clear_round_caches(trace) -> None:
    """Forget what every round worked out lazily (segmentations, score tables), so the next read
    of a round is cold: a round stores its data as fields; whatever it adds later starts with _."""
    for snap in trace:
        for key in [k for k in snap.__dict__ if k.startswith("_")]:
            del snap.__dict__[key]


def read_round(trace, k: int, words: list[str]) -> tuple[float, float]:
    """(seconds to get ``trace[k]`` and read its pieces, losses and removals, seconds to cut
    ``words`` at that round), caches cleared before."""
    clear_round_caches(trace)
    gc.collect()
    t0 = time.perf_counter()
    s = trace[k]
    len(s.pieces), len(s.removal_losses), len(s.removed), s.loss  # noqa: B018  (read, as a view does)
    t1 = time.perf_counter()
    for w in words:
        s.segmentation[w]  # noqa: B018
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def load_tfds_reference():
    """TFDS's own ``subword_text_encoder`` module and ``corpus_generator``, through the tests' loader
    (``tests/tfds_reference.py``: the two files of the tensorflow-datasets wheel, run offline with a
    stand-in for TensorFlow); ``(None, None, reason)`` when it is not available."""
    import importlib.util

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


def bench_unigram(text: str, repeat: int, log) -> dict:
    """Unigram LM, sentencepiece flavour: training at each of ``UNIGRAM_VOCABS``, ours vs sentencepiece
    (its default thread count and one thread), memory in fresh processes, reading a round, encoding
    every line; the hf-course flavour on the course's corpus; SubwordTextEncoder at
    ``STE_TARGETS``, ours vs TFDS's module if it can be loaded."""
    from bpe_viz import encode

    lines = text.split("\n")
    res = {"repeat": repeat, "lines": len(lines)}
    load = os.getloadavg()[0]
    run_ours_unigram(text[:20_000], 200)  # warm-up, untimed
    run_spm_unigram(lines[:500], 200)

    # 1. training
    train, traces, models = [], {}, {}
    for vocab in UNIGRAM_VOCABS:
        t = {"vocab": vocab, "ours": [], "sp": [], "sp1": []}
        for r in range(repeat):
            log(f"unigram: training to vocab_size={vocab:,}, repeat {r + 1}/{repeat}")
            secs, trace = timed(run_ours_unigram, text, vocab)
            t["ours"].append(secs)
            secs, sp = timed(run_spm_unigram, lines, vocab)
            t["sp"].append(secs)
            secs, sp1 = timed(run_spm_unigram, lines, vocab, 1)
            t["sp1"].append(secs)
        t["seeds"], t["rounds"] = len(trace[0].pieces), len(trace) - 1
        t["cmp"], t["cmp1"] = compare_unigram(trace, sp), compare_unigram(trace, sp1)
        t["sp_agree"] = ([sp.id_to_piece(i) for i in range(sp.get_piece_size())]
                         == [sp1.id_to_piece(i) for i in range(sp1.get_piece_size())])
        log(f"unigram: vocab_size={vocab:,}: sentencepiece's log, then memory in fresh processes")
        t["sp_log"] = spm_unigram_log(vocab)
        t["rss"] = {w: unigram_rss(w, vocab) for w in ("ours", "sp", "sp1")}
        traces[vocab], models[vocab] = trace, sp
        del sp1
        train.append(t)
        gc.collect()
    res["train"] = train
    res["load_train"] = (load, os.getloadavg()[0])

    # 2. reading a round: random k, caches cleared, a few random words cut at that round
    load = os.getloadavg()[0]
    rng = random.Random(UNIGRAM_SEED)
    rounds = []
    for vocab, trace in traces.items():
        vocab_words = sorted(trace.word_counts)
        access, cuts, total, ks = [], [], [], []
        for _ in range(UNIGRAM_ROUND_SAMPLES):
            k = rng.randrange(len(trace))
            a, c = read_round(trace, k, rng.sample(vocab_words, UNIGRAM_ROUND_WORDS))
            ks.append(k)
            access.append(a)
            cuts.append(c)
            total.append(a + c)
        rounds.append({"vocab": vocab, "rounds": len(trace), "ks": len(set(ks)), "access": access,
                       "cuts": cuts, "total": total, "words": len(vocab_words)})
        clear_round_caches(trace)
    res["rounds"] = rounds
    res["load_rounds"] = (load, os.getloadavg()[0])

    # 3. encoding every line with the largest model
    load = os.getloadavg()[0]
    vocab = UNIGRAM_VOCABS[-1]
    trace, sp = traces[vocab], models[vocab]
    res["enc_vocab"] = vocab
    log(f"unigram: checking the pieces of every line (vocab_size={vocab:,}, untimed)")
    per_line = [encode(line, trace).pieces for line in lines]
    theirs = [sp.encode(line, out_type=str) for line in lines]
    bad = [i for i, (a, b) in enumerate(zip(per_line, theirs)) if list(a) != b]
    res["bad_lines"] = len(bad)
    # each differing line (the first few): both segmentations' total score in sentencepiece's own
    # model (in the order the pieces come, from the line's start), and sentencepiece on each of the
    # line's words alone (its Viterbi runs over the whole line; ours restarts at every word)
    their_score = {sp.id_to_piece(i): sp.get_score(i) for i in range(sp.get_piece_size())}
    detail = []
    for i in bad[:UNIGRAM_BAD_SHOWN]:
        words = encode(lines[i], trace).words
        alone = [p for w in words for p in sp.encode(w[1:], out_type=str)]
        detail.append({"line": i, "ours": " ".join(per_line[i]), "theirs": " ".join(theirs[i]),
                       "ours_score": f32_sum(their_score.get(p, 0.0) for p in per_line[i]),
                       "their_score": f32_sum(their_score.get(p, 0.0) for p in theirs[i]),
                       "alone_is_ours": alone == list(per_line[i])})
    res["bad_detail"] = detail
    flat = [p for ps in per_line for p in ps]
    del per_line, theirs
    sp.encode(lines[:100])  # warm-up, untimed
    times = {"ours": [], "sp_batch": [], "sp_loop": []}
    for r in range(repeat):
        log(f"unigram: encoding every line (vocab_size={vocab:,}), repeat {r + 1}/{repeat}")
        secs, enc = timed(encode, text, trace)
        times["ours"].append(secs)
        secs, batch = timed(sp.encode, lines)
        times["sp_batch"].append(secs)
        secs, looped = timed(lambda: [sp.encode(line) for line in lines])
        times["sp_loop"].append(secs)
    res["enc_times"] = times
    res["enc_tokens"] = {"ours": len(enc.ids), "sp_batch": sum(map(len, batch)), "sp_loop": sum(map(len, looped))}
    res["whole_is_lines"] = list(enc.pieces) == flat
    res["batch_same_as_loop"] = batch == looped
    del enc, batch, looped, flat, traces, models, trace, sp
    gc.collect()
    res["load_enc"] = (load, os.getloadavg()[0])

    # 4. the hf-course flavour on the course's corpus
    load = os.getloadavg()[0]
    course = {"ours": []}
    for r in range(max(repeat, UNIGRAM_COURSE_MIN_REPEAT)):
        secs, ct = timed(lambda: train_unigram(list(UNIGRAM_COURSE_SENTENCES), UNIGRAM_COURSE_VOCAB,
                                               flavour="hf-course"))
        course["ours"].append(secs)
    course.update(seeds=len(ct[0].pieces), rounds=len(ct) - 1, final=len(ct.final.pieces),
                  words=len(ct.word_counts), stop=ct.stop_reason,
                  tokens=encode(UNIGRAM_COURSE_SENTENCES[0].replace("Course", "course"), ct).tokens)
    res["course"] = course
    res["load_course"] = (load, os.getloadavg()[0])

    # 5. SubwordTextEncoder
    load = os.getloadavg()[0]
    if train_subword_text_encoder is None:
        res["ste"] = None
    else:
        stm, corpus_generator, why = load_tfds_reference()
        res["ste_ref"] = why
        rows = []
        for target in STE_TARGETS:
            t = {"target": target, "ours": [], "tfds": []}
            for r in range(repeat):
                log(f"unigram: SubwordTextEncoder to target_vocab_size={target:,}, repeat {r + 1}/{repeat}")
                secs, st = timed(train_subword_text_encoder, text, target)
                t["ours"].append(secs)
                if stm is not None:
                    secs, enc = timed(stm.SubwordTextEncoder.build_from_corpus, corpus_generator(text), target)
                    t["tfds"].append(secs)
            t.update(size=st.vocab_size, tries=len(st), subwords=len(st.subwords))
            t["same"] = None if stm is None else list(enc.subwords) == list(st.subwords)
            t["tfds_size"] = None if stm is None else enc.vocab_size
            rows.append(t)
        res["ste"] = rows
    res["load_ste"] = (load, os.getloadavg()[0])
    return res


def report_unigram(res: dict) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of ``bench_unigram``'s result."""
    checks = []
    rep = res["repeat"]

    def runs(xs):
        return ", ".join(fmt_s(x) for x in xs)

    def ratio(a, b):
        return "n/a" if a is None or b is None else f"{a / b:.2f}"

    def diff(x):
        return "n/a" if x is None else f"{x:.1e}"

    def num(x):
        return "n/a" if x is None else f"{x:,}"

    def agree(c):
        if c["same_set"]:
            return "yes"
        return f"no ({c['only_ours']} only ours, {c['only_theirs']} only theirs)"

    # 1. training, memory
    rows, rows_cmp, rows_mem = [], [], []
    for t in res["train"]:
        mo, ms, m1 = med(t["ours"]), med(t["sp"]), med(t["sp1"])
        lg = t["sp_log"]
        rows.append([f"{t['vocab']:,}", fmt_s(mo), runs(t["ours"]), fmt_s(ms), runs(t["sp"]), fmt_s(m1),
                     runs(t["sp1"]), ratio(mo, ms), ratio(mo, m1)])
        c, c1 = t["cmp"], t["cmp1"]
        rows_cmp.append([f"{t['vocab']:,}", f"{t['seeds']:,} / {num(lg.get('seeds'))}",
                         f"{t['rounds'] - 1} + final / {num(lg.get('rounds'))}",
                         agree(c), diff(c["max_diff"]), f"{c['moved']:,} ({diff(c['moved_gap'])})",
                         agree(c1), diff(c1["max_diff"]), "yes" if t["sp_agree"] else "no"])
        checks.append([f"Unigram (sentencepiece flavour): same final pieces as sentencepiece at {t['vocab']:,}",
                       "yes", agree(c), verdict(c["same_set"])])
        ok = c["max_diff"] is not None and c["max_diff"] <= UNIGRAM_SCORE_TOL
        checks.append([f"Unigram: largest score difference from sentencepiece at {t['vocab']:,}",
                       f"≤ {UNIGRAM_SCORE_TOL:g}", diff(c["max_diff"]), verdict(ok)])
        r = t["rss"]

        def grow(x):
            return "n/a" if x is None else fmt_mib(x["peak"] - x["before"])

        def peak(x):
            return "n/a" if x is None else fmt_mib(x["peak"])

        go = None if r["ours"] is None else r["ours"]["peak"] - r["ours"]["before"]
        gs = None if r["sp"] is None else r["sp"]["peak"] - r["sp"]["before"]
        rows_mem.append([f"{t['vocab']:,}", grow(r["ours"]), grow(r["sp"]), grow(r["sp1"]),
                         "n/a" if go is None or not gs else f"{go / gs:.1f}",
                         peak(r["ours"]), peak(r["sp"]), peak(r["sp1"]),
                         "n/a" if r["ours"] is None or r["sp"] is None else
                         f"{fmt_mib(r['ours']['imported'])} / {fmt_mib(r['sp']['imported'])}"])
    t_train = md_table(["vocab_size", "ours median s", "ours runs s", "sentencepiece (as run) median s",
                        "runs s", "sentencepiece num_threads=1 median s", "runs s", "ours / as run",
                        "ours / num_threads=1"], rows)
    t_cmp = md_table(["vocab_size", "seed pieces (ours / sentencepiece's log)",
                      "rounds (ours / sentencepiece's log)", "same final pieces (as run)",
                      "largest score difference", "ids placed differently (largest gap)",
                      "same final pieces (num_threads=1)", "largest score difference (num_threads=1)",
                      "sentencepiece as run = num_threads=1"], rows_cmp)
    t_mem = md_table(["vocab_size", "ours RSS growth MiB", "sentencepiece (as run) RSS growth MiB",
                      "sentencepiece num_threads=1 RSS growth MiB", "ours / as run",
                      "ours peak RSS MiB", "sentencepiece (as run) peak RSS MiB",
                      "sentencepiece num_threads=1 peak RSS MiB", "after import MiB (ours / sentencepiece)"],
                     rows_mem)
    threads = sorted({t["sp_log"].get("threads") for t in res["train"]} - {None})

    # 2. a round
    rows_round = []
    for t in res["rounds"]:
        tot = [x * 1000 for x in t["total"]]
        mt, mx = med(tot), max(tot)
        rows_round.append([f"{t['vocab']:,}", f"{t['rounds']}", f"{len(tot)} ({t['ks']} distinct k)",
                           f"{med(t['access']) * 1000:.3f}", f"{med(t['cuts']) * 1000:.2f}", f"{mt:.2f}",
                           f"{mx:.2f}"])
        checks.append([f"Unigram: a round readable (trace[k], its pieces, losses, removals and "
                       f"{UNIGRAM_ROUND_WORDS} words' segmentation) at {t['vocab']:,}, median",
                       f"≤ {TARGETS['unigram_round_ms']:g} ms", f"{mt:.2f} ms (max {mx:.2f})",
                       verdict(mt <= TARGETS["unigram_round_ms"])])
    t_round = md_table(["vocab_size", "snapshots in the trace", "samples", "trace[k] + fields, median ms",
                        f"{UNIGRAM_ROUND_WORDS} segmentations, median ms", "total median ms", "total max ms"],
                       rows_round)

    # 3. encoding
    t, n = res["enc_times"], res["enc_tokens"]
    eo, eb, el = med(t["ours"]), med(t["sp_batch"]), med(t["sp_loop"])
    t_enc = md_table(
        ["", "median s", "runs s", "tokens", "ours / this"],
        [["ours `encode(text, trace)`, one call", fmt_s(eo), runs(t["ours"]), f"{n['ours']:,}", "1.00"],
         ["sentencepiece `sp.encode(lines)`, batch", fmt_s(eb), runs(t["sp_batch"]), f"{n['sp_batch']:,}",
          ratio(eo, eb)],
         ["sentencepiece `[sp.encode(l) for l in lines]`", fmt_s(el), runs(t["sp_loop"]), f"{n['sp_loop']:,}",
          ratio(eo, el)]])
    bad = res["bad_lines"]
    t_bad = ""
    if bad == 0:
        same_txt = "yes"
    else:
        shown = res["bad_detail"]
        same_txt = (f"no: {bad:,} of {res['lines']:,} lines differ" +
                    (f" (the first {len(shown)} below)" if bad > len(shown) else " (below)"))
        t_bad = "\n\n" + md_table(
            ["line", "ours", "sentencepiece", "their score of ours", "their score of theirs",
             "sentencepiece, each word alone = ours"],
            [[f"{d['line'] + 1:,}", f"`{d['ours']}`".replace("|", "\\|"), f"`{d['theirs']}`".replace("|", "\\|"),
              f"{d['ours_score']:.6f}", f"{d['their_score']:.6f}", "yes" if d["alone_is_ours"] else "no"]
             for d in shown]) + "\n\n" + textwrap.fill(
            "\"their score\": the sum of `sp.get_score` over the pieces, in 32-bit floats from the line's"
            " start, as sentencepiece's Viterbi adds them; equal sums are a tie that the order of the additions"
            " decides. \"each word alone\": `sp.encode(word)` for every word of the line, joined, equals our"
            " pieces (sentencepiece runs Viterbi over the whole line, ours word by word).",
            width=100, break_on_hyphens=False)
    # our scores differ from sentencepiece's by up to 1e-4, so two cuts that tie within that may swap
    near = bad <= len(res["bad_detail"]) and all(
        abs(d["ours_score"] - d["their_score"]) <= UNIGRAM_SCORE_TOL for d in res["bad_detail"])
    checks.append(["Unigram encoding: same pieces as sentencepiece on every line, but where two cuts score "
                   "within 1e-4 (near-ties)", "yes",
                   "yes" if bad == 0 else f"{bad:,} of {res['lines']:,} lines differ, " +
                   ("all near-ties" if near else "not all near-ties"), verdict(bad == 0 or near)])

    # 4. the course
    c = res["course"]
    t_course = md_table(["corpus", "vocab_size", "median s", "runs s", "seed pieces", "rounds", "final pieces"],
                        [["the course's four sentences", f"{UNIGRAM_COURSE_VOCAB}", fmt_s(med(c["ours"])),
                          runs(c["ours"]), f"{c['seeds']}", f"{c['rounds']}", f"{c['final']}"]])

    # 5. SubwordTextEncoder
    ste = res["ste"]
    if ste is None:
        t_ste = ""
        ste_md = "`bpe_viz.engine.subword_text_encoder.model` is not in this checkout: not measured.\n"
    else:
        rows_ste = []
        for t in ste:
            mo, mt = med(t["ours"]), med(t["tfds"])
            rows_ste.append([f"{t['target']:,}", fmt_s(mo), runs(t["ours"]), fmt_s(mt),
                             runs(t["tfds"]) if t["tfds"] else "n/a", ratio(mo, mt), f"{t['tries']}",
                             f"{t['size']:,}", {None: "n/a", True: "yes", False: "no"}[t["same"]]])
            if t["same"] is not None:
                checks.append([f"SubwordTextEncoder: same subwords as TFDS's module at {t['target']:,}", "yes",
                               "yes" if t["same"] else "no", verdict(t["same"])])
        t_ste = md_table(["target_vocab_size", "ours median s", "ours runs s", "TFDS median s", "TFDS runs s",
                          "ours / TFDS", "tries (binary search)", "vocab_size reached", "same subwords"], rows_ste)
        ref = (f"TFDS: `SubwordTextEncoder.build_from_corpus(corpus_generator(text), target)`, tensorflow-datasets"
               f" {version_of('tensorflow-datasets')}'s own `subword_text_encoder.py` loaded by the tests' "
               "`tests/tfds_reference.py` (its two files run offline, a stand-in for the few TensorFlow calls), "
               "pure Python like ours; the text as one item. \"same subwords\": `enc.subwords` equals our "
               "`trace.subwords`, in order." if res.get("ste_ref") is None else
               f"TFDS's module not measured: {res['ste_ref']}.")
        ste_md = textwrap.fill(
            f"Ours: `train_subword_text_encoder(text, target_vocab_size=T)` on the documentation text, every try"
            f" of the binary search kept. {ref} Medians of {rep} run(s), ours then TFDS within each repeat.",
            width=100, break_on_hyphens=False) + "\n\n" + t_ste + "\n"

    loads = ", ".join(f"{name} {a:.2f} → {b:.2f}" for name, (a, b) in
                      (("training and memory", res["load_train"]), ("rounds", res["load_rounds"]),
                       ("encoding", res["load_enc"]), ("course", res["load_course"]),
                       ("SubwordTextEncoder", res["load_ste"])))
    vocabs = " and ".join(f"{v:,}" for v in UNIGRAM_VOCABS)
    md = f"""## Unigram LM and SubwordTextEncoder

The Unigram language model, sentencepiece flavour, ours against sentencepiece
{version_of("sentencepiece")} on the documentation text to vocab_size {vocabs}, both in this process.
Ours is `train_unigram(text, vocab_size=V, flavour="sentencepiece")`, keeping every round;
sentencepiece is trained on the same lines (`text.split("\\n")`, {res["lines"]:,} of them) through
`sentence_iterator` and `model_writer`, with `model_type="unigram"`,
`normalization_rule_name="identity"`, then loaded with `SentencePieceProcessor(model_proto=...)`,
inside the timing: once as run (`num_threads` unset: its default, {", ".join(map(str, threads)) or "n/a"}
threads by its own log, on a machine with {os.cpu_count()} logical CPUs) and once with
`num_threads=1`, the fair single-core comparison (ours runs on one core). Medians of {rep} run(s),
ours, sentencepiece as run, then with one thread within each repeat; sentencepiece is native C++, so
the ratios are reported, not targeted.

### Training

{t_train}

### What was trained

{t_cmp}

* seed pieces: ours `len(trace[0].pieces)` (characters and repeated substrings); sentencepiece's
  log line "Initialized N seed pieces" (one more training, as run, with `minloglevel=0`, in a fresh
  process). Rounds: ours `len(trace) - 1`, the pruning rounds (two EM steps and a prune each) plus
  the final step (unreachable pieces dropped, the vocabulary filled); sentencepiece's log has one
  `EM sub_iter=0` line per pruning round.
* same final pieces: the set of our `trace.id_to_token` equals sentencepiece's pieces; largest
  score difference: of `trace.final.pieces[p]` from `sp.get_score(id)` over every piece both have.
* ids placed differently: positions where our `trace.id_to_token` differs from sentencepiece's id
  order (as run), and in brackets the largest score gap, in sentencepiece's own model, between the
  two pieces at such a position: pieces whose scores are this close trade places when the
  scores move in the last digits, as they do between sentencepiece's own runs with
  other thread counts (last column: its id order as run equals its id order with one thread).

### Memory

{t_mem}

Fresh processes, one per figure (`_UNIGRAM_RSS_CHILD` in this benchmark), each importing only its
competitor (ours `bpe_viz.engine.unigram.model`, which loads the `bpe_viz` package; `sentencepiece`),
loading the documentation text and its lines, then training (ours keeping every round, the trace
alive at the end; sentencepiece to an `io.BytesIO` model, loaded). "RSS growth": the rise of the
peak resident set (`VmHWM` of `/proc/self/status`) during training; "peak RSS": the whole process's
peak, interpreter, imports and input included. tracemalloc is not used here: it cannot see
sentencepiece's native allocations.

### A round, readable

{t_round}

`s = trace[k]`, then `len(s.pieces)`, `len(s.removal_losses)`, `len(s.removed)`, `s.loss`, then
`s.segmentation[w]` for {UNIGRAM_ROUND_WORDS} words `w` drawn at random from the words the trace
saw (each a fresh draw), for {UNIGRAM_ROUND_SAMPLES} random rounds k of the traces trained above
(seed {UNIGRAM_SEED}), with everything a round works out lazily forgotten before each sample
(every `_`-key of each snapshot's `__dict__`: the segmentation cache, the longest piece, the
lowest score), so each read is cold. A round stores its pieces, removal losses and removals when
trained; a word's segmentation is a Viterbi pass over the word at that round.

### Encoding every line (vocab_size {res["enc_vocab"]:,})

{t_enc}

The {res["enc_vocab"]:,}-piece models from the last training repeat. Ours: `bpe_viz.encode(text,
trace)` on the whole text in one call (no word cache: every word is cut anew each call);
sentencepiece: its batch call on its own thread pool, and line by line. Same pieces as
sentencepiece on every line (ours `encode(line, trace).pieces` vs `sp.encode(line, out_type=str)`,
untimed): {same_txt}. Our one call gives the per-line pieces one after another:
{"yes" if res["whole_is_lines"] else "NO"}; sentencepiece's batch equals its loop:
{"yes" if res["batch_same_as_loop"] else "NO"}.{t_bad}

### The course's corpus (hf-course flavour)

{t_course}

`train_unigram(sentences, vocab_size={UNIGRAM_COURSE_VOCAB}, flavour="hf-course")` on the four
sentences of the Hugging Face course, chapter 6, section 7 (Metaspace words, {c["words"]} distinct),
{len(c["ours"])} runs; stop reason "{c["stop"]}". "This is the Hugging Face course." is then encoded as
{" ".join(f"`{x}`" for x in c["tokens"])}.

### SubwordTextEncoder

{ste_md}
Load average (1 min) before → after: {loads}.
"""
    console = [("Unigram training", t_train), ("Unigram: what was trained", t_cmp), ("Unigram memory", t_mem),
               ("Unigram: a round", t_round), ("Unigram encoding", t_enc), ("Unigram, the course", t_course)]
    if t_ste:
        console.append(("SubwordTextEncoder", t_ste))
    return checks, console, md


# -- a bigger corpus, generated -----------------------------------------------------------------
def make_big_corpus(source: str, seed: int = BIG_SEED, n_types: int = BIG_TYPES,
                    target_bytes: int = BIG_BYTES) -> str:
    """A reproducible corpus of about ``target_bytes`` (UTF-8) with exactly ``n_types`` distinct
    words, made from ``source`` (the documentation text) in a couple of seconds, nothing downloaded.

    1. An order-BIG_ORDER character model of the source's running words (whitespace-split), each
       padded with start / end marks; counts kept in dicts, whose order is insertion order (never
       a str hash: the result does not depend on PYTHONHASHSEED).
    2. Words drawn from it, seeded, until ``n_types`` distinct ones (at most BIG_MAX_LEN
       characters); their rank is the order in which they were first drawn (short, likely words
       come first, as in real text).
    3. Zipf frequencies: the word of rank r occurs max(1, round(c / r ** BIG_ZIPF)) times, c
       chosen so the text is about ``target_bytes``; every word occurs at least once.
    4. The running words shuffled (seeded) and cut into lines of BIG_LINE_WORDS words, joined by
       single spaces (so the text is already in subword-nmt's normalized form)."""
    rng = random.Random(seed)
    end = "\x00"  # start padding and end-of-word mark: not in the source
    counts: dict[str, dict[str, int]] = {}
    for w in source.split():
        padded = end * BIG_ORDER + w + end
        for i in range(BIG_ORDER, len(padded)):
            nxt = counts.setdefault(padded[i - BIG_ORDER:i], {})
            nxt[padded[i]] = nxt.get(padded[i], 0) + 1
    # context -> (next characters, cumulative counts) for bisect on a uniform draw
    model = {ctx: (list(nxt), list(itertools.accumulate(nxt.values()))) for ctx, nxt in counts.items()}
    types: dict[str, None] = {}  # an ordered set
    while len(types) < n_types:
        ctx, word = end * BIG_ORDER, []
        while True:
            chars, cum = model[ctx]
            c = chars[bisect.bisect(cum, rng.random() * cum[-1])]
            if c == end:
                break
            word.append(c)
            ctx = ctx[1:] + c
        if len(word) <= BIG_MAX_LEN:  # never empty: no source word is
            types.setdefault("".join(word), None)
    words = list(types)
    weights = [1 / r ** BIG_ZIPF for r in range(1, n_types + 1)]
    scale = target_bytes / sum(wt * (len(w.encode()) + 1) for wt, w in zip(weights, words))
    running = [w for w, wt in zip(words, weights) for _ in range(max(1, round(wt * scale)))]
    rng.shuffle(running)
    lines, i = [], 0
    while i < len(running):
        k = rng.randint(*BIG_LINE_WORDS)
        lines.append(" ".join(running[i:i + k]))
        i += k
    return "\n".join(lines) + "\n"


def corpus_stats(text: str) -> dict:
    words = text.split()
    return {"bytes": len(text.encode()), "chars": len(text), "str_mib": sys.getsizeof(text) / 2**20,
            "running": len(words), "distinct": len(set(words)), "lines": len(snmt_lines(text)),
            "sha256": hashlib.sha256(text.encode()).hexdigest()[:16]}


def bench_big(big: str, repeat: int, log, whole_rss) -> dict:
    """Ours vs subword-nmt on the bigger corpus at BIG_MERGES: time (``repeat`` runs,
    alternating), same merges, tracemalloc peak, whole-process peak RSS."""
    lines = snmt_lines(big)
    joined = "\n".join(lines) + "\n"
    small = "\n".join(lines[:200]) + "\n"
    run_ours(small, 10)  # warm-up, untimed
    run_snmt(small, 10)
    load = os.getloadavg()[0]
    rows = []
    for n in BIG_MERGES:
        t = {"n": n, "ours": [], "snmt": []}
        for r in range(repeat):
            log(f"big: {n:,} merges, repeat {r + 1}/{repeat}")
            secs, trace = timed(run_ours, big, n)
            t["ours"].append(secs)
            secs, codes = timed(run_snmt, joined, n)
            t["snmt"].append(secs)
        ours_m = [" ".join(m.pair) for m in trace.merges]
        snmt_m = codes_merges(codes)
        t["diff"] = first_difference(ours_m, snmt_m)
        t["n_ours"], t["n_snmt"] = len(ours_m), len(snmt_m)
        del trace, codes
        log(f"big: {n:,} merges, memory (tracemalloc, then whole-process RSS in fresh processes)")
        t["mem_ours"] = traced_peak(run_ours, big, n) / 2**20
        # subword-nmt's input, an io.StringIO, made before tracing as our input str is: its
        # buffer holds 4 bytes a character, which would count against subword-nmt otherwise
        infile = io.StringIO(joined)
        t["mem_snmt"] = traced_peak(run_snmt_stream, infile, n) / 2**20
        del infile
        t["rss"] = {w: whole_rss(w, "big", n) for w in ("ours", "snmt")}
        rows.append(t)
    return {"rows": rows, "repeat": repeat, "load": (load, os.getloadavg()[0])}


def report_big(res: dict, stats: dict) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of ``bench_big``'s result."""
    checks, rows_md = [], []
    for t in res["rows"]:
        n = t["n"]
        mo, ms = med(t["ours"]), med(t["snmt"])
        ratio, mratio = mo / ms, t["mem_ours"] / t["mem_snmt"]
        ro, rs = (peak_mib(t["rss"][w]) for w in ("ours", "snmt"))
        rratio = ro / rs if ro is not None and rs is not None else None
        rows_md.append([f"{n:,}", fmt_s(mo), fmt_s(ms), f"{ratio:.2f}", fmt_mib(t["mem_ours"]),
                        fmt_mib(t["mem_snmt"]), f"{mratio:.2f}", fmt_mib(ro), fmt_mib(rs),
                        "n/a" if rratio is None else f"{rratio:.2f}", f"{t['n_ours']:,} / {t['n_snmt']:,}",
                        "yes" if t["diff"] is None else f"no ({t['diff']})"])
        checks.append([f"bigger corpus: training time ours / subword-nmt at {n:,} merges",
                       f"≤ {TARGETS['big_train_ratio']}", f"{ratio:.2f}", verdict(ratio <= TARGETS["big_train_ratio"])])
        checks.append([f"bigger corpus: whole-process peak RSS ours / subword-nmt at {n:,} merges",
                       f"≤ {TARGETS['rss_ratio']}", "n/a" if rratio is None else f"{rratio:.2f}",
                       verdict(None if rratio is None else rratio <= TARGETS["rss_ratio"])])
        checks.append([f"bigger corpus: tracemalloc peak ours / subword-nmt at {n:,} merges",
                       f"≤ {TARGETS['memory_ratio']}", f"{mratio:.2f}", verdict(mratio <= TARGETS["memory_ratio"])])
        checks.append([f"bigger corpus: same merges as subword-nmt at {n:,} merges", "yes",
                       "yes" if t["diff"] is None else "no", verdict(t["diff"] is None)])
    table = md_table(["merges", "ours s", "subword-nmt s", "ours / subword-nmt", "ours tracemalloc peak MiB",
                      "subword-nmt tracemalloc peak MiB", "ours / subword-nmt", "ours peak RSS MiB",
                      "subword-nmt peak RSS MiB", "ours / subword-nmt", "merges made (ours / snmt)",
                      "same merges as subword-nmt"], rows_md)
    md = f"""## Bigger corpus

{table}

A corpus generated by this benchmark (`make_big_corpus`, seed {BIG_SEED}; nothing downloaded,
nothing stored), the same on every run and machine: {stats["bytes"]:,} bytes of UTF-8
({stats["chars"]:,} characters, a {stats["str_mib"]:.1f} MiB `str` in memory), {stats["distinct"]:,} distinct
words, {stats["running"]:,} running words, {stats["lines"]:,} lines (sha256 {stats["sha256"]}…).
Its words are drawn from an order-{BIG_ORDER} character model of the documentation text's words
until {BIG_TYPES:,} distinct ones (at most {BIG_MAX_LEN} characters), ranked in the order first drawn;
the word of rank r occurs max(1, round(c / r^{BIG_ZIPF:g})) times (Zipf), shuffled into lines of
{BIG_LINE_WORDS[0]} to {BIG_LINE_WORDS[1]} words. Generated in {stats["gen_s"]:.1f} s.

Times are medians of {res["repeat"]} run(s), ours then subword-nmt within each repeat: ours
`train_bpe(text, N, preset="subword-nmt")`, subword-nmt `learn_bpe` in-process on the same lines
through `io.StringIO`, `min_frequency=2`, stderr silenced. tracemalloc peak: Python allocations
only, the peak while training with the result kept alive, one run each; the inputs are made
before tracing starts (our `str`; subword-nmt's `io.StringIO`, whose buffer holds 4 bytes a
character, {4 * stats["chars"] / 2**20:.0f} MiB here; the Memory section on the documentation
text traces it with subword-nmt). Peak RSS: the whole
fresh process's peak resident set (interpreter, import, input and training; one process each),
measured as described under "Whole-process peak RSS".

Load average (1 min) {res["load"][0]:.2f} before this section, {res["load"][1]:.2f} after.
"""
    return checks, [("Bigger corpus", table)], md


# -- whole-process peak RSS -----------------------------------------------------------------------
# Run with ``python -c`` so the child imports nothing but its competitor (this file imports
# bpe_viz, which subword-nmt's child must not pay for). argv: competitor, checkout, corpus file,
# merges. Prints the peak resident set (KiB) at start, after the import, at the end, and the
# number of merges made.
_WHOLE_RSS_CHILD = r"""
import sys

def hwm():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

which, root, path, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
start = hwm()
if which == "ours":
    sys.path.insert(0, root)
    from bpe_viz import train_bpe
    imported = hwm()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    trace = train_bpe(text, n, preset="subword-nmt")
    made = len(trace.merges)
else:
    import io
    from subword_nmt.learn_bpe import learn_bpe
    imported = hwm()
    codes = io.StringIO()
    with open(path, encoding="utf-8") as f:
        learn_bpe(f, codes, n, min_frequency=2)
    made = sum(1 for line in codes.getvalue().splitlines() if line and not line.startswith("#version"))
print(start, imported, hwm(), made)
"""


class WholeRss:
    """Whole-process peak RSS of a fresh process training on a corpus file, memoized by
    (competitor, corpus name, merges), so sections share a measurement."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.files: dict[str, Path] = {}
        self.cache: dict[tuple, dict | None] = {}

    def add(self, name: str, text: str) -> None:
        """The corpus both competitors read: the normalized lines, UTF-8."""
        path = self.folder / f"{name}.txt"
        path.write_text("\n".join(snmt_lines(text)) + "\n", encoding="utf-8")
        self.files[name] = path

    def __call__(self, which: str, name: str, n: int) -> dict | None:
        key = (which, name, n)
        if key not in self.cache:
            cmd = [sys.executable, "-c", _WHOLE_RSS_CHILD, which, str(ROOT), str(self.files[name]), str(n)]
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=RSS_TIMEOUT,
                                     cwd=self.folder).stdout
                start, imported, peak, made = map(int, out.strip().splitlines()[-1].split())
                self.cache[key] = {"start": start / 1024, "imported": imported / 1024, "peak": peak / 1024,
                                   "made": made}
            except Exception as exc:  # report, don't die
                print(f"  whole-process rss {which} {name} N={n} failed: {exc}", file=sys.stderr)
                self.cache[key] = None
        return self.cache[key]


def peak_mib(r: dict | None) -> float | None:
    return None if r is None else r["peak"]


def bench_rss(whole_rss, log) -> dict:
    """Whole-process peak RSS, ours vs subword-nmt: documentation text at RSS_DOCS_MERGES, the
    bigger corpus at its largest merge count."""
    load = os.getloadavg()[0]
    rows = []
    for name, n in (("docs", RSS_DOCS_MERGES), ("big", BIG_MERGES[-1])):
        log(f"rss: {name}, {n:,} merges, a fresh process each")
        rows.append((name, n, {w: whole_rss(w, name, n) for w in ("ours", "snmt")}))
    return {"rows": rows, "load": (load, os.getloadavg()[0])}


def report_rss(res: dict) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of ``bench_rss``'s result."""
    labels = {"docs": "documentation text", "big": "bigger corpus"}
    checks, rows_md = [], []
    for name, n, r in res["rows"]:
        o, s = r["ours"], r["snmt"]
        ratio = o["peak"] / s["peak"] if o and s else None

        def cell(x, key):
            return "n/a" if x is None else (f"{x[key]:,}" if key == "made" else fmt_mib(x[key]))

        rows_md.append([labels[name], f"{n:,}", cell(o, "peak"), cell(s, "peak"),
                        "n/a" if ratio is None else f"{ratio:.2f}",
                        f"{cell(o, 'imported')} / {cell(s, 'imported')}", f"{cell(o, 'start')} / {cell(s, 'start')}",
                        f"{cell(o, 'made')} / {cell(s, 'made')}"])
        checks.append([f"whole-process peak RSS ours / subword-nmt, {labels[name]}, {n:,} merges",
                       f"≤ {TARGETS['rss_ratio']}", "n/a" if ratio is None else f"{ratio:.2f}",
                       verdict(None if ratio is None else ratio <= TARGETS["rss_ratio"])])
    table = md_table(["corpus", "merges", "ours peak RSS MiB", "subword-nmt peak RSS MiB", "ours / subword-nmt",
                      "after import MiB (ours / snmt)", "at start MiB (ours / snmt)", "merges made (ours / snmt)"],
                     rows_md)
    md = f"""## Whole-process peak RSS

{table}

The peak resident set (`VmHWM` of `/proc/self/status`) of a whole fresh process, measured at its
end: the interpreter, the imports, the input and the training, with the result still alive. Each
is `python -c` with a short script (`_WHOLE_RSS_CHILD` in this benchmark) that imports only what
its competitor needs: ours `from bpe_viz import train_bpe`, reads the corpus file whole and runs
`train_bpe(text, N, preset="subword-nmt")` (min frequency 2), keeping the trace; subword-nmt
`from subword_nmt.learn_bpe import learn_bpe` and runs `learn_bpe(file, io.StringIO(), N,
min_frequency=2)`, which reads the open file line by line, as its command line does. Both read
the same file: the corpus's normalized lines (single spaces, no empty lines), UTF-8. "at start"
is the bare interpreter (the same for both), "after import" adds the competitor's import. One
process per figure (the peak varies little from run to run). Unlike the RSS growth in the
Memory section, nothing is subtracted.

Load average (1 min) {res["load"][0]:.2f} before this section, {res["load"][1]:.2f} after.
"""
    return checks, [("Whole-process peak RSS", table)], md


# -- the training stepper's slider ------------------------------------------------------------
def pctl(xs, q: float):
    """Nearest-rank percentile (q in 0..1) of a non-empty list."""
    ys = sorted(xs)
    return ys[max(0, min(len(ys) - 1, math.ceil(q * len(ys)) - 1))]


def bench_slider(text: str, log, all_charts: bool = False) -> dict:
    """Time ``ex.step = k`` on a MergeExplorer showing a fresh SLIDER_MERGES-merge trace.

    One step renders the snapshot, the three tables, the colored sentence and the chart (the
    explorer's own code path when the slider or Play moves). Returns the rows for the report."""
    import matplotlib

    matplotlib.use("Agg")
    from bpe_viz.widgets import MergeExplorer

    trace = train_bpe(text, SLIDER_MERGES, preset="subword-nmt")
    gc.collect()
    t0 = time.perf_counter()
    ex = MergeExplorer.from_trace(trace, sentence=SLIDER_SENTENCE)
    construct_s = time.perf_counter() - t0
    assert ex.error is None, ex.error
    default_chart = ex.chart
    last = len(trace) - 1
    rng = random.Random(0)

    def measure(chart: str, ks: list[int]) -> dict:
        ex.chart = chart
        assert ex.error is None, ex.error
        wall, cpu = [], []
        gc.collect()
        for k in ks:
            w0, c0 = time.perf_counter(), time.process_time()
            ex.step = k
            wall.append((time.perf_counter() - w0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            assert ex.error is None, f"step {k}, chart {chart}: {ex.error}"
        return {"n": len(ks), "med": med(wall), "p90": pctl(wall, 0.9), "max": max(wall),
                "cpu_med": med(cpu)}

    ex.step = last // 2  # one untimed step: first-draw costs (fonts, caches) are paid once a session
    assert ex.error is None, ex.error
    rows = []
    log(f"slider: {SLIDER_SAMPLES} random steps, chart={default_chart!r}")
    rows.append(("random", default_chart, True,
                 measure(default_chart, [rng.randrange(1, last + 1) for _ in range(SLIDER_SAMPLES)])))
    start = rng.randrange(1, last + 2 - SLIDER_SAMPLES)
    log(f"slider: {SLIDER_SAMPLES} consecutive steps from {start}, chart={default_chart!r}")
    rows.append(("consecutive (Play)", default_chart, True,
                 measure(default_chart, list(range(start, start + SLIDER_SAMPLES)))))
    from bpe_viz.widgets.common import CHART_CHOICES

    for _label, chart in CHART_CHOICES:
        if chart != default_chart and (all_charts or chart == "none"):
            log(f"slider: {SLIDER_OTHER_SAMPLES} random steps, chart={chart!r}")
            rows.append(("random", chart, False,
                         measure(chart, [rng.randrange(1, last + 1) for _ in range(SLIDER_OTHER_SAMPLES)])))
    ex.chart = default_chart
    ex.close()
    return {"rows": rows, "construct_s": construct_s, "merges": last, "default_chart": default_chart}


# -- notebooks ------------------------------------------------------------------------------------
def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished, reaped children so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _execute_notebook(path: Path, kernel_env: dict) -> tuple[float, float, str | None]:
    """Execute one notebook headless in a fresh kernel (working directory: its folder); returns
    (wall seconds including kernel start-up and shutdown, the kernel's CPU seconds, error or
    None). nbclient in-process, else ``jupyter nbconvert --execute`` (whose times then also
    include nbconvert's own start-up)."""
    cpu0 = _children_cpu()  # the kernel is a child process, reaped when it shuts down
    try:
        import nbformat
        from nbclient import NotebookClient
    except ImportError:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = ["jupyter", "nbconvert", "--to", "notebook", "--execute", "--output-dir", tmp,
                   f"--ExecutePreprocessor.timeout={NOTEBOOK_TIMEOUT}", str(path)]
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, env=kernel_env)
            secs = time.perf_counter() - t0
        err = None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["failed"])[-1]
        return secs, _children_cpu() - cpu0, err
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=NOTEBOOK_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    saved = os.environ.copy()
    os.environ.clear()
    os.environ.update(kernel_env)  # the kernel inherits this process's environment
    try:
        t0 = time.perf_counter()
        try:
            client.execute()
            err = None
        except Exception as exc:  # a failing cell: report it, go on
            plain = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # the traceback's colors
            lines = [ln for ln in plain.strip().splitlines() if ln.strip()]
            err = f"{type(exc).__name__}: {lines[-1] if lines else ''}"[:200]
        secs = time.perf_counter() - t0
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return secs, _children_cpu() - cpu0, err


def bench_notebooks(folder: Path, log) -> dict:
    paths = sorted(folder.glob("*.ipynb"))
    if not paths:
        return {"rows": [], "skipped": "no notebooks"}
    try:
        import nbformat
    except ImportError:
        return {"rows": [], "skipped": "nbformat (Jupyter) not installed"}
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("MPLBACKEND", None)  # the notebooks get Jupyter's own inline backend
    # start-up alone: an empty notebook in a fresh kernel (what every notebook below pays too)
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.ipynb"
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("pass")]
        nbformat.write(nb, empty)
        log("notebooks: kernel start-up (empty notebook)")
        baseline, baseline_cpu, baseline_err = _execute_notebook(empty, env)
    rows = []
    for path in paths:
        log(f"notebooks: executing {path.name}")
        secs, cpu, err = _execute_notebook(path, env)
        n_code = sum(c.get("cell_type") == "code" for c in nbformat.read(path, as_version=4).cells)
        rows.append((path, n_code, secs, cpu, err))
    return {"rows": rows, "baseline": (baseline, baseline_cpu), "baseline_err": baseline_err}


# -- helpers for the report -------------------------------------------------------------------
def med(xs):
    return statistics.median(xs) if xs else None


def fmt_s(x):
    return "n/a" if x is None else f"{x:.3f}"


def fmt_mib(x):
    return "n/a" if x is None else f"{x:.1f}"


def verdict(ok) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def md_table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def version_of(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def git_rev() -> str:
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "bpe_viz"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + (" (bpe_viz/ has uncommitted changes)" if dirty else "")
    except Exception:
        return "unknown"


def ours_as_snmt(enc) -> list[str]:
    """Our encoding spelled as apply-bpe output tokens: 'th@@', 'e' for ['th', 'e</w>']."""
    out = []
    for pieces in enc.word_pieces():
        for i, p in enumerate(pieces):
            if i == len(pieces) - 1:
                out.append(p[: -len("</w>")] if p.endswith("</w>") else p)
            else:
                out.append(p + "@@")
    return out


# -- the run ------------------------------------------------------------------------------------
def bench_suite(text: str, args, log) -> tuple[list, list, str]:
    """The benchmark on the documentation text: training, memory, snapshot access, encoding, the
    slider step and the notebooks. Returns (Targets rows, console tables, Markdown sections)."""
    lines = snmt_lines(text)
    joined = "\n".join(lines) + "\n"
    alphabet = hf_initial_alphabet(lines)

    # warm up imports and caches once, untimed
    run_ours(text, 10)
    run_snmt(joined, 10)
    run_hf(lines, 10, alphabet)

    ns = sorted(set(args.merges))
    train = {}  # N -> dict of lists / results
    last = {}  # results of the last repeat at the largest N
    for n in ns:
        t = {"ours": [], "ours_first": [], "snmt": [], "hf": []}
        for r in range(args.repeat):
            log(f"N={n}: repeat {r + 1}/{args.repeat}")
            s, trace = timed(run_ours, text, n)
            t["ours"].append(s)
            s, trace_first = timed(run_ours, text, n, "first")
            t["ours_first"].append(s)
            del trace_first
            s, codes = timed(run_snmt, joined, n)
            t["snmt"].append(s)
            s, hf_tok = timed(run_hf, lines, n, alphabet)
            t["hf"].append(s)
        ours_m = [" ".join(m.pair) for m in trace.merges]
        snmt_m = codes_merges(codes)
        same = ours_m == snmt_m
        first_diff = next((i for i, (a, b) in enumerate(zip(ours_m, snmt_m)) if a != b), None)
        t["same"] = same
        t["first_diff"] = first_diff
        t["n_ours"], t["n_snmt"], t["n_hf"] = len(ours_m), len(snmt_m), hf_num_merges(hf_tok)

        log(f"N={n}: memory (tracemalloc, then RSS in fresh processes)")
        t["mem_ours"] = traced_peak(run_ours, text, n) / 2**20
        t["mem_snmt"] = traced_peak(run_snmt, joined, n) / 2**20
        t["rss"] = {w: rss_growth(w, n) for w in ("ours", "snmt", "hf")}
        train[n] = t
        if n == ns[-1]:
            last = {"trace": trace, "codes": codes, "hf": hf_tok}
        else:
            del trace, codes, hf_tok

    # snapshot access on the largest trace, cold
    n_big = ns[-1]
    trace = last["trace"]
    rng = random.Random(0)
    ks = rng.sample(range(len(trace)), min(SNAPSHOT_SAMPLES, len(trace)))
    snap_ms = []
    log(f"snapshot access: {len(ks)} random steps of {len(trace) - 1}")
    for k in ks:
        trace._cache.clear()
        gc.collect()
        t0 = time.perf_counter()
        s = trace[k]
        s.segmentation
        s.pair_counts
        s.vocab
        snap_ms.append((time.perf_counter() - t0) * 1000)
        del s
    trace._cache.clear()

    # encoding the whole text with the largest merge table
    from subword_nmt.apply_bpe import BPE

    enc = {"ours": [], "snmt": [], "hf": []}
    agree = None
    log(f"encoding the whole text with {n_big} merges")
    for r in range(args.repeat):
        if _bpe_encode is not None:
            trace.__dict__.pop("_encode_cache", None)  # cold, as a new apply-bpe object is
            s, e = timed(_bpe_encode, text, trace)
            enc["ours"].append(s)
        bpe = BPE(io.StringIO(last["codes"]))
        s, out = timed(lambda: [bpe.process_line(line) for line in lines])
        enc["snmt"].append(s)
        s, _ = timed(last["hf"].encode_batch, lines)
        enc["hf"].append(s)
    if _bpe_encode is not None:
        ours_tokens = ours_as_snmt(e)
        snmt_tokens = " ".join(out).split()
        agree = ours_tokens == snmt_tokens
        n_enc_tokens = len(e.tokens)
    else:
        n_enc_tokens = None
    snmt_enc_tokens = len(" ".join(out).split())
    del last, trace
    gc.collect()

    # a slider step of the training stepper, on a fresh 10,000-merge trace
    load_slider = os.getloadavg()[0]
    slider = bench_slider(text, log, args.all_charts)
    slider["load"] = (load_slider, os.getloadavg()[0])
    gc.collect()

    # every notebook, headless, in a fresh kernel
    nb_dir = Path(args.notebooks)
    if not nb_dir.is_absolute():
        nb_dir = ROOT / nb_dir
    load_nb = os.getloadavg()[0]
    notebooks = bench_notebooks(nb_dir, log)
    notebooks["load"] = (load_nb, os.getloadavg()[0])

    # -- report -------------------------------------------------------------------------------
    rows_t, rows_m, checks = [], [], []
    for n in ns:
        t = train[n]
        mo, mf, ms, mh = (med(t[k]) for k in ("ours", "ours_first", "snmt", "hf"))
        ratio = mo / ms
        same = "yes" if t["same"] else f"no (first differs at merge {t['first_diff'] + 1 if t['first_diff'] is not None else 'end'})"
        rows_t.append([f"{n:,}", fmt_s(mo), fmt_s(mf), fmt_s(ms), fmt_s(mh), f"{ratio:.2f}",
                       f"{t['n_ours']:,} / {t['n_snmt']:,} / {t['n_hf']:,}", same])
        mratio = t["mem_ours"] / t["mem_snmt"]
        rss = t["rss"]
        rows_m.append([f"{n:,}", fmt_mib(t["mem_ours"]), fmt_mib(t["mem_snmt"]), f"{mratio:.2f}",
                       fmt_mib(rss["ours"]), fmt_mib(rss["snmt"]), fmt_mib(rss["hf"])])
        checks.append([f"training time ours / subword-nmt at {n:,} merges", f"≤ {TARGETS['train_ratio']}",
                       f"{ratio:.2f}", verdict(ratio <= TARGETS["train_ratio"])])
        checks.append([f"tracemalloc peak ours / subword-nmt at {n:,} merges", f"≤ {TARGETS['memory_ratio']}",
                       f"{mratio:.2f}", verdict(mratio <= TARGETS["memory_ratio"])])
        checks.append([f"same merges as subword-nmt at {n:,} merges", "yes", "yes" if t["same"] else "no",
                       verdict(t["same"])])
    snap_med, snap_max = med(snap_ms), max(snap_ms)
    checks.append([f"snapshot access at {n_big:,} merges, median", f"≤ {TARGETS['snapshot_ms']:.0f} ms",
                   f"{snap_med:.1f} ms", verdict(snap_med <= TARGETS["snapshot_ms"])])
    eo, es, eh = med(enc["ours"]), med(enc["snmt"]), med(enc["hf"])
    eratio = eo / es if eo is not None else None
    checks.append([f"encoding ours / subword-nmt apply-bpe at {n_big:,} merges", f"≤ {TARGETS['encode_ratio']}",
                   "not available" if eratio is None else f"{eratio:.2f}",
                   verdict(None if eratio is None else eratio <= TARGETS["encode_ratio"])])
    if agree is not None:
        checks.append(["encoding: same segmentation as apply-bpe, every word", "yes", "yes" if agree else "no",
                       verdict(agree)])

    t_train = md_table(
        ["merges", "ours (lexicographic ties) s", "ours (tie_break=\"first\") s", "subword-nmt s",
         "tokenizers s", "ours / subword-nmt", "merges made (ours / snmt / tokenizers)", "same merges as subword-nmt"],
        rows_t)
    t_mem = md_table(
        ["merges", "ours tracemalloc peak MiB", "subword-nmt tracemalloc peak MiB", "ours / subword-nmt",
         "ours RSS growth MiB", "subword-nmt RSS growth MiB", "tokenizers RSS growth MiB"],
        rows_m)
    t_snap = md_table(["merges", "samples", "median ms", "max ms"],
                      [[f"{n_big:,}", len(snap_ms), f"{snap_med:.1f}", f"{snap_max:.1f}"]])
    t_enc = md_table(
        ["", "median s", "tokens", "vs subword-nmt apply-bpe"],
        [["bpe_viz.encode(text, trace)", "not available" if eo is None else fmt_s(eo),
          "n/a" if n_enc_tokens is None else f"{n_enc_tokens:,}", "n/a" if eratio is None else f"{eratio:.2f}"],
         ["subword-nmt BPE.process_line, every line", fmt_s(es), f"{snmt_enc_tokens:,}", "1.00"],
         ["tokenizers encode_batch(lines)", fmt_s(eh), "", f"{eh / es:.2f}"]])
    # slider
    rows_sl = []
    for how, chart, targeted, m in slider["rows"]:
        rows_sl.append([how, f"{chart}" + (" (default)" if chart == slider["default_chart"] else ""), m["n"],
                        f"{m['med']:.1f}", f"{m['p90']:.1f}", f"{m['max']:.1f}", f"{m['cpu_med']:.1f}"])
        if targeted:
            checks.append([f"slider step, {how} k, chart={chart}, median", f"≤ {TARGETS['slider_ms']:.0f} ms",
                           f"{m['med']:.1f} ms (p90 {m['p90']:.1f})", verdict(m["med"] <= TARGETS["slider_ms"])])
    t_slider = md_table(["steps k", "chart", "samples", "median ms", "p90 ms", "max ms", "CPU median ms"], rows_sl)

    # notebooks
    if notebooks["rows"]:
        rows_nb = []
        for path, n_code, secs, cpu, err in notebooks["rows"]:
            ok = err is None and secs <= TARGETS["notebook_s"]
            rows_nb.append([f"`{path.name}`", n_code, f"{secs:.1f}", f"{cpu:.1f}",
                            "ok" if err is None else f"error: {err}", verdict(ok)])
            checks.append([f"notebook `{path.name}` executed headless", f"≤ {TARGETS['notebook_s']:.0f} s, no error",
                           f"{secs:.1f} s" + ("" if err is None else ", error"), verdict(ok)])
        base, base_cpu = notebooks["baseline"]
        rows_nb.append(["(kernel start-up alone: an empty notebook)", 1, f"{base:.1f}", f"{base_cpu:.1f}",
                        "ok" if notebooks["baseline_err"] is None else f"error: {notebooks['baseline_err']}", ""])
        t_nb = md_table(["notebook", "code cells", "seconds", "kernel CPU s", "result",
                         f"≤ {TARGETS['notebook_s']:.0f} s"], rows_nb)
    else:
        t_nb = (f"No notebooks in `{args.notebooks}/`: nothing executed." if notebooks["skipped"] == "no notebooks"
                else f"Skipped: {notebooks['skipped']}.")
        checks.append(["notebooks executed headless", f"≤ {TARGETS['notebook_s']:.0f} s each",
                       notebooks["skipped"], "n/a"])

    console = [("Training", t_train), ("Memory", t_mem), ("Snapshot access (cold)", t_snap),
               (f"Encoding the whole text ({n_big:,} merges)", t_enc),
               (f"Slider step ({slider['merges']:,}-merge trace)", t_slider), ("Notebook run time", t_nb)]
    md = f"""## Training

{t_train}

* ours: `train_bpe(text, N, preset="subword-nmt")`, which keeps a snapshot after every merge
  (the returned trace can show any step); also with `tie_break="first"`.
* subword-nmt: `learn_bpe` in-process on the normalized lines (`" ".join(line.split())`, empty
  lines dropped) through `io.StringIO`, `min_frequency=2`, stderr silenced.
* tokenizers: `models.BPE(end_of_word_suffix="</w>")`, `WhitespaceSplit`, `BpeTrainer` with
  `vocab_size` = initial alphabet ({alphabet}) + N, `min_frequency=2`, trained from an iterator
  over the lines. Native code, multi-threaded; its tie rule differs, so its merges are not compared.
* "same merges": our merge list equals subword-nmt's codes file, merge for merge.

## Memory

{t_mem}

tracemalloc sees Python allocations only: the peak while training, with the result kept alive
(so for ours it includes the whole trace). RSS growth is the rise of the peak resident set
(`VmHWM`: `ru_maxrss` of that process alone) while training in a fresh process whose input is
already loaded (imports and corpus count in the baseline, not in the growth); it is the only
figure that sees tokenizers' native allocations, and it is coarse.

## Snapshot access

{t_snap}

`s = trace[k]; s.segmentation; s.pair_counts; s.vocab` for {len(snap_ms)} random steps k of the
{n_big:,}-merge trace, with the trace's snapshot cache cleared before each (`trace._cache.clear()`),
so every access rebuilds the step from the nearest checkpoint.

## Encoding

{t_enc}

The whole corpus encoded with the {n_big:,}-merge table: ours `bpe_viz.encode(text, trace)` with
its word cache cleared first; subword-nmt `apply_bpe.BPE(codes).process_line` over every line
(only the segmentation is timed, the `BPE` object is made beforehand, from the codes of the same
learn run); tokenizers `encode_batch(lines)` on the trained tokenizer (native, multi-threaded).

## Slider step

{t_slider}

What one move of the training stepper's slider (or one tick of Play) costs: a fresh
`train_bpe(text, {SLIDER_MERGES}, preset="subword-nmt")` shown by
`MergeExplorer.from_trace(trace, sentence="{SLIDER_SENTENCE}")` (built in
{slider["construct_s"]:.2f} s), matplotlib's Agg backend, then `ex.step = k` timed: it renders the
merge, the words / pairs / vocabulary tables, the colored sentence (`encode` with the first k
merges) and the chart (inline SVG; matplotlib draws a PNG only when `chart_png` or `save` asks),
all in Python (the browser's share, drawing the widgets, is not in it; nor is the idle-time
preparation of the next steps, which needs a running kernel: see "Step latency in a real
browser" for what a learner waits in JupyterLab). "random": {SLIDER_SAMPLES} seeded random k (a jump of the slider); "consecutive (Play)":
{SLIDER_SAMPLES} k in a row, as Play moves. After one untimed step (first-draw costs are paid once
a session), with `ex.error is None` checked after every step. The target is for the default
chart; the other rows ({SLIDER_OTHER_SAMPLES} random k each) are for comparison: "none" shows what
the step costs without the chart (so the chart's share is the difference). Wall time is
what a learner waits; CPU time is this process's alone, less sensitive to other work on the
machine (load average (1 min) {slider["load"][0]:.2f} before this section, {slider["load"][1]:.2f} after).

## Notebook run time

{t_nb}

Each `{args.notebooks}/*.ipynb` executed top to bottom with nbclient (what
`jupyter nbconvert --to notebook --execute` does) in a fresh `python3` kernel, working directory
the notebook's folder, `PYTHONPATH` pointing at this checkout; nothing is written back. The
seconds (wall) include starting and stopping the kernel, measured on its own as the empty
notebook's row; "kernel CPU s" is the kernel process's own CPU time (user + system, from
`getrusage(RUSAGE_CHILDREN)` once it has exited), which other work on the machine inflates less
(load average (1 min) {notebooks["load"][0]:.2f} before this section, {notebooks["load"][1]:.2f} after).
"""
    return checks, console, md


BROWSER_LATENCY = ROOT / "docs" / "browser-latency.json"
BROWSER_WAYS = ("arrows", "click", "jump", "drag", "play")


def report_browser_latency() -> tuple[list, str]:
    """The step latency in a real browser: (Targets rows, Markdown section), read from
    ``docs/browser-latency.json``, which ``benchmarks/browser_latency.py`` writes from the browser
    test (``make bench-browser``). This benchmark starts no browser; it keeps the figures last
    measured, with their date, so that a ``make bench`` never drops them."""
    title = "## Step latency in a real browser\n\n"
    if not BROWSER_LATENCY.exists():
        return ([["explorer step in a real browser, every way of moving, median", "≤ 100 ms", "not measured", "n/a"]],
                title + "Not measured yet: `make bench-browser` runs `tests/browser/test_latency.py` "
                "(JupyterLab in headless Chromium) and writes `docs/browser-latency.md`.\n")
    data = json.loads(BROWSER_LATENCY.read_text())
    before = (data.get("before") or {}).get("explorers", {})
    checks, rows = [], []
    for explorer, sizes in data["explorers"].items():
        for size, ways in sizes.items():
            got = [(w, ways[w]) for w in BROWSER_WAYS if ways.get(w)]
            for w, r in got:
                then = (before.get(explorer) or {}).get(size) or {}
                # (before the step pane, a jump and a click after a rest cost the same: "click")
                was = then.get(w) or (then.get("click") if w == "jump" else None) or {}
                rows.append([explorer, size, w, f"{r['median']:.0f}", f"{r['p90']:.0f}",
                             "–" if r.get("floor") is None else f"{r['floor']:.0f}",
                             "–" if r.get("allowed") is None else f"{r['allowed']:.0f}",
                             {True: "PASS", False: "FAIL"}.get(r.get("pass"), ""),
                             "–" if was.get("median") is None else f"{was['median']:.0f}"])
            # the four ways of the target; a jump (a click with no rest before it) on a row of its own
            for ways_, what in ((("arrows", "click", "drag", "play"), "arrows, click after a rest, drag, Play"),
                                (("jump",), "a click with no rest before it (a jump)")):
                judged = [(w, r) for w, r in got if w in ways_ and r.get("pass") is not None]
                if judged:
                    checks.append([f"step in a real browser, {explorer}, {size} size: {what}, median",
                                   "≤ 100 ms (+ the floor's slowdown)",
                                   ", ".join(f"{w} {r['median']:.0f}" for w, r in judged) + " ms",
                                   verdict(all(r.get("pass") for _w, r in judged))])
    table = md_table(["explorer", "size", "way of moving", "median ms", "p90 ms", "floor ms", "allowed ms", "",
                      "before ms"], rows)
    m = data["machine"]
    when = (f" The \"before\" column: the same test on the version before issue 11 (PNG charts drawn by "
            f"matplotlib on every step), {data['before']['date']}." if before else "")
    text = textwrap.fill(
        f"From the browser test `tests/browser/test_latency.py` (JupyterLab in headless Chromium, the "
        f"10,000-merge documentation trace), measured {data['date']} on {m['cpus']} CPUs with a load average of "
        f"{m['load_start']:.2f} / {m.get('load_end', 0):.2f} at start / end; not rerun by this benchmark "
        f"(`make bench-browser` does). Each figure is the median time from the input (a key, a click, the end "
        f"of a drag, a Play tick) until the page painted the new step with its chart. The floor is a bare "
        f"ipywidgets slider in the same page; \"allowed\" is 100 ms plus the floor's slowdown over a quiet "
        f"machine.{when} How it is measured, and where the time goes: [{data['report']}]({data['report']}).",
        width=96, break_on_hyphens=False)
    return checks, f"{title}{table}\n\n{text}\n"


def parse_sections(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in names if v not in SECTIONS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"sections are {', '.join(SECTIONS)}; got {value!r}")
    return [sec for sec in SECTIONS if sec in names]  # always in the report's order


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--merges", type=int, nargs="+", default=None,
                    help="merge counts to train (default 1000 5000 10000; --quick: 1000 10000)")
    ap.add_argument("--repeat", type=int, default=None, help="runs per timing (default 3; --quick: 1)")
    ap.add_argument("--quick", action="store_true", help="--merges 1000 10000 --repeat 1")
    ap.add_argument("--notebooks", default="notebooks", help="folder whose *.ipynb are executed")
    ap.add_argument("--all-charts", action="store_true",
                    help="time the slider step with every chart, not only the default and none")
    ap.add_argument("--only", type=parse_sections, default=list(SECTIONS), metavar="SECTIONS",
                    help=f"comma-separated sections to run, of {','.join(SECTIONS)} (default: all)")
    ap.add_argument("--long-repeat", type=int, default=None, help="runs per timing in 'long' (default: --repeat)")
    ap.add_argument("--big-repeat", type=int, default=None, help="runs per timing in 'big' (default: --repeat)")
    ap.add_argument("--gpt-repeat", type=int, default=None, help="runs per timing in 'gpt' (default: --repeat)")
    ap.add_argument("--spm-repeat", type=int, default=None, help="runs per timing in 'spm' (default: --repeat)")
    ap.add_argument("--unigram-repeat", type=int, default=None,
                    help="runs per timing in 'unigram' (default: --repeat)")
    ap.add_argument("--out", default="docs/benchmarks.md")
    ap.add_argument("--_rss", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._rss:
        _rss_child(args._rss[0], int(args._rss[1]))
        return 0
    if args.merges is None:
        args.merges = [1000, 10000] if args.quick else [1000, 5000, 10000]
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    sections = args.only
    long_repeat = args.long_repeat or args.repeat
    big_repeat = args.big_repeat or args.repeat
    gpt_repeat = args.gpt_repeat or args.repeat
    spm_repeat = args.spm_repeat or args.repeat
    unigram_repeat = args.unigram_repeat or args.repeat

    command = " ".join(
        ["python benchmarks/bench.py"]
        + ([f"--only {','.join(sections)}"] if sections != list(SECTIONS) else [])
        + ([f"--merges {' '.join(map(str, args.merges))}"] if "main" in sections else [])
        + ([f"--repeat {args.repeat}"] if sections != ["rss"] else [])  # rss: one process per figure
        + ([f"--gpt-repeat {gpt_repeat}"] if "gpt" in sections and gpt_repeat != args.repeat else [])
        + ([f"--spm-repeat {spm_repeat}"] if "spm" in sections and spm_repeat != args.repeat else [])
        + ([f"--unigram-repeat {unigram_repeat}"] if "unigram" in sections and unigram_repeat != args.repeat
           else [])
        + ([f"--long-repeat {long_repeat}"] if "long" in sections and long_repeat != args.repeat else [])
        + ([f"--big-repeat {big_repeat}"] if "big" in sections and big_repeat != args.repeat else [])
        + ([f"--notebooks {args.notebooks}"] if "main" in sections else [])
        + [f"--out {args.out}"]
        + (["--all-charts"] if args.all_charts and "main" in sections else []))
    started = time.perf_counter()
    load_start = os.getloadavg()
    log = lambda *a: print(*a, file=sys.stderr, flush=True)  # noqa: E731

    text = load_text()
    lines = snmt_lines(text)
    n_words = sum(len(line.split()) for line in lines)
    log(f"corpus: {len(text):,} characters, {n_words:,} words, {len(lines):,} non-empty lines")

    checks, console, mds = [], [], []  # Targets rows, printed tables, Markdown sections
    big_note = ""
    if "main" in sections:
        ch, co, md = bench_suite(text, args, log)
        checks += ch
        console += co
        mds.append(md)
        gc.collect()
    if "gpt" in sections:
        ch, co, md = report_gpt(bench_gpt(text, gpt_repeat, log))
        checks += ch
        console += co
        mds.append(md)
        gc.collect()
    if "spm" in sections:
        ch, co, md = report_spm(bench_spm(text, spm_repeat, log))
        checks += ch
        console += co
        mds.append(md)
        gc.collect()
    if "unigram" in sections:
        ch, co, md = report_unigram(bench_unigram(text, unigram_repeat, log))
        checks += ch
        console += co
        mds.append(md)
        gc.collect()
    if "long" in sections:
        ch, co, md = report_long(bench_long(text, long_repeat, log))
        checks += ch
        console += co
        mds.append(md)
        gc.collect()
    if "big" in sections or "rss" in sections:
        with tempfile.TemporaryDirectory(prefix="bpe-bench-") as tmp:
            whole_rss = WholeRss(Path(tmp))
            t0 = time.perf_counter()
            big = make_big_corpus(text)
            stats = corpus_stats(big)
            stats["gen_s"] = time.perf_counter() - t0
            log(f"bigger corpus: {stats['bytes']:,} bytes, {stats['distinct']:,} distinct words, "
                f"{stats['running']:,} running words, {stats['lines']:,} lines, sha256 {stats['sha256']}, "
                f"generated in {stats['gen_s']:.1f} s")
            big_note = (f" The bigger corpus, generated by this benchmark (`make_big_corpus`, seed {BIG_SEED}):"
                        f" {stats['bytes']:,} bytes of UTF-8, {stats['distinct']:,} distinct words,"
                        f" {stats['running']:,} running words, {stats['lines']:,} lines"
                        f" (sha256 {stats['sha256']}…).")
            whole_rss.add("docs", text)
            whole_rss.add("big", big)
            if "big" in sections:
                ch, co, md = report_big(bench_big(big, big_repeat, log, whole_rss), stats)
                checks += ch
                console += co
                mds.append(md)
            if "rss" in sections:
                del big  # the children read it from the file; this process needs it no more
                gc.collect()
                ch, co, md = report_rss(bench_rss(whole_rss, log))
                checks += ch
                console += co
                mds.append(md)

    elapsed = time.perf_counter() - started
    ch, md = report_browser_latency()  # measured by the browser test, kept in docs/browser-latency.json
    checks += ch
    mds.append(md)
    t_checks = md_table(["target", "wanted", "measured", ""], checks)

    print()
    for title, table in console + [("Targets", t_checks)]:
        print(f"## {title}\n{table}\n")
    print(f"total benchmark time: {elapsed:.0f} s")

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    uniform = "main" in sections and all(
        r == args.repeat for sec, r in (("gpt", gpt_repeat), ("spm", spm_repeat), ("unigram", unigram_repeat),
                                        ("long", long_repeat), ("big", big_repeat)) if sec in sections)
    repeats = (f"Times are medians of {args.repeat} runs" if uniform
               else "Times are medians of repeated runs (each section says how many)")
    corpus_par = textwrap.fill(
        f'Corpus: `"\\n".join(pydoc_data.topics.topics.values())`, Python\'s documentation topics:'
        f" {len(text):,} characters, {n_words:,} words, {len(lines):,} non-empty lines.{big_note}"
        f" {repeats}; within each repeat the competitors run one after another, so a noisy moment"
        " hits all of them. Ratios are ratios of medians.", width=96, break_on_hyphens=False)
    report = f"""# Benchmarks

How fast `bpe_viz` trains, remembers and encodes, next to the reference implementations.
Generated by `benchmarks/bench.py`; rerun with `make bench` or:

```
{command}
```

## Machine

| | |
|---|---|
| date | {now} |
| CPU | {cpu_model()} ({os.cpu_count()} logical CPUs) |
| Python | {platform.python_implementation()} {platform.python_version()} on {platform.platform()} |
| bpe-viz | {version_of("bpe-viz")}, git {git_rev()} |
| subword-nmt | {version_of("subword-nmt")} |
| tokenizers | {version_of("tokenizers")} |
| tiktoken | {version_of("tiktoken")} |
| sentencepiece | {version_of("sentencepiece")} |
| tensorflow-datasets | {version_of("tensorflow-datasets")} (its SubwordTextEncoder module alone, run offline) |
| benchmark run time | {elapsed:.0f} s |
| load average (1 min) at start / end | {load_start[0]:.2f} / {os.getloadavg()[0]:.2f} (other work on the machine slows every competitor) |

{corpus_par}

## Targets

{t_checks}

"""
    report += "\n".join(mds)
    out = Path(args.out)
    if not out.is_absolute():
        out = ROOT / out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
