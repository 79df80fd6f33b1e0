"""The ``unigram`` section's tables and Markdown, from what ``unigram`` measured: training,
what was trained, memory, a round, encoding, the course's corpus and SubwordTextEncoder (whose
part ``ste`` writes).
"""

from __future__ import annotations

import os
import textwrap

from report import check, fill, fmt_mib, fmt_s, loads, md_table, ratio, runs, version_of
from settings import (
    TARGETS,
    UNIGRAM_COURSE_VOCAB,
    UNIGRAM_ROUND_WORDS,
    UNIGRAM_SCORE_TOL,
    UNIGRAM_SEED,
)
from timing import med

from sections.ste import report_ste


# issue 20 target 2: ours against sentencepiece measured in the same run (medians)
TRAIN_RATIO_MAX = 3.0  # training (every round kept) / sentencepiece num_threads=1, at every vocab_size
ENCODE_RATIO_MAX = 10.0  # encoding every line, one call / sp.encode(lines)


def diff(x) -> str:
    return "n/a" if x is None else f"{x:.1e}"


def num(x) -> str:
    return "n/a" if x is None else f"{x:,}"


def agree(c: dict) -> str:
    return "yes" if c["same_set"] else f"no ({c['only_ours']} only ours, {c['only_theirs']} only theirs)"


def memory_row(t: dict) -> list:
    """The Memory table's row of one vocab_size."""
    r = t["rss"]

    def grow(x):
        return "n/a" if x is None else fmt_mib(x["peak"] - x["before"])

    def peak(x):
        return "n/a" if x is None else fmt_mib(x["peak"])

    go = None if r["ours"] is None else r["ours"]["peak"] - r["ours"]["before"]
    gs = None if r["sp"] is None else r["sp"]["peak"] - r["sp"]["before"]
    return [f"{t['vocab']:,}", grow(r["ours"]), grow(r["sp"]), grow(r["sp1"]),
            "n/a" if go is None or not gs else f"{go / gs:.1f}", peak(r["ours"]), peak(r["sp"]), peak(r["sp1"]),
            "n/a" if r["ours"] is None or r["sp"] is None else
            f"{fmt_mib(r['ours']['imported'])} / {fmt_mib(r['sp']['imported'])}"]


def report_train(res: dict) -> tuple[list, str, str, str]:
    """(Targets rows, Training, What was trained and Memory tables)."""
    rows, rows_cmp, rows_mem, checks = [], [], [], []
    for t in res["train"]:
        mo, ms, m1 = med(t["ours"]), med(t["sp"]), med(t["sp1"])
        lg, c, c1 = t["sp_log"], t["cmp"], t["cmp1"]
        rows.append([f"{t['vocab']:,}", fmt_s(mo), runs(t["ours"]), fmt_s(ms), runs(t["sp"]), fmt_s(m1),
                     runs(t["sp1"]), ratio(mo, ms), ratio(mo, m1)])
        rows_cmp.append([f"{t['vocab']:,}", f"{t['seeds']:,} / {num(lg.get('seeds'))}",
                         f"{t['rounds'] - 1} + final / {num(lg.get('rounds'))}",
                         agree(c), diff(c["max_diff"]), f"{c['moved']:,} ({diff(c['moved_gap'])})",
                         agree(c1), diff(c1["max_diff"]), "yes" if t["sp_agree"] else "no"])
        checks.append(check(f"Unigram (sentencepiece flavour): same final pieces as sentencepiece at {t['vocab']:,}",
                            "yes", agree(c), c["same_set"]))
        checks.append(check(f"Unigram: largest score difference from sentencepiece at {t['vocab']:,}",
                            f"≤ {UNIGRAM_SCORE_TOL:g}", diff(c["max_diff"]),
                            c["max_diff"] is not None and c["max_diff"] <= UNIGRAM_SCORE_TOL))
        checks.append(check(f"Unigram training (sentencepiece flavour, every round kept) / sentencepiece "
                            f"num_threads=1 at {t['vocab']:,}, medians, same run", f"≤ {TRAIN_RATIO_MAX:g}",
                            ratio(mo, m1), None if mo is None or not m1 else mo / m1 <= TRAIN_RATIO_MAX))
        rows_mem.append(memory_row(t))
    t_train = md_table(["vocab_size", "ours median s", "ours runs s", "sentencepiece (as run) median s",
                        "runs s", "sentencepiece num_threads=1 median s", "runs s", "ours / as run",
                        "ours / num_threads=1"], rows)
    t_cmp = md_table(["vocab_size", "seed pieces (ours / sentencepiece's log)",
                      "rounds (ours / sentencepiece's log)", "same final pieces (as run)",
                      "largest score difference", "ids placed differently (largest gap)",
                      "same final pieces (num_threads=1)", "largest score difference (num_threads=1)",
                      "sentencepiece as run = num_threads=1"], rows_cmp)
    t_mem = md_table(["vocab_size", "ours RSS growth MiB", "sentencepiece (as run) RSS growth MiB",
                      "sentencepiece num_threads=1 RSS growth MiB", "ours / as run",
                      "ours peak RSS MiB", "sentencepiece (as run) peak RSS MiB",
                      "sentencepiece num_threads=1 peak RSS MiB", "after import MiB (ours / sentencepiece)"],
                     rows_mem)
    return checks, t_train, t_cmp, t_mem


