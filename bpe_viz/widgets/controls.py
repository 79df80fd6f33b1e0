"""The controls the explorers share, and the choices they offer: the dropdowns' choices (presets,
tie rules, sizes, speeds, charts: derived from the engine's tables), the corpus picker (bundled
corpora, pasted text, an uploaded file) and the number boxes (merges, a vocabulary size).

Wiring only: what a typed number or an uploaded file means is read by :mod:`.inputs`; the
explorers (:mod:`.explorer` and its subclasses) put these controls in their rows.
"""

from __future__ import annotations

import ipywidgets as widgets

from ..engine.bpe import PRESET_TITLES, PRESETS, iter_bpe
from ..engine.merges import TIE_RULES
from ..engine.text import corpora
from .inputs import decode_upload, parse_merges

__all__ = ["PRESET_CHOICES", "TIE_CHOICES", "SIZE_CHOICES", "PROJECTOR", "CHART_CHOICES", "SPEED_CHOICES",
           "MAX_SAMPLE_CHARS", "options_with", "settings_of", "corpus_choices", "sample_from", "CorpusPicker",
           "NumberBox", "MergesBox"]

#: Preset dropdown: key -> (label, train_bpe keyword arguments): the engine's presets, then
#: byte-level BPE on the Hugging Face course's convention.
PRESET_CHOICES: dict[str, tuple[str, dict]] = {
    **{name: (PRESET_TITLES.get(name, name), {"preset": name}) for name in PRESETS},
    "bytes": ("byte-level (GPT-2): UTF-8 bytes, no marker", {"preset": "hf-course", "byte_level": True}),
}

#: Tie-rule dropdown: the engine's tie rules, each labelled as the rule says what it takes.
TIE_CHOICES = (("as the preset says", "preset"), *((rule.takes, name) for name, rule in TIE_RULES.items()))

# "projector": 24.5 px text, measured to put the merge, the colored sentence and the pair table
# on one 1024×768 screen (2.0 left the pair table below it)
SIZE_CHOICES = (("normal", 1.0), ("large", 1.4), ("projector", 1.75))
#: From this size on, the explorers lay their view out for a projector (a 1024×768 screen):
#: what the next merge is chosen from comes first.
PROJECTOR = dict(SIZE_CHOICES)["projector"]

CHART_CHOICES = (
    ("best pairs", "pairs"),
    ("merge frequencies", "merges"),
    ("compression", "compression"),
    ("no chart", "none"),
)

#: Play speeds: label -> milliseconds between steps.
SPEED_CHOICES = (("slow", 1800), ("normal", 900), ("fast", 400), ("fastest", 150))


def options_with(choices, value):
    """Dropdown options, with ``value`` added if it is not one of them.

    Example::

        >>> options_with((("normal", 1.0), ("large", 1.4)), 2.0)
        [('normal', 1.0), ('large', 1.4), ('2.0', 2.0)]
    """
    options = list(choices)
    if value not in [v for _, v in options]:
        options.append((str(value), value))
    return options


def settings_of(convention) -> tuple[str, str] | None:
    """The (preset, ties) choices of the dropdowns that train with ``convention`` again, or
    ``None`` when no choice does (an option no dropdown offers, such as a ``min_frequency`` of
    your own). The trace's own preset is tried first: byte-level BPE with ``preset="cs336"``
    is CS336's, not the Hugging Face course's byte-level BPE.

    Example::

        >>> from bpe_viz import train_bpe
        >>> settings_of(train_bpe("low lower", 2, preset="cs336").convention)
        ('cs336', 'preset')
        >>> settings_of(train_bpe("low lower", 2, preset="slp3", tie_break="lexicographic").convention)
        ('slp3', 'lexicographic')
        >>> settings_of(train_bpe("low lower", 2, min_frequency=5).convention) is None
        True
    """
    byte_level = ["bytes"] if convention.byte_level else []
    keys = [k for k in dict.fromkeys([convention.preset, *byte_level, *PRESET_CHOICES]) if k in PRESET_CHOICES]
    for key in keys:
        for ties in dict.fromkeys(["preset", convention.tie_break]):
            kwargs = dict(PRESET_CHOICES[key][1])
            if ties != "preset":
                kwargs["tie_break"] = ties
            try:  # the convention these choices train with (on no text: nothing is trained)
                theirs = iter_bpe((), 0, **kwargs).trace.convention
            except (ValueError, TypeError):
                continue
            if theirs == convention:
                return key, ties
    return None


