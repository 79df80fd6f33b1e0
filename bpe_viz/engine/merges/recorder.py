"""The recorder: what every trainer writes down, merge by merge, so any step can be rebuilt.

A :class:`~bpe_viz.engine.merges.trace.Trace` does **not** copy the word dictionary after every merge
(on Python's documentation text that would be about 1.6 MB a merge). Its :class:`History` keeps

* for every merge, which words it changed and their new symbols (each word changes at most
  ``len(word)`` times in a whole run, so this is small) — for a long word, only the positions
  merged (:class:`~bpe_viz.engine.merges.pairs.MergeAt`), so one long sequence costs what it changes;
* for every merge, the pair-count changes as compact ``(pair id, delta)`` arrays, and how many
  occurrences it merged (the token counts follow from those);
* every so often a checkpoint: the segmentation list and the pair and token counts as arrays,
  spaced by the size of what it copies, so checkpoints never outweigh the changes; a long word
  is kept there as one slot per initial symbol (:class:`LongCheckpoint`), and long words add
  checkpoints of their own, spaced by the positions merged in them, so a step of a
  1,000,000-symbol text copies a list and replays some 100,000 positions at most, not every
  merge since the start;
* counts in 32-bit arrays when they fit, else 64-bit ones: no count ever exceeds the corpus's
  weighted number of symbols, so a corpus whose total passes ``2**63 - 1`` keeps them in lists
  of Python ints;

and rebuilds a step from the nearest checkpoint before it.

Trainers use it through :class:`Recorder` only::

    state = PairIndex(initial, counts, track_first)
    rec = Recorder(trace, state)          # first checkpoint
    ...  change = state.apply(pair, token); rec.record(merge, change)
    rec.finish("num_merges")

How it differs from :mod:`bpe_viz.engine.merges.pairs`: that is the mutable present of a run; this is
its past, append-only.
"""

from __future__ import annotations

import bisect
from array import array
from collections import deque
from itertools import compress, repeat
from operator import is_not

from .pairs import Change, LongState, PairIndex

__all__ = ["History", "LongCheckpoint", "Recorder", "counts_view", "numpy_or_none"]

INT32_MAX, INT64_MAX = 2**31 - 1, 2**63 - 1


def _zeros(n: int, code: str | None):
    """``n`` zero counts: an array of typecode ``code``, or a list when ``code`` is None (counts
    that may not fit 64 bits)."""
    return [0] * n if code is None else array(code, bytes(array(code).itemsize * n))


def _counts(values, code: str | None):
    return list(values) if code is None else array(code, values)


def numpy_or_none():
    """The numpy module, or ``None`` where it is not installed (a JupyterLite site offline loads
    no numpy: its lessons' merge steps take the pure-Python paths). Imported when first asked,
    never at ``import bpe_viz``.

    Example::

        >>> numpy_or_none() is None or hasattr(numpy_or_none(), "frombuffer")
        True
    """
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def counts_view(counts):
    """A numpy view (no copy) of a counts array of a step, ``None`` for anything else (a list of
    counts that may pass 64 bits, an empty array, or no numpy installed): a cold slider step reads a step's counts
    by numpy rather than one Python int per pair. numpy is imported here, when first asked.

    Example::

        >>> counts_view(array("i", [3, 0, 5])).tolist(), counts_view([3, 0, 5])
        ([3, 0, 5], None)
    """
    if not isinstance(counts, array) or not counts or counts.typecode not in "bBhHiIlLqQ":
        return None
    np = numpy_or_none()
    return None if np is None else np.frombuffer(counts, np.dtype(counts.typecode))


