"""minbpe's encode loop (Karpathy, minbpe/base.py and minbpe/regex.py), written out literally:
the GPT section's pure-Python yardstick for encoding with a cs336 trace.

Integer ids, the byte values 0..255, merge k making id 255 + k; ``MinbpeLoop.to_ours`` maps them
to the trace's ids after timing. The training loop minbpe's ``BasicTokenizer`` runs is
``tests/reference.py``'s ``recount_bpe`` (the long-word section).
"""

from __future__ import annotations


def byte_symbols() -> list[str]:
    """GPT-2's 256 byte symbols in byte order (our spelling of a byte), read back through the
    public ``bpe_viz.symbols_to_bytes``: the table's characters all lie below U+0200."""
    from bpe_viz import symbols_to_bytes

    table = {}
    for c in range(0x200):
        try:
            table[symbols_to_bytes(chr(c))[0]] = chr(c)
        except ValueError:  # not a byte symbol
            pass
    return [table[b] for b in range(256)]


def minbpe_get_stats(ids, counts=None):
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):  # iterate consecutive elements
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def minbpe_merge(ids, pair, idx):
    newids = []
    i = 0
    while i < len(ids):
        # if not at the very last position AND the pair matches, replace it
        if ids[i] == pair[0] and i < len(ids) - 1 and ids[i + 1] == pair[1]:
            newids.append(idx)
            i += 2
        else:
            newids.append(ids[i])
            i += 1
    return newids


class MinbpeLoop:
    """minbpe's ``RegexTokenizer.encode`` (``allowed_special="all"``), literally, with the GPT-2
    pattern and the trace's merges: ``merges`` maps a pair of minbpe ids to the new id, its rank.
    ``to_ours`` maps minbpe ids to the trace's ids (done after timing)."""

    def __init__(self, trace):
        import regex
        from corpora import gpt2_pattern

        self.compiled_pattern = regex.compile(gpt2_pattern())
        byte_symbol = byte_symbols()
        sym = {byte_symbol[b]: b for b in range(256)}  # our symbol -> minbpe id
        self.to_ours = [trace.token_to_id(byte_symbol[b]) for b in range(256)]
        self.merges = {}
        for m in trace.merges:
            idx = 255 + m.step
            self.merges.setdefault((sym[m.pair[0]], sym[m.pair[1]]), idx)
            sym.setdefault(m.token, idx)
            self.to_ours.append(trace.token_to_id(m.token, made_at=m.step))
        self.special_tokens = {}
        for sp in trace.special_tokens:
            self.special_tokens[sp] = len(self.to_ours)
            self.to_ours.append(trace.token_to_id(sp))

    def _encode_chunk(self, text_bytes):
        # return the token ids
        # let's begin. first, convert all bytes to integers in range 0..255
        ids = list(text_bytes)
        while len(ids) >= 2:
            # find the pair with the lowest merge index
            stats = minbpe_get_stats(ids)
            pair = min(stats, key=lambda p: self.merges.get(p, float("inf")))
            # subtle: if there are no more merges available, the key will
            # result in an inf for every single pair, and the min will be
            # just the first pair in the list, arbitrarily
            # we can detect this terminating case by a membership check
            if pair not in self.merges:
                break  # nothing else can be merged anymore
            # otherwise let's merge the best pair (lowest merge index)
            idx = self.merges[pair]
            ids = minbpe_merge(ids, pair, idx)
        return ids

    def encode_ordinary(self, text):
        """Encoding that ignores any special tokens."""
        # split text into chunks of text by categories defined in regex pattern
        text_chunks = self.compiled_pattern.findall(text)
        # all chunks of text are encoded separately, then results are joined
        ids = []
        for chunk in text_chunks:
            chunk_bytes = chunk.encode("utf-8")  # raw bytes
            chunk_ids = self._encode_chunk(chunk_bytes)
            ids.extend(chunk_ids)
        return ids

    def encode(self, text):
        """minbpe's ``encode(text, allowed_special="all")``."""
        import regex

        special = self.special_tokens
        if not special:
            return self.encode_ordinary(text)
        special_pattern = "(" + "|".join(regex.escape(k) for k in special) + ")"
        special_chunks = regex.split(special_pattern, text)
        ids = []
        for part in special_chunks:
            if part in special:
                ids.append(special[part])
            else:
                ids.extend(self.encode_ordinary(part))
        return ids
