"""The ``gpt`` section: GPT-style byte-level BPE, the ``cs336`` preset (GPT-2 pattern,
``<|endoftext|>``, 256 bytes, byte-order ties).

Training on the documentation text until pairs run out, ours against tokenizers' ``BpeTrainer``
with a ByteLevel pre-tokenizer; CS336's own speed test (``corpus.en``, vocab_size 500); encoding
the text with that tokenizer, ours against tiktoken (an ``Encoding`` built from our merges) and
minbpe's encode loop written out literally (``minbpe.py``), same ids checked.
"""

from __future__ import annotations

import collections
import gc

import ours
from competitors import hf_merge_pairs, run_hf_gpt, tiktoken_from_trace
from corpora import gpt2_chunks, gpt2_pretokens
from minbpe import MinbpeLoop
from report import (
    check,
    check_same,
    fill,
    fmt_s,
    id_difference,
    md_table,
    merge_difference,
    ratio,
    runs,
    same,
    verdict,
)
from settings import (
    CS336_CORPUS,
    CS336_REFERENCE,
    CS336_VOCAB,
    GPT_HF_CHUNK,
    GPT_HF_MIN_FREQUENCY,
    GPT_HF_MIN_FREQUENCY_ALT,
    GPT_HUGE_VOCAB,
    TARGETS,
)
from timing import alternate, load1, med, timed


def pretoken_facts(text: str, chunks: list[str]) -> tuple[dict, dict]:
    """(the pieces fed to tokenizers, and whether their pre-tokens are the whole text's; the
    pre-tokens of the whole text and of its lines one at a time)."""
    whole = gpt2_pretokens(text)
    facts = {"n": len(chunks), "size": GPT_HF_CHUNK, "same": [p for c in chunks for p in gpt2_pretokens(c)] == whole}
    line_pre = [p for line in text.splitlines(keepends=True) for p in gpt2_pretokens(line)]
    only_ws = all(p.isspace() for p in (collections.Counter(whole) - collections.Counter(line_pre))
                  + (collections.Counter(line_pre) - collections.Counter(whole)))
    return facts, {"whole": len(whole), "whole_distinct": len(set(whole)), "lines": len(line_pre),
                   "lines_distinct": len(set(line_pre)), "only_ws": only_ws}


def bench_train(ctx, res: dict) -> object:
    """Training until pairs run out, ours vs tokenizers, into ``res``; returns our last trace."""
    from bpe_viz import bytes_to_symbols

    text, log = ctx.text, ctx.log
    log(f"gpt: cs336 preset, vocab_size={GPT_HUGE_VOCAB:,}, to find where pairs run out")
    secs, full = timed(ours.train_gpt, text, GPT_HUGE_VOCAB)  # also the warm-up
    vocab = full.vocab_size
    res["full"] = {"secs": secs, "stop": full.stop_reason, "vocab": vocab, "merges": len(full.merges)}
    del full
    gc.collect()
    chunks = gpt2_chunks(text)
    res["chunks"], res["pretokens"] = pretoken_facts(text, chunks)
    run_hf_gpt(chunks[:1], 300)  # warm-up, untimed
    res["train"], last = alternate({"ours": lambda: ours.train_gpt(text, vocab),
                                    "hf": lambda: run_hf_gpt(chunks, vocab)},
                                   ctx.repeat("gpt"), log, f"gpt: training to vocab_size={vocab:,}")
    trace, hf_tok = last["ours"], last.pop("hf")
    hf_pre = [p for c in chunks for p, _ in hf_tok.pre_tokenizer.pre_tokenize_str(c)]
    res["hf_pre_same"] = hf_pre == [bytes_to_symbols(p) for p in gpt2_pretokens(text)]
    hf_pairs = hf_merge_pairs(hf_tok)
    ours_pairs = [m.pair for m in trace.merges]
    res["ours_merges"], res["ours_vocab"], res["ours_stop"] = len(ours_pairs), trace.vocab_size, trace.stop_reason
    res["hf_merges"], res["hf_vocab"] = len(hf_pairs), hf_tok.get_vocab_size()
    res["merge_diff"] = None
    for i, (a, b) in enumerate(zip(ours_pairs, hf_pairs)):
        if a != b:  # what both pairs counted just before, by our snapshot
            counts = trace[i].pair_counts
            res["merge_diff"] = {"step": i + 1, "ours": a, "hf": b, "ours_count": counts.get(a),
                                 "hf_count": counts.get(b)}
            break
    del hf_tok, hf_pairs, hf_pre
    gc.collect()
    log(f"gpt: tokenizers once more with min_frequency={GPT_HF_MIN_FREQUENCY_ALT} (merge count only, untimed)")
    res["hf_alt"] = {"min_frequency": GPT_HF_MIN_FREQUENCY_ALT,
                     "merges": len(hf_merge_pairs(run_hf_gpt(chunks, vocab, min_frequency=GPT_HF_MIN_FREQUENCY_ALT)))}
    gc.collect()
    return trace


