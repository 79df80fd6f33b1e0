"""SubwordTextEncoder, part of the ``unigram`` section: ours (``train_subword_text_encoder``,
every try of the binary search kept) against TFDS's own module (loaded offline by
``tests/tfds_reference.py``) at each of ``Sizes.ste_targets``, same subwords checked.
"""

from __future__ import annotations

import textwrap

import ours
from competitors import load_tfds_reference
from report import check, fmt_s, md_table, ratio, runs, version_of
from timing import alternate, med


def bench_ste(ctx) -> tuple[list, str | None]:
    """(one row per target, why TFDS's module could not be loaded or None)."""
    stm, corpus_generator, why = load_tfds_reference()
    text, rows = ctx.text, []
    for target in ctx.sizes.ste_targets:
        competitors = {"ours": lambda: ours.train_ste(text, target)}
        if stm is not None:
            competitors["tfds"] = lambda: stm.SubwordTextEncoder.build_from_corpus(corpus_generator(text), target)
        t, last = alternate(competitors, ctx.repeat("unigram"), ctx.log,
                            f"unigram: SubwordTextEncoder to target_vocab_size={target:,}")
        st, enc = last["ours"], last.get("tfds")
        t.setdefault("tfds", [])
        t.update(target=target, size=st.vocab_size, tries=len(st), subwords=len(st.subwords),
                 same=None if stm is None else list(enc.subwords) == list(st.subwords),
                 tfds_size=None if stm is None else enc.vocab_size)
        rows.append(t)
    return rows, why


def report_ste(rows: list, why: str | None, rep: int) -> tuple[list, str, str]:
    """(Targets rows, the table, the Markdown part: a paragraph and the table)."""
    checks, table_rows = [], []
    for t in rows:
        mo, mt = med(t["ours"]), med(t["tfds"])
        table_rows.append([f"{t['target']:,}", fmt_s(mo), runs(t["ours"]), fmt_s(mt),
                           runs(t["tfds"]) if t["tfds"] else "n/a", ratio(mo, mt), f"{t['tries']}",
                           f"{t['size']:,}", {None: "n/a", True: "yes", False: "no"}[t["same"]]])
        if t["same"] is not None:
            checks.append(check(f"SubwordTextEncoder: same subwords as TFDS's module at {t['target']:,}", "yes",
                                "yes" if t["same"] else "no", t["same"]))
    t_ste = md_table(["target_vocab_size", "ours median s", "ours runs s", "TFDS median s", "TFDS runs s",
                      "ours / TFDS", "tries (binary search)", "vocab_size reached", "same subwords"], table_rows)
    ref = (f"TFDS: `SubwordTextEncoder.build_from_corpus(corpus_generator(text), target)`, tensorflow-datasets"
           f" {version_of('tensorflow-datasets')}'s own `subword_text_encoder.py` loaded by the tests' "
           "`tests/tfds_reference.py` (its two files run offline, a stand-in for the few TensorFlow calls), "
           "pure Python like ours; the text as one item. \"same subwords\": `enc.subwords` equals our "
           "`trace.subwords`, in order." if why is None else f"TFDS's module not measured: {why}.")
    md = textwrap.fill(
        f"Ours: `train_subword_text_encoder(text, target_vocab_size=T)` on the documentation text, every try"
        f" of the binary search kept. {ref} Medians of {rep} run(s), ours then TFDS within each repeat.",
        width=100, break_on_hyphens=False) + "\n\n" + t_ste + "\n"
    return checks, t_ste, md
