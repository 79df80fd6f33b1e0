"""Why a token, as HTML: one token of an encoding, from any tokenizer, and what made it.

Draws :func:`bpe_viz.engine.why.explain_token`: a header (the token, its id, the characters and
bytes it covers, its pre-token), then how the encoder cut that pre-token, in the family's own
terms, then how the token itself was built:

* merge families (BPE, byte-level GPT vocabularies, SentencePiece-BPE): the merges the encoder
  applied to the pre-token, in order, each with its merge number and the id of the token it
  made, the ones that built this token in bold; then the token's merge tree down to bytes or
  characters (:func:`~bpe_viz.view.merges.trees.merge_tree_html`);
* WordPiece: the greedy longest matches, this token's in bold;
* Unigram: the Viterbi table of the pre-token (:func:`~bpe_viz.view.unigram.html.lattice_html`);
* byte fallback, unknown and special tokens: a sentence saying so, with the bytes.

Long pre-tokens stay short: at most :data:`MAX_STEPS` merges are listed (this token's first).

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    >>> out = why_html(trace, trace.encode("lowest"), 0)
    >>> "made by merges" in out, out.count('class="bpe-why-step bpe-why-mine"'), "bpe-tree" in out
    (True, 2, True)
"""

from __future__ import annotations

from ..engine.why import KINDS, explain_token
from .kit import box, check_size, convention_of, esc, more_html, token_html
from .merges.trees import merge_tree_html
from .unigram.html import lattice_html

__all__ = ["why_html", "MAX_STEPS"]

#: the most encoder steps listed for one pre-token (a pasted run of 5,000 spaces has thousands)
MAX_STEPS = 40

_MINE = "font-weight:700;background:#FFF3C4"
_NOTE = "color:#444;font-size:0.9em;margin:0.2em 0"


def _bytes_text(raw: bytes) -> str:
    return " ".join(f"{b:02X}" for b in raw)


def _header(why, tokenizer) -> str:
    conv = convention_of(tokenizer)
    chip = token_html(why.token, convention=conv, unknown=why.kind == "unknown")
    facts = [f"id {why.id:,}" if why.id is not None else "no id"]
    if why.covers:
        facts.append(f"covers &ldquo;{esc(why.covers)}&rdquo; (characters {why.span[0]:,}&ndash;{why.span[1]:,})")
    if why.raw is not None:
        facts.append(f"bytes {esc(_bytes_text(why.raw))}")
    where = ""
    if why.kind != "special":
        where = (f'<div style="{_NOTE}">token {why.position + 1} of {len(why.word_tokens)} in the pre-token '
                 f'&ldquo;{esc(why.word)}&rdquo; (the text is first cut into pre-tokens; merges never cross them)</div>')
    return (f'<div class="bpe-why-head"><span style="font-weight:700">Token {why.index + 1:,}</span> {chip} '
            f'<span style="color:#333">{" · ".join(facts)}</span>'
            f'<div class="bpe-why-kind" style="{_NOTE}">{esc(KINDS[why.kind])}</div>{where}</div>')


def _merge_rows(why, tokenizer) -> str:
    """The encoder's merges on the pre-token, this token's in bold."""
    conv = convention_of(tokenizer)
    steps = why.walkthrough.steps
    mine = set(why.steps)
    order = sorted(range(len(steps)), key=lambda i: (i not in mine, i))[:MAX_STEPS]
    rows = []
    for i in sorted(order):
        s = steps[i]
        made = s.pair[0] + s.pair[1]
        tid = tokenizer.token_to_id(made)
        cls, style = ("bpe-why-step bpe-why-mine", _MINE) if i in mine else ("bpe-why-step", "color:#555")
        rows.append(f'<li class="{cls}" style="{style}">merge {s.rank:,}: '
                    f'{token_html(s.pair[0], convention=conv)} + {token_html(s.pair[1], convention=conv)} &rarr; '
                    f'{token_html(made, convention=conv)} <span style="font-weight:400">(id {tid if tid is not None else "?"})'
                    '</span></li>')
    more = more_html(len(steps) - len(order), "more merges") if len(steps) > len(order) else ""
    if not steps:
        return f'<div style="{_NOTE}">no learned merge applies to this pre-token: it stays as its initial symbols</div>'
    rule = why.walkthrough.rule or "each iteration merges the learned pair with the lowest merge number present"
    return (f'<div style="{_NOTE}">The encoder\'s rule: {esc(rule)}. {len(steps):,} '
            f'merge{"s" if len(steps) != 1 else ""} here; the ones that built this token in bold:</div>'
            f'<ol class="bpe-why-steps" style="margin:0.2em 0 0.4em 2.6em;padding:0">{"".join(rows)}</ol>{more}')