def bench_cs336(ctx) -> dict:
    """CS336's speed test: read corpus.en and train to vocab_size 500, ``repeat`` times."""
    load = load1()
    if not CS336_CORPUS.is_file():
        return {"skipped": "../shared absent", "load": (load, load1())}
    times, last = alternate({"ours": lambda: ours.train_cs336(CS336_CORPUS, CS336_VOCAB)}, ctx.repeat("gpt"), ctx.log,
                            f"gpt: CS336 speed test (corpus.en, vocab_size={CS336_VOCAB})")
    cs_trace = last["ours"]
    cs = {"secs": times["ours"], "path": CS336_CORPUS, "merges": len(cs_trace.merges), "vocab": cs_trace.vocab_size,
          "bytes": CS336_CORPUS.stat().st_size}
    if CS336_REFERENCE.is_file():
        ref = [ln for ln in CS336_REFERENCE.read_text(encoding="utf-8").splitlines() if ln.strip()]
        cs["ref_n"] = len(ref)
        cs["ref_diff"] = merge_difference([" ".join(m.pair) for m in cs_trace.merges], ref)
    cs["load"] = (load, load1())
    return cs


def bench_encode(ctx, trace, vocab: int, res: dict) -> None:
    """Encoding the text with ``trace``: ours (word cache emptied; and on a fresh trace), tiktoken,
    the minbpe loop; ids mapped to ours and compared, into ``res``."""
    text = ctx.text
    load = load1()
    enc, tk_to_ours, res["ranks_in_order"] = tiktoken_from_trace(trace)
    loop = MinbpeLoop(trace)
    enc.encode("warm up", allowed_special="all")  # untimed
    loop.encode("warm up")
    state = {}  # the fresh trace of this repeat, trained untimed just before its encoding

    def before_ours():
        state.pop("fresh", None)
        ours.forget_encodings(trace)  # cold: every distinct word segmented anew

    res["times"], ids = alternate(
        {"ours": lambda: ours.encode(text, trace).ids, "tiktoken": lambda: enc.encode(text, allowed_special="all"),
         "loop": lambda: loop.encode(text), "ours_fresh": lambda: ours.encode(text, state["fresh"]).ids},
        ctx.repeat("gpt"), ctx.log, f"gpt: encoding the text ({len(trace.merges):,} merges)",
        setup={"ours": before_ours, "ours_fresh": lambda: state.update(fresh=ours.train_gpt(text, vocab))})
    state.clear()
    tk_mapped = [tk_to_ours[t] for t in ids["tiktoken"]]
    loop_mapped = [loop.to_ours[t] for t in ids["loop"]]
    ours_ids = list(ids["ours"])
    res["n_tokens"] = {"ours": len(ours_ids), "tiktoken": len(tk_mapped), "loop": len(loop_mapped)}
    res["tk_diff"] = id_difference(trace, ours_ids, tk_mapped)
    res["loop_diff"] = id_difference(trace, ours_ids, loop_mapped)
    res["fresh_diff"] = id_difference(trace, ours_ids, list(ids["ours_fresh"]))
    res["tk_vs_loop"] = id_difference(trace, tk_mapped, loop_mapped)
    res["enc_merges"] = len(trace.merges)
    res["load_enc"] = (load, load1())


def report_train(res: dict) -> tuple[list, str, str]:
    """(Targets rows, training table, the sentence on where the merge lists differ)."""
    vocab = res["full"]["vocab"]
    mo, mh = med(res["train"]["ours"]), med(res["train"]["hf"])
    r = mo / mh
    t_train = md_table(
        ["", "median s", "runs s", "merges made", "vocabulary size", "ours / tokenizers"],
        [[f'ours `train_bpe(text, vocab_size={vocab:,}, preset="cs336")`', fmt_s(mo), runs(res["train"]["ours"]),
          f"{res['ours_merges']:,}", f"{res['ours_vocab']:,}", f"{r:.2f}"],
         [f"tokenizers `BpeTrainer(vocab_size={vocab:,}, min_frequency={GPT_HF_MIN_FREQUENCY})`", fmt_s(mh),
          runs(res["train"]["hf"]), f"{res['hf_merges']:,}", f"{res['hf_vocab']:,}", "1.00"]])
    checks = [check(f"GPT-2-style training (cs336 preset), docs text to vocab_size {vocab:,}: ours / tokenizers",
                    f"≤ {TARGETS['gpt_train_ratio']}", f"{r:.2f}", r <= TARGETS["gpt_train_ratio"])]
    d = res["merge_diff"]
    if d is None:
        diff_txt = ("The two merge lists are equal." if res["ours_merges"] == res["hf_merges"]
                    else "One merge list is a prefix of the other.")
    else:
        tie = d["ours_count"] == d["hf_count"]
        diff_txt = (f"The merge lists first differ at merge {d['step']:,}: ours {d['ours']!r} (count "
                    f"{d['ours_count']}), tokenizers {d['hf']!r}, which our snapshot just before counts "
                    f"{d['hf_count']} times: {'a tie, broken differently' if tie else 'NOT a tie'}"
                    " (CS336 takes the greater pair of byte strings; tokenizers has its own rule), and"
                    " from then on the intermediate tokens differ, hence slightly different merge counts.")
    return checks, t_train, diff_txt


