#!/usr/bin/env python3
"""The step latency in a real browser, as a report: docs/browser-latency.md (and .json).

    python benchmarks/browser_latency.py                 # run the browser test, then write the report
    python benchmarks/browser_latency.py --from test-artifacts/browser/latency.json
    python benchmarks/browser_latency.py --from new.json --before old.json   # with a "before" column

The figures come from ``tests/browser/test_latency.py`` (JupyterLab in headless Chromium, the
10,000-merge documentation trace; its docstring says what is timed and how), which writes them
to ``test-artifacts/browser/latency.json`` and never into the source tree. This script turns
them into ``docs/browser-latency.md`` for people and ``docs/browser-latency.json`` (a summary)
that ``benchmarks/bench.py`` reads for its "Step latency in a real browser" section and its
targets table, so that ``make bench`` keeps them. ``make bench-browser`` runs this script.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "test-artifacts" / "browser" / "latency.json"
OUT_MD = ROOT / "docs" / "browser-latency.md"
OUT_JSON = ROOT / "docs" / "browser-latency.json"
WAYS = ("arrows", "click", "jump", "drag", "play")
WAY_TEXT = {
    "arrows": "arrow keys (consecutive steps), from the keydown",
    "click": "a click on the track where the pointer rested 250 ms, from the pointerdown",
    "jump": "a click on the track with no rest before it, from the pointerdown",
    "drag": "a drag, from its last move to the final step",
    "play": "Play, each tick, from the readout's change",
}


def run_test() -> int:
    """Run the browser test (it writes RESULTS); its exit code (1 = a target missed)."""
    cmd = [sys.executable, "-m", "pytest", "tests/browser/test_latency.py", "-q", "-p", "no:cacheprovider"]
    print("running", " ".join(cmd), file=sys.stderr)
    env = {**os.environ, "BPE_VIZ_LATENCY": "1", "BPE_VIZ_STRICT_LATENCY": "1"}
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


def fmt(x) -> str:
    return "–" if x is None else f"{x:.0f}"


def summary(data: dict) -> dict:
    """The figures the reports show: explorer -> size -> way -> numbers."""
    out = {}
    for key, runs in data["runs"].items():
        explorer, size = key.split("/")
        for way in WAYS:
            r = runs.get(way)
            if not r:
                continue
            out.setdefault(explorer, {}).setdefault(size, {})[way] = {
                "median": r["all"].get("median"), "p90": r["all"].get("p90"), "n": r["all"].get("n"),
                "text": r["text"].get("median"),
                "lag_while_dragging": (r.get("lag_while_dragging") or {}).get("median"),
                "floor": r.get("floor_ms"), "allowed": r.get("allowed_ms"), "allowed_p90": r.get("allowed_p90_ms"),
                "pass": r.get("pass"),
                "parts": {k: v.get("median") for k, v in (r.get("parts") or {}).items()},
            }
        out.setdefault(explorer, {}).setdefault(size, {})["load"] = runs.get("load")
        out[explorer][size]["track"] = runs.get("track_wait_s")
    return out


#: how to read the tables, and how the explorers get there (the closing paragraph)
READING = (
    "Reading the columns: \"reply\" is the time until the page first changed after the input, "
    "\"DOM done\" until the whole step was in the page, \"painted after\" the frame that showed it. "
    "How the explorers get there (bpe_viz/widgets/step_pane.py): the part of the view that changes "
    "on every step is one small anywidget, a step pane, that keeps in the page the steps the kernel "
    "rendered and shows the one the slider is on without asking the kernel. After each step the "
    "kernel renders the steps next to it while idle and sends them ahead (arrow keys, Play and "
    "most drags find their step in the page); a pointer resting on the slider's track asks for "
    "the step under it (a click there finds it); the page tells the kernel which steps a click on "
    "the track can reach (one per whole pixel: about 344 on the default slider) and the kernel, "
    "once the learner has been idle for a second, sends them compressed (about 5 kB a step), so a "
    "jump anywhere, or the end of a drag, finds its step in the page too (issue 20; the jumps here "
    "are measured once they are there: each size's heading says how many seconds after the explorer "
    "was shown at that size. A jump before that, or the moment after a retrain, costs what a jump "
    "cost before: a round trip). A step the "
    "page lacks is asked for at once by a custom message, which ipywidgets does not hold back while "
    "the kernel is busy (the kernel's round trip plus its render of that step; issue 20: the tie "
    "rule's sort keys are kept per trace, and the ties at the best count are read from where the "
    "next merge is met, so a cold step no longer ranks thousands of tied pairs). "
    "The charts are inline SVG written in a "
    "few milliseconds (bpe_viz/view/merges/svg.py); before issue 11, matplotlib drew and PNG-encoded "
    "them on every step."
)


def markdown(data: dict, before: dict | None, before_note: str = "") -> str:
    s = summary(data)
    # (an earlier report's summary, docs/browser-latency.json, will do as "before" too)
    b = (before["explorers"] if "explorers" in before else summary(before)) if before else {}
    lines = _header_lines(data, before, before_note)
    for explorer, sizes in s.items():
        lines += _explorer_lines(explorer, sizes, b)
    lines += textwrap.wrap(READING, width=96)
    return "\n".join(lines) + "\n"


def _header_lines(data: dict, before: dict | None, before_note: str) -> list[str]:
    """The title, what is measured, the machine and the samples."""
    m = data["machine"]
    sizes = ", ".join(f"{k}: size {v['size']} in a {v['viewport']['width']}×{v['viewport']['height']} window"
                      for k, v in data["sizes"].items())
    n = data["samples"]
    samples = (f"{n['arrows']} key presses, {n['click']} clicks after a rest"
               + (f", {n['jump']} clicks with none" if "jump" in n else "")
               + f", {n['drag']} drags of {data.get('drag_moves', 10)} moves, {n['play']} Play ticks, per explorer "
               "and size")
    lines = [
        "# Step latency in a real browser",
        "",
        "How long a learner waits for the next step of an explorer: from the input (a key, a click,",
        "a drag, a Play tick) until the page has **painted** the new step (header, merge, tables and",
        "chart all showing it), in JupyterLab in headless Chromium, on the 10,000-merge trace of",
        "Python's documentation. Measured by `tests/browser/test_latency.py` (its docstring says how);",
        "written by `benchmarks/browser_latency.py` (`make bench-browser`). Target (issues 11 and 20): a",
        "median of at most **100 ms** and a 90th percentile of at most **250 ms** for every way of moving,",
        "at the default size and at projector size.",
        "",
        "| | |",
        "|---|---|",
        f"| date | {data['date']} |",
        f"| machine | {m['cpus']} logical CPUs, {m['platform']}, Python {m['python']} |",
        f"| load average (1 min) at start / end | {m['load_start']:.2f} / {m.get('load_end', 0):.2f} |",
        f"| samples | {samples} |",
        f"| Play speed | {data['play_interval_ms']} ms between steps |",
        f"| sizes | {sizes} |",
        "",
        "**The floor** is a bare ipywidgets slider in the same notebook whose kernel callback writes",
        "one line (\"Step k of 10000\"): what JupyterLab, the kernel's round trip and the browser's",
        "paint cost on this machine at that moment, before any explorer does anything. The test's",
        "allowance for a way of moving is 100 ms (250 ms for the 90th percentile) plus however much",
        "slower than quiet the floor was during the run (the machine has 2 cores shared with other",
        "work); \"allowed\" below.",
        "",
    ]
    if before:
        lines += textwrap.wrap(
            f"**Before** (the column \"before\"): the same test run on an earlier version, {before['date']}, "
            f"load average {before['machine']['load_start']:.2f} / {before['machine'].get('load_end', 0):.2f}. "
            + before_note, width=96) + [""]
    return lines


def _explorer_lines(explorer: str, sizes: dict, b: dict) -> list[str]:
    """One explorer's section: a table per size, a row per way of moving."""
    lines = []
    lines.append(f"## {explorer}")
    lines.append("")
    for size, ways in sizes.items():
        load, track = ways.get("load"), ways.get("track")
        notes = ([f"load average {load:.2f} after"] if load is not None else []) + (
            [f"the page had the steps under the track {track:.1f} s after it showed this size, the "
             "3 s in which no more came included"]
            if track is not None else [])
        lines.append(f"### {size} size" + (f" ({'; '.join(notes)})" if notes else ""))
        lines.append("")
        head = ["way of moving", "median ms", "p90 ms", "to the text ms"]
        if explorer != "bare slider (floor)":
            head += ["floor ms", "allowed ms (median / p90)", ""]
        if b.get(explorer, {}).get(size):
            head.append("before: median ms")
        head.append("reply / DOM done / painted after ms")
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for way in WAYS:
            r = ways.get(way)
            if not r:
                continue
            row = [WAY_TEXT[way], fmt(r["median"]), fmt(r["p90"]), fmt(r["text"])]
            if explorer != "bare slider (floor)":
                allowed = fmt(r["allowed"]) + (f" / {fmt(r['allowed_p90'])}" if r.get("allowed_p90") else "")
                row += [fmt(r["floor"]), allowed, {True: "PASS", False: "FAIL"}.get(r["pass"], "")]
            if b.get(explorer, {}).get(size):
                # (before the step pane, a jump and a click after a rest cost the same: "click")
                was = b[explorer][size].get(way) or (b[explorer][size].get("click") if way == "jump" else None)
                row.append(fmt((was or {}).get("median")))
            p = r["parts"]
            row.append(" / ".join(fmt(p.get(k)) for k in ("reply", "dom", "paint")) if p else "–")
            lines.append("| " + " | ".join(row) + " |")
        drag = ways.get("drag") or {}
        if drag.get("lag_while_dragging") is not None:
            lines.append("")
            lines.append(f"While dragging, each value the handle passed was painted (or a step further along) "
                         f"{fmt(drag['lag_while_dragging'])} ms later (median).")
        lines.append("")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="source", type=Path, default=None,
                    help="a latency.json the browser test wrote (default: run the test first)")
    ap.add_argument("--before", type=Path, default=None, help="a latency.json of an earlier version, for comparison")
    ap.add_argument("--before-note", default="", help="a sentence on what the earlier version was")
    ap.add_argument("--out", type=Path, default=OUT_MD)
    args = ap.parse_args(argv)
    rc = 0
    source = args.source
    if source is None:
        rc = run_test()
        source = RESULTS
    if not source.exists():
        print(f"no figures: {source} does not exist", file=sys.stderr)
        return 2
    data = json.loads(source.read_text())
    before = json.loads(args.before.read_text()) if args.before else None
    out = args.out if args.out.is_absolute() else ROOT / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(markdown(data, before, args.before_note))
    summary_json = {"date": data["date"], "machine": data["machine"], "target_ms": data["target_ms"],
                    "report": os.path.relpath(out, ROOT / "docs"), "explorers": summary(data)}
    if before:
        summary_json["before"] = {"date": before["date"],
                                  "explorers": before["explorers"] if "explorers" in before else summary(before)}
    out.with_suffix(".json").write_text(json.dumps(summary_json, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)} and {out.with_suffix('.json').relative_to(ROOT)}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