class LongCheckpoint:
    """A long word at a checkpoint: ``slots[p]`` is the symbol that starts at position ``p``,
    ``None`` where a merge took the symbol away (positions as in
    :mod:`~bpe_viz.engine.merges.pairs`: a symbol is named by the index of its first initial
    symbol, which a merge never moves).

    One slot per initial symbol, so a later merge is replayed by setting slots (no search for
    where a position went), and the symbols are the slots left after dropping the ``None`` ones,
    at C speed: a step of a 1,000,000-symbol text copies a list of 1,000,000 slots and sets
    at most some 100,000 of them (a dict from position to symbol, the way before, cost 0.3 s).

    Example::

        >>> from bpe_viz.engine.merges.pairs import MergeAt
        >>> ck = LongCheckpoint(["ab", None, "c", "ab", None])  # "a b c a b" after merging (a, b)
        >>> ck.symbols
        ('ab', 'c', 'ab')
        >>> ck.replay([MergeAt("abc", [0], [2])])  # then (ab, c): the symbol at 2 joins the one at 0
        ('abc', 'ab')
    """

    __slots__ = ("slots", "_empty")

    def __init__(self, slots):
        self.slots = tuple(slots)
        self._empty = "" in self.slots  # subtle: an empty symbol is falsy, as None is

    def _alive(self, slots) -> tuple:
        if self._empty:
            return tuple(compress(slots, map(is_not, slots, repeat(None))))
        return tuple(filter(None, slots))

    @property
    def symbols(self) -> tuple:
        """The word's symbols at the checkpoint, in order."""
        return self._alive(self.slots)

    def replay(self, moves) -> tuple:
        """The symbols after the merges ``moves`` (:class:`~bpe_viz.engine.merges.pairs.MergeAt`
        of this word, in order) applied to this checkpoint."""
        out = list(self.slots)
        for m in moves or ():
            tok = m.token
            for o in m.left:
                out[o] = tok
            for q in m.right:
                out[q] = None
        return self._alive(out)


