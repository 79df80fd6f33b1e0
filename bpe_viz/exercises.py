"""Checkers for the "build it yourself" exercises: a learner's BPE functions against the engine.

In minbpe's order (Karpathy, ``exercise.md`` and ``base.py``): :func:`check_count_pairs`,
:func:`check_merge`, :func:`check_train`, :func:`check_encode`, then the byte-level
:func:`check_train_bytes` and :func:`check_encode_bytes`. Each runs the learner's function on
inputs from tiny to realistic (empty, one symbol, ``aaaa``, ties, seeded random strings, a few
sentences of the bundled corpora, non-ASCII text for bytes), stops at the first input where it
differs from the engine and says so: the input (shortened), what the function returned, what the
engine did and a hint why. The learner's exceptions are caught and shown in one line.

The conventions, those of minbpe's ``BasicTokenizer``:

* training reads the **whole text as one sequence**, spaces and newlines included (no
  pre-tokenizer: the engine's ``pre_tokenizer=WHOLE_TEXT``), and merges pairs seen once too;
* **ties**: among pairs with the same count, the first one met reading the current sequence left
  to right wins (``max(counts, key=counts.get)`` on a dict filled in order; the engine's
  ``tie_break="first"``); training stops early when no pair is left;
* a merge is left to right and non-overlapping (``a a a`` with ``(a, a)`` -> ``aa a``);
* encoding merges, of the learned pairs present, the one learned first (lowest rank);
* bytes: ids 0..255 are the UTF-8 bytes, merge ``i`` (from 0) makes id ``256 + i``: the
  engine's ``preset="minbpe"``, whose ids equal minbpe's.

How it differs from its siblings: :mod:`bpe_viz.exercises_solutions` holds one answer in plain
Python (this module checks any answer against the engine, never against that file);
:mod:`bpe_viz.exercises_inputs` builds the inputs and the engine's answers that this module runs
the learner's function on and explains.

Example::

    >>> from bpe_viz.exercises_solutions import merge
    >>> print(check_merge(merge))
    ✓ merge: matches the engine on all 23 inputs, from an empty list to Python's documentation
    (1,500 characters).
    >>> result = check_merge(lambda ids, pair, new: ids)
    >>> result.passed, result.checked
    (False, 3)
"""

from __future__ import annotations

import copy
import html
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .exercises_inputs import (WHOLE_TEXT, Case, bytes_of, count_cases, encode_cases, merge_cases, pair_counts,
                               segmentation, train_cases)

__all__ = ["CheckResult", "WHOLE_TEXT", "check_count_pairs", "check_merge", "check_train", "check_encode",
           "check_train_bytes", "check_encode_bytes"]


@dataclass(frozen=True, repr=False)
class CheckResult:
    """What a checker found: ``passed``, how many inputs it ran (``checked``, the failing one
    included) and the ``message``; ``str()`` and ``repr()`` give the message, Jupyter shows it
    framed (escaped HTML), and ``bool(result)`` is ``passed``.

    Example::

        >>> r = CheckResult(False, 2, "✗ merge: <b> differs")
        >>> bool(r), str(r)
        (False, '✗ merge: <b> differs')
        >>> "&lt;b&gt;" in r._repr_html_()
        True
    """

    passed: bool
    checked: int
    message: str

    def __str__(self) -> str:
        return self.message

    __repr__ = __str__

    def __bool__(self) -> bool:
        return self.passed

    def _repr_html_(self) -> str:
        color = "#1b7a2e" if self.passed else "#b3261e"
        return (f'<pre style="border-left:4px solid {color};padding:4px 8px;margin:0;white-space:pre-wrap">'
                f"{html.escape(self.message)}</pre>")


# -- showing values, shortened ------------------------------------------------------------------

def _clip(value, limit: int = 70) -> str:
    """``repr(value)`` cut at ``limit`` characters (a long str says its length)."""
    r = repr(value)
    if len(r) <= limit:
        return r
    size = f" ({len(value):,} characters)" if isinstance(value, str) else ""
    return f"{r[:limit - 1]}…{size}"


