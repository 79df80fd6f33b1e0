"""The step latency in a real browser, always the report's last section: read from
``docs/browser-latency.json``, which ``benchmarks/browser_latency.py`` writes from the browser
test (``make bench-browser``). This benchmark starts no browser; it keeps the figures last
measured, with their date, so that a ``make bench`` never drops them.
"""

from __future__ import annotations

import json
import textwrap

from report import check, md_table, verdict
from settings import ROOT

BROWSER_LATENCY = ROOT / "docs" / "browser-latency.json"
BROWSER_WAYS = ("arrows", "click", "jump", "drag", "play")
TITLE = "## Step latency in a real browser\n\n"
# the four ways of the target; a jump (a click with no rest before it) on a row of its own
JUDGED = ((("arrows", "click", "drag", "play"), "arrows, click after a rest, drag, Play"),
          (("jump",), "a click with no rest before it (a jump)"))


def rows_and_checks(explorer: str, size: str, ways: dict, then: dict) -> tuple[list, list]:
    """(table rows, Targets rows) of one explorer at one size; ``then``: the "before" figures."""
    got = [(w, ways[w]) for w in BROWSER_WAYS if ways.get(w)]
    rows, checks = [], []
    for w, r in got:
        # (before the step pane, a jump and a click after a rest cost the same: "click")
        was = then.get(w) or (then.get("click") if w == "jump" else None) or {}
        rows.append([explorer, size, w, f"{r['median']:.0f}", f"{r['p90']:.0f}",
                     "–" if r.get("floor") is None else f"{r['floor']:.0f}",
                     "–" if r.get("allowed") is None else f"{r['allowed']:.0f}",
                     {True: "PASS", False: "FAIL"}.get(r.get("pass"), ""),
                     "–" if was.get("median") is None else f"{was['median']:.0f}"])
    for ways_, what in JUDGED:
        judged = [(w, r) for w, r in got if w in ways_ and r.get("pass") is not None]
        if judged:
            checks.append([f"step in a real browser, {explorer}, {size} size: {what}, median",
                           "≤ 100 ms (+ the floor's slowdown)",
                           ", ".join(f"{w} {r['median']:.0f}" for w, r in judged) + " ms",
                           verdict(all(r.get("pass") for _w, r in judged))])
    return rows, checks


def run() -> tuple[list, str]:
    """(Targets rows, Markdown section)."""
    if not BROWSER_LATENCY.exists():
        return ([check("explorer step in a real browser, every way of moving, median", "≤ 100 ms", "not measured",
                       None)],
                TITLE + "Not measured yet: `make bench-browser` runs `tests/browser/test_latency.py` "
                "(JupyterLab in headless Chromium) and writes `docs/browser-latency.md`.\n")
    data = json.loads(BROWSER_LATENCY.read_text())
    before = (data.get("before") or {}).get("explorers", {})
    checks, rows = [], []
    for explorer, sizes in data["explorers"].items():
        for size, ways in sizes.items():
            r, c = rows_and_checks(explorer, size, ways, (before.get(explorer) or {}).get(size) or {})
            rows += r
            checks += c
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
    return checks, f"{TITLE}{table}\n\n{text}\n"
