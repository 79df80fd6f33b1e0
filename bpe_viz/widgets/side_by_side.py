"""SideBySideExplorer: one text through several finished tokenizers, side by side, and why any
token of any row is what it is.

Unlike the other explorers, nothing here trains or steps: the tokenizers are given (real ones
from :func:`bpe_viz.load_tokenizer`, trained ones, readers' ones, of any family), and what
changes is the text. Type in the box (the view follows as you type, a moment after the last
key), or pick a bundled language sample (:data:`bpe_viz.corpora.LANGUAGES`); choose a tokenizer
and one of its tokens, and :func:`~bpe_viz.view.why.why_html` explains it below. The view is
:func:`~bpe_viz.view.compare_tokenizers.comparison_html`; a text that cannot be shown (too long,
control characters, a lone surrogate) gets a message in its place.

Example::

    >>> from bpe_viz import train_bpe, train_wordpiece
    >>> corpus = "low lower newest widest " * 3
    >>> ex = SideBySideExplorer({"bpe": train_bpe(corpus, 10), "wordpiece": train_wordpiece(corpus, 10)},
    ...                         text="lowest newer")
    >>> [r.count for r in ex.comparison.rows], "wordpiece" in ex.comparison_view
    ([7, 5], True)
    >>> ex.text = "a\\x07b"
    >>> ex.error.startswith("The text has a control character")
    True
"""

from __future__ import annotations

import asyncio
import unicodedata

import ipywidgets as widgets
import traitlets

from ..engine.text import LANGUAGES
from ..view import (compare_tokenizers, comparison_html, error_html, message_html, named_tokenizers, token_label,
                    why_html)
from .explorer import Explorer
from .inputs import from_the_page

__all__ = ["SideBySideExplorer", "MAX_TEXT_CHARS", "MAX_TOKEN_CHOICES", "check_typed_text", "Debouncer"]

#: The longest text the explorer compares (the view draws the first 5,000 characters).
MAX_TEXT_CHARS = 10_000
#: Tokens offered in the "token" dropdown (the first ones of the row).
MAX_TOKEN_CHOICES = 600
_FINE_CONTROLS = "\n\t\r"


def check_typed_text(text: str) -> str:
    """``text`` if the explorer can show it, else a ``ValueError`` a learner can act on: too
    long, or a control character (newlines and tabs are fine).

    Example::

        >>> check_typed_text("tab\\tand newline\\n")
        'tab\\tand newline\\n'
        >>> check_typed_text("bell\\x07")
        Traceback (most recent call last):
        ...
        ValueError: The text has a control character, U+0007 at character 5 (line 1): tokenizers see it, but it prints as nothing. Remove it (newlines and tabs are fine).
    """
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"The text has {len(text):,} characters; this explorer compares up to {MAX_TEXT_CHARS:,}. "
                         "Paste a shorter text.")
    for i, ch in enumerate(text):
        if ch not in _FINE_CONTROLS and unicodedata.category(ch) == "Cc":
            line = text.count("\n", 0, i) + 1
            raise ValueError(f"The text has a control character, U+{ord(ch):04X} at character {i + 1:,} "
                             f"(line {line:,}): tokenizers see it, but it prints as nothing. Remove it (newlines "
                             "and tabs are fine).")
    return text


class Debouncer:
    """Call ``action(value)`` a moment after the last :meth:`push` (a new push restarts the
    wait), so that typing renders once per pause, not once per key. Only for a change typed in the
    page (:func:`~bpe_viz.widgets.inputs.from_the_page`): code in a cell, a script or a test
    (even one with an event loop running, as Playwright's) gets the call at once.

    Example::

        >>> got = []
        >>> Debouncer(got.append).push("low")   # no event loop here: at once
        >>> got
        ['low']
    """

    #: seconds after the last key
    DELAY = 0.3

    def __init__(self, action):
        self._action = action
        self._handle = None

    def push(self, value) -> None:
        self.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or not from_the_page():  # code in a cell, a script, a test: at once
            self._action(value)
            return
        self._handle = loop.call_later(self.DELAY, self._fire, value)

    def _fire(self, value):
        self._handle = None
        self._action(value)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle = None