def _cut(text: str, limit: int) -> str:
    """Plain text cut at ``limit`` characters."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _items(xs, at: int = 0, width: int = 10, fmt: Callable = lambda x: _clip(x, 24), brackets: str = "[]") -> str:
    """A list shown around position ``at``: ``[… 12 before, 'a', 'b', … 30 more]``."""
    xs = list(xs)
    start = max(0, min(at - 3, len(xs) - width))
    inner = [fmt(x) for x in xs[start:start + width]]
    if start:
        inner.insert(0, f"… {start} before")
    if len(xs) > start + width:
        inner.append(f"… {len(xs) - start - width} more")
    return brackets[0] + ", ".join(inner) + brackets[1]


def _mapping(d: Mapping, width: int = 6) -> str:
    shown = [f"{_clip(k, 30)}: {_clip(v, 12)}" for k, v in list(d.items())[:width]]
    if len(d) > width:
        shown.append(f"… {len(d) - width} more")
    return "{" + ", ".join(shown) + "}"


def _first_difference(a, b) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def _where(exc: BaseException) -> str:
    """`` (line 4: `return ids[i + 1]`)``: the learner's line that raised, when known."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
    if not frames or isinstance(exc, NotImplementedError):  # a stub: its line is the raise itself
        return ""
    f = frames[-1]
    return f" (line {f.lineno}: `{f.line.strip()}`)" if f.line else f" (line {f.lineno})"


def _error_hint(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, NotImplementedError):
        return "not written yet: replace the `raise NotImplementedError(...)` line with your code, run that cell, then this one."
    if isinstance(exc, IndexError):
        return "an index ran past the end: the last symbol has no right neighbour (check i + 1 < len(...))."
    if isinstance(exc, ValueError) and "empty" in text:
        return "max()/min() of an empty dict: stop when no pair is left (0 or 1 symbols have none)."
    if isinstance(exc, TypeError) and "unhashable" in text:
        return "dict keys must be tuples: write pairs as (a, b), a list cannot be a key."
    return "run your function on this input yourself to see where it fails."


# -- the run ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Miss:
    yours: str
    engine: str
    hint: str


def _check_callable(fn, task: str) -> None:
    if not callable(fn):
        raise TypeError(f"fn must be your function itself, e.g. check_{task}({task}) without parentheses; "
                        f"got {type(fn).__name__} {_clip(fn, 40)}")


def _call_text(name: str, args: tuple) -> str:
    return f"{name}({', '.join(_items(a) if isinstance(a, list) else _clip(a, 60) for a in args)})"


def _run(task: str, fn, cases: list[Case], compare: Callable[[object, Case], _Miss | None]) -> CheckResult:
    """Run ``fn`` on each case in order; stop at the first that raises or differs."""
    _check_callable(fn, task)
    name = getattr(fn, "__name__", task)
    name = task if name == "<lambda>" else name
    n = len(cases)
    for k, case in enumerate(cases, 1):
        head = f"✗ {task}: input {k} of {n} ({case.label})"
        call = _call_text(name, case.args)
        try:
            got = fn(*copy.deepcopy(case.args))  # a function that changes its input changes a copy
        except Exception as exc:  # noqa: BLE001  (the learner's error, shown in one line)
            return CheckResult(False, k, f"{head}: your function raised an error.\n  input:  {call}\n"
                                         f"  error:  {type(exc).__name__}: {_cut(str(exc), 120)}{_where(exc)}\n"
                                         f"  hint:   {_error_hint(exc)}")
        try:
            miss = compare(got, case)
        except Exception as exc:  # noqa: BLE001  (something stranger than the diagnoses expect)
            miss = _Miss(f"a {type(got).__name__}: {_clip(got)}", "see the task's description",
                         f"your result could not be compared ({type(exc).__name__}: {_cut(str(exc), 80)}).")
        if miss is not None:
            return CheckResult(False, k, f"{head} differs from the engine.\n  input:  {call}\n"
                                         f"  yours:  {miss.yours}\n  engine: {miss.engine}\n  hint:   {miss.hint}")
    return CheckResult(True, n, f"✓ {task}: matches the engine on all {n} inputs, from {cases[0].label} "
                                f"to {cases[-1].label}.")


# -- what went wrong ----------------------------------------------------------------------------

def _type_miss(got, expected_text: str, engine: str, extra: str = "") -> _Miss:
    if got is None:
        return _Miss("None", engine, f"you returned None; expected {expected_text}: is `return` missing (or did you "
                                     f"change the input in place)?")
    return _Miss(f"a {type(got).__name__}: {_clip(got)}", engine,
                 f"you returned a {type(got).__name__}; expected {expected_text}{extra}")


def _first_at(seq, pair) -> int | None:
    return next((i for i, p in enumerate(zip(seq, seq[1:])) if p == pair), None)


