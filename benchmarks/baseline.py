"""``bench.py --baseline DIR``: our own code before and after, in one run, as ratios.

Two worker processes (``baseline_worker.py``), one importing this checkout's ``bpe_viz`` and one
DIR's, time the same calls of ``ours.py`` (bpe_viz's public API only, so an older checkout runs
them unchanged) on the same inputs, interleaved: before, after, after, before, before, after …,
one measurement at a time, so the two share the machine's noise. The cases are the sections' own
timings of our code (``--only`` picks sections; ``rss`` has none), at the sizes the sections use
(``--tiny``, ``--merges``, ``--repeat`` and the ``--SECTION-repeat`` flags apply). One table (case,
before median, after median, after / before, the range of the repeats' ratios, a verdict) is
printed and written to ``--baseline-out``. Nothing here compares with the competitors.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

from report import cpu_model, git_rev, md_table
from settings import (
    CS336_CORPUS,
    CS336_VOCAB,
    GPT_HUGE_VOCAB,
    ROOT,
    SPM_DROPOUT,
    UNIGRAM_COURSE_VOCAB,
)
from timing import load1, med

WORKER = Path(__file__).resolve().parent / "baseline_worker.py"
NOISE = 0.05  # "slower" only if every repeat's after / before is above 1.05 ("faster": below 1 / 1.05)


def call(label: str, fn: str, *args) -> tuple[str, dict]:
    return label, {"kind": "call", "fn": fn, "args": list(args)}


def reads(label: str, kind: str, trace: list, **more) -> tuple[str, dict]:
    return label, {"kind": kind, "trace": trace, **more}


def main_cases(args) -> list:
    sz, ns = args.sizes, sorted(set(args.merges))
    out = []
    for n in ns:
        out.append(call(f'train_bpe(text, {n:,}, preset="subword-nmt"), s', "train_subword_nmt", "$text", n))
        out.append(call('the same, tie_break="first", s', "train_subword_nmt", "$text", n, "first"))
    big = ["train_subword_nmt", "$text", ns[-1]]
    return out + [
        reads(f"trace[k] cold, {ns[-1]:,} merges, median of {sz.snapshot_samples} k, ms", "snapshot", big,
              samples=sz.snapshot_samples),
        reads(f"encode(text, trace), {ns[-1]:,} merges, word cache cleared, s", "encode", big),
        reads(f"slider step, {sz.slider_merges:,}-merge trace, default chart, median of {sz.slider_samples} "
              "random k, ms", "slider", ["train_subword_nmt", "$text", sz.slider_merges], samples=sz.slider_samples)]


def gpt_cases(args) -> list:
    trace = ["train_gpt", "$text", GPT_HUGE_VOCAB]
    out = [call('train_bpe(text, preset="cs336") until pairs run out, s', *trace)]
    if CS336_CORPUS.is_file():
        out.append(call(f"CS336 speed test (corpus.en, vocab_size {CS336_VOCAB}), s", "train_cs336", "$cs336",
                        CS336_VOCAB))
    return out + [reads("encode(text, cs336 trace).ids, word cache cleared, s", "encode", trace, ids=True)]


def spm_cases(args) -> list:
    vocabs = args.sizes.spm_vocabs
    out = [call(f'train_bpe(text, vocab_size={v:,}, preset="sentencepiece"), s', "train_spm", "$text", v)
           for v in vocabs]
    trace = ["train_spm", "$text", vocabs[-1]]
    return out + [reads(f"encode(text, trace).ids, vocab_size {vocabs[-1]:,}, s", "encode", trace, ids=True),
                  reads(f"encode(text, trace, dropout={SPM_DROPOUT}, seed=0).ids, s", "encode", trace, ids=True,
                        options={"dropout": SPM_DROPOUT, "seed": 0})]


def unigram_cases(args) -> list:
    sz = args.sizes
    out = []
    for v in sz.unigram_vocabs:
        out.append(call(f'train_unigram(text, vocab_size={v:,}, flavour="sentencepiece"), s', "train_unigram_spm",
                        "$text", v))
        out.append(reads(f"a round read cold, vocab_size {v:,}, median of {sz.unigram_round_samples} k, ms", "round",
                         ["train_unigram_spm", "$text", v], samples=sz.unigram_round_samples))
    out.append(reads(f"encode(text, trace), Unigram vocab_size {sz.unigram_vocabs[-1]:,}, s", "encode",
                     ["train_unigram_spm", "$text", sz.unigram_vocabs[-1]]))
    out.append(call(f'train_unigram(course, {UNIGRAM_COURSE_VOCAB}, flavour="hf-course"), s', "train_course",
                    "$course", UNIGRAM_COURSE_VOCAB))
    return out + [call(f"train_subword_text_encoder(text, {t:,}), s", "train_ste", "$text", t) for t in sz.ste_targets]


def long_cases(args) -> list:
    n = args.sizes.long_merges
    return [call(f'train_bpe([word[:{length:,}]], {n}, preset="hf-course"), s', "train_long", f"$long:{length}", n)
            for length in args.sizes.long_lengths]


def big_cases(args) -> list:
    return [call(f'bigger corpus: train_bpe(big, {n:,}, preset="subword-nmt"), s', "train_subword_nmt", "$big", n)
            for n in args.sizes.big_merges]


CASES = {"main": main_cases, "gpt": gpt_cases, "spm": spm_cases, "unigram": unigram_cases, "long": long_cases,
         "big": big_cases}


class Side:
    """A worker process importing one checkout's ``bpe_viz``."""

    def __init__(self, name: str, root: Path, setup: dict):
        self.name, self.root = name, root
        self.proc = subprocess.Popen([sys.executable, str(WORKER), str(root), json.dumps(setup)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=root)

    def ask(self, request: dict) -> dict:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.name} worker ({self.root}) stopped; its stderr says why")
        return json.loads(line)

    def close(self) -> None:
        try:
            self.proc.stdin.close()  # the worker ends at the end of its input
            self.proc.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def measure_all(sides: list[Side], cases: list, repeats: dict, log) -> list[dict]:
    """Every case ``repeats[section]`` times on each side, the sides taking turns (which goes first
    alternates, so that neither always runs on a machine the other just warmed or cooled)."""
    rows = []
    for i, (section, label, case) in enumerate(cases):
        row = {"section": section, "label": label, "values": {s.name: [] for s in sides}, "error": {}}
        for r in range(repeats[section]):
            log(f"baseline: {section}: {label}, repeat {r + 1}/{repeats[section]}")
            for side in (sides if r % 2 == 0 else sides[::-1]):  # before, after, after, before, …
                if side.name in row["error"]:
                    continue
                answer = side.ask({"op": "measure", "case": {**case, "repeat": r}})
                if "error" in answer:
                    row["error"][side.name] = answer["error"]
                    log(f"  {side.name}: {answer['error']}")
                else:
                    row["values"][side.name].append(answer["value"])
        rows.append(row)
        if i + 1 == len(cases) or cases[i + 1][0] != section:  # the section's traces are done with
            for side in sides:
                side.ask({"op": "forget"})
    return rows


