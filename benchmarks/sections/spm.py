"""The ``spm`` section: SentencePiece's BPE, the ``sentencepiece`` preset, ours against
sentencepiece trained in-process on the same lines: training at each of ``Sizes.spm_vocabs``
(same pieces checked id for id), encoding every line with the largest model (same ids checked
line by line) and BPE-dropout's cost.
"""

from __future__ import annotations

import gc
import os

import ours
from competitors import run_spm, spm_pieces
from report import (
    check,
    check_same,
    fill,
    fmt_s,
    id_difference,
    loads,
    md_table,
    piece_difference,
    ratio,
    runs,
    same,
    version_of,
)
from settings import SPM_DROPOUT
from timing import alternate, load1, med


def bench_train(ctx, lines: list[str], res: dict) -> tuple:
    """Training at every vocab_size, into ``res``; returns the largest (trace, model)."""
    vocabs, text = ctx.sizes.spm_vocabs, ctx.text
    load = load1()
    ours.train_spm(text, vocabs[0])  # warm-up, untimed
    run_spm(lines, vocabs[0])
    res["train"] = []
    for vocab in vocabs:
        t, last = alternate({"ours": lambda: ours.train_spm(text, vocab), "sp": lambda: run_spm(lines, vocab)},
                            ctx.repeat("spm"), ctx.log, f"spm: training to vocab_size={vocab:,}")
        pieces = spm_pieces(last["sp"])
        t.update(vocab=vocab, merges=len(last["ours"].merges), pieces=len(pieces),
                 diff=piece_difference(last["ours"].id_to_token, pieces))
        res["train"].append(t)
        if vocab != vocabs[-1]:
            del last
            gc.collect()
    res["load_train"] = (load, load1())
    return last["ours"], last["sp"]


def check_lines(ctx, trace, sp, lines: list[str], res: dict) -> list[int]:
    """Our ids of every line against sentencepiece's (untimed; it also builds the trace's tables),
    into ``res``; returns our per-line ids one after another."""
    ctx.log(f"spm: checking the ids of every line (vocab_size={res['enc_vocab']:,}, untimed)")
    per_line = [ours.encode(line, trace).ids for line in lines]
    theirs = [sp.encode(line) for line in lines]
    bad = [i for i, (a, b) in enumerate(zip(per_line, theirs)) if list(a) != b]
    res["bad_lines"] = len(bad)
    res["first_bad"] = None if not bad else (bad[0], id_difference(trace, list(per_line[bad[0]]), theirs[bad[0]]))
    return [i for ids in per_line for i in ids]


def bench_encode(ctx, trace, sp, lines: list[str], res: dict) -> None:
    """Encoding every line with the largest model, then with dropout, into ``res``."""
    load, text = load1(), ctx.text
    res["enc_vocab"] = ctx.sizes.spm_vocabs[-1]
    per_line_flat = check_lines(ctx, trace, sp, lines, res)
    sp.encode(lines[:100])  # warm-up, untimed
    forget = {"ours": lambda: ours.forget_encodings(trace)}  # cold: every distinct word segmented anew
    res["enc_times"], out = alternate(
        {"ours": lambda: ours.encode(text, trace).ids, "sp_batch": lambda: sp.encode(lines),
         "sp_loop": lambda: [sp.encode(line) for line in lines]},
        ctx.repeat("spm"), ctx.log, f"spm: encoding every line (vocab_size={res['enc_vocab']:,})", setup=forget)
    res["enc_tokens"] = {"ours": len(out["ours"]), "sp_batch": sum(map(len, out["sp_batch"])),
                         "sp_loop": sum(map(len, out["sp_loop"]))}
    res["batch_same_as_loop"] = out["sp_batch"] == out["sp_loop"]
    res["whole_is_lines"] = list(out["ours"]) == per_line_flat
    del out, per_line_flat
    res["load_enc"] = (load, load1())
    load = load1()
    tokens = res["drop_tokens"] = {"ours": [], "sp": []}
    res["drop_times"], _ = alternate(
        {"ours": lambda: ours.encode(text, trace, dropout=SPM_DROPOUT, seed=0).ids,
         "sp": lambda: sp.encode(lines, enable_sampling=True, alpha=SPM_DROPOUT)},
        ctx.repeat("spm"), ctx.log, f"spm: encoding with dropout {SPM_DROPOUT}", keep=(), setup=forget,
        after={"ours": lambda ids: tokens["ours"].append(len(ids)),
               "sp": lambda out: tokens["sp"].append(sum(map(len, out)))})
    res["load_drop"] = (load, load1())