def _adjacent(seq, pair) -> bool:
    return _first_at(seq, pair) is not None


def _compare_counts(got, case: Case) -> _Miss | None:
    (seq,), exp = case.args, case.expected
    if not isinstance(got, Mapping):
        extra = " (dict(...) of your list, if it holds (pair, count) items)" if isinstance(got, list) else ""
        return _type_miss(got, "a dict that maps each pair (a, b) to its count", _mapping(exp), extra)
    bad = next((k for k in got if not (isinstance(k, tuple) and len(k) == 2)), None)
    if bad is not None:
        why = (": a joined string forgets where one symbol ends ('a', 'ab') and ('aa', 'b') both give 'aab'"
               if isinstance(bad, str) else "")
        return _Miss(_mapping(got), _mapping(exp), f"keys are pairs, tuples (a, b) of two neighbours; you have the key "
                                                   f"{_clip(bad, 30)}{why}")
    got = dict(got)
    if got == exp:
        return None
    wrong = [p for p in exp if got.get(p) != exp[p]] + [p for p in got if p not in exp]
    p = wrong[0]
    yours = f"{_clip(p, 40)}: {got.get(p, 'absent')} (of {_mapping(got)})"
    engine = f"{_clip(p, 40)}: {exp.get(p, 'absent')}"
    if p not in exp and not _adjacent(seq, p):
        hint = (f"{_clip(p, 40)} is not a pair of neighbours here: the pairs are (ids[i], ids[i + 1]), i from 0 to "
                f"len(ids) - 2.")
    elif p[0] == p[1] and got.get(p, 0) < exp.get(p, 0):
        hint = (f"overlapping pairs count every time: [{_clip(p[0], 20)}] * 3 holds the pair {_clip(p, 40)} "
                f"twice (at 0 and 1); count every position i, never skip ahead after a match.")
    elif all(v == 1 for v in got.values()):
        hint = "count every occurrence of a pair, not only whether it occurs."
    else:
        hint = "count each (ids[i], ids[i + 1]) once for every position i."
    return _Miss(yours, engine, hint)


def _merge_hint(got: list, exp: list, seq, pair, new, at: int) -> str:
    if pair[0] == pair[1] and got.count(new) > exp.count(new):
        return (f"overlapping pairs: in [{_clip(pair[0], 20)}] * 3 the pair {_clip(pair, 40)} merges once, "
                f"left to right: after a merge at i, go on at i + 2.")
    if len(got) > len(exp) and got.count(new) >= exp.count(new):
        return ("after a merge at i, go on at i + 2: your list keeps a symbol the merge has used (the pair's right "
                "symbol).")
    strange = [s for s in got if s != new and s not in seq]
    if strange:
        return (f"your list holds {_clip(strange[0], 30)}, neither a symbol of the input nor the new token: a merge "
                f"glues two whole neighbouring symbols; replacing in the joined text crosses symbol boundaries "
                f"(in ['x', 'ab', 'c'] the pair ('b', 'c') does not occur).")
    if all(isinstance(s, str) for s in got + list(seq)) and "".join(got) != "".join(seq):
        return ("your symbols spell other text than the input: a merge only glues symbols, it never adds or drops "
                "characters (splitting a joined string at spaces loses the space symbols).")
    if got.count(new) < exp.count(new):
        return f"you merged {got.count(new)} of the {exp.count(new)} occurrences: merge every one, left to right."
    return (f"the first difference is at position {at}: walk the list once, left to right; where (ids[i], ids[i + 1]) "
            f"== pair append the new token and skip both, else append ids[i].")


def _listed(got, exp: list, expected_text: str) -> tuple[list, _Miss | None]:
    """``(got as a list, None)``, or ``([], the miss)`` when it is no list or tuple."""
    if not isinstance(got, (list, tuple)):
        return [], _type_miss(got, expected_text, _items(exp))
    return list(got), None


def _compare_merge(got, case: Case) -> _Miss | None:
    seq, pair, new = case.args
    exp = case.expected
    got, miss = _listed(got, exp, "the new list of symbols (not joined into one string)")
    if miss is not None or got == exp:
        return miss
    at = _first_difference(got, exp)
    return _Miss(_items(got, at), _items(exp, at), _merge_hint(got, exp, seq, pair, new, at))


def _is_space(text: str) -> bool:
    return any(c.isspace() for c in text)


