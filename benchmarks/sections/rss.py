"""The ``rss`` section: the whole-process peak resident set of a fresh process that imports only
its competitor, ours against subword-nmt (measured by ``memory.WholeRss``): on the documentation
text issue 20's memory job (train, read 30 random steps, encode the whole text; subword-nmt
trains and encodes), on the bigger corpus training alone (shared with the ``big`` section).
"""

from __future__ import annotations

from memory import RSS_SNAPSHOTS
from report import check, fill, fmt_mib, md_table
from settings import TARGETS
from timing import load1

LABELS = {"docs": "documentation text", "big": "bigger corpus"}
JOBS = {"docs": "use", "big": "train"}  # what each row's processes do (see memory.WHOLE_RSS_CHILD)
WORK = {"use": f"train + {RSS_SNAPSHOTS} steps + encode", "train": "train"}


def bench_rss(ctx) -> dict:
    """Whole-process peak RSS, ours vs subword-nmt: the documentation text at ``rss_docs_merges``
    (train, read steps, encode), the bigger corpus at its largest merge count (train)."""
    load = load1()
    rows = []
    for name, n in (("docs", ctx.sizes.rss_docs_merges), ("big", ctx.sizes.big_merges[-1])):
        ctx.log(f"rss: {name}, {n:,} merges, a fresh process each")
        rows.append((name, n, {w: ctx.whole_rss(w, name, n, JOBS[name]) for w in ("ours", "snmt")}))
    return {"rows": rows, "load": (load, load1())}


def cell(x: dict | None, key: str) -> str:
    return "n/a" if x is None else (f"{x[key]:,}" if key == "made" else fmt_mib(x[key]))


def run(ctx) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of the whole-process RSS benchmark."""
    res = bench_rss(ctx)
    checks, rows_md = [], []
    for name, n, r in res["rows"]:
        o, s = r["ours"], r["snmt"]
        ratio = o["peak"] / s["peak"] if o and s else None
        rows_md.append([LABELS[name], f"{n:,}", WORK[JOBS[name]], cell(o, "peak"), cell(s, "peak"),
                        "n/a" if ratio is None else f"{ratio:.2f}",
                        f"{cell(o, 'imported')} / {cell(s, 'imported')}", f"{cell(o, 'start')} / {cell(s, 'start')}",
                        f"{cell(o, 'made')} / {cell(s, 'made')}"])
        checks.append(check(f"whole-process peak RSS ours / subword-nmt, {LABELS[name]}, {n:,} merges, "
                            f"{WORK[JOBS[name]]}",
                            f"≤ {TARGETS['rss_ratio']}", "n/a" if ratio is None else f"{ratio:.2f}",
                            None if ratio is None else ratio <= TARGETS["rss_ratio"]))
    table = md_table(["corpus", "merges", "work", "ours peak RSS MiB", "subword-nmt peak RSS MiB", "ours / subword-nmt",
                      "after import MiB (ours / snmt)", "at start MiB (ours / snmt)", "merges made (ours / snmt)"],
                     rows_md)
    return checks, [("Whole-process peak RSS", table)], fill("rss", table=table, res=res)
