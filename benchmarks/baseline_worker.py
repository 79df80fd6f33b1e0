#!/usr/bin/env python3
"""One side of ``bench.py --baseline``: a process that imports one checkout's ``bpe_viz`` and
times our own calls on request. Started by ``baseline.py``, never by hand::

    python benchmarks/baseline_worker.py CHECKOUT '{"text_chars": null, "big_types": ..., "big_bytes": ...}'

It puts CHECKOUT first on ``sys.path`` (and checks that ``bpe_viz`` came from there), then reads
one JSON request a line on stdin and answers one JSON line on stdout:

* ``{"op": "measure", "case": {..., "repeat": r}}`` -> ``{"value": x}``: one measurement of the
  case (seconds for a call, milliseconds for the sampled ones), its inputs and traces made
  untimed on first use and kept (a trace that encodes has encoded a little once, so its rank
  and id tables are built; its word cache is emptied before every measurement; a slider step is
  timed on an explorer made afresh, at k drawn with the seed ``r``); ``{"error": "..."}`` if it
  failed;
* ``{"op": "forget"}``: drop the traces and explorers kept so far;
* ``{"op": "info"}``: where ``bpe_viz`` was imported from.

A case is ``{"kind": "call", "fn": name, "args": [...]}`` (``ours.<name>(*args)``), or ``encode``,
``snapshot``, ``round`` or ``slider`` with ``"trace": [fn, *args]``, the call that makes the
trace it reads. Arguments starting with ``$`` are inputs (``$text``, ``$big``, ``$long:<chars>``,
``$cs336``, ``$course``). Everything timed goes through ``ours.py``: bpe_viz's public API.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(ROOT))  # before this folder (the script's own): bpe_viz comes from CHECKOUT

import ours  # noqa: E402  (imports bpe_viz: from ROOT)
from corpora import load_text, make_big_corpus, one_word  # noqa: E402
from settings import (  # noqa: E402
    CS336_CORPUS,
    SLIDER_SENTENCE,
    UNIGRAM_COURSE_SENTENCES,
    UNIGRAM_ROUND_WORDS,
)
from timing import med, timed  # noqa: E402

# small calls run once, untimed, before a function is first timed (imports, first-use caches)
WARM_UP = {"train_subword_nmt": ("$small", 10), "train_long": ("$small_long", 10), "train_gpt": ("$small", 300),
           "train_cs336": ("$cs336", 300), "train_spm": ("$small", 300), "train_unigram_spm": ("$small", 200),
           "train_course": ("$course", 50), "train_ste": ("$small", 300)}


class Worker:
    """The inputs, traces and explorers of one process, and how each kind of case is measured."""

    def __init__(self, setup: dict):
        self.setup = setup
        self.inputs: dict[str, object] = {}
        self.kept: dict[str, object] = {}
        self.warm: set = set()  # the functions run once, and the traces encoded once, untimed

    def arg(self, a):
        """An argument, with ``$``-inputs made on first use."""
        if not (isinstance(a, str) and a.startswith("$")):
            return a
        if a not in self.inputs:
            self.inputs[a] = self.make_input(a)
        return self.inputs[a]

    def make_input(self, name: str):
        if name == "$text":
            return load_text(self.setup["text_chars"])
        if name == "$big":
            return make_big_corpus(self.arg("$text"), self.setup["big_types"], self.setup["big_bytes"])
        if name.startswith("$long:"):
            return one_word(self.arg("$text"))[:int(name.split(":")[1])]
        if name == "$small":
            return self.arg("$text")[:20_000]
        if name == "$small_long":
            return one_word(self.arg("$text"))[:2000]
        if name == "$cs336":
            return CS336_CORPUS
        if name == "$course":
            return UNIGRAM_COURSE_SENTENCES
        raise ValueError(f"unknown input {name}")

    def prepare(self, fn: str, args: list) -> tuple:
        """(``ours.<fn>``, its arguments), inputs made and the function warmed up: all untimed."""
        if fn in WARM_UP and fn not in self.warm:
            self.warm.add(fn)
            getattr(ours, fn)(*map(self.arg, WARM_UP[fn]))
        return getattr(ours, fn), [self.arg(a) for a in args]

    def trace(self, spec: list):
        key = json.dumps(spec)
        if key not in self.kept:
            fn, args = self.prepare(spec[0], spec[1:])
            self.kept[key] = fn(*args)
        return self.kept[key]

    def measure(self, case: dict) -> float:
        kind = case["kind"]
        if kind == "call":
            fn, args = self.prepare(case["fn"], case["args"])
            return timed(fn, *args)[0]
        trace = self.trace(case["trace"])
        rng = random.Random(0)
        if kind == "encode":
            text, options = self.arg("$text"), case.get("options", {})
            if ("encoded", json.dumps(case["trace"])) not in self.warm:  # the tables built on first use
                self.warm.add(("encoded", json.dumps(case["trace"])))
                ours.encode(text[:1000], trace)
            ours.forget_encodings(trace)
            if case.get("ids"):
                return timed(lambda: ours.encode(text, trace, **options).ids)[0]
            return timed(ours.encode, text, trace)[0]
        if kind == "snapshot":
            ks = rng.sample(range(len(trace)), min(case["samples"], len(trace)))
            ms = med([ours.read_snapshot_ms(trace, k) for k in ks])
            ours.forget_snapshots(trace)
            return ms
        if kind == "round":
            words = sorted(trace.word_counts)
            ms = []
            for _ in range(case["samples"]):
                k = rng.randrange(len(trace))
                ms.append(sum(ours.read_round(trace, k, rng.sample(words, UNIGRAM_ROUND_WORDS))) * 1000)
            ours.clear_round_caches(trace)
            return med(ms)
        if kind == "slider":
            return self.slider(trace, case["samples"], case.get("repeat", 0))
        raise ValueError(f"unknown kind {kind}")

    def slider(self, trace, samples: int, seed: int) -> float:
        """Median wall ms of ``ex.step = k`` for random k (seeded: the same k on both sides), the
        default chart, on an explorer made afresh (untimed): an explorer keeps the steps it drew."""
        key = "explorer"
        if key in self.kept:
            self.kept.pop(key).close()
        ex = self.kept[key] = ours.slider_explorer(trace, SLIDER_SENTENCE)[0]
        ex.step = (len(trace) - 1) // 2  # one untimed step: first-draw costs are paid once a session
        rng = random.Random(seed)
        return med([ours.step_ms(ex, rng.randrange(1, len(trace)))[0] for _ in range(samples)])

    def forget(self) -> None:
        for value in self.kept.values():
            if hasattr(value, "close"):
                value.close()
        self.kept.clear()
        self.warm = {w for w in self.warm if isinstance(w, str)}  # the traces encoded once are gone
        self.inputs = {k: v for k, v in self.inputs.items() if k in ("$text", "$small")}


def serve() -> None:
    import bpe_viz

    where = Path(bpe_viz.__file__).resolve()
    if not where.is_relative_to(ROOT):
        raise SystemExit(f"baseline_worker.py: bpe_viz came from {where}, not from {ROOT}")
    answers, sys.stdout = sys.stdout, sys.stderr  # whatever the code prints must not mix with the answers
    worker = Worker(json.loads(sys.argv[2]))
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["op"] == "measure":
                answer = {"value": worker.measure(request["case"])}
            elif request["op"] == "forget":
                worker.forget()
                answer = {}
            else:
                answer = {"bpe_viz": str(where.parent)}
        except Exception as exc:  # report it to the parent, go on
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    serve()