def _training_hint(got: list, exp: list, case: Case, spell: Callable, show: Callable) -> str:
    """Why a learner's list of merges (pairs, in the engine's symbols or ids) differs from the
    engine's: asks the engine's pair counts just before the first different merge."""
    (text, num_merges), trace = case.args, case.context
    k = _first_difference(got, exp)
    if len(got) > num_merges:
        return f"you made {len(got)} merges; num_merges is {num_merges}."
    if k == len(exp):
        return (f"the engine stops after {len(exp)} merges: the sequence is then "
                f"{_items(segmentation(trace, text, k))}, "
                f"no pair is left; your merge {k + 1}, {show(got[k])}, is not in it: check merge() (each symbol "
                f"merges once) and stop when the counts are empty.")
    counts, e = pair_counts(trace, k), exp[k]
    y = got[k] if k < len(got) else None

    def word(p):
        return spell(p[0]) + spell(p[1])

    if _is_space(word(e)) and (y is None or not _is_space(word(y))):
        return (f"merge {k + 1} joins {word(e)!r} across a space or newline: this exercise trains on the whole text "
                f"as one sequence (as minbpe's BasicTokenizer), spaces included; don't split it into words.")
    if y is None:
        return (f"you stopped after {k} merges; the engine goes on with {show(e)} ({counts[e]}×): a pair seen "
                f"once merges too; stop only when no pair is left or after num_merges merges.")
    cy, ce = counts.get(y, 0), counts[e]
    if cy == ce:
        seq = segmentation(trace, text, k)
        return (f"ties: before merge {k + 1}, {show(y)} and {show(e)} both occur {ce}×; among pairs with "
                f"the same count the first one met reading left to right wins (the engine's at symbol "
                f"{_first_at(seq, e)}, yours at {_first_at(seq, y)}): max(counts, key=counts.get) on a dict filled "
                f"in order does that; sorting, or keeping the last best, does not.")
    if cy == 0:
        return (f"merge {k + 1}: your pair {show(y)} does not occur in the sequence after the first {k} merges: "
                f"check merge(), and count the merged sequence, not the original text.")
    return (f"merge {k + 1}: {show(y)} occurs {cy}× there, {show(e)} {ce}×: merge the most frequent pair "
            f"(counting overlapping pairs).")


def _compare_train(got, case: Case) -> _Miss | None:
    exp = case.expected
    if isinstance(got, Mapping) or not isinstance(got, (list, tuple)):
        extra = " (list(your_dict) gives the pairs in order)" if isinstance(got, Mapping) else ""
        return _type_miss(got, "a list of the merged pairs, in order", _items(exp), extra)
    bad = next((p for p in got if not (isinstance(p, (tuple, list)) and len(p) == 2)), None)
    if bad is not None:
        return _Miss(_items(got), _items(exp),
                     f"each merge is a pair of symbols, e.g. ('a', 'b'); you have {_clip(bad, 40)}")
    got = [tuple(p) for p in got]
    if got == exp:
        return None
    at = _first_difference(got, exp)
    return _Miss(_items(got, at), _items(exp, at), _training_hint(got, exp, case, str, lambda p: _clip(p, 40)))


def _encode_hint(got: list, spelled_ok: bool, ranks: Mapping, case: Case, show: Callable, unspelled: str) -> str:
    """Why a learner's encoding (tokens, or ids) differs: wrong text, a learned pair left, or the
    order of merges (the engine's walkthrough says which it took)."""
    text, trace = case.args[0], case.context
    if not spelled_ok:
        return unspelled
    left = next((p for p in zip(got, got[1:]) if p in ranks), None)
    if left is not None:
        return (f"your result still holds the learned pair {show(left)}: keep merging until no learned pair is "
                f"left.")
    steps = trace.encode_word(text).steps
    order = ", then ".join(f"{show(_step_pair(trace, s.pair))} (merge {s.rank})"
                           for s in steps[:3])
    return (f"again and again the engine merges, of the learned pairs present, the one learned first (lowest rank), "
            f"everywhere: here {order}{', …' if len(steps) > 3 else ''}. Taking the leftmost pair, or the most "
            f"frequent one, cuts differently.")


def _step_pair(trace, pair):
    return (trace.token_to_id(pair[0]), trace.token_to_id(pair[1])) if trace.convention.byte_level else pair


