"""GPT-2's byte-level conventions, rebuilt for the test_gpt_* modules independently of bpe_viz.

Unlike reference.py (a literal BPE *trainer*), this is the byte-level *encoder* side: GPT-2's byte
table rebuilt from openai/gpt-2 src/encoder.py (not taken from bpe_viz), GPT-2's and GPT-4's
split patterns, a rank-based reference encoder, the offsets rule for byte-level tokens and
:func:`check_exact`, which checks one ``encode`` call against all of them; plus the small mixed
text several of those modules train on. So a failure in a test_gpt_* module points at bpe_viz,
not at a helper. Imported as ``from gpt_reference import ...`` (conftest.py puts tests/ on
sys.path).
"""

from __future__ import annotations

import re

import regex

from bpe_viz import decode, encode

from reference import merge_word

__all__ = [
    "BYTE_TO_SYMBOL",
    "EOT",
    "GPT2_BYTE_ORDER",
    "GPT2_PATTERN",
    "GPT4_PATTERN",
    "SMALL_CORPUS",
    "SYMBOL_TO_BYTE",
    "check_exact",
    "expected_offsets",
    "gpt2_bytes",
    "reference_tokens",
    "split_specials",
    "token_bytes",
]

EOT = "<|endoftext|>"

#: GPT-2's split pattern as CS336's handout writes it (OpenAI's encoder.py spells the
#: contractions 's|'t|'re|'ve|'m|'ll|'d: the same matches).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
#: GPT-4's (cl100k_base) split pattern, as in minbpe's minbpe/regex.py.
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)


# -- GPT-2's byte table, rebuilt here (openai/gpt-2 src/encoder.py, bytes_to_unicode) ----------


def _gpt2_bytes_to_unicode() -> dict[int, str]:
    """byte -> printable symbol, in GPT-2's order: the printable bytes 33..126, 161..172,
    174..255 stand for themselves (in that order), then the 68 others, in byte order, become
    chr(256), chr(257), ..."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = {b: chr(b) for b in printable}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + n)
            n += 1
    return table


BYTE_TO_SYMBOL = _gpt2_bytes_to_unicode()
SYMBOL_TO_BYTE = {s: b for b, s in BYTE_TO_SYMBOL.items()}
#: the bytes in GPT-2's vocabulary order (dict insertion order above)
GPT2_BYTE_ORDER = list(BYTE_TO_SYMBOL)


def gpt2_bytes(token: str) -> bytes:
    """The bytes a GPT-2-spelled token stands for (as CS336's tests decode the reference)."""
    return bytes(SYMBOL_TO_BYTE[c] for c in token)


def token_bytes(trace, ids, specials=()) -> list[bytes]:
    """Each id's bytes: a special token's UTF-8 text, any other token through GPT-2's table."""
    special_ids = {trace.token_to_id(s) for s in specials}
    return [trace.id_to_token[i].encode("utf-8") if i in special_ids else gpt2_bytes(trace.id_to_token[i]) for i in ids]


# -- an independent reference encoder and the offsets rule ------------------------------------


def split_specials(text: str, specials) -> list[tuple[str, bool]]:
    """``text`` cut at the special tokens, longest first where they overlap (tiktoken, CS336)."""
    if not specials:
        return [(text, False)]
    alt = "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True))
    out, pos = [], 0
    for m in re.finditer(alt, text):
        if m.start() > pos:
            out.append((text[pos:m.start()], False))
        out.append((m.group(), True))
        pos = m.end()
    if pos < len(text):
        out.append((text[pos:], False))
    return out


def reference_tokens(trace, text: str, pattern: str, specials=()) -> list[str]:
    """GPT-2's encoder (openai/gpt-2 src/encoder.py ``bpe``; minbpe ``encode_chunk`` the same):
    split out the specials, cut the rest with ``pattern``, spell each chunk's bytes with GPT-2's
    table and merge the lowest-rank pair present (all its occurrences, left to right) until no
    learned pair remains. Ranks come from ``trace.merges`` in order."""
    ranks = {tuple(m.pair): r for r, m in enumerate(trace.merges)}
    inf = len(ranks)
    cache: dict[str, list[str]] = {}
    out: list[str] = []
    for part, is_special in split_specials(text, specials):
        if is_special:
            out.append(part)
            continue
        for chunk in regex.findall(pattern, part):
            if chunk not in cache:
                syms = [BYTE_TO_SYMBOL[b] for b in chunk.encode("utf-8")]
                while len(syms) > 1:
                    best = min(zip(syms, syms[1:]), key=lambda p: ranks.get(p, inf))
                    if best not in ranks:
                        break
                    syms = merge_word(syms, best)
                cache[chunk] = syms
            out.extend(cache[chunk])
    return out


def expected_offsets(text: str, pieces: list[bytes]) -> list[tuple[int, int]]:
    """The offsets rule for byte-level tokens: each token spans the whole characters its bytes
    touch, (character of its first byte, character of its last byte + 1). So tokens tile the
    text, except that the tokens sharing one split multi-byte character all show that character
    (Hugging Face ``tokenizers`` reports the same spans; test_gpt_parity's test_hf_offsets
    checks it)."""
    char_of_byte = [i for i, ch in enumerate(text) for _ in ch.encode("utf-8")]
    out, pos = [], 0
    for b in pieces:
        out.append((char_of_byte[pos], char_of_byte[pos + len(b) - 1] + 1))
        pos += len(b)
    return out


def check_exact(trace, text: str, pattern: str, specials=(), allowed="all"):
    """Round trip, byte tiling, offsets and ids of ``encode(text, trace, allowed_special=...)``."""
    e = encode(text, trace, allowed_special=allowed)
    active = tuple(specials) if allowed == "all" else ()
    assert len(e.ids) == len(e.tokens) == len(e.offsets)
    assert e.tokens == [trace.id_to_token[i] for i in e.ids]
    assert decode(e.ids, trace) == text
    pieces = token_bytes(trace, e.ids, active)
    assert b"".join(pieces) == text.encode("utf-8")  # the tokens' bytes tile the text's bytes
    if text:
        offs = e.offsets
        assert offs[0][0] == 0 and offs[-1][1] == len(text)
        for (s1, e1), (s2, e2) in zip(offs, offs[1:]):
            assert s1 < e1 and s2 < e2
            # next token starts where this one ends, or both show one split character
            assert s2 == e1 or (s2 == e1 - 1 and len(text[s2].encode("utf-8")) > 1), (offs, text)
        if all(len(text[s:t].encode("utf-8")) == len(b) for (s, t), b in zip(offs, pieces)):
            assert "".join(text[s:t] for s, t in offs) == text
    assert e.offsets == expected_offsets(text, pieces)
    assert e.tokens == reference_tokens(trace, text, pattern, active)
    return e


#: a small mixed text (whitespace runs, contractions, Korean, emoji, the special token's text)
SMALL_CORPUS = (
    "low lower lowest newest widest\n\n"
    "The cat's hat isn't here; they'll see.  Tabs\tand  spaces   here\n"
    "안녕하세요 세계! 안녕 😉🙃 emoji 😉\n"
    "<|endoftext|>Numbers 12345 and 2024, café naïve\n"
) * 3
