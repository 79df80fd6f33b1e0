"""What the explorers share: choices for the dropdowns, the corpus picker (bundled corpora,
pasted text, an uploaded file), the merge-count check and the :class:`Explorer` base class
(a size option, and a readable error box in place of the view).

Wiring only, like the explorers: every picture and table comes from :mod:`bpe_viz.view`, every
number from the engine.
"""

from __future__ import annotations

import html
import re

import ipywidgets as widgets
import traitlets

from ..engine import corpora
from ..engine.bpe import PRESET_TITLES, PRESETS
from ..engine.ranking import TIE_RULES
from ..view.html import error_html

__all__ = ["MAX_MERGES", "MAX_UPLOAD_BYTES", "PRESET_CHOICES", "TIE_CHOICES", "SIZE_CHOICES", "CHART_CHOICES"]

#: The most merges an explorer trains (Python's documentation text: about 2 s for 20,000).
MAX_MERGES = 20_000
#: The largest upload an explorer reads.
MAX_UPLOAD_BYTES = 20_000_000

#: Preset dropdown: key -> (label, train_bpe keyword arguments): the engine's presets, then
#: byte-level BPE on the Hugging Face course's convention.
PRESET_CHOICES: dict[str, tuple[str, dict]] = {
    **{name: (PRESET_TITLES.get(name, name), {"preset": name}) for name in PRESETS},
    "bytes": ("byte-level (GPT-2): UTF-8 bytes, no marker", {"preset": "hf-course", "byte_level": True}),
}

#: Tie-rule dropdown: the engine's tie rules, each labelled as the rule says what it takes.
TIE_CHOICES = (("as the preset says", "preset"), *((rule.takes, name) for name, rule in TIE_RULES.items()))

SIZE_CHOICES = (("normal", 1.0), ("large", 1.4), ("projector", 2.0))

CHART_CHOICES = (
    ("best pairs", "pairs"),
    ("merge frequencies", "merges"),
    ("compression", "compression"),
    ("no chart", "none"),
)

_CHART_DPI = 64  # modest: a slider step must stay fast; scaled by the size option


# -- corpora ------------------------------------------------------------------------------------


def corpus_choices():
    """(name -> label, load(name), name -> sample sentence) from :mod:`bpe_viz.engine.corpora`."""
    labels = {n: corpora.describe(n) for n in corpora.CORPUS_NAMES}
    return labels, corpora.load, dict(corpora.SAMPLES)


def sample_from(corpus) -> str:
    """A sample sentence when the corpus has none: its first words."""
    if isinstance(corpus, str):
        return " ".join(corpus.split()[:10])
    if isinstance(corpus, dict):
        return " ".join(list(corpus)[:8])
    try:
        return " ".join(list(corpus)[:8])
    except TypeError:
        return ""


def check_merges(n) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"The number of merges must be a whole number, got {n!r}.")
    if n < 1:
        raise ValueError(f"The number of merges must be at least 1, got {n}.")
    if n > MAX_MERGES:
        raise ValueError(
            f"{n:,} merges is more than this explorer trains (at most {MAX_MERGES:,}). "
            "Choose a smaller number."
        )
    return n


def decode_upload(value) -> tuple[str, str]:
    """(text, file name) of the first uploaded file, or a readable ValueError."""
    if not value:
        raise ValueError("No file yet: choose a plain-text file (UTF-8) with the upload button.")
    f = value[0]
    name = f.get("name", "the file") if isinstance(f, dict) else getattr(f, "name", "the file")
    content = f.get("content") if isinstance(f, dict) else getattr(f, "content", None)
    data = bytes(content or b"")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"“{name}” is {len(data):,} bytes; this explorer reads files up to {MAX_UPLOAD_BYTES:,} bytes.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"“{name}” is not UTF-8 text (byte 0x{data[exc.start]:02x} at position {exc.start:,} "
            "does not fit). Save it as UTF-8 (plain text) and upload it again."
        ) from None
    return text, name


def no_merges_message(trace) -> str:
    msg = f"No merge was learned: {trace.stopped_because}."
    if not trace.words:
        return "The text is empty: type or paste some words first."
    if trace.stop_reason == "no_pairs":
        msg += " Every word is a single character; use words of two or more letters."
    elif trace.stop_reason == "min_frequency":
        msg += (f" A pair must occur at least {trace.convention.min_frequency} times; "
                "use a longer text or repeat some words.")
    return msg