class SideBySideExplorer(Explorer):
    """One text through several tokenizers side by side (``tokenizers``: a dict name ->
    tokenizer, or a list), and why a chosen token is what it is.

    ``text`` (the English sample by default) follows the text box; ``tokenizer`` and ``token``
    say which token is explained (a row's name and the token's index in it); ``comparison`` is
    the current :class:`~bpe_viz.view.compare_tokenizers.Comparison` (``None`` while the text
    shows a message).

    Example::

        >>> from bpe_viz import train_bpe
        >>> ex = SideBySideExplorer([train_bpe("low lower lowest", 5)], text="lowest")
        >>> ex.tokenizer, ex.token, "Token 1" in ex.why_view
        ('BPE', 0, True)
    """

    text = traitlets.Unicode("")
    tokenizer = traitlets.Unicode("")
    token = traitlets.Int(0)
    _save_stem = "side-by-side"

    def __init__(self, tokenizers, text: str | None = None, *, size: float = 1.0):
        # (its handlers run one at a time, as every explorer's: without the lock a render started
        # first, for the row's first token, could write its "why" last, under another token)
        super().__init__()
        self._hold = True
        self._setup_common(size)
        self.tokenizers = named_tokenizers(tokenizers)  # a programmer's argument: errors are raised
        self.comparison = None
        text = LANGUAGES["English"] if text is None else text
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        self._typing = Debouncer(self._typed)
        self._sample_dd = widgets.Dropdown(
            options=[("your text", "")] + [(name, name) for name in LANGUAGES],
            value=next((name for name, t in LANGUAGES.items() if t == text), ""),
            description="sample", layout=widgets.Layout(width="18em"))
        self._text_box = widgets.Textarea(value=text, continuous_update=True,
                                          placeholder="type or paste a text", description="text",
                                          layout=widgets.Layout(width="100%", height="7em"))
        self._row_dd = widgets.Dropdown(options=list(self.tokenizers), description="why:",
                                        layout=widgets.Layout(width="22em"))
        self._token_dd = widgets.Dropdown(options=[], description="token", layout=widgets.Layout(width="24em"))
        self._compare_view, self._why_view = widgets.HTML(), widgets.HTML()
        self._view.children = [self._compare_view, widgets.HBox([self._row_dd, self._token_dd]), self._why_view]
        self.children = [
            widgets.HBox([self._sample_dd, self._size_dd, self._save_btn, self._save_link],
                         layout=widgets.Layout(flex_flow="row wrap", align_items="center")),
            self._text_box, self._error_view, self._view]
        self._text_box.observe(lambda c: self._typing.push(c["new"]), "value")
        self._sample_dd.observe(self._sample_chosen, "value")
        traitlets.link((self._row_dd, "value"), (self, "tokenizer"))
        # not traitlets.link: an empty Dropdown's index is None, the trait an int
        self._token_dd.observe(lambda c: c["new"] is not None and setattr(self, "token", c["new"]), "index")
        self.observe(self._token_to_dropdown, "token")
        self.observe(self._on_text, "text")
        self.observe(lambda _c: self._row_changed(), "tokenizer")
        self.observe(lambda _c: self._render(), ["token", "size"])
        self.tokenizer = next(iter(self.tokenizers))
        self.text = text
        self._hold = False
        self._recompute()

    @property
    def controls(self) -> dict:
        """The control widgets by name."""
        return {"text": self._text_box, "sample": self._sample_dd, "tokenizer": self._row_dd,
                "token": self._token_dd, "size": self._size_dd}

    @property
    def comparison_view(self) -> str:
        """The comparison's HTML (``""`` while a message shows instead)."""
        return self._compare_view.value if self._error is None else ""

    @property
    def why_view(self) -> str:
        """The HTML explaining the chosen token."""
        return self._why_view.value if self._error is None else ""

    def _html_widgets(self):
        return [self._compare_view, self._why_view]

    def _title(self) -> str:
        return (f"SideBySideExplorer: {len(self.tokenizers)} tokenizers on a text of {len(self.text):,} characters "
                f"({', '.join(self.tokenizers)})")[:160]

    # -- the text ---------------------------------------------------------------------------
    def _typed(self, value: str):
        """The text box, a moment after the last key."""
        if value != LANGUAGES.get(self._sample_dd.value):
            with self._held():
                self._sample_dd.value = ""
        self.text = value

    def _sample_chosen(self, change):
        if self._hold or not change["new"]:
            return
        self._typing.cancel()
        self.text = LANGUAGES[change["new"]]

    def _on_text(self, change):
        if self._text_box.value != change["new"]:
            with self._held():  # (the box follows the trait; its own echo waits in the debouncer)
                self._text_box.value = change["new"]
            self._typing.cancel()
        self._recompute()

    def _recompute(self):
        if self._hold:
            return
        try:
            if not self.text.strip():
                raise ValueError("Type or paste a text to compare, or pick a sample.")
            self.comparison = compare_tokenizers(check_typed_text(self.text), self.tokenizers)
        except Exception as exc:  # a learner's text: the message shows until it is fixed
            self.comparison = None
            self._show_error(exc, title="This text can't be compared")
            return
        self._clear_error()
        self._fill_tokens(keep=True)
        self._render()

    # -- which token is explained -----------------------------------------------------------
    def _row_changed(self):
        if self._hold or self.comparison is None:
            return
        self._fill_tokens(keep=False)
        self._render()

    def _fill_tokens(self, keep: bool):
        """The token dropdown: the chosen row's first tokens, labelled as the row draws them."""
        row = self.comparison.row(self.tokenizer)
        enc, tok = row.encoding, row.tokenizer
        n = min(row.count, MAX_TOKEN_CHOICES)
        labels = [f"{i + 1}: {token_label(tok, enc.tokens[i])} (id {enc.ids[i]})" for i in range(n)]
        k = min(self.token, n - 1) if keep and n else 0
        with self._held():
            self._token_dd.options = labels
            self._token_dd.index = k if n else None
            self.token = k

    def _token_to_dropdown(self, change):
        if 0 <= change["new"] < len(self._token_dd.options):
            self._token_dd.index = change["new"]

    @traitlets.validate("tokenizer")
    def _valid_tokenizer(self, proposal):
        if proposal["value"] not in getattr(self, "tokenizers", {proposal["value"]: None}):
            raise traitlets.TraitError(f"tokenizer must be one of {list(self.tokenizers)}, got {proposal['value']!r}")
        return proposal["value"]

    @traitlets.validate("token")
    def _valid_token(self, proposal):
        k = proposal["value"]
        cmp = getattr(self, "comparison", None)
        if cmp is not None and self.tokenizer:
            n = cmp.row(self.tokenizer).count
            if n and not 0 <= k < n:
                raise traitlets.TraitError(f"token must be between 0 and {n - 1}, got {k}")
        return k

    # -- drawing -----------------------------------------------------------------------------
    def _render(self):
        if self._hold or self.comparison is None:
            return
        row = self.comparison.row(self.tokenizer)
        chosen = (row.name, self.token) if row.count else None
        try:
            self._compare_view.value = comparison_html(self.comparison, size=self.size, selected=chosen)
        except Exception as exc:
            self._show_error(exc)
            return
        self._why_view.value = self._why_html(row)
        self._forget_saved()

    def _why_html(self, row) -> str:
        if not row.count:
            return message_html(f"{row.name} made no token of this text.", size=self.size)
        try:
            return why_html(row.tokenizer, row.encoding, self.token, size=self.size)
        except Exception as exc:  # one token's story failing must not take the comparison with it
            return error_html(exc, title=f"Why token {self.token + 1} of {row.name}", size=self.size)
