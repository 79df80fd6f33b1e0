"""The main section's slider step: ``ex.step = k`` on a ``MergeExplorer`` showing a fresh trace
of ``Sizes.slider_merges`` merges (matplotlib's Agg backend), random and consecutive k, with the
default chart and, for comparison, none (``--all-charts``: every chart).

Its siblings: ``bpe_training`` (training, memory, snapshots, encoding) and ``notebooks``.
"""

from __future__ import annotations

import gc
import random

import ours
from report import check, md_table
from settings import SLIDER_SENTENCE, TARGETS
from timing import load1, med, pctl


def measure(ex, chart: str, ks: list[int]) -> dict:
    """Median, p90 and max wall ms and median CPU ms of ``ex.step = k`` for every k, ``chart`` shown."""
    ex.chart = chart
    assert ex.error is None, ex.error
    wall, cpu = [], []
    gc.collect()
    for k in ks:
        w, c = ours.step_ms(ex, k)
        wall.append(w)
        cpu.append(c)
    return {"n": len(ks), "med": med(wall), "p90": pctl(wall, 0.9), "max": max(wall), "cpu_med": med(cpu)}


def other_charts(default_chart: str, all_charts: bool) -> list[str]:
    """The charts timed for comparison: "none", or with ``all_charts`` every chart but the default."""
    if not all_charts:
        return [] if default_chart == "none" else ["none"]
    from bpe_viz.widgets.controls import CHART_CHOICES

    return [chart for _label, chart in CHART_CHOICES if chart != default_chart]


def bench_slider(ctx) -> dict:
    """Time ``ex.step = k`` on a MergeExplorer showing a fresh trace.

    One step renders the snapshot, the three tables, the colored sentence and the chart (the
    explorer's own code path when the slider or Play moves). Returns the rows for the report."""
    sz, log = ctx.sizes, ctx.log
    load = load1()
    trace = ours.train_subword_nmt(ctx.text, sz.slider_merges)
    ex, construct_s = ours.slider_explorer(trace, SLIDER_SENTENCE)
    default_chart = ex.chart
    last = len(trace) - 1
    rng = random.Random(0)
    ex.step = last // 2  # one untimed step: first-draw costs (fonts, caches) are paid once a session
    assert ex.error is None, ex.error
    log(f"slider: {sz.slider_samples} random steps, chart={default_chart!r}")
    rows = [("random", default_chart, True,
             measure(ex, default_chart, [rng.randrange(1, last + 1) for _ in range(sz.slider_samples)]))]
    start = rng.randrange(1, last + 2 - sz.slider_samples)
    log(f"slider: {sz.slider_samples} consecutive steps from {start}, chart={default_chart!r}")
    rows.append(("consecutive (Play)", default_chart, True,
                 measure(ex, default_chart, list(range(start, start + sz.slider_samples)))))
    for chart in other_charts(default_chart, ctx.args.all_charts):
        log(f"slider: {sz.slider_other_samples} random steps, chart={chart!r}")
        rows.append(("random", chart, False,
                     measure(ex, chart, [rng.randrange(1, last + 1) for _ in range(sz.slider_other_samples)])))
    ex.chart = default_chart
    ex.close()
    res = {"rows": rows, "construct_s": construct_s, "merges": last, "default_chart": default_chart,
           "load": (load, load1())}
    gc.collect()
    return res


def report_slider(slider: dict) -> tuple[list, str]:
    """(Targets rows, Slider step table)."""
    rows, checks = [], []
    for how, chart, targeted, m in slider["rows"]:
        rows.append([how, f"{chart}" + (" (default)" if chart == slider["default_chart"] else ""), m["n"],
                     f"{m['med']:.1f}", f"{m['p90']:.1f}", f"{m['max']:.1f}", f"{m['cpu_med']:.1f}"])
        if targeted:
            checks.append(check(f"slider step, {how} k, chart={chart}, median", f"≤ {TARGETS['slider_ms']:.0f} ms",
                                f"{m['med']:.1f} ms (p90 {m['p90']:.1f})", m["med"] <= TARGETS["slider_ms"]))
    return checks, md_table(["steps k", "chart", "samples", "median ms", "p90 ms", "max ms", "CPU median ms"], rows)