class CorpusPicker:
    """The corpus controls shared by the explorers: source dropdown, text box, file upload."""

    def __init__(self, corpus, *, given_label=None):
        self.labels, self._load, self.samples = corpus_choices()
        options = [(label, name) for name, label in self.labels.items()]
        options.append(("Your own text (type or paste below)", "text"))
        options.append(("A file you upload (UTF-8 text)", "upload"))
        self.given = None
        value = None
        if given_label is not None:
            options.insert(0, (given_label, "given"))
            value = "given"
        self.textarea = widgets.Textarea(
            placeholder="Type or paste a text here (words are split at spaces)",
            continuous_update=False,
            layout=widgets.Layout(width="100%", height="7em"),
        )
        if value is None:
            if isinstance(corpus, str) and corpus in self.labels:
                value = corpus
            elif isinstance(corpus, str):
                value = "text"
                self.textarea.value = corpus
            else:
                self.given = corpus
                options.insert(0, ("The corpus you passed in", "given"))
                value = "given"
        self.source = widgets.Dropdown(options=options, value=value, description="corpus",
                                       layout=widgets.Layout(width="32em"))
        self.upload = widgets.FileUpload(accept=".txt,text/plain", multiple=False,
                                         description="Upload a text file")
        self.source.observe(self._toggle, "value")
        self._toggle()

    def _toggle(self, change=None):
        src = self.source.value
        self.textarea.layout.display = None if src == "text" else "none"
        self.upload.layout.display = None if src == "upload" else "none"

    def widgets(self):
        return [self.source, self.textarea, self.upload]

    def corpus(self, fallback=None):
        """(corpus, sample sentence) for the chosen source, or a readable ValueError."""
        src = self.source.value
        if src == "given":
            corpus = self.given if self.given is not None else fallback
            if corpus is None:
                raise ValueError("There is no corpus to retrain on: choose one from the list.")
            return corpus, sample_from(corpus)
        if src == "text":
            text = self.textarea.value
            if not text.strip():
                raise ValueError("The text is empty: type or paste some words first.")
            return text, sample_from(text)
        if src == "upload":
            text, name = decode_upload(self.upload.value)
            if not text.strip():
                raise ValueError(f"“{name}” is empty: upload a file with some words in it.")
            return text, sample_from(text)
        corpus = self._load(src)
        return corpus, self.samples.get(src) or sample_from(corpus)


def options_with(choices, value):
    """Dropdown options, with ``value`` added if it is not one of them."""
    options = list(choices)
    if value not in [v for _, v in options]:
        options.append((str(value), value))
    return options


class Explorer(widgets.VBox):
    """What the three explorers share: a size option, an error box in place of the view."""

    size = traitlets.Float(1.0)

    def _setup_common(self, size):
        self.size = float(size)
        self._size_dd = widgets.Dropdown(options=options_with(SIZE_CHOICES, self.size), value=self.size,
                                         description="size", layout=widgets.Layout(width="14em"))
        traitlets.link((self._size_dd, "value"), (self, "size"))
        self._error_view = widgets.HTML(layout=widgets.Layout(display="none"))
        self._view = widgets.VBox()
        self._error: str | None = None

    def _show_error(self, exc, title="This needs a fix"):
        message = exc if isinstance(exc, str) else (str(exc) or type(exc).__name__)
        if not isinstance(exc, (str, ValueError, TypeError, IndexError, KeyError)):
            message = f"{type(exc).__name__}: {message}"
        self._error = message
        self._error_view.value = error_html(message, title=title, size=self.size)
        self._error_view.layout.display = None
        self._view.layout.display = "none"

    def _clear_error(self):
        self._error = None
        self._error_view.value = ""
        self._error_view.layout.display = "none"
        self._view.layout.display = None

    @property
    def error(self) -> str | None:
        """The message shown instead of the view, or ``None`` when the view is shown."""
        return self._error

    def _html_widgets(self):
        return []

    @property
    def view_html(self) -> str:
        """The HTML the learner sees now (the error box, or every HTML part of the view)."""
        if self._error is not None:
            return self._error_view.value
        return "\n".join(w.value for w in self._html_widgets())

    @property
    def text(self) -> str:
        """The view as plain text (tags removed), for quick checks."""
        return plain_text(self.view_html)

    @property
    def chart_png(self) -> bytes:
        """The chart currently shown, as PNG bytes (empty if none)."""
        view = getattr(self, "_chart_view", None)
        return bytes(view.value) if view is not None else b""


def plain_text(fragment: str) -> str:
    """HTML -> the text a reader sees (tags removed, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))
