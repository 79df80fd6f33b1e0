"""What the explorers share: choices for the dropdowns, the corpus picker (bundled corpora,
pasted text, an uploaded file), the merge-count check and the :class:`Explorer` base class
(a size option, and a readable error box in place of the view).

Wiring only, like the explorers: every picture and table comes from :mod:`bpe_viz.view`, every
number from the engine.
"""

from __future__ import annotations

import base64
import html
import os
import re
from pathlib import Path

import ipywidgets as widgets
import traitlets

from ..engine import corpora
from ..engine.bpe.model import PRESET_TITLES, PRESETS
from ..engine.merges.ranking import TIE_RULES
from ..view.charts import figure_png
from ..view.html import error_html, image_html, page_html
from .step_pane import ViewPart

__all__ = ["MAX_MERGES", "MAX_UPLOAD_BYTES", "PRESET_CHOICES", "TIE_CHOICES", "SIZE_CHOICES", "CHART_CHOICES",
           "SPEED_CHOICES", "parse_merges", "MergesBox", "Explorer", "controls_css"]

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

_CHART_DPI = 64  # modest: a slider step must stay fast; scaled by the size option


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


#: Play speeds: label -> milliseconds between steps.
SPEED_CHOICES = (("slow", 1800), ("normal", 900), ("fast", 400), ("fastest", 150))


def parse_merges(text) -> int:
    """What a learner typed in a "merges" box, as a number of merges: ``"1,000"`` and
    ``"1 000"`` read as 1000; ``"2.5"`` or ``"abc"`` is a readable ValueError, never 25 or silence.

    Example::

        >>> parse_merges(" 1,000 ")
        1000
        >>> parse_merges("2.5")
        Traceback (most recent call last):
        ...
        ValueError: The number of merges must be a whole number like 10 or 1,000, got “2.5”.
    """
    raw = str(text).strip()
    digits = re.sub(r"(?<=\d)[,_ \u00a0\u202f](?=\d{3}\b)", "", raw)  # thousands separators only
    if not re.fullmatch(r"[+-]?\d+", digits):
        if not raw:
            raise ValueError("The number of merges is empty: type a whole number like 10 or 1,000.")
        raise ValueError(f"The number of merges must be a whole number like 10 or 1,000, got “{raw}”.")
    return check_merges(int(digits))


class MergesBox:
    """The "merges" text box of an explorer that trains (its ``num_merges`` trait).

    A text box, not an ``IntText``: the browser's number box turns "2.5" into 25 and drops
    "abc" without a word. Here a bad entry shows the error box (and the step slider waits);
    a good one sets ``num_merges``, which trains again.
    """

    def __init__(self, owner: "Explorer"):
        self.owner = owner
        self.widget = widgets.Text(value=f"{owner.num_merges}", description="merges", continuous_update=False,
                                   placeholder="e.g. 100", layout=widgets.Layout(width="12em"))
        self.widget.observe(self._typed, "value")
        owner.observe(self._changed, "num_merges")

    def _typed(self, change):
        try:
            n = parse_merges(change["new"])
        except ValueError as exc:
            self.owner._show_error(exc, blocking=True)
            return
        if n != self.owner.num_merges:
            self.owner.num_merges = n  # trains again
        elif self.owner._bad_input is not None:
            self.owner.retrain()  # "abc", then the old number again: the view comes back

    def _changed(self, change):
        try:
            same = parse_merges(self.widget.value) == change["new"]
        except ValueError:
            same = False
        if not same:
            self.widget.value = f"{change['new']}"