# -- corpora ------------------------------------------------------------------------------------


def corpus_choices():
    """(name -> label, load(name), name -> sample sentence) from :mod:`bpe_viz.engine.text.corpora`."""
    labels = {n: corpora.describe(n) for n in corpora.CORPUS_NAMES}
    return labels, corpora.load, dict(corpora.SAMPLES)


#: The longest sample sentence an explorer picks by itself: the sentence is encoded again on every
#: slider step, and a pasted text without spaces is one 20,000-letter "word".
MAX_SAMPLE_CHARS = 300


def sample_from(corpus) -> str:
    """A sample sentence when the corpus has none: its first words (at most
    :data:`MAX_SAMPLE_CHARS` characters; a longer first word is cut).

    Example::

        >>> sample_from("low lower newest"), len(sample_from("x" * 20_000))
        ('low lower newest', 300)
    """
    if isinstance(corpus, str):
        words = corpus.split()[:10]
    else:
        try:
            words = list(corpus)[:8]  # a dict's keys, or a list of words
        except TypeError:
            return ""
    sentence = " ".join(str(w) for w in words)
    if len(sentence) > MAX_SAMPLE_CHARS:
        cut = sentence.rfind(" ", 0, MAX_SAMPLE_CHARS + 1)
        sentence = sentence[:cut] if cut > 0 else sentence[:MAX_SAMPLE_CHARS]
    return sentence


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
        self.textarea.layout.display = "" if src == "text" else "none"
        self.upload.layout.display = "" if src == "upload" else "none"

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


# -- number boxes ---------------------------------------------------------------------------------


class NumberBox:
    """A text box for a whole-number trait of its explorer (``num_merges``, ``vocab_size``), in
    :attr:`widget`; ``parse`` reads what was typed (:func:`~bpe_viz.widgets.inputs.parse_count`).

    A text box, not an ``IntText``: the browser's number box turns "2.5" into 25 and drops
    "abc" without a word. Here a bad entry shows the error box (and the step slider waits);
    a good one sets the trait, which trains again. The trait set from code shows in the box.
    """

    def __init__(self, owner, trait: str, parse, *, description: str, width: str):
        self.owner, self.trait, self.parse = owner, trait, parse
        self.widget = widgets.Text(value=f"{getattr(owner, trait)}", description=description,
                                   continuous_update=False, placeholder="e.g. 100", layout=widgets.Layout(width=width))
        self.widget.observe(self._typed, "value")
        owner.observe(self._changed, trait)

    def _typed(self, change):
        try:
            n = self.parse(change["new"])
        except ValueError as exc:
            self.owner._show_error(exc, blocking=True)
            return
        if n != getattr(self.owner, self.trait):
            setattr(self.owner, self.trait, n)  # trains again
        elif self.owner._bad_input is not None:
            self.owner._retrain_soon()  # "abc", then the old number again: the view comes back

    def _changed(self, change):
        try:
            same = self.parse(self.widget.value) == change["new"]
        except ValueError:
            same = False
        if not same:
            with self.owner._held():  # the explorer trains once, for the trait
                self.widget.value = f"{change['new']}"


class MergesBox(NumberBox):
    """The "merges" box of an explorer that trains merges (its ``num_merges`` trait)."""

    def __init__(self, owner):
        super().__init__(owner, "num_merges", parse_merges, description="merges", width="12em")