def report_rounds(res: dict) -> tuple[list, str]:
    """(Targets rows, A round table)."""
    rows, checks = [], []
    for t in res["rounds"]:
        tot = [x * 1000 for x in t["total"]]
        mt, mx = med(tot), max(tot)
        rows.append([f"{t['vocab']:,}", f"{t['rounds']}", f"{len(tot)} ({t['ks']} distinct k)",
                     f"{med(t['access']) * 1000:.3f}", f"{med(t['cuts']) * 1000:.2f}", f"{mt:.2f}", f"{mx:.2f}"])
        checks.append(check(f"Unigram: a round readable (trace[k], its pieces, losses, removals and "
                            f"{UNIGRAM_ROUND_WORDS} words' segmentation) at {t['vocab']:,}, median",
                            f"≤ {TARGETS['unigram_round_ms']:g} ms", f"{mt:.2f} ms (max {mx:.2f})",
                            mt <= TARGETS["unigram_round_ms"]))
    return checks, md_table(["vocab_size", "snapshots in the trace", "samples", "trace[k] + fields, median ms",
                             f"{UNIGRAM_ROUND_WORDS} segmentations, median ms", "total median ms", "total max ms"],
                            rows)


def bad_lines_text(res: dict) -> tuple[str, str]:
    """(the sentence on same pieces, the table of the lines that differ with its note, or "")."""
    bad, shown = res["bad_lines"], res["bad_detail"]
    if bad == 0:
        return "yes", ""
    same_txt = (f"no: {bad:,} of {res['lines']:,} lines differ" +
                (f" (the first {len(shown)} below)" if bad > len(shown) else " (below)"))
    table = md_table(
        ["line", "ours", "sentencepiece", "their score of ours", "their score of theirs",
         "sentencepiece, each word alone = ours"],
        [[f"{d['line'] + 1:,}", f"`{d['ours']}`".replace("|", "\\|"), f"`{d['theirs']}`".replace("|", "\\|"),
          f"{d['ours_score']:.6f}", f"{d['their_score']:.6f}", "yes" if d["alone_is_ours"] else "no"]
         for d in shown])
    note = textwrap.fill(
        "\"their score\": the sum of `sp.get_score` over the pieces, in 32-bit floats from the line's"
        " start, as sentencepiece's Viterbi adds them; equal sums are a tie that the order of the additions"
        " decides. \"each word alone\": `sp.encode(word)` for every word of the line, joined, equals our"
        " pieces (sentencepiece runs Viterbi over the whole line, ours word by word).",
        width=100, break_on_hyphens=False)
    return same_txt, "\n\n" + table + "\n\n" + note