class Explorer(widgets.VBox):
    """What the three explorers share: a size option (controls scaled too), a readable error box
    in place of the view, the step controls (Play with a speed, back, forward, reset), a
    ``Save`` button, :meth:`save` and a static HTML copy of the view in the display data.

    The error box of a bad input (the merges box, an empty text) stays until the input is fixed,
    and the step controls are off meanwhile: moving the slider must never silently show the
    previous run again.
    """

    size = traitlets.Float(1.0)
    #: what the file name of a saved view starts with
    _save_stem = "step"

    def _setup_common(self, size):
        self.size = float(size)
        self._size_dd = widgets.Dropdown(options=options_with(SIZE_CHOICES, self.size), value=self.size,
                                         description="size", layout=widgets.Layout(width="14em"))
        traitlets.link((self._size_dd, "value"), (self, "size"))
        self._error_view = widgets.HTML(layout=widgets.Layout(display="none"))
        self._view = widgets.VBox()
        self._error: str | None = None
        self._bad_input: str | None = None  # an input error: the view waits until it is fixed
        self._stepping: list = []  # the step controls, off while a bad input shows
        # "Save": a download link (a data: URI) to this step as a standalone HTML file
        self._save_btn = widgets.Button(description="Save", icon="download",
                                        tooltip="save this step as an HTML page (offline, for a slide)",
                                        layout=widgets.Layout(width="auto"))
        self._save_link = widgets.HTML()
        self._save_btn.on_click(lambda _b: self._offer_download())
        # controls at the explorer's size: ipywidgets draws them from CSS variables, set here
        self._css = widgets.HTML(layout=widgets.Layout(display="none"))
        self.add_class("bpe-explorer")
        self.observe(lambda _c: self._scale_controls(), "size")
        self.observe(self._keep_css, "children")  # whatever children a subclass sets
        self._scale_controls()

    # -- the step controls ------------------------------------------------------------------
    def _make_step_controls(self, trait: str = "step", description: str = "step", interval: int = 900,
                            width: str = "40em"):
        """Play (with a speed), ◀ back, the slider, forward ▶ and reset, wired to ``trait``.

        ``Play`` ↔ slider by ``jslink`` (smooth in the browser), slider ↔ ``trait`` by
        ``traitlets.link``. Returns the row (an HBox that wraps on a narrow screen)."""
        self._step_trait, self._step_desc, self._step_width = trait, description, width
        self._play = widgets.Play(value=0, min=0, max=0, interval=interval, description="play",
                                  tooltip="play the steps")
        self._slider = None
        self._slider_links = ()
        self._back_btn = widgets.Button(icon="step-backward", tooltip="one step back",
                                        layout=widgets.Layout(width="auto"))
        self._fwd_btn = widgets.Button(icon="step-forward", tooltip="one step forward",
                                       layout=widgets.Layout(width="auto"))
        self._reset_btn = widgets.Button(description="reset", icon="fast-backward",
                                         tooltip="stop playing and go back to step 0",
                                         layout=widgets.Layout(width="auto"))
        speeds = list(SPEED_CHOICES)
        if interval not in [ms for _, ms in speeds]:
            speeds.append((f"{interval} ms", interval))
        self._speed_dd = widgets.Dropdown(options=speeds, value=interval, description="speed",
                                          layout=widgets.Layout(width="13em"))
        traitlets.link((self._speed_dd, "value"), (self._play, "interval"))
        self._back_btn.on_click(lambda _b: self._move(-1))
        self._fwd_btn.on_click(lambda _b: self._move(+1))
        self._reset_btn.on_click(lambda _b: self._reset())
        self._step_row = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap", align_items="center"))
        self._new_slider(0)
        self._stepping = [self._play, self._back_btn, self._fwd_btn, self._reset_btn]
        return self._step_row

    def _step_row_children(self):
        return [self._play, self._back_btn, self._slider, self._fwd_btn, self._reset_btn, self._speed_dd]

    def _new_slider(self, last: int):
        """A fresh step slider for 0..last.

        subtle: a slider's ``max`` can change in place, but the keyboard's End key then still
        goes to the old maximum (noUiSlider, inside ipywidgets 8, keeps its first range for
        Home/End while ``aria-valuemax`` shows the new one). A new slider has the right range."""
        old, old_links = self._slider, self._slider_links
        value = min(getattr(self, self._step_trait), last)
        slider = widgets.IntSlider(value=value, min=0, max=last, description=self._step_desc,
                                   continuous_update=True, disabled=self._bad_input is not None,
                                   layout=widgets.Layout(width=self._slider_width()))
        self._slider = slider
        # subtle: the slider first. A link copies its source to its target when the page draws it;
        # Play's value is never sent from here, so Play first would put a step set from code
        # (explorer.step = 2 before the cell's output shows) back to 0.
        links = [widgets.jslink((slider, "value"), (self._play, "value")),
                 traitlets.link((slider, "value"), (self, self._step_trait))]
        pane = getattr(self, "_pane", None)
        if pane is not None:  # the page shows a step it has without asking the kernel (StepPane)
            # subtle: one way only. The kernel never sets the pane's step: while a drag goes on,
            # an older step it answered would pull the handle back
            links.append(widgets.jsdlink((slider, "value"), (pane, "step")))
        self._slider_links = tuple(links)
        if old is not None and old in self._step_row.children:
            self._step_row.children = [slider if c is old else c for c in self._step_row.children]
        else:
            self._step_row.children = [*self._step_row_children(), *self._extra_step_widgets()]
        for link in old_links:
            link.unlink()
            if isinstance(link, widgets.Widget):
                link.close()
        if old is not None:
            old.close()

    def _slider_width(self) -> str:
        # (em of the scaled controls: on a projector a shorter slider keeps the step row one line)
        return "16em" if self.size >= PROJECTOR else self._step_width

    def _extra_step_widgets(self):
        """Widgets after the step controls in their row (size, chart, Save...)."""
        return [self._size_dd, self._save_btn, self._save_link]

    def _set_step_max(self, last: int):
        """The last step the slider and Play reach (a new slider when it changes: see
        :meth:`_new_slider`)."""
        last = max(int(last), 0)
        if getattr(self, self._step_trait) > last:
            setattr(self, self._step_trait, last)
        self._play.max = last
        if self._slider.max != last:
            self._new_slider(last)

    def _move(self, delta: int):
        k = getattr(self, self._step_trait) + delta
        if 0 <= k <= self._slider.max:
            setattr(self, self._step_trait, k)

    def _reset(self):
        self._play.playing = False
        setattr(self, self._step_trait, 0)

    def _set_stepping(self, on: bool):
        for w in [*self._stepping, *([self._slider] if getattr(self, "_slider", None) is not None else [])]:
            w.disabled = not on
        if not on and getattr(self, "_play", None) is not None:
            self._play.playing = False

    # -- the step pane (MergeExplorer, CompareExplorer): steps kept in the page -----------------
    # A subclass with a ``_pane`` (StepPane), ``_steps`` (StepCache) and ``_warmer`` provides
    # _last_step(), _step_key(), _step_parts(k) and _compose(parts); see widgets/step_pane.py.

    def _pane_show(self, k: int, parts, fresh: bool):
        """Step ``k`` (its ``parts``) is the one shown now; ``fresh``: every step the page kept is
        out of date (a new trace, size, chart...)."""
        with self._pane.hold_sync():
            if fresh or self._pane.generation == 0:
                self._pane.new_generation()
            self._pane.set_step(k, self._compose(parts))

    def _asked_for(self, k: int):
        """The page asks for step ``k`` (the slider is there, or a pointer rests over it): send
        it now; the steps being sent ahead around the last step can wait (a new step starts them
        again)."""
        self._warmer.cancel()
        self._send_step(k)

    def _send_step(self, k: int):
        """Send step ``k`` to the page ahead of need (or because the page asked for it)."""
        last = self._last_step()
        if self._hold or last is None or self._bad_input is not None or not 0 <= k <= last:
            return
        if self._steps.key != self._step_key() or self._pane.has(k):
            return
        self._pane.push(k, self._compose(self._step_parts(k)))

    # -- errors -------------------------------------------------------------------------------
    def _show_error(self, exc, title="This needs a fix", *, blocking: bool = False):
        """The error box in place of the view. ``blocking``: a bad input; the box stays, and the
        step controls are off, until the input is fixed (a successful training clears it)."""
        message = exc if isinstance(exc, str) else (str(exc) or type(exc).__name__)
        if not isinstance(exc, (str, ValueError, TypeError, IndexError, KeyError)):
            message = f"{type(exc).__name__}: {message}"
        if blocking:
            self._bad_input = message
            message += "\n\nThe steps wait until this is fixed."
            self._set_stepping(False)
        self._error = message
        self._error_view.value = error_html(message, title=title, size=self.size)
        self._error_view.layout.display = None
        self._view.layout.display = "none"
        self._forget_saved()

    def _clear_error(self):
        if self._bad_input is not None:
            self._bad_input = None
            self._set_stepping(True)
        self._error = None
        self._error_view.value = ""
        self._error_view.layout.display = "none"
        self._view.layout.display = None
        self._forget_saved()

    @property
    def error(self) -> str | None:
        """The message shown instead of the view, or ``None`` when the view is shown."""
        return self._error

    # -- the view as HTML --------------------------------------------------------------------
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
        return self._chart_png()

    def _chart_png(self) -> bytes:
        # an explorer whose live chart is an Image sends PNG bytes anyway; the Merge and Compare
        # explorers show SVG (fast on every step) and draw their PNG with matplotlib only here
        view = getattr(self, "_chart_view", None)
        return bytes(view.value) if isinstance(view, widgets.Image) else b""

    def _static_body(self, chart: str) -> str:
        """The view as one HTML fragment, in the order the widget shows it; ``chart`` (HTML:
        :meth:`_chart_html`) at the end."""
        body = "\n".join(w.value for w in self._html_widgets() if w.value)
        return body + "\n" + chart if chart else body

    def _chart_html(self, dpi_scale: float = 1.0) -> str:
        """The chart shown now, as HTML with nothing to fetch: the widget's own chart when it is
        drawn in HTML (inline SVG: the very picture the learner sees), else the PNG as a
        ``data:`` image, drawn at ``dpi_scale`` times the widget's resolution; ``""`` if none."""
        view = getattr(self, "_chart_view", None)
        if isinstance(view, ViewPart):  # a part of a StepPane's step
            return view.value if view.shown else ""
        if isinstance(view, widgets.HTML):
            return view.value if view.layout.display != "none" else ""
        if dpi_scale == 1.0:
            png = self.chart_png
        else:
            fig = self._chart_figure_now()
            png = figure_png(fig, dpi=_CHART_DPI * self.size * dpi_scale) if fig is not None else b""
        return image_html(png, alt=self._chart_alt(), scale=1 / dpi_scale) if png else ""

    def _chart_alt(self) -> str:
        return "the chart of this step"

    def _title(self) -> str:
        """A one-line description of what is shown (the saved page's title, the text fallback)."""
        return type(self).__name__

    def static_html(self) -> str:
        """The current view as static HTML (the error box when one shows), nothing to fetch:
        what a notebook shows before it runs, and on GitHub."""
        if self._error is not None:
            return self._error_view.value
        return f'<div class="bpe-static">{self._static_body(self._chart_html())}</div>'

    def _repr_mimebundle_(self, **kwargs):
        # the widget for a live kernel; for a notebook stored with outputs and read before its
        # cells run (or on GitHub), the step as static HTML and a sentence, not the children's repr
        data = super()._repr_mimebundle_(**kwargs)
        try:
            data["text/html"] = self.static_html()
            data["text/plain"] = f"{self._title()} (run the notebook to use the controls)"
        except Exception:  # a display must never fail because of its fallback
            pass
        return data

    # -- a step on a slide -------------------------------------------------------------------
    def _save_name(self) -> str:
        return f"{self._save_stem}-{getattr(self, 'step', 0)}"

    def _chart_figure_now(self):
        """The Figure of the chart shown now, or None (no chart, or it is switched off)."""
        if not self.chart_png:
            return None
        return getattr(self, "_fig", None)

    def standalone_html(self, *, dpi_scale: float = 2.0) -> str:
        """This step as a whole standalone HTML page (what :meth:`save` writes for ``.html``):
        styles inline, the chart as the widget draws it (inline SVG; a PNG chart is drawn at
        ``dpi_scale`` times the widget's resolution, sharp on a projector, as a ``data:`` image),
        nothing fetched."""
        if self._error is not None:
            raise ValueError(f"Nothing to save: the explorer shows an error ({self._error.splitlines()[0]})")
        body = self._static_body(self._chart_html(dpi_scale))
        return page_html(f'<div class="bpe-saved">{body}</div>', title=self._title(),
                         note=f"Saved from bpe-viz {type(self).__name__}.")

    def save(self, path, *, dpi: float = 150) -> Path:
        """Save this step for a slide; returns the path written.

        * ``.html`` / ``.htm``: the whole view as a standalone page (:meth:`standalone_html`) that
          opens offline and looks like the widget: styles inline, the chart embedded.
        * ``.png``: the **chart** of this step, at ``dpi`` (150: about 960 px wide). matplotlib
          draws it here; a picture of the whole view (tables, colored words) would need a web
          browser in the kernel, which Binder and most classrooms do not have: save the
          ``.html`` page and take the picture in your browser, or paste the page.

        Example::

            >>> import tempfile, pathlib
            >>> from bpe_viz.widgets import MergeExplorer
            >>> ex = MergeExplorer("sennrich2016", 10)
            >>> ex.step = 5
            >>> folder = pathlib.Path(tempfile.mkdtemp())
            >>> page = ex.save(folder / "step5.html").read_text(encoding="utf-8")
            >>> "merge 5:" in page and "<svg" in page and "<script" not in page
            True
            >>> ex.save(folder / "step5.png").read_bytes()[:4]
            b'\\x89PNG'
        """
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a file name like 'step5.html' or 'step5.png', got {type(path).__name__}")
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix in (".html", ".htm"):
            path.write_text(self.standalone_html(), encoding="utf-8")
        elif suffix == ".png":
            if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not 20 <= dpi <= 600:
                raise ValueError(f"dpi must be a number between 20 and 600, got {dpi!r}")
            if self._error is not None:
                raise ValueError(f"Nothing to save: the explorer shows an error ({self._error.splitlines()[0]})")
            fig = self._chart_figure_now()
            if fig is None:
                raise ValueError(f"path: this {type(self).__name__} shows no chart now, so there is no PNG to "
                                 "save; choose a chart, or save the whole view as .html")
            path.write_bytes(figure_png(fig, dpi=dpi))
        else:
            raise ValueError(f"path must end in .html or .png, got {str(path)!r}")
        return path

    def _offer_download(self):
        """The Save button: a link that downloads this step as an HTML page. A link with a
        ``data:`` URI, not a file beside the notebook: Voilà does not serve .html files and a
        Binder's files vanish with it, while the link works there, locally and offline."""
        try:
            page = self.standalone_html()
        except ValueError as exc:
            self._save_link.value = f'<span class="bpe-save-error" style="color:#C00000">{html.escape(str(exc))}</span>'
            return
        name = re.sub(r"[^\w.-]+", "-", self._save_name()).strip("-") + ".html"
        data = base64.b64encode(page.encode("utf-8")).decode("ascii")
        self._save_link.value = (
            f'<a class="bpe-save-link" download="{html.escape(name)}" '
            f'href="data:text/html;charset=utf-8;base64,{data}" '
            f'style="font-weight:600">&#x2913; {html.escape(name)}</a> '
            f'<span style="color:#555">({len(page) / 1024:,.0f} KB, opens offline)</span>'
        )

    def _forget_saved(self):
        if self._save_link.value:
            self._save_link.value = ""  # the link was for another step

    # -- size ------------------------------------------------------------------------------------
    @traitlets.validate("size")
    def _valid_size(self, proposal):
        size = float(proposal["value"])
        if not 0.25 <= size <= 6:
            raise traitlets.TraitError(f"size must be between 0.25 and 6 (1.0 is normal), got {size}")
        dd = getattr(self, "_size_dd", None)
        if dd is not None and size not in [v for _, v in dd.options]:
            dd.options = options_with(SIZE_CHOICES, size)  # a size of your own: offer it too
        return size

    def _keep_css(self, change):
        if self._css not in change["new"]:
            self.children = (self._css, *change["new"])

    def _scale_controls(self):
        for cls in [c for c in self._dom_classes if c.startswith("bpe-size-")]:
            self.remove_class(cls)
        if getattr(self, "_slider", None) is not None:
            self._slider.layout.width = self._slider_width()
        if self.size == 1.0:
            self._css.value = ""
            return
        cls = f"bpe-size-{round(self.size * 100)}"
        self.add_class(cls)
        # the controls grow half as much as the view: readable from the back of the room, and
        # the view (what the class looks at) still fits a 1024×768 projector
        self._css.value = controls_css(cls, 1 + (self.size - 1) / 2)