def _match_rows(why, tokenizer) -> str:
    """WordPiece: the greedy longest matches, this token's in bold."""
    conv = convention_of(tokenizer)
    rows = []
    for i, tok in enumerate(why.word_tokens):
        cls, style = ("bpe-why-step bpe-why-mine", _MINE) if i == why.position else ("bpe-why-step", "color:#555")
        rows.append(f'<li class="{cls}" style="{style}">{token_html(tok, convention=conv)}</li>')
    return (f'<div style="{_NOTE}">WordPiece takes the longest vocabulary entry that starts the rest of the '
            'word, again and again (no merges at encoding time):</div>'
            f'<ol class="bpe-why-steps" style="margin:0.2em 0 0.4em 2.6em;padding:0">{"".join(rows)}</ol>')


def _how_cut(why, tokenizer, size: float) -> str:
    w = why.walkthrough
    if w is None:
        return ""
    if getattr(w, "prefixes", None) is not None:  # Unigram's Viterbi table
        try:
            return lattice_html(tokenizer, why.word, why.step, size=size)
        except ValueError as exc:  # a word the lattice view cannot draw (e.g. one holding a tab)
            return f'<div class="bpe-why-note" style="{_NOTE}">No Viterbi table for this word: {esc(str(exc))}</div>'

    if getattr(w, "longest_match", False):
        return _match_rows(why, tokenizer)
    if getattr(w, "steps", None) is not None and all(getattr(s, "pair", None) is not None for s in w.steps):
        return _merge_rows(why, tokenizer)
    return ""


def _how_built(why, tokenizer) -> str:
    if why.kind == "byte":
        return (f'<div style="{_NOTE}">&ldquo;{esc(why.covers)}&rdquo; is not in the vocabulary, so the '
                f'encoder spells it in its UTF-8 bytes ({esc(_bytes_text(why.covers.encode("utf-8")))}); this '
                f'token is the byte {esc(_bytes_text(why.raw))}.</div>')
    if why.raw is not None and why.covers and why.raw != why.covers.encode("utf-8"):
        return (f'<div style="{_NOTE}">Only part of a character: &ldquo;{esc(why.covers)}&rdquo; is '
                f'{len(why.covers.encode("utf-8"))} bytes in UTF-8 ({esc(_bytes_text(why.covers.encode("utf-8")))}), '
                f'and this token holds {esc(_bytes_text(why.raw))}.</div>')
    return ""


def why_html(tokenizer, encoding, index: int, *, size: float = 1.0) -> str:
    """Why token ``index`` of ``encoding`` (what ``tokenizer.encode(text)`` returned) is what it
    is: its bytes, its pre-token, how the encoder cut that pre-token (merges by number, longest
    matches or the Viterbi table) and the token's merge tree. See the module's docstring.

    Example::

        >>> from bpe_viz import train_wordpiece
        >>> wp = train_wordpiece("low lower newest widest", 10)
        >>> "longest vocabulary entry" in why_html(wp, wp.encode("lowest"), 1)
        True
    """
    size = check_size(size)
    why = explain_token(tokenizer, encoding, index)
    parts = [_header(why, tokenizer), _how_built(why, tokenizer), _how_cut(why, tokenizer, size)]
    if why.tree is not None and why.tree[1] > 0:
        parts.append('<div style="font-weight:700;margin-top:0.4em">How the token was built</div>'
                     + merge_tree_html(tokenizer, why.token, upto=why.step, size=size))
    return box("".join(parts), "bpe-why", size)
