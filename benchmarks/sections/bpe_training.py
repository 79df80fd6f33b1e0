"""The main section's BPE figures on the documentation text: training time and memory at each
``--merges`` (ours, subword-nmt, tokenizers), cold snapshot access and encoding the whole text
with the largest trace.

``bench_training`` times, ``report_training`` turns its result into the Training and Memory
tables; ``bench_access`` and ``report_access`` do the same for snapshots and encoding. The
slider and the notebooks, the rest of the main section, are in ``slider`` and ``notebooks``.
"""

from __future__ import annotations

import gc
import io
import random

import ours
from competitors import codes_merges, hf_merge_pairs, run_hf, run_snmt
from corpora import hf_initial_alphabet, snmt_lines
from memory import rss_growth
from report import check, fmt_mib, fmt_s, md_table, ratio, verdict
from settings import TARGETS
from timing import alternate, med, traced_peak


def bench_training(ctx) -> tuple[dict, dict]:
    """(N -> times, merge counts, agreement and memory; the largest N's trace, codes and
    tokenizer), competitors alternating within each repeat."""
    text = ctx.text
    lines = snmt_lines(text)
    joined = "\n".join(lines) + "\n"
    alphabet = hf_initial_alphabet(lines)
    ours.train_subword_nmt(text, 10)  # warm up imports and caches once, untimed
    run_snmt(joined, 10)
    run_hf(lines, 10, alphabet)
    ns = sorted(set(ctx.args.merges))
    train = {}
    for n in ns:
        t, last = alternate({"ours": lambda: ours.train_subword_nmt(text, n),
                             "ours_first": lambda: ours.train_subword_nmt(text, n, "first"),
                             "snmt": lambda: run_snmt(joined, n), "hf": lambda: run_hf(lines, n, alphabet)},
                            ctx.repeat("main"), ctx.log, f"N={n}", keep=("ours", "snmt", "hf"))
        ours_m = [" ".join(m.pair) for m in last["ours"].merges]
        snmt_m = codes_merges(last["snmt"])
        t["same"] = ours_m == snmt_m
        t["first_diff"] = next((i for i, (a, b) in enumerate(zip(ours_m, snmt_m)) if a != b), None)
        t["n_ours"], t["n_snmt"] = len(ours_m), len(snmt_m)
        t["n_hf"] = len(hf_merge_pairs(last["hf"]))
        ctx.log(f"N={n}: memory (tracemalloc, then RSS in fresh processes)")
        t["mem_ours"] = traced_peak(ours.train_subword_nmt, text, n) / 2**20
        t["mem_snmt"] = traced_peak(run_snmt, joined, n) / 2**20
        t["rss"] = {w: rss_growth(w, n, ctx.sizes.text_chars) for w in ("ours", "snmt", "hf")}
        train[n] = t
        if n != ns[-1]:
            del last
    return train, {"trace": last["ours"], "codes": last["snmt"], "hf": last["hf"], "alphabet": alphabet}


def report_training(train: dict) -> tuple[list, str, str]:
    """(Targets rows, Training table, Memory table)."""
    rows_t, rows_m, checks = [], [], []
    for n, t in train.items():
        mo, mf, ms, mh = (med(t[k]) for k in ("ours", "ours_first", "snmt", "hf"))
        r = mo / ms
        first = t["first_diff"] + 1 if t["first_diff"] is not None else "end"
        same = "yes" if t["same"] else f"no (first differs at merge {first})"
        rows_t.append([f"{n:,}", fmt_s(mo), fmt_s(mf), fmt_s(ms), fmt_s(mh), f"{r:.2f}",
                       f"{t['n_ours']:,} / {t['n_snmt']:,} / {t['n_hf']:,}", same])
        mratio = t["mem_ours"] / t["mem_snmt"]
        rss = t["rss"]
        rows_m.append([f"{n:,}", fmt_mib(t["mem_ours"]), fmt_mib(t["mem_snmt"]), f"{mratio:.2f}",
                       fmt_mib(rss["ours"]), fmt_mib(rss["snmt"]), fmt_mib(rss["hf"])])
        checks.append(check(f"training time ours / subword-nmt at {n:,} merges", f"≤ {TARGETS['train_ratio']}",
                            f"{r:.2f}", r <= TARGETS["train_ratio"]))
        checks.append(check(f"tracemalloc peak ours / subword-nmt at {n:,} merges", f"≤ {TARGETS['memory_ratio']}",
                            f"{mratio:.2f}", mratio <= TARGETS["memory_ratio"]))
        checks.append(check(f"same merges as subword-nmt at {n:,} merges", "yes", "yes" if t["same"] else "no",
                            t["same"]))
    t_train = md_table(
        ["merges", "ours (lexicographic ties) s", "ours (tie_break=\"first\") s", "subword-nmt s",
         "tokenizers s", "ours / subword-nmt", "merges made (ours / snmt / tokenizers)", "same merges as subword-nmt"],
        rows_t)
    t_mem = md_table(
        ["merges", "ours tracemalloc peak MiB", "subword-nmt tracemalloc peak MiB", "ours / subword-nmt",
         "ours RSS growth MiB", "subword-nmt RSS growth MiB", "tokenizers RSS growth MiB"],
        rows_m)
    return checks, t_train, t_mem