def controls_css(cls: str, size: float) -> str:
    """A ``<style>`` that scales the ipywidgets controls inside ``.bpe-explorer.<cls>`` by
    ``size``: ipywidgets sizes them from CSS variables, which cascade. (The views' own HTML is
    scaled by its ``size`` argument; this is for the dropdowns, sliders and buttons.)

    Example::

        >>> "--jp-widgets-font-size:26px" in controls_css("bpe-size-200", 2.0)
        True
    """
    px = {  # ipywidgets 8's defaults at size 1
        "font-size": 13, "inline-height": 28, "inline-label-width": 80, "inline-width": 300,
        "inline-width-short": 148, "inline-width-tiny": 76, "slider-handle-size": 16,
        "slider-track-thickness": 4, "inline-margin": 4,
    }
    rules = ";".join(f"--jp-widgets-{k}:{round(v * size)}px" for k, v in px.items())
    sel = f".bpe-explorer.{cls}"
    # the widgets' own font size too: their widths are in em (Layout(width="14em"))
    return (f"<style>{sel}{{{rules}}}"
            f"{sel} .widget-inline-hbox,{sel} .widget-inline-vbox{{font-size:var(--jp-widgets-font-size)}}"
            f"{sel} .widget-button,{sel} .widget-toggle-button,{sel} .widget-upload{{font-size:{round(13 * size)}px}}"
            f"{sel} .widget-readout{{min-width:{round(2.4 * size, 1)}em}}</style>")


def plain_text(fragment: str) -> str:
    """HTML -> the text a reader sees (tags removed, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))