def table_row(row: dict) -> list:
    """case, before and after medians, their ratio, the range of the paired ratios, the verdict."""
    before, after = row["values"]["before"], row["values"]["after"]
    label, unit = row["label"].rsplit(", ", 1)
    cells = [f"{row['section']}: {label}"]
    for side, xs in (("before", before), ("after", after)):
        cells.append(f"error: {row['error'][side]}" if side in row["error"] else
                     f"{med(xs):.3f} {unit}" if unit == "s" else f"{med(xs):.2f} {unit}")
    if row["error"]:
        return cells + ["n/a", "n/a", "n/a"]
    pairs = [a / b for a, b in zip(after, before)]  # each repeat's after / before, taken a moment apart
    if len(pairs) < 2:
        verdict = "one run: not judged"
    elif min(pairs) > 1 + NOISE:
        verdict = "slower"
    elif max(pairs) < 1 / (1 + NOISE):
        verdict = "faster"
    else:
        verdict = "same"
    return cells + [f"{med(after) / med(before):.2f}", f"{min(pairs):.2f}–{max(pairs):.2f}", verdict]


def report(args, rows: list[dict], sides: list[Side], started: str, loads: tuple) -> str:
    table = md_table(["case", "before (median)", "after (median)", "after / before", "each repeat", "verdict"],
                     [table_row(row) for row in rows])
    before, after = sides[0].root, sides[1].root
    repeats = sorted({args.repeats[sec] for sec in args.only if sec in CASES})
    head = md_table(["", ""], [
        ["date", started], ["CPU", f"{cpu_model()} ({os.cpu_count()} logical CPUs)"],
        ["before", f"`{before}`, git {git_rev(before)}"], ["after", f"`{after}`, git {git_rev(after)}"],
        ["repeats", f"{', '.join(map(str, repeats))}, taking turns: before, after, after, before, …"],
        ["load average (1 min) at start / end", f"{loads[0]:.2f} / {loads[1]:.2f}"]])
    command = " ".join(["python benchmarks/bench.py", *args.argv])
    return f"""# Before / after: our own code

`{command}`: the same calls of our public API (`benchmarks/ours.py`) timed in two worker
processes, one importing each checkout's `bpe_viz`, one measurement at a time, before and after
taking turns, at the sizes of the benchmark's sections{" (here `--tiny`: figures that mean nothing)" if args.tiny else ""}.

{head}

{table}

"after / before" is the ratio of the medians: above 1, the change made it slower. "each repeat":
the lowest and highest after / before of one repeat's pair (the two measured one after the other,
so they share the machine's moment). "slower" means every pair is above {1 + NOISE:.2f}, "faster"
every pair below 1 / {1 + NOISE:.2f}; "same", anything else: the difference is within the noise.
"""


def main(args, log) -> int:
    """Run the comparison, print the table, write ``--baseline-out``."""
    before_root = Path(args.baseline).resolve()
    if not (before_root / "bpe_viz" / "__init__.py").is_file():
        raise SystemExit(f"--baseline {args.baseline}: no bpe_viz/ in that folder")
    cases = [(sec, label, case) for sec in args.only if sec in CASES for label, case in CASES[sec](args)]
    if not cases:
        raise SystemExit("--baseline: none of the sections asked for times our own code (rss does not)")
    setup = {k: v for k, v in dataclasses.asdict(args.sizes).items() if k in ("text_chars", "big_types", "big_bytes")}
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load_start = load1()
    sides = [Side("before", before_root, setup), Side("after", ROOT, setup)]
    try:
        for side in sides:
            log(f"baseline: {side.name}: bpe_viz from {side.ask({'op': 'info'})['bpe_viz']}")
        rows = measure_all(sides, cases, args.repeats, log)
    finally:
        for side in sides:
            side.close()
    text = report(args, rows, sides, started, (load_start, load1()))
    print(text)
    out = Path(args.baseline_out)
    out = out if out.is_absolute() else ROOT / out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"wrote {out}")
    return 0
