"""Memory measured in fresh processes, for what tracemalloc cannot see: the native allocations
of tokenizers and sentencepiece, and a whole process's peak.

``rss_growth`` (the Memory table on the documentation text), ``unigram_rss`` and
``spm_unigram_log`` (the Unigram section) and ``WholeRss`` (the bigger-corpus and whole-process
sections, memoized so they share a measurement; its "use" job is issue 20's memory job: train,
read ``RSS_SNAPSHOTS`` random steps, encode the whole text). Each child is ``python -c`` with a short script
(the ``*_CHILD`` strings below) that imports nothing but what it measures: a script file, or this
benchmark's modules, would be compiled first and raise the peak before the baseline is taken. A
failed child is reported on stderr and gives None: the report shows "n/a".
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from corpora import snmt_lines
from settings import ROOT, RSS_TIMEOUT

HERE = Path(__file__).resolve().parent

# This process's peak resident set (KiB), the first lines of every child.
HWM = r"""
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
"""

#: random steps the "use" job reads (issue 20's memory job: train, read 30 snapshots, encode)
RSS_SNAPSHOTS = 30

# One competitor on a corpus file (argv: ours / snmt, checkout, corpus file, merges, job). Job
# "train": training only. Job "use": training, then (ours) RSS_SNAPSHOTS random steps read as a
# view reads them (segmentation, pair counts, vocabulary), then the whole file encoded, keeping the
# trace, the steps' cache and the encoding; subword-nmt, which has no steps, makes its apply-bpe
# BPE from the codes and encodes every line, keeping the codes and the output. Prints the peak
# resident set (KiB) at start, after the import, at the end, and the merges made.
WHOLE_RSS_CHILD = HWM + r"""
which, root, path, n, job = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
start = hwm()
import io, random
if which == "ours":
    sys.path.insert(0, root)
    from bpe_viz import encode, train_bpe
    imported = hwm()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    trace = train_bpe(text, n, preset="subword-nmt")
    made = len(trace.merges)
    if job == "use":
        for k in random.Random(0).sample(range(len(trace)), min(int(sys.argv[6]), len(trace))):
            snap = trace[k]
            snap.segmentation, snap.pair_counts, snap.vocab
        encoded = encode(text, trace)
else:
    from subword_nmt.learn_bpe import learn_bpe
    if job == "use":
        from subword_nmt.apply_bpe import BPE
    imported = hwm()
    codes = io.StringIO()
    with open(path, encoding="utf-8") as f:
        learn_bpe(f, codes, n, min_frequency=2)
    made = sum(1 for line in codes.getvalue().splitlines() if line and not line.startswith("#version"))
    if job == "use":
        bpe = BPE(io.StringIO(codes.getvalue()))
        with open(path, encoding="utf-8") as f:
            encoded = [bpe.process_line(line) for line in f]
print(start, imported, hwm(), made)
"""

# The Unigram LM, ours or sentencepiece's (argv: ours / sp / sp1, checkout, vocab_size, characters of
# the documentation text or "all"): the text and its lines loaded before the baseline. Prints JSON:
# the peak resident set (KiB) at start, after the import, before training and at the end, and the pieces.
UNIGRAM_RSS_CHILD = r"""
import gc, io, json
""" + HWM + r"""
which, root, vocab = sys.argv[1], sys.argv[2], int(sys.argv[3])
chars = None if sys.argv[4] == "all" else int(sys.argv[4])
start = hwm()
import pydoc_data.topics
if which == "ours":
    sys.path.insert(0, root)
    from bpe_viz import train_unigram
else:
    import sentencepiece as spm
imported = hwm()
text = "\n".join(pydoc_data.topics.topics.values())[:chars]
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

# sentencepiece trained once more with its log on (minloglevel=0), to read what it did: its thread
# count, its seed pieces, its EM rounds (argv: vocab_size, characters or "all").
SPM_LOG_CHILD = r"""
import io, sys, pydoc_data.topics, sentencepiece as spm
text = "\n".join(pydoc_data.topics.topics.values())[:None if sys.argv[2] == "all" else int(sys.argv[2])]
spm.SentencePieceTrainer.train(sentence_iterator=iter(text.split("\n")), model_writer=io.BytesIO(),
                               model_type="unigram", vocab_size=int(sys.argv[1]),
                               normalization_rule_name="identity", minloglevel=0)
"""