def bench_access(ctx, last: dict) -> dict:
    """Cold snapshot access at random steps of the largest trace, then encoding the whole text
    with it: ours (word cache emptied), subword-nmt's ``process_line`` on every line, tokenizers'
    ``encode_batch``."""
    from subword_nmt.apply_bpe import BPE

    text, trace = ctx.text, last["trace"]
    lines = snmt_lines(text)
    rng = random.Random(0)
    ks = rng.sample(range(len(trace)), min(ctx.sizes.snapshot_samples, len(trace)))
    ctx.log(f"snapshot access: {len(ks)} random steps of {len(trace) - 1}")
    snap_ms = [ours.read_snapshot_ms(trace, k) for k in ks]
    ours.forget_snapshots(trace)
    state = {}  # subword-nmt's BPE object, made before each timing from the codes of the same learn run
    times, out = alternate({"ours": lambda: ours.encode(text, trace),
                            "snmt": lambda: [state["bpe"].process_line(line) for line in lines],
                            "hf": lambda: last["hf"].encode_batch(lines)},
                           ctx.repeat("main"), ctx.log, f"encoding the whole text with {len(trace.merges)} merges",
                           keep=("ours", "snmt"),
                           setup={"ours": lambda: ours.forget_encodings(trace),
                                  "snmt": lambda: state.update(bpe=BPE(io.StringIO(last["codes"])))})
    snmt_tokens = " ".join(out["snmt"]).split()
    res = {"snap_ms": snap_ms, "enc": times, "agree": ours_as_snmt(out["ours"]) == snmt_tokens,
           "n_enc_tokens": len(out["ours"].tokens), "snmt_enc_tokens": len(snmt_tokens)}
    del out
    gc.collect()
    return res


def ours_as_snmt(enc) -> list[str]:
    """Our encoding spelled as apply-bpe output tokens: 'th@@', 'e' for ['th', 'e</w>']."""
    out = []
    for pieces in enc.word_pieces():
        for i, p in enumerate(pieces):
            if i == len(pieces) - 1:
                out.append(p[: -len("</w>")] if p.endswith("</w>") else p)
            else:
                out.append(p + "@@")
    return out


def report_access(res: dict, n_big: int) -> tuple[list, str, str]:
    """(Targets rows, Snapshot access table, Encoding table)."""
    snap_ms = res["snap_ms"]
    snap_med, snap_max = med(snap_ms), max(snap_ms)
    eo, es, eh = (med(res["enc"][k]) for k in ("ours", "snmt", "hf"))
    eratio = eo / es
    checks = [check(f"snapshot access at {n_big:,} merges, median", f"≤ {TARGETS['snapshot_ms']:.0f} ms",
                    f"{snap_med:.1f} ms", snap_med <= TARGETS["snapshot_ms"]),
              check(f"encoding ours / subword-nmt apply-bpe at {n_big:,} merges", f"≤ {TARGETS['encode_ratio']}",
                    f"{eratio:.2f}", eratio <= TARGETS["encode_ratio"]),
              ["encoding: same segmentation as apply-bpe, every word", "yes", "yes" if res["agree"] else "no",
               verdict(res["agree"])]]
    t_snap = md_table(["merges", "samples", "median ms", "max ms"],
                      [[f"{n_big:,}", len(snap_ms), f"{snap_med:.1f}", f"{snap_max:.1f}"]])
    t_enc = md_table(
        ["", "median s", "tokens", "vs subword-nmt apply-bpe"],
        [["bpe_viz.encode(text, trace)", fmt_s(eo), f"{res['n_enc_tokens']:,}", f"{eratio:.2f}"],
         ["subword-nmt BPE.process_line, every line", fmt_s(es), f"{res['snmt_enc_tokens']:,}", "1.00"],
         ["tokenizers encode_batch(lines)", fmt_s(eh), "", ratio(eh, es)]])
    return checks, t_snap, t_enc
