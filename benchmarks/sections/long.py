"""The ``long`` section: one long word, the 1994 compression view (and minbpe's
``BasicTokenizer``): ours against a literal recount loop on the documentation text made one word,
its first ``Sizes.long_lengths`` characters, and how our time grows when the length doubles.
"""

from __future__ import annotations

import sys

import ours
from corpora import one_word
from report import check, fill, fmt_s, md_table, merge_difference, same, verdict
from settings import ROOT, TARGETS
from timing import alternate, load1, med


def recount_bpe(symbols, num_merges: int) -> list[tuple[tuple[str, str], int]]:
    """minbpe's ``BasicTokenizer.train``, literally (``tests/reference.py``'s ``recount_bpe``):
    every step recounts every pair of the whole sequence; returns [(pair, count)]."""
    if str(ROOT / "tests") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests"))  # the literal reference loop lives with the tests
    from reference import recount_bpe as literal

    return literal(symbols, num_merges)[0]


def bench_long(ctx) -> dict:
    """Time ours and the recount loop on each length of the text made one word, ``long_merges``
    merges (alternating); check they make the same merges."""
    seq = one_word(ctx.text)
    assert len(seq.split()) == 1
    n = ctx.sizes.long_merges
    ours.train_long(seq[:2000], 10)  # warm-up, untimed
    recount_bpe(seq[:2000], 10)
    load = load1()
    rows = []
    for length in ctx.sizes.long_lengths:
        s = seq[:length]
        t, last = alternate({"ours": lambda: ours.train_long(s, n), "loop": lambda: recount_bpe(s, n)},
                            ctx.repeat("long"), ctx.log, f"long: {length:,} characters, {n} merges")
        ours_m = [(m.pair, m.count) for m in last["ours"].merges]
        t.update(length=length, diff=merge_difference(ours_m, last["loop"]), n_ours=len(ours_m),
                 n_loop=len(last["loop"]))
        del last
        rows.append(t)
    return {"rows": rows, "available": len(seq), "repeat": ctx.repeat("long"), "load": (load, load1())}


def doubling_checks(rows: list[dict]) -> list:
    """A Targets row for every length twice the one before: our time's growth."""
    checks, prev = [], None
    for t in rows:
        if t["doubling"] is not None:
            d = t["doubling"][0]
            checks.append(check(f"long word: our time, {prev['length']:,} → {t['length']:,} characters",
                                f"≤ ×{TARGETS['long_doubling']}", f"×{d:.2f}", d <= TARGETS["long_doubling"]))
        prev = t
    return checks


def run(ctx) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of the long-word benchmark."""
    res = bench_long(ctx)
    merges = ctx.sizes.long_merges
    rows_md, prev = [], None
    for t in res["rows"]:
        mo, ml = med(t["ours"]), med(t["loop"])
        t["doubling"] = None
        if prev is not None and t["length"] == 2 * prev["length"]:
            t["doubling"] = (mo / med(prev["ours"]), ml / med(prev["loop"]))
        rows_md.append([f"{t['length']:,}", fmt_s(mo), fmt_s(ml), f"{mo / ml:.2f}",
                        "" if t["doubling"] is None else f"×{t['doubling'][0]:.2f}",
                        "" if t["doubling"] is None else f"×{t['doubling'][1]:.2f}",
                        f"{t['n_ours']} / {t['n_loop']}", same(t["diff"])])
        prev = t
    longest = res["rows"][-1]
    r = med(longest["ours"]) / med(longest["loop"])
    checks = [check(f"long word: ours / recount loop at {longest['length']:,} characters",
                    f"≤ {TARGETS['long_ratio']}", f"{r:.2f}", r <= TARGETS["long_ratio"])]
    checks += doubling_checks(res["rows"])
    agree = [t["diff"] is None for t in res["rows"]]
    checks.append([f"long word: same {merges} merges as the recount loop, every length", "yes",
                   ", ".join("yes" if x else "no" for x in agree), verdict(all(agree))])
    table = md_table(["characters", "ours s", "recount loop s", "ours / loop", "ours, length ×2",
                      "loop, length ×2", "merges made (ours / loop)", "same merges (pair and count)"], rows_md)
    md = fill("long", table=table, res=res, lengths=", ".join(f"{n:,}" for n in ctx.sizes.long_lengths),
              merges=merges)
    return checks, [("Long single word", table)], md
