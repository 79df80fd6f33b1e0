"""The ``main`` section: everything on the documentation text with the subword-nmt preset.

Training and memory at each ``--merges``, cold snapshot access and encoding (``bpe_training``),
a slider step of the training stepper (``slider``) and every notebook run headless
(``notebooks``); this module runs them in that order and writes their Markdown (``text/main.md``).
"""

from __future__ import annotations

import gc

from report import fill
from settings import SLIDER_SENTENCE
from timing import load1

from sections.bpe_training import (
    bench_access,
    bench_training,
    report_access,
    report_training,
)
from sections.notebooks import bench_notebooks, report_notebooks
from sections.slider import bench_slider, report_slider


def run(ctx) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown sections) of the main suite."""
    train, last = bench_training(ctx)
    n_big = max(train)
    alphabet = last.pop("alphabet")
    access = bench_access(ctx, last)
    del last
    gc.collect()
    slider = bench_slider(ctx)
    load = load1()
    notebooks = bench_notebooks(ctx)
    notebooks["load"] = (load, load1())

    checks, t_train, t_mem = report_training(train)
    ch, t_snap, t_enc = report_access(access, n_big)
    checks += ch
    ch, t_slider = report_slider(slider)
    checks += ch
    ch, t_nb = report_notebooks(notebooks, ctx.args.notebooks)
    checks += ch
    console = [("Training", t_train), ("Memory", t_mem), ("Snapshot access (cold)", t_snap),
               (f"Encoding the whole text ({n_big:,} merges)", t_enc),
               (f"Slider step ({slider['merges']:,}-merge trace)", t_slider), ("Notebook run time", t_nb)]
    sz = ctx.sizes
    md = fill("main", t_train=t_train, alphabet=alphabet, t_mem=t_mem, t_snap=t_snap, snap_n=len(access["snap_ms"]),
              n_big=n_big, t_enc=t_enc, t_slider=t_slider, slider_merges=sz.slider_merges, sentence=SLIDER_SENTENCE,
              slider=slider, samples=sz.slider_samples, other_samples=sz.slider_other_samples, t_nb=t_nb,
              folder=ctx.args.notebooks, notebooks=notebooks)
    return checks, console, md
