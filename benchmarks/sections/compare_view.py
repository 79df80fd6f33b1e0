"""The ``compare`` section: the side-by-side view of issue 18 (``bpe_viz.view.tokenizers_html``,
what ``SideBySideExplorer`` redraws as you type), one 2,000-character text through four
tokenizers: GPT-2's, GPT-4's and GPT-4o's real vocabularies and a byte-level BPE trained here on
the documentation text. One timing is encoding with all four plus the HTML; "new text" empties
every tokenizer's per-word cache first (a pasted text), "same text" does not (a redraw). The text
is the bundled language samples one after another (14 scripts and languages), cut at 2,000
characters: the hard case, where byte-level vocabularies split characters into bytes.
"""

from __future__ import annotations

import bpe_viz
from bpe_viz.engine.text import LANGUAGES
from bpe_viz.view import compare_tokenizers, comparison_html
from report import check, md_table, version_of
from settings import TARGETS
from timing import alternate, med

NAMES = ("gpt2", "cl100k_base", "o200k_base")
CHARS = 2_000
MIN_RUNS = 7  # each run takes a fraction of a second: more runs than the other sections
TRAIN_CHARS = 200_000
TRAIN_MERGES = 1_000


def _text() -> str:
    joined = "\n".join(LANGUAGES.values())
    return (joined + "\n") * (CHARS // len(joined) + 1)


def run(ctx) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section)."""
    text = _text()[:CHARS]
    tokenizers = {name: bpe_viz.load_tokenizer(name) for name in NAMES}
    trained = f"trained (cs336, {TRAIN_MERGES:,} merges)"
    tokenizers[trained] = bpe_viz.train_bpe(ctx.text[:TRAIN_CHARS], TRAIN_MERGES, preset="cs336")
    repeat = max(ctx.repeat("compare"), MIN_RUNS)

    def forget():
        for tok in tokenizers.values():
            tok.__dict__.pop("_encode_cache", None)

    parts = {}

    def encode_and_draw():
        parts["comparison"] = compare_tokenizers(text, tokenizers)
        return comparison_html(parts["comparison"])

    forget()
    encode_and_draw()  # the first call of a process compiles regexes and builds tables: not timed
    t, last = alternate({"new text": encode_and_draw, "same text": encode_and_draw}, repeat, ctx.log,
                        f"compare: {CHARS:,} characters through {len(tokenizers)} tokenizers",
                        setup={"new text": forget})
    cmp = parts["comparison"]
    new, same = med(t["new text"]) * 1000, med(t["same text"]) * 1000
    rows = [[label, f"{med(t[label]) * 1000:.0f}", ", ".join(f"{x * 1000:.0f}" for x in t[label])]
            for label in ("new text", "same text")]
    table = md_table(["", "median ms", "runs ms"], rows)
    counts = md_table(["tokenizer", "tokens", "characters per token"],
                      [[r.name, f"{r.count:,}", f"{CHARS / r.count:.2f}"] for r in cmp.rows])
    target = TARGETS["compare_view_ms"]
    checks = [check(f"compare view: {CHARS:,} characters, {len(tokenizers)} tokenizers, encode + HTML (new text)",
                    f"≤ {target:g} ms", f"{new:.0f} ms", new <= target)]
    md = ("## Tokenizers side by side (issue 18)\n\n"
          f"`compare_tokenizers` + `comparison_html` (bpe-viz {version_of('bpe-viz')}) on {CHARS:,} characters "
          f"of the bundled language samples, through {', '.join(tokenizers)}: {len(cmp.disagreements):,} places "
          f"where they cut differently, {len(last['new text']) / 1e6:.1f} MB of HTML. Medians of {repeat} runs, "
          "the two cases in turns; \"new text\" empties every per-word cache before each run.\n\n"
          f"{table}\n\n{counts}\n")
    return checks, [("Tokenizers side by side", table), ("Tokenizers side by side: counts", counts)], md
