"""Facts about a whole vocabulary, computed from it exactly: which tokens hold only part of a
character, and which tokens never come back when their own text is encoded.

Both questions are about real vocabularies (GPT-2's, GPT-4's, GPT-4o's, Mistral's), where a
learner meets tokens such as ``<e4 b8>`` (two of the three bytes of 世) or GPT-4o's ``" I'"``,
which the split pattern always cuts before BPE could make it from the text ``" I'"``. Nothing is
hard-coded: each answer is worked out from the tokenizer at hand.

How it differs from :mod:`.why`: that one explains one token of one text; this one looks at every
token of the vocabulary.

Example::

    >>> from bpe_viz import from_tiktoken
    >>> ranks = {bytes([b]): b for b in range(256)}
    >>> ranks.update({b"\\xe4\\xb8": 256, b"a,": 257})
    >>> t = from_tiktoken(ranks, pattern="gpt2")
    >>> len(partial_character_tokens(t))  # the 128 bytes 0x80-0xFF alone, and E4 B8
    129
    >>> 256 in partial_character_tokens(t), not_from_own_text(t)
    (True, [257])
"""

from __future__ import annotations

from .merges.trace import Trace
from .protocol import check_tokenizer
from .text.alphabet import BYTE_SET, SYMBOL_BYTES
from .why import fallback_byte

__all__ = ["token_bytes", "partial_character_tokens", "not_from_own_text"]


def token_bytes(tokenizer, i: int, table=None) -> bytes | None:
    """The bytes token ``i`` stands for, when the tokenizer works on bytes (a byte-level trace,
    or a byte-fallback piece such as ``<0xE4>``); ``None`` otherwise and for special tokens.
    ``table``: ``tokenizer.id_to_token``, when the caller has it already (it is a copy)."""
    tok = (table if table is not None else tokenizer.id_to_token)[i]
    if tok in getattr(tokenizer, "special_tokens", ()):
        return None
    b = fallback_byte(tok)
    if b is not None and getattr(tokenizer, "byte_fallback", False):
        return bytes([b])
    if isinstance(tokenizer, Trace) and tokenizer.convention.byte_level:
        try:
            return tokenizer.to_bytes(tok)
        except ValueError:  # the unknown token or an unused id
            return None
    return None


def _every_token_bytes(tokenizer, table) -> list:
    """``token_bytes(tokenizer, i)`` of every id, the same answers: a byte-level trace's tokens of
    byte symbols in one C pass each (200,000 of them for GPT-4o: 0.9 s one by one)."""
    if not (isinstance(tokenizer, Trace) and tokenizer.convention.byte_level) or getattr(tokenizer, "byte_fallback", False):
        return [token_bytes(tokenizer, i, table) for i in range(len(table))]
    specials, symbols = set(getattr(tokenizer, "special_tokens", ())), BYTE_SET.issuperset
    return [tok.translate(SYMBOL_BYTES).encode("latin-1") if isinstance(tok, str) and tok not in specials
            and symbols(tok) else token_bytes(tokenizer, i, table) for i, tok in enumerate(table)]


def _kept(tokenizer, name: str, table, work) -> list[int]:
    """``work()``, kept with the tokenizer while its vocabulary keeps its size (a lesson asks the
    same question of GPT-4o's 200,000 tokens more than once)."""
    kept = getattr(tokenizer, "__dict__", {}).get("_vocab_facts", {}).get(name)
    if kept is None or kept[0] != len(table):
        kept = (len(table), work())
        try:
            tokenizer.__dict__.setdefault("_vocab_facts", {})[name] = kept
        except AttributeError:  # (a tokenizer with no __dict__: worked out each time)
            pass
    return list(kept[1])


def partial_character_tokens(tokenizer) -> list[int]:
    """Ids of the tokens whose bytes are not whole UTF-8 characters (part of a character, or a
    character's end glued to the next one's start). Such a token never decodes alone."""
    tokenizer = check_tokenizer(tokenizer, "tokenizer")
    table = tokenizer.id_to_token
    return _kept(tokenizer, "partial", table, lambda: _partial(_every_token_bytes(tokenizer, table)))


def _partial(every_bytes) -> list[int]:
    out = []
    for i, raw in enumerate(every_bytes):
        if raw is None:
            continue
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            out.append(i)
    return out


def _whole_piece_rule(tokenizer) -> bool:
    """tiktoken's encoder keeps a pre-token that is a token whole (see engine/bpe/tiktoken_bpe)."""
    return isinstance(tokenizer, Trace) and tokenizer.convention.algorithm == "tiktoken-bpe"


def not_from_own_text(tokenizer) -> list[int]:
    """Ids of the (non-special, whole-character) tokens that encoding their own text does not
    give back as one token: candidates for tokens the model never sees in training ("glitch"
    tokens). For a tiktoken vocabulary this is exactly the tokens whose text the split pattern
    cuts in two or more pieces (a single piece that is a token is kept whole); for other
    tokenizers each token is decoded and its text encoded again.

    Example::

        >>> from bpe_viz import train_bpe
        >>> t = train_bpe("low lower lowest", 4, preset="minbpe")
        >>> not_from_own_text(t)
        []
    """
    tokenizer = check_tokenizer(tokenizer, "tokenizer")
    table = tokenizer.id_to_token
    return _kept(tokenizer, "not_from_own_text", table, lambda: _not_from_own_text(tokenizer, table))


def _not_from_own_text(tokenizer, table) -> list[int]:
    fast = _whole_piece_rule(tokenizer)
    split = tokenizer.convention.pre_tokenizer.words if fast else None
    out = []
    specials = set(getattr(tokenizer, "special_tokens", ()))
    for i, raw in enumerate(_every_token_bytes(tokenizer, table)):
        if raw is None and isinstance(tokenizer, Trace) and tokenizer.convention.byte_level:
            continue
        if table[i] == tokenizer.unk_token:
            continue  # it stands for any unknown text, not for its own spelling
        try:
            text = raw.decode("utf-8") if raw is not None else tokenizer.decode([i])
        except UnicodeDecodeError:
            continue  # part of a character: it has no text of its own
        except ValueError:
            continue  # an id the tokenizer leaves unused, or its unknown token
        if not text or text in specials:
            continue
        if fast:
            if len(split(text)) > 1:
                out.append(i)
        elif tokenizer.encode(text).ids != [i]:
            out.append(i)
    return out
