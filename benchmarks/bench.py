#!/usr/bin/env python3
"""Benchmark bpe-viz against subword-nmt and Hugging Face tokenizers.

    python benchmarks/bench.py [--merges 1000 5000 10000] [--repeat 3] [--out docs/benchmarks.md]

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
  ``BPE.process_line`` on every line vs ``Tokenizer.encode_batch``.

Results are printed and written as Markdown to ``--out``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import io
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from bpe_viz import train_bpe  # noqa: E402

try:  # written concurrently with this benchmark: report "not available" until it exists
    from bpe_viz.encode import encode as _bpe_encode  # noqa: E402
except ImportError:
    _bpe_encode = None

TARGETS = {
    "train_ratio": 0.5,  # ours / subword-nmt training time
    "memory_ratio": 2.0,  # ours / subword-nmt tracemalloc peak
    "snapshot_ms": 20.0,  # median cold snapshot access at the largest N
    "encode_ratio": 1.0,  # ours / subword-nmt apply-bpe
}
SNAPSHOT_SAMPLES = 50


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
    from subword_nmt.learn_bpe import learn_bpe

    infile, outfile = io.StringIO(joined), io.StringIO()
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
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--merges", type=int, nargs="+", default=[1000, 5000, 10000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="docs/benchmarks.md")
    ap.add_argument("--_rss", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._rss:
        _rss_child(args._rss[0], int(args._rss[1]))
        return 0

    command = (f"python benchmarks/bench.py --merges {' '.join(map(str, args.merges))} "
               f"--repeat {args.repeat} --out {args.out}")
    started = time.perf_counter()
    load_start = os.getloadavg()
    log = lambda *a: print(*a, file=sys.stderr, flush=True)  # noqa: E731

    text = load_text()
    lines = snmt_lines(text)
    joined = "\n".join(lines) + "\n"
    alphabet = hf_initial_alphabet(lines)
    n_words = sum(len(line.split()) for line in lines)
    log(f"corpus: {len(text):,} characters, {n_words:,} words, {len(lines):,} non-empty lines")

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

    elapsed = time.perf_counter() - started

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
    t_checks = md_table(["target", "wanted", "measured", ""], checks)

    print()
    for title, table in (("Training", t_train), ("Memory", t_mem), ("Snapshot access (cold)", t_snap),
                         (f"Encoding the whole text ({n_big:,} merges)", t_enc), ("Targets", t_checks)):
        print(f"## {title}\n{table}\n")
    print(f"total benchmark time: {elapsed:.0f} s")

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
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
| benchmark run time | {elapsed:.0f} s |
| load average (1 min) at start / end | {load_start[0]:.2f} / {os.getloadavg()[0]:.2f} (other work on the machine slows every competitor) |

Corpus: `"\\n".join(pydoc_data.topics.topics.values())`, Python's documentation topics:
{len(text):,} characters, {n_words:,} words, {len(lines):,} non-empty lines. Times are medians
of {args.repeat} runs; within each repeat the competitors run one after another, so a noisy
moment hits all of them. Ratios are ratios of medians.

## Targets

{t_checks}

## Training

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
"""
    out = Path(args.out)
    if not out.is_absolute():
        out = ROOT / out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
