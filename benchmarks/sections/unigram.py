"""The ``unigram`` section: the Unigram LM, sentencepiece flavour, ours against sentencepiece's
unigram trainer in-process (its default thread count, and ``num_threads=1``).

Training at each of ``Sizes.unigram_vocabs`` with every round kept (time, fresh-process memory,
seed pieces and rounds, whether the final pieces agree, the largest score difference), reading a
round cold, encoding every line with the largest model, the hf-course flavour on the course's
four sentences, and SubwordTextEncoder (``ste``). This module measures; ``unigram_report`` writes
the tables and the Markdown.
"""

from __future__ import annotations

import array
import gc
import random

import ours
from competitors import run_spm, spm_pieces
from memory import spm_unigram_log, unigram_rss
from settings import (
    UNIGRAM_BAD_SHOWN,
    UNIGRAM_COURSE_MIN_REPEAT,
    UNIGRAM_COURSE_SENTENCES,
    UNIGRAM_COURSE_VOCAB,
    UNIGRAM_ROUND_WORDS,
    UNIGRAM_SEED,
)
from timing import alternate, load1

from bpe_viz.engine.unigram.sp_encoder import clear_sp_encode_cache
from sections import ste, unigram_report


def f32_sum(values) -> float:
    """A running sum in 32-bit floats, as sentencepiece adds scores along a path."""
    acc = array.array("f", [0.0])
    for v in values:
        acc[0] = acc[0] + v
    return acc[0]


def compare_unigram(trace, sp) -> dict:
    """How our final vocabulary compares with sentencepiece's model: the piece sets, the largest
    score difference over the pieces both have, and the id layout."""
    theirs = spm_pieces(sp)
    their_score = {p: sp.get_score(i) for i, p in enumerate(theirs)}
    mine = list(trace.id_to_token)
    scores = trace.final.pieces
    common = [p for p in scores if p in their_score]
    moved = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b]
    return {"same_set": set(mine) == set(theirs), "only_ours": len(set(mine) - set(theirs)),
            "only_theirs": len(set(theirs) - set(mine)), "pieces": len(theirs),
            "max_diff": max((abs(scores[p] - their_score[p]) for p in common), default=None),
            "moved": len(moved) + abs(len(mine) - len(theirs)),
            # in sentencepiece's own model, the largest score gap between two pieces whose ids
            # we swapped (a near-tie ordered the other way)
            "moved_gap": max((abs(their_score[mine[i]] - their_score[theirs[i]]) for i in moved
                              if mine[i] in their_score), default=None)}


def bench_train(ctx, lines: list[str], res: dict) -> tuple[dict, dict]:
    """Training at every vocab_size, into ``res``; returns (vocab -> our trace, vocab -> model)."""
    text, chars = ctx.text, ctx.sizes.text_chars
    load = load1()
    ours.train_unigram_spm(text[:20_000], 200)  # warm-up, untimed
    run_spm(lines[:500], 200, "unigram")
    res["train"], traces, models = [], {}, {}
    for vocab in ctx.sizes.unigram_vocabs:
        t, last = alternate({"ours": lambda: ours.train_unigram_spm(text, vocab),
                             "sp": lambda: run_spm(lines, vocab, "unigram"),
                             "sp1": lambda: run_spm(lines, vocab, "unigram", 1)},
                            ctx.repeat("unigram"), ctx.log, f"unigram: training to vocab_size={vocab:,}")
        trace, sp, sp1 = last["ours"], last["sp"], last.pop("sp1")
        t.update(vocab=vocab, seeds=len(trace[0].pieces), rounds=len(trace) - 1, cmp=compare_unigram(trace, sp),
                 cmp1=compare_unigram(trace, sp1), sp_agree=spm_pieces(sp) == spm_pieces(sp1))
        ctx.log(f"unigram: vocab_size={vocab:,}: sentencepiece's log, then memory in fresh processes")
        t["sp_log"] = spm_unigram_log(vocab, chars)
        t["rss"] = {w: unigram_rss(w, vocab, chars) for w in ("ours", "sp", "sp1")}
        traces[vocab], models[vocab] = trace, sp
        del sp1, last
        res["train"].append(t)
        gc.collect()
    res["load_train"] = (load, load1())
    return traces, models


def bench_rounds(ctx, traces: dict, res: dict) -> None:
    """Reading a round: random k, caches cleared, a few random words cut at that round."""
    load = load1()
    rng = random.Random(UNIGRAM_SEED)
    res["rounds"] = []
    for vocab, trace in traces.items():
        vocab_words = sorted(trace.word_counts)
        access, cuts, ks = [], [], []
        for _ in range(ctx.sizes.unigram_round_samples):
            k = rng.randrange(len(trace))
            a, c = ours.read_round(trace, k, rng.sample(vocab_words, UNIGRAM_ROUND_WORDS))
            ks.append(k)
            access.append(a)
            cuts.append(c)
        res["rounds"].append({"vocab": vocab, "rounds": len(trace), "ks": len(set(ks)), "access": access,
                              "cuts": cuts, "total": [a + c for a, c in zip(access, cuts)],
                              "words": len(vocab_words)})
        ours.clear_round_caches(trace)
    res["load_rounds"] = (load, load1())