def report_encode(res: dict) -> tuple[list, str, str, str]:
    """(Targets rows, encoding table, dropout table, the sentence on same ids)."""
    t, n = res["enc_times"], res["enc_tokens"]
    eo, eb, el = med(t["ours"]), med(t["sp_batch"]), med(t["sp_loop"])
    t_enc = md_table(
        ["", "median s", "runs s", "tokens", "ours / this"],
        [["ours `encode(text, trace).ids`, one call, word cache cleared", fmt_s(eo), runs(t["ours"]),
          f"{n['ours']:,}", "1.00"],
         ["sentencepiece `sp.encode(lines)`, batch", fmt_s(eb), runs(t["sp_batch"]), f"{n['sp_batch']:,}",
          ratio(eo, eb)],
         ["sentencepiece `[sp.encode(l) for l in lines]`", fmt_s(el), runs(t["sp_loop"]), f"{n['sp_loop']:,}",
          ratio(eo, el)]])
    bad, lines = res["bad_lines"], res["lines"]
    if bad == 0:
        same_txt = measured = "yes"
    else:
        i, d = res["first_bad"]
        same_txt = f"no: {bad:,} of {lines:,} lines differ, first line {i + 1:,} ({d})"
        measured = f"no ({bad:,} of {lines:,} lines)"
    checks = [check("SentencePiece encoding: same ids on every line", "yes", measured, bad == 0)]
    t, n = res["drop_times"], res["drop_tokens"]
    do, ds = med(t["ours"]), med(t["sp"])
    t_drop = md_table(
        ["", "median s", "runs s", "tokens (median)", "ours / this"],
        [[f"ours `encode(text, trace, dropout={SPM_DROPOUT}, seed=0).ids`", fmt_s(do), runs(t["ours"]),
          f"{med(n['ours']):,}", "1.00"],
         [f"sentencepiece `sp.encode(lines, enable_sampling=True, alpha={SPM_DROPOUT})`", fmt_s(ds), runs(t["sp"]),
          f"{med(n['sp']):,}", ratio(do, ds)]])
    return checks, t_enc, t_drop, same_txt


def run(ctx) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of the SentencePiece BPE benchmark."""
    lines = ctx.text.split("\n")
    res = {"repeat": ctx.repeat("spm"), "lines": len(lines)}
    trace, sp = bench_train(ctx, lines, res)
    bench_encode(ctx, trace, sp, lines, res)
    del trace, sp
    gc.collect()
    checks, rows = [], []
    for t in res["train"]:
        mo, ms = med(t["ours"]), med(t["sp"])
        rows.append([f"{t['vocab']:,}", fmt_s(mo), runs(t["ours"]), fmt_s(ms), runs(t["sp"]), ratio(mo, ms),
                     f"{t['merges']:,}", same(t["diff"])])
        checks.append(check_same(f"SentencePiece BPE: same pieces as sentencepiece at {t['vocab']:,}", t["diff"]))
    t_train = md_table(["vocab_size", "ours median s", "ours runs s", "sentencepiece median s",
                        "sentencepiece runs s", "ours / sentencepiece", "our merges", "same pieces"], rows)
    ch, t_enc, t_drop, same_txt = report_encode(res)
    checks += ch
    md = fill("spm", sp_version=version_of("sentencepiece"), lines=res["lines"], cpus=os.cpu_count(), res=res,
              rep=res["repeat"], t_train=t_train, t_enc=t_enc, same_txt=same_txt,
              whole="yes" if res["whole_is_lines"] else "NO",
              batch_same="yes" if res["batch_same_as_loop"] else "NO", dropout=SPM_DROPOUT, t_drop=t_drop,
              loads=loads((("training", res["load_train"]), ("encoding", res["load_enc"]),
                           ("dropout", res["load_drop"]))))
    return checks, [("SentencePiece BPE training", t_train), ("SentencePiece BPE encoding", t_enc),
                    ("SentencePiece BPE-dropout", t_drop)], md