def _compare_encode(got, case: Case) -> _Miss | None:
    text, merges = case.args
    exp = case.expected
    got, miss = _listed(got, exp, "a list of tokens (strings)")
    if miss is not None or got == exp:
        return miss
    bad = next((t for t in got if not isinstance(t, str)), None)
    at = _first_difference(got, exp)
    if bad is not None:
        return _Miss(_items(got, at), _items(exp, at),
                     f"tokens are strings, e.g. ['ab', 'c']; you have {_clip(bad, 30)}")
    ranks = {p: i for i, p in reversed(list(enumerate(merges)))}
    return _Miss(_items(got, at), _items(exp, at), _encode_hint(got, "".join(got) == text, ranks, case, repr,
                                                                "your tokens spell other text than the input: encoding "
                                                                "only groups its characters."))


def _byte_show(trace) -> Callable:
    """``(104, 195) = b'h\\xc3'``: a pair of ids with the bytes they spell."""
    def show(pair):
        spelled = [bytes_of(trace, i) for i in pair]
        return f"{pair} = {b''.join(spelled)!r}" if None not in spelled else repr(pair)
    return show


def _merges_shown(items, at: int = 0) -> str:
    """minbpe's merges dict, shown around position ``at``: ``{(97, 97): 256, (256, 97): 257}``."""
    return _items(items, at, 6, fmt=lambda kv: f"{_clip(kv[0], 30)}: {_clip(kv[1], 12)}", brackets="{}")


def _compare_train_bytes(got, case: Case) -> _Miss | None:
    (text, _), exp, trace = case.args, case.expected, case.context
    if not isinstance(got, Mapping):
        return _type_miss(got, "a dict {(a, b): new_id}, as minbpe's merges", _merges_shown(exp.items()))
    bad = next((p for p in got if not (isinstance(p, tuple) and len(p) == 2 and all(isinstance(x, int) for x in p))),
               None)
    if bad is not None:
        return _Miss(_merges_shown(got.items()), _merges_shown(exp.items()),
                     f"each key is a pair of ids (ints), e.g. (104, 105); you have {_clip(bad, 40)}: work on "
                     f"list(text.encode('utf-8')), not on the characters.")
    got = dict(got)
    if got == exp:
        return None
    ordered = sorted(got.items(), key=lambda kv: kv[1] if isinstance(kv[1], int) else 0)
    at = _first_difference(ordered, list(exp.items()))
    yours, engine = _merges_shown(ordered, at), _merges_shown(exp.items(), at)
    ids = [i for _, i in ordered]
    if ids != list(range(256, 256 + len(ids))):
        return _Miss(yours, engine, f"new ids are 256, 257, … in merge order (merge i, from 0, makes 256 + i); "
                                    f"yours are {_items(ids, 0, 4)}.")
    strangers = sorted({x for p in got for x in p if x < 256} - set(text.encode("utf-8")))
    if strangers:
        return _Miss(yours, engine, f"your pairs hold {strangers[0]}, which is no byte of the text: work on "
                                    f"list(text.encode('utf-8')) ('é' is two bytes, 195 169), not on ord() of "
                                    f"characters.")
    hint = _training_hint([p for p, _ in ordered], list(exp), case,
                          lambda i: (bytes_of(trace, i) or b"").decode("utf-8", "replace"), _byte_show(trace))
    return _Miss(yours, engine, hint)


def _compare_encode_bytes(got, case: Case) -> _Miss | None:
    text, merges = case.args
    exp, trace = case.expected, case.context
    got, miss = _listed(got, exp, "a list of ids (ints)")
    if miss is not None or got == exp:
        return miss
    at = _first_difference(got, exp)
    yours, engine = _items(got, at), _items(exp, at)
    bad = next((i for i in got if not isinstance(i, int)), None)
    if bad is not None:
        return _Miss(yours, engine,
                     f"ids are ints (the bytes 0..255, the merges' ids from 256); you have {_clip(bad, 30)}.")
    bad = next((i for i in got if bytes_of(trace, i) is None), None)
    if bad is not None:
        return _Miss(yours, engine, f"{bad} is no id of this vocabulary: the ids are the bytes 0..255 and the merges' "
                                    f"new ids (256 to {len(trace.id_to_token) - 1} here).")
    spelled = b"".join(bytes_of(trace, i) for i in got) == text.encode("utf-8")
    hint = _encode_hint(got, spelled, merges, case, _byte_show(trace),
                        "your ids spell other bytes than the text's: start from list(text.encode('utf-8')) ('é' is "
                        "two bytes, 195 169), not from ord() of the characters.")
    return _Miss(yours, engine, hint)


# -- the checkers -------------------------------------------------------------------------------