class History:
    """Everything a trace needs to rebuild any step (internal spelling throughout)."""

    # a checkpoint every CHECKPOINT_WORK entries replayed (changed words, count changes, a long
    # word's symbols) keeps a rebuild in the low milliseconds
    CHECKPOINT_WORK = 60_000
    # and one every LONG_CHECKPOINT_WORK positions changed in long words, every 1/LONG_SHARE of
    # their initial symbols, or every quarter of the positions changed so far, whichever is
    # most: a long word's checkpoint keeps a slot per initial symbol (8 bytes), and a word of n
    # symbols has at most 2n positions changed, so it gets at most 4 + 10 of them (4 until a
    # quarter of n, then one per growth of a quarter up to 2n); a rebuild sets a slot in ~40 ns
    LONG_CHECKPOINT_WORK = 60_000
    LONG_SHARE = 16
    # a rebuild that replays more pair-count changes than this adds them (and the token counts) up with numpy
    NUMPY_FROM = 2_000

    def __init__(self, initial, counts, alphabet=()):
        # one str object per distinct symbol of a long word (a text of 1,000,000 characters
        # split by a pre-tokenizer holds 1,000,000 one-letter strs: 76 MB)
        self._canon: dict = {}
        self.initial: list[tuple[str, ...]] = [
            tuple(s) if len(s) <= PairIndex.LONG else self._canonical(s) for s in initial]
        seen: dict[str, int] = dict.fromkeys(alphabet, 0)  # a fixed alphabet first, in its order
        total = 0
        for syms, c in zip(self.initial, counts):
            total += c * len(syms)
            for s in syms:
                seen[s] = seen.get(s, 0) + c
        #: whether counts may pass 64 bits (every count is at most ``total``): lists, not arrays
        self.wide = total > INT64_MAX
        #: the arrays' typecode for counts: 32 bits when every count fits (half the memory), None: lists
        self.code = code = None if self.wide else ("i" if total <= INT32_MAX else "q")
        #: initial symbols in order of first appearance, and how often each occurs
        self.base_symbols: tuple[str, ...] = tuple(seen)
        self.base_counts: list[int] = list(seen.values())
        self._index: dict[str, int] = {s: i for i, s in enumerate(self.base_symbols)}
        #: per merge: its pair and token (internal spelling)
        self.merged_pairs: list[tuple[str, str]] = []
        self.merged_tokens: list[str] = []
        self._made: dict[str, int] = {}  # token -> its slot in the token counts (first making)
        # per merge: the words it changed and their new symbols
        self._chg_words = array("i")
        self._chg_syms: list = []
        self._chg_off = array("q", [0])
        # per merge: pair-count deltas (pair id, delta), and weighted occurrences merged
        self.pairs: list[tuple[str, str]] = []
        self._pair_id: dict[tuple[str, str], int] = {}
        self._d_pid = array("i")
        self._d_val = _counts((), code)
        self._d_off = array("q", [0])
        self.merged_occurrences = _counts((), code)
        # checkpoints: (step, segmentation, pair counts array, token counts array)
        self._ckpt_steps: list[int] = []
        self._ckpts: list[tuple] = []
        self._long_words: tuple[int, ...] = ()
        self.work = 0
        self.next_checkpoint = self.CHECKPOINT_WORK
        self.long_work = 0  # positions changed in long words since the last checkpoint
        self.long_total = 0  # and in all
        self.next_long = self.LONG_CHECKPOINT_WORK

    def _canonical(self, syms) -> tuple:
        canon = self._canon
        return tuple(map(canon.setdefault, syms, syms))

    def __len__(self) -> int:
        """The number of merges recorded."""
        return len(self.merged_tokens)

    # -- writing ------------------------------------------------------------------------------
    def _pair_ids(self) -> dict:
        if self._pair_id is None:  # let go of by finish(); a trace extended later makes it again
            self._pair_id = dict(zip(self.pairs, range(len(self.pairs))))
        return self._pair_id

    def pid(self, pair) -> int:
        ids = self._pair_id if self._pair_id is not None else self._pair_ids()
        i = ids.get(pair)
        if i is None:
            i = ids[pair] = len(self.pairs)
            self.pairs.append(pair)
        return i

    def forget_pair_ids(self) -> None:
        """Let go of the pair -> id table once recording is over (a few MB on a real text);
        :meth:`pid` makes it again if a trace is ever extended."""
        self._pair_id = None

    def checkpoint(self, state: PairIndex, token_counts: list):
        pc = _zeros(len(self.pairs), self.code)
        pid = self._pair_ids()
        for p, c in state.counts.items():
            pc[pid[p]] = c
        seg = state.checkpoint()
        self._long_words = tuple(state.long)
        slots = self._long_checkpoints(seg) if self._long_words else 0
        self._ckpt_steps.append(len(self))
        self._ckpts.append((tuple(seg), pc, _counts(token_counts, self.code)))
        self.work = self.long_work = 0
        self.next_long = max(self.LONG_CHECKPOINT_WORK, slots // self.LONG_SHARE, self.long_total // 4)
        # a checkpoint costs memory in proportion to the pairs, words and long words' symbols;
        # wait for at least that many entries to replay before the next one (a rebuild copies the
        # checkpoint anyway, so it costs at most a few times that copy; a 5 MB corpus keeps 5
        # checkpoints at 1,000 merges, not 35 of 0.6 MB each)
        self.next_checkpoint = max(self.CHECKPOINT_WORK, len(self.pairs) + len(seg) + state.size)

    def _long_checkpoints(self, seg: list) -> int:
        """Turn the long words' :class:`~bpe_viz.engine.merges.pairs.LongState` in ``seg`` into
        :class:`LongCheckpoint`; returns how many slots they keep."""
        n = 0
        for w in self._long_words:
            st: LongState = seg[w]
            slots = [None] * len(self.initial[w])
            for o, x in zip(st.starts, self._canonical(st.symbols)):
                slots[o] = x
            seg[w] = LongCheckpoint(slots)
            n += len(slots)
        return n

    def record(self, pair, token, change: Change):
        self.merged_pairs.append(pair)
        self.merged_tokens.append(token)
        self._made.setdefault(token, len(self.base_symbols) + len(self.merged_tokens) - 1)
        self._chg_words.extend(change.words)
        self._chg_syms.extend(change.new)
        self._chg_off.append(len(self._chg_words))
        pid = self.pid
        dp, dv = self._d_pid, self._d_val
        n0 = len(dp)
        for p, d in change.deltas.items():
            if d:
                dp.append(pid(p))
                dv.append(d)
        self._d_off.append(len(dp))
        self.merged_occurrences.append(change.occurrences)
        # what a rebuild replays: a word's new symbols, a count change, a long word's symbols
        self.work += len(change.words) + len(dp) - n0 + (change.work if self._long_words else 0)
        if self._long_words:
            n = 2 * sum(len(s.left) for s in change.new if type(s) is not tuple)
            self.long_work += n
            self.long_total += n

    def checkpoint_due(self) -> bool:
        """Whether enough was recorded since the last checkpoint to make the next one."""
        return self.work >= self.next_checkpoint or self.long_work >= self.next_long

    def record_unchanged(self, pairs: list, tokens: list):
        """Many merges that change nothing (no word holds their pairs), in one go."""
        made, start = self._made, len(self.base_symbols) + len(self.merged_tokens)
        new = dict(zip(tokens, range(start, start + len(tokens))))
        if len(new) == len(tokens) and made.keys().isdisjoint(new):
            made.update(new)  # no token made twice (a real vocabulary): in bulk
        else:
            for i, tok in enumerate(tokens, start):
                made.setdefault(tok, i)
        self.merged_pairs.extend(pairs)
        self.merged_tokens.extend(tokens)
        n = len(tokens)
        self._chg_off.extend([len(self._chg_words)] * n)
        self._d_off.extend([len(self._d_pid)] * n)
        self.merged_occurrences.extend(_zeros(n, self.code))

    # -- reading ------------------------------------------------------------------------------
    def token_index(self, sym: str) -> int:
        """Slot of internal symbol ``sym`` in the token-count arrays (its first making)."""
        i = self._index.get(sym)
        return self._made[sym] if i is None else i

    def token_slots(self, step: int):
        """(internal token, its slot in the token counts) for the vocabulary at ``step``."""
        yield from zip(self.base_symbols, range(len(self.base_symbols)))
        made = self._made
        for tok in self.merged_tokens[:step]:
            yield tok, made[tok]

    def rebuild(self, step: int):
        """(segmentation list, pair counts array, token counts array) after ``step`` merges."""
        j = bisect.bisect_right(self._ckpt_steps, step) - 1
        k0 = self._ckpt_steps[j]
        seg0, pc0, tc0 = self._ckpts[j]
        seg = list(seg0)
        a, b = self._chg_off[k0], self._chg_off[step]
        if not self._long_words:  # every change is a word's new symbols: set at C speed
            deque(map(seg.__setitem__, self._chg_words[a:b], self._chg_syms[a:b]), 0)
        else:
            moves: dict = {}  # long word -> the MergeAt of each merge that changed it, in order
            for w, s in zip(self._chg_words[a:b], self._chg_syms[a:b]):
                if type(s) is tuple:
                    seg[w] = s
                else:
                    m = moves.get(w)
                    if m is None:
                        moves[w] = [s]
                    else:
                        m.append(s)
            for w in self._long_words:
                seg[w] = seg[w].replay(moves.get(w))
        npairs = len(self.pairs)
        pc = pc0 + _zeros(npairs - len(pc0), self.code) if len(pc0) < npairs else pc0[:]
        a, b = self._d_off[k0], self._d_off[step]
        tc = tc0 + _zeros(len(self.base_symbols) + step - len(tc0), self.code)
        if self.code is not None and b - a > self.NUMPY_FROM and numpy_or_none() is not None:
            return seg, *self._replay_counts(pc, tc, a, b, k0, step)
        for i, d in zip(self._d_pid[a:b], self._d_val[a:b]):
            pc[i] += d
        lefts, rights, toks = self._merge_slot_lists()
        for ls, rs, ts, occ in zip(lefts[k0:step], rights[k0:step], toks[k0:step], self.merged_occurrences[k0:step]):
            if occ:  # (a replayed merge whose pair never occurs: its symbols may be unknown)
                tc[ls] -= occ
                tc[rs] -= occ
                tc[ts] += occ
        return seg, pc, tc

    def _replay_counts(self, pc: array, tc: array, a: int, b: int, k0: int, step: int) -> tuple[array, array]:
        """:meth:`rebuild`'s count changes ``a:b`` and the token counts of merges ``k0:step``
        added to the arrays ``pc`` and ``tc`` by numpy (``np.add.at`` sums repeated ids exactly,
        in the arrays' own integer type); new arrays of the same typecode."""
        import numpy as np  # (only here: never at import bpe_viz)

        pcn, tcn = counts_view(pc).copy(), counts_view(tc).copy()
        np.add.at(pcn, counts_view(self._d_pid)[a:b], counts_view(self._d_val)[a:b])
        occ = counts_view(self.merged_occurrences)[k0:step]
        hit = np.flatnonzero(occ)  # (a replayed merge whose pair never occurs: its symbols may be unknown)
        if len(hit):
            occ = occ[hit]
            for slots, sign in zip(self._merge_slot_lists(), (-1, -1, 1)):
                np.add.at(tcn, np.array(slots[k0:step], np.intp)[hit], sign * occ)
        return array(self.code, pcn.tobytes()), array(self.code, tcn.tobytes())

    def _merge_slot_lists(self) -> tuple[list, list, list]:
        """Per merge, the token-count slots of its left and right symbols and of its token (-1:
        unknown; only a merge that never occurs has one), kept: a rebuild replays them without a
        lookup. A known symbol's slot never changes (its first making), so the lists only grow."""
        kept = self.__dict__.get("_slot_lists")
        if kept is None:
            kept = self._slot_lists = ([], [], [])
        lefts, rights, toks = kept
        index, made = self._index, self._made
        for (l, r), tok in zip(self.merged_pairs[len(toks):], self.merged_tokens[len(toks):]):
            lefts.append(index.get(l, made.get(l, -1)))
            rights.append(index.get(r, made.get(r, -1)))
            toks.append(index.get(tok, made.get(tok, -1)))
        return kept

    def changed_words(self, step: int) -> list[int]:
        """The words merge ``step`` changed."""
        return list(self._chg_words[self._chg_off[step - 1]:self._chg_off[step]])


class Recorder:
    """Writes one training run into a trace: call :meth:`record` after every merge, then
    :meth:`finish`. Keeps the token counts and places the checkpoints."""

    def __init__(self, trace, state: PairIndex):
        self.trace = trace
        self.state = state
        self.history = h = trace.history
        for p in state.counts:  # pair ids in first-met order
            h.pid(p)
        self.token_counts = list(h.base_counts)
        h.checkpoint(state, self.token_counts)

    def record(self, merge, change: Change):
        """Append ``merge`` (a :class:`~bpe_viz.engine.merges.trace.Merge`) and what it changed."""
        h = self.history
        pair, tok = merge.pair_internal, merge.token_internal
        h.record(pair, tok, change)
        self.trace.append_merge(merge)
        tc = self.token_counts
        tc.append(0)
        occ = change.occurrences
        if occ:
            tindex = h.token_index
            tc[tindex(pair[0])] -= occ
            tc[tindex(pair[1])] -= occ
            tc[tindex(tok)] += occ
        if h.checkpoint_due():
            h.checkpoint(self.state, tc)

    def record_unchanged(self, merges: list):
        """Append merges whose pairs occur in no word (a vocabulary read from a file, replayed on
        no corpus): nothing changes, so they are written in bulk, with no per-merge work."""
        self.history.record_unchanged([m.pair_internal for m in merges], [m.token_internal for m in merges])
        self.trace.extend_merges(merges)
        self.token_counts.extend([0] * len(merges))

    def finish(self, reason: str):
        self.trace.stop_reason = reason
        self.history.forget_pair_ids()
