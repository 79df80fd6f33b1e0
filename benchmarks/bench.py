#!/usr/bin/env python3
"""Benchmark bpe-viz against subword-nmt and Hugging Face tokenizers.

    python benchmarks/bench.py [--merges 1000 5000 10000] [--repeat 3] [--out docs/benchmarks.md]
    python benchmarks/bench.py --quick     # --merges 1000 10000 --repeat 1, for a quick look

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
  kernel (the time includes the kernel's start-up, measured on its own too).

Results are printed and written as Markdown to ``--out``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import io
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
    "slider_ms": 150.0,  # median wall time of one slider step, default chart
    "notebook_s": 10.0,  # each notebook executed headless, kernel start-up included
}
SNAPSHOT_SAMPLES = 50
SLIDER_MERGES = 10000
SLIDER_SAMPLES = 60
SLIDER_OTHER_SAMPLES = 30  # chart "none" (and with --all-charts the others), for comparison only
SLIDER_SENTENCE = "The tokenizer splits unfamiliar words into subword units."
NOTEBOOK_TIMEOUT = 600  # seconds per cell


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
    from bpe_viz.explorers import MergeExplorer

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
    from bpe_viz.explorers import CHART_CHOICES

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
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--merges", type=int, nargs="+", default=None,
                    help="merge counts to train (default 1000 5000 10000; --quick: 1000 10000)")
    ap.add_argument("--repeat", type=int, default=None, help="runs per timing (default 3; --quick: 1)")
    ap.add_argument("--quick", action="store_true", help="--merges 1000 10000 --repeat 1")
    ap.add_argument("--notebooks", default="notebooks", help="folder whose *.ipynb are executed")
    ap.add_argument("--all-charts", action="store_true",
                    help="time the slider step with every chart, not only the default and none")
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

    command = (f"python benchmarks/bench.py --merges {' '.join(map(str, args.merges))} "
               f"--repeat {args.repeat} --notebooks {args.notebooks} --out {args.out}"
               + (" --all-charts" if args.all_charts else ""))
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

    t_checks = md_table(["target", "wanted", "measured", ""], checks)

    print()
    for title, table in (("Training", t_train), ("Memory", t_mem), ("Snapshot access (cold)", t_snap),
                         (f"Encoding the whole text ({n_big:,} merges)", t_enc),
                         (f"Slider step ({slider['merges']:,}-merge trace)", t_slider),
                         ("Notebook run time", t_nb), ("Targets", t_checks)):
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

## Slider step

{t_slider}

What one move of the training stepper's slider (or one tick of Play) costs: a fresh
`train_bpe(text, {SLIDER_MERGES}, preset="subword-nmt")` shown by
`MergeExplorer.from_trace(trace, sentence="{SLIDER_SENTENCE}")` (built in
{slider["construct_s"]:.2f} s), matplotlib's Agg backend, then `ex.step = k` timed: it renders the
merge, the words / pairs / vocabulary tables, the colored sentence (`encode` with the first k
merges) and the chart to PNG, all in Python (the browser's share, drawing the widgets, is not in
it). "random": {SLIDER_SAMPLES} seeded random k (a jump of the slider); "consecutive (Play)":
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
    out = Path(args.out)
    if not out.is_absolute():
        out = ROOT / out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