def check_count_pairs(fn) -> CheckResult:
    """Check ``fn(ids) -> {(a, b): count}``: how often each adjacent pair of one sequence occurs,
    overlapping (minbpe's ``get_stats``), on symbol lists and id lists from tiny to realistic.

    Example::

        >>> print(check_count_pairs(lambda ids: {p: 1 for p in zip(ids, ids[1:])}))
        ✗ count_pairs: input 4 of 21 (a run: aaaa) differs from the engine.
          input:  count_pairs(['a', 'a', 'a', 'a'])
          yours:  ('a', 'a'): 1 (of {('a', 'a'): 1})
          engine: ('a', 'a'): 3
          hint:   overlapping pairs count every time: ['a'] * 3 holds the pair ('a', 'a') twice (at 0
                  and 1); count every position i, never skip ahead after a match.
    """
    return _run("count_pairs", fn, list(count_cases()), _compare_counts)


def check_merge(fn) -> CheckResult:
    """Check ``fn(ids, pair, new) -> list``: every occurrence of ``pair`` replaced by ``new``,
    left to right, non-overlapping (``a a a`` with ``(a, a)`` -> ``aa a``), as minbpe's ``merge``.

    Example::

        >>> def merge(ids, pair, new):  # merges (a, a) at every position of a a a
        ...     out = [new if (x, y) == pair else x for x, y in zip(ids, ids[1:])]
        ...     return out + ids[len(out):]
        >>> print(check_merge(merge))
        ✗ merge: input 3 of 23 (one pair) differs from the engine.
          input:  merge(['a', 'b'], ('a', 'b'), 'ab')
          yours:  ['ab', 'b']
          engine: ['ab']
          hint:   after a merge at i, go on at i + 2: your list keeps a symbol the merge has used (the
                  pair's right symbol).
    """
    return _run("merge", fn, list(merge_cases()), _compare_merge)


def check_train(fn) -> CheckResult:
    """Check ``fn(text, num_merges) -> [(a, b), ...]``: the pairs BPE merges, in order, on the
    characters of ``text`` read as one sequence (minbpe's ``BasicTokenizer``; ties to the first
    pair met; stop early when no pair is left).

    Example::

        >>> from bpe_viz.exercises_solutions import train
        >>> check_train(train).passed
        True
    """
    return _run("train", fn, list(train_cases(False)), _compare_train)


def check_encode(fn) -> CheckResult:
    """Check ``fn(text, merges) -> [token, ...]``: ``text`` cut into tokens (str) by the engine's
    ``merges`` (a list of pairs, in order), lowest rank first, as minbpe's ``encode``.

    Example::

        >>> print(check_encode(lambda text, merges: list(text)))
        ✗ encode: input 3 of 11 (Gage's aaabdaaabac) differs from the engine.
          input:  encode('aaabdaaabac', [('a', 'a'), ('aa', 'a'), ('aaa', 'b')])
          yours:  ['a', 'a', 'a', 'b', 'd', 'a', 'a', 'a', 'b', 'a', … 1 more]
          engine: ['aaab', 'd', 'aaab', 'a', 'c']
          hint:   your result still holds the learned pair ('a', 'a'): keep merging until no learned pair is left.
    """
    return _run("encode", fn, list(encode_cases(False)), _compare_encode)


def check_train_bytes(fn) -> CheckResult:
    """Check ``fn(text, num_merges) -> {(a, b): new_id}``: minbpe's ``BasicTokenizer.train`` on
    the UTF-8 bytes of ``text`` (ids 0..255, merge ``i`` makes ``256 + i``), non-ASCII text too.

    Example::

        >>> from bpe_viz.exercises_solutions import train_bytes
        >>> print(check_train_bytes(train_bytes))
        ✓ train_bytes: matches the engine on all 16 inputs, from an empty text to Python's
        documentation (1,500 characters).
    """
    return _run("train_bytes", fn, list(train_cases(True)), _compare_train_bytes)


def check_encode_bytes(fn) -> CheckResult:
    """Check ``fn(text, merges) -> [id, ...]``: the ids of ``text`` by minbpe's ``encode`` with
    the engine's ``merges`` (``{(a, b): new_id}``), equal to the engine's ids.

    Example::

        >>> check_encode_bytes(lambda text, merges: list(text.encode("utf-8"))).checked
        3
    """
    return _run("encode_bytes", fn, list(encode_cases(True)), _compare_encode_bytes)