def report_encode(res: dict) -> tuple[list, str, str, str]:
    """(Targets rows, Encoding table, the sentence on same pieces, the differing lines' part)."""
    t, n = res["enc_times"], res["enc_tokens"]
    eo, eb, el = med(t["ours"]), med(t["sp_batch"]), med(t["sp_loop"])
    t_enc = md_table(
        ["", "median s", "runs s", "tokens", "ours / this"],
        [["ours `encode(text, trace)`, one call", fmt_s(eo), runs(t["ours"]), f"{n['ours']:,}", "1.00"],
         ["sentencepiece `sp.encode(lines)`, batch", fmt_s(eb), runs(t["sp_batch"]), f"{n['sp_batch']:,}",
          ratio(eo, eb)],
         ["sentencepiece `[sp.encode(l) for l in lines]`", fmt_s(el), runs(t["sp_loop"]), f"{n['sp_loop']:,}",
          ratio(eo, el)]])
    same_txt, t_bad = bad_lines_text(res)
    bad = res["bad_lines"]
    # our scores differ from sentencepiece's by up to 1e-4, so two cuts that tie within that may swap
    near = bad <= len(res["bad_detail"]) and all(
        abs(d["ours_score"] - d["their_score"]) <= UNIGRAM_SCORE_TOL for d in res["bad_detail"])
    checks = [check("Unigram encoding: same pieces as sentencepiece on every line, but where two cuts score "
                    "within 1e-4 (near-ties)", "yes",
                    "yes" if bad == 0 else f"{bad:,} of {res['lines']:,} lines differ, " +
                    ("all near-ties" if near else "not all near-ties"), bad == 0 or near),
              check(f"Unigram encoding every line (vocab_size={res['enc_vocab']:,}): ours `encode(text, trace)` / "
                    "`sp.encode(lines)`, medians, same run", f"≤ {ENCODE_RATIO_MAX:g}", ratio(eo, eb),
                    None if eo is None or not eb else eo / eb <= ENCODE_RATIO_MAX)]
    return checks, t_enc, same_txt, t_bad


def report(res: dict, sizes) -> tuple[list, list, str]:
    """(Targets rows, console tables, Markdown section) of the whole ``unigram`` section."""
    rep = res["repeat"]
    checks, t_train, t_cmp, t_mem = report_train(res)
    ch, t_round = report_rounds(res)
    checks += ch
    ch, t_enc, same_txt, t_bad = report_encode(res)
    checks += ch
    c = res["course"]
    t_course = md_table(["corpus", "vocab_size", "median s", "runs s", "seed pieces", "rounds", "final pieces"],
                        [["the course's four sentences", f"{UNIGRAM_COURSE_VOCAB}", fmt_s(med(c["ours"])),
                          runs(c["ours"]), f"{c['seeds']}", f"{c['rounds']}", f"{c['final']}"]])
    ch, t_ste, ste_md = report_ste(res["ste"], res["ste_ref"], rep)
    checks += ch
    threads = sorted({t["sp_log"].get("threads") for t in res["train"]} - {None})
    md = fill("unigram", sp_version=version_of("sentencepiece"),
              vocabs=" and ".join(f"{v:,}" for v in sizes.unigram_vocabs), res=res,
              threads=", ".join(map(str, threads)) or "n/a", cpus=os.cpu_count(), rep=rep, t_train=t_train,
              t_cmp=t_cmp, t_mem=t_mem, t_round=t_round, round_words=UNIGRAM_ROUND_WORDS,
              round_samples=sizes.unigram_round_samples, seed=UNIGRAM_SEED, t_enc=t_enc, same_txt=same_txt,
              whole="yes" if res["whole_is_lines"] else "NO", batch_same="yes" if res["batch_same_as_loop"] else "NO",
              t_bad=t_bad, t_course=t_course, course_vocab=UNIGRAM_COURSE_VOCAB, c=c, course_runs=len(c["ours"]),
              course_tokens=" ".join(f"`{x}`" for x in c["tokens"]), ste_md=ste_md,
              loads=loads((("training and memory", res["load_train"]), ("rounds", res["load_rounds"]),
                           ("encoding", res["load_enc"]), ("course", res["load_course"]),
                           ("SubwordTextEncoder", res["load_ste"]))))
    console = [("Unigram training", t_train), ("Unigram: what was trained", t_cmp), ("Unigram memory", t_mem),
               ("Unigram: a round", t_round), ("Unigram encoding", t_enc), ("Unigram, the course", t_course),
               ("SubwordTextEncoder", t_ste)]
    return checks, console, md