# The growth of the peak while training one BPE competitor (argv: ours / snmt / hf, checkout, merges,
# characters or "all"), every competitor imported and the input loaded before the baseline. JSON, MiB.
GROWTH_CHILD = HWM + r"""
import gc, json
which, root, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path[:0] = [sys.argv[5], root]
import subword_nmt.learn_bpe, tokenizers
import ours
from competitors import run_hf, run_snmt
from corpora import hf_initial_alphabet, load_text, snmt_lines
text = load_text(None if sys.argv[4] == "all" else int(sys.argv[4]))
lines = snmt_lines(text)
joined = "\n".join(lines) + "\n"
alphabet = hf_initial_alphabet(lines)
gc.collect()
before = hwm()
if which == "ours":
    result = ours.train_subword_nmt(text, n)
elif which == "snmt":
    result = run_snmt(joined, n)
else:
    result = run_hf(lines, n, alphabet)
after = hwm()
del result
print(json.dumps({"mib": (after - before) / 1024}))
"""


def run_child(source: str, args: list, what: str, cwd=None, timeout: int = RSS_TIMEOUT):
    """``python -c source *args``: the finished process, or None (and a line on stderr) if it failed."""
    cmd = [sys.executable, "-c", source, *map(str, args)]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=timeout, cwd=cwd)
    except Exception as exc:  # report, don't die
        print(f"  {what} failed: {exc}", file=sys.stderr)
        return None


def last_line(proc: subprocess.CompletedProcess | None) -> str | None:
    """The child's last line of output (its figures), None if it failed or printed nothing."""
    lines = [] if proc is None else proc.stdout.strip().splitlines()
    return lines[-1] if lines else None


def chars_arg(chars: int | None) -> str:
    return "all" if chars is None else str(chars)


def rss_growth(which: str, n: int, chars: int | None) -> float | None:
    """Growth of the peak RSS (MiB) while training in a fresh process, input already loaded."""
    out = last_line(run_child(GROWTH_CHILD, [which, ROOT, n, chars_arg(chars), HERE], f"rss {which} N={n}",
                              timeout=600))
    return None if out is None else json.loads(out)["mib"]


def unigram_rss(which: str, vocab: int, chars: int | None) -> dict | None:
    """Peak resident set (MiB) of a fresh process training ``which`` to ``vocab``: at start, after
    the import, before training (input loaded) and at the end; None if the child failed."""
    out = last_line(run_child(UNIGRAM_RSS_CHILD, [which, ROOT, vocab, chars_arg(chars)],
                              f"unigram rss {which} vocab_size={vocab}"))
    if out is None:
        return None
    return {k: (v / 1024 if k != "made" else v) for k, v in json.loads(out).items()}


def spm_unigram_log(vocab: int, chars: int | None) -> dict:
    """What sentencepiece's own log says about one training (default threads): ``num_threads``,
    the seed pieces, the EM rounds (one ``EM sub_iter=0`` line each) and the size after each."""
    proc = run_child(SPM_LOG_CHILD, [vocab, chars_arg(chars)], f"sentencepiece log at vocab_size={vocab}")
    if proc is None:
        return {}
    err = proc.stderr
    threads = re.search(r"^\s*num_threads: (\d+)", err, re.M)
    seeds = re.search(r"Initialized (\d+) seed", err)
    return {"threads": int(threads[1]) if threads else None, "seeds": int(seeds[1]) if seeds else None,
            "rounds": len(re.findall(r"EM sub_iter=0 ", err))}


class WholeRss:
    """Whole-process peak RSS of a fresh process training on a corpus file (job "train") or
    training, reading steps and encoding (job "use"), memoized by (competitor, corpus name,
    merges, job), so sections share a measurement."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.files: dict[str, Path] = {}
        self.cache: dict[tuple, dict | None] = {}

    def add(self, name: str, text: str) -> None:
        """The corpus both competitors read: the normalized lines, UTF-8."""
        path = self.folder / f"{name}.txt"
        path.write_text("\n".join(snmt_lines(text)) + "\n", encoding="utf-8")
        self.files[name] = path

    def __call__(self, which: str, name: str, n: int, job: str = "train") -> dict | None:
        key = (which, name, n, job)
        if key not in self.cache:
            out = last_line(run_child(WHOLE_RSS_CHILD, [which, ROOT, self.files[name], n, job, RSS_SNAPSHOTS],
                                      f"whole-process rss {which} {name} N={n} ({job})", cwd=self.folder))
            if out is None:
                self.cache[key] = None
            else:
                start, imported, peak, made = map(int, out.split())
                self.cache[key] = {"start": start / 1024, "imported": imported / 1024, "peak": peak / 1024,
                                   "made": made}
        return self.cache[key]


def peak_mib(r: dict | None) -> float | None:
    return None if r is None else r["peak"]