def report_cs336(cs: dict) -> tuple[list, str, str]:
    """(Targets rows, speed-test table, its load sentence)."""
    limit = TARGETS["cs336_speed_s"]
    what = f"CS336 speed test: corpus.en to vocab_size {CS336_VOCAB}, median"
    if "skipped" in cs:
        return ([check(what, f"< {limit} s", f"skipped: {cs['skipped']}", None)],
                f"Skipped: {cs['skipped']} (`{CS336_CORPUS}` not found).", "")
    mc = med(cs["secs"])
    ref = "reference file absent" if "ref_n" not in cs else same(cs["ref_diff"])
    t_cs = md_table(["input", "vocab_size", "median s", "runs s", "merges made", "vocabulary size",
                     "same merges as CS336's reference", f"< {limit} s"],
                    [[f"corpus.en ({cs['bytes']:,} bytes)", CS336_VOCAB, fmt_s(mc), runs(cs["secs"]),
                      f"{cs['merges']:,}", f"{cs['vocab']:,}", ref, verdict(mc < limit)]])
    checks = [check(what, f"< {limit} s", f"{mc:.3f} s (max {max(cs['secs']):.3f})", mc < limit)]
    if "ref_n" in cs:
        checks.append(check_same("CS336 `test_train_bpe`: our corpus.en merges equal train-bpe-reference-merges.txt",
                                 cs["ref_diff"]))
    return checks, t_cs, f"Load average (1 min) {cs['load'][0]:.2f} before this part, {cs['load'][1]:.2f} after."


def report_encode(res: dict) -> tuple[list, str]:
    """(Targets rows, encoding table)."""
    t, n = res["times"], res["n_tokens"]
    eo, ef, et, el = (med(t[k]) for k in ("ours", "ours_fresh", "tiktoken", "loop"))
    t_enc = md_table(
        ["", "median s", "runs s", "tokens", "ours / this", "same ids as ours"],
        [["ours `bpe_viz.encode(text, trace).ids`, word cache cleared", fmt_s(eo), runs(t["ours"]), f"{n['ours']:,}",
          "1.00", ""],
         ["ours, first encode on a freshly trained trace", fmt_s(ef), runs(t["ours_fresh"]), "", "",
          same(res["fresh_diff"])],
         ["tiktoken `Encoding.encode(text, allowed_special=\"all\")`", fmt_s(et), runs(t["tiktoken"]),
          f"{n['tiktoken']:,}", ratio(eo, et), same(res["tk_diff"])],
         ["minbpe-style loop (`MinbpeLoop.encode`)", fmt_s(el), runs(t["loop"]), f"{n['loop']:,}", ratio(eo, el),
          same(res["loop_diff"])]])
    checks = [check(f"encoding the docs text (cs336 preset, {res['enc_merges']:,} merges): ours / minbpe-style loop",
                    f"≤ {TARGETS['gpt_encode_ratio']}", f"{eo / el:.2f}", eo / el <= TARGETS["gpt_encode_ratio"])]
    for who, key in (("tiktoken", "tk_diff"), ("the minbpe-style loop", "loop_diff")):
        checks.append(check_same(f"encoding the docs text: same ids as {who}, every token", res[key]))
    return checks, t_enc


def run(ctx) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of the GPT-style benchmark."""
    res = {"repeat": ctx.repeat("gpt")}
    load = load1()
    trace = bench_train(ctx, res)
    res["load_train"] = (load, load1())
    res["cs336"] = bench_cs336(ctx)
    bench_encode(ctx, trace, res["full"]["vocab"], res)
    del trace
    gc.collect()
    checks, t_train, diff_txt = report_train(res)
    ch, t_cs, cs_txt = report_cs336(res["cs336"])
    checks += ch
    ch, t_enc = report_encode(res)
    checks += ch
    vocab, pre = res["full"]["vocab"], res["pretokens"]
    md = fill("gpt", t_train=t_train, huge=GPT_HUGE_VOCAB, full=res["full"], vocab=vocab, res=res,
              min_frequency=GPT_HF_MIN_FREQUENCY, chunks=res["chunks"], pre=pre,
              chunks_same="yes" if res["chunks"]["same"] else "NO", hf_pre_same="yes" if res["hf_pre_same"] else "NO",
              only_ws=("only" if pre["only_ws"] else "NOT only") + " whitespace pre-tokens differ",
              diff_txt=diff_txt, rep=res["repeat"], t_cs=t_cs, cs336_vocab=CS336_VOCAB, limit=TARGETS["cs336_speed_s"],
              cs_txt=cs_txt, t_enc=t_enc, special_id=vocab - 1,
              ranks_in_order="yes" if res["ranks_in_order"] else "NO", tk_vs_loop=same(res["tk_vs_loop"]))
    console = [("GPT-style training (cs336 preset)", t_train), ("CS336 speed test", t_cs),
               ("GPT-style encoding (cs336 preset)", t_enc)]
    return checks, console, md