def check_lines(ctx, trace, sp, lines: list[str], res: dict) -> list[str]:
    """Our pieces of every line against sentencepiece's (untimed), into ``res``: the lines that
    differ, the first few in detail; returns our per-line pieces one after another."""
    ctx.log(f"unigram: checking the pieces of every line (vocab_size={res['enc_vocab']:,}, untimed)")
    per_line = [ours.encode(line, trace).pieces for line in lines]
    theirs = [sp.encode(line, out_type=str) for line in lines]
    bad = [i for i, (a, b) in enumerate(zip(per_line, theirs)) if list(a) != b]
    res["bad_lines"] = len(bad)
    # each differing line (the first few): both segmentations' total score in sentencepiece's own
    # model (in the order the pieces come, from the line's start), and sentencepiece on each of the
    # line's words alone (its Viterbi runs over the whole line; ours restarts at every word)
    their_score = {sp.id_to_piece(i): sp.get_score(i) for i in range(sp.get_piece_size())}
    res["bad_detail"] = []
    for i in bad[:UNIGRAM_BAD_SHOWN]:
        words = ours.encode(lines[i], trace).words
        alone = [p for w in words for p in sp.encode(w[1:], out_type=str)]
        res["bad_detail"].append({"line": i, "ours": " ".join(per_line[i]), "theirs": " ".join(theirs[i]),
                                  "ours_score": f32_sum(their_score.get(p, 0.0) for p in per_line[i]),
                                  "their_score": f32_sum(their_score.get(p, 0.0) for p in theirs[i]),
                                  "alone_is_ours": alone == list(per_line[i])})
    return [p for ps in per_line for p in ps]


def bench_encode(ctx, trace, sp, lines: list[str], res: dict) -> None:
    """Encoding every line with the largest model, ours (one call, its word cache emptied before
    each run) vs sentencepiece (batch, loop)."""
    load = load1()
    res["enc_vocab"] = ctx.sizes.unigram_vocabs[-1]
    flat = check_lines(ctx, trace, sp, lines, res)
    sp.encode(lines[:100])  # warm-up, untimed
    # cold: the encoder's word cache (filled by check_lines) is emptied before each timed run
    res["enc_times"], out = alternate(
        {"ours": lambda: ours.encode(ctx.text, trace), "sp_batch": lambda: sp.encode(lines),
         "sp_loop": lambda: [sp.encode(line) for line in lines]},
        ctx.repeat("unigram"), ctx.log, f"unigram: encoding every line (vocab_size={res['enc_vocab']:,})",
        setup={"ours": clear_sp_encode_cache})
    res["enc_tokens"] = {"ours": len(out["ours"].ids), "sp_batch": sum(map(len, out["sp_batch"])),
                         "sp_loop": sum(map(len, out["sp_loop"]))}
    res["whole_is_lines"] = list(out["ours"].pieces) == flat
    res["batch_same_as_loop"] = out["sp_batch"] == out["sp_loop"]
    del out, flat
    gc.collect()
    res["load_enc"] = (load, load1())


def bench_course(ctx, res: dict) -> None:
    """The hf-course flavour on the course's four sentences (a few more runs: it is quick)."""
    load = load1()
    times, last = alternate({"ours": lambda: ours.train_course(UNIGRAM_COURSE_SENTENCES, UNIGRAM_COURSE_VOCAB)},
                            max(ctx.repeat("unigram"), UNIGRAM_COURSE_MIN_REPEAT), lambda *a: None, "course")
    ct = last["ours"]
    res["course"] = {"ours": times["ours"], "seeds": len(ct[0].pieces), "rounds": len(ct) - 1,
                     "final": len(ct.final.pieces), "words": len(ct.word_counts), "stop": ct.stop_reason,
                     "tokens": ours.encode(UNIGRAM_COURSE_SENTENCES[0].replace("Course", "course"), ct).tokens}
    res["load_course"] = (load, load1())


def run(ctx) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of the Unigram and SubwordTextEncoder benchmark."""
    lines = ctx.text.split("\n")
    res = {"repeat": ctx.repeat("unigram"), "lines": len(lines)}
    traces, models = bench_train(ctx, lines, res)
    bench_rounds(ctx, traces, res)
    vocab = ctx.sizes.unigram_vocabs[-1]
    bench_encode(ctx, traces[vocab], models[vocab], lines, res)
    del traces, models
    gc.collect()
    bench_course(ctx, res)
    load = load1()
    res["ste"], res["ste_ref"] = ste.bench_ste(ctx)
    res["load_ste"] = (load, load1())
    return unigram_report.report(res, ctx.sizes)
