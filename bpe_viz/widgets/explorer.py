"""The :class:`Explorer` base class: what every explorer does the same way, whatever it steps
through. A size option (the controls scaled too, :mod:`.css`), the step controls (Play with a
speed, back, the slider, forward, reset) and the step validation, the step pane's wiring (steps
kept in the page, :mod:`.step_pane`), a readable error box in place of the view, the view as
HTML and text, ``Save`` and :meth:`Explorer.save`, a static HTML copy of the view in the
display data, and one thread at a time in an explorer (its lock, below).

The explorers that train (corpus picker, Train, progress) build on
:class:`~bpe_viz.widgets.training.TrainingExplorer`; the controls themselves are in
:mod:`.controls`. Wiring only: every picture and table comes from :mod:`bpe_viz.view`.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import html
import os
import re
import threading
import types
from pathlib import Path

import ipywidgets as widgets
import traitlets

from ..view import error_html, figure_png, image_html, page_html, svg_charts_as_images
from .controls import PROJECTOR, SIZE_CHOICES, SPEED_CHOICES, options_with
from .css import controls_css
from .inputs import plain_text, replace_file, utf8_bytes
from .step_pane import StepSlider, ViewPart

__all__ = ["Explorer", "CHART_DPI"]

#: The resolution of a chart drawn by matplotlib (times the size option): modest, a slider step
#: must stay fast.
CHART_DPI = 64

#: The traits of the box itself (children, layout...): set as they come, never refused here.
_BOX_TRAITS = frozenset(widgets.VBox.class_trait_names())


# -- one thread at a time ----------------------------------------------------------------------
# subtle: JupyterLab (4.4 on) sends widget messages over a kernel subshell, and ipykernel 7 runs a
# control's handlers on the thread its messages come in on (the main shell's or a subshell's): two
# controls of one explorer can call back at once. A render started first (step 3) could write its
# parts last, after the one for step 5, or into the step cache of the other thread's sentence; a
# training could swap the trace under a render. So an explorer is a monitor: every method and
# property of every explorer class, and every value set on one of its traits (with the observers
# that follow), runs holding the explorer's lock. Re-entrant (an RLock): an observer that sets
# another trait runs the nested observers on the same thread. Nothing waits holding it: a
# training asked for from the page waits for its 0.2 s in the event loop, not in the lock.


def _serialized(method):
    """``method`` run holding its explorer's lock."""
    def locked(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    # subtle: with the method's own globals, doctest still runs its examples (doctest takes a
    # function for its module's only when their globals are the module's)
    locked = types.FunctionType(locked.__code__, method.__globals__, method.__name__, None, locked.__closure__)
    locked.__serialized__ = True
    return functools.update_wrapper(locked, method)


def _serialize(cls):
    """Every method and property getter defined in ``cls``'s own body, run holding the lock
    (static and class methods touch no explorer; dunders and ``setup_instance``, which makes the
    lock, are the object's own machinery)."""
    for name, value in list(vars(cls).items()):
        if name.startswith("__") or name == "setup_instance":
            continue
        getter = value.fget if isinstance(value, property) else None
        if isinstance(value, types.FunctionType) and not getattr(value, "__serialized__", False):
            setattr(cls, name, _serialized(value))
        elif getter is not None and not getattr(getter, "__serialized__", False):
            setattr(cls, name, value.getter(_serialized(getter)))


class Explorer(widgets.VBox):
    """What every explorer shares: a size option (controls scaled too), a readable error box
    in place of the view, the step controls (Play with a speed, back, forward, reset), a
    ``Save`` button, :meth:`save` and a static HTML copy of the view in the display data.

    An explorer with a ``step`` trait says its last step (:meth:`_last_step`); a step beyond it
    is refused here, with the range in the message.

    The error box of a bad input (the merges box, an empty text) stays until the input is fixed,
    and the step controls are off meanwhile: moving the slider must never silently show the
    previous run again.

    A bad value set from code (``explorer.step = -1``, ``size = 0``, ``preset = "nope"``) is
    refused: the trait keeps its value, the caller gets the ``TraitError`` (a program's mistake
    fails where it is made) and the view shows the message in its place, as for a bad input,
    until a valid value is set (the same value as before will do).

    One thread at a time: every method of every explorer class, and every value set on a trait
    with its observers, runs holding the explorer's re-entrant lock (controls' handlers can come
    in on two threads at once: see ``_serialized``).
    """

    size = traitlets.Float(1.0)
    #: what the file name of a saved view starts with
    _save_stem = "step"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _serialize(cls)

    def setup_instance(self, /, *args, **kwargs):
        self._lock = threading.RLock()  # before __init__: the methods it calls take it
        super().setup_instance(*args, **kwargs)

    def __setattr__(self, name, value):
        # subtle: every refusal of a trait's value goes through here, whether traitlets refuses it
        # (a str for an Int) or a validator does (a step out of range): one place shows them all
        if name[0] == "_" or name in _BOX_TRAITS or not self.has_trait(name):
            super().__setattr__(name, value)
            return
        with self._lock:  # the value, its validation and its observers, one thread at a time
            try:
                self._check_choice(name, value)
                super().__setattr__(name, value)
            except traitlets.TraitError as exc:
                self._refuse(name, exc)
                raise
            self._accept()

    def _link_choice(self, dropdown, trait: str):
        """``dropdown`` ↔ the trait; a value set from code must be one of its options."""
        self._choices[trait] = dropdown
        traitlets.link((dropdown, "value"), (self, trait))

    def _check_choice(self, name, value):
        dropdown = getattr(self, "_choices", {}).get(name)
        if dropdown is not None and value not in [v for _, v in dropdown.options]:
            raise traitlets.TraitError(
                f"{name} must be one of {[v for _, v in dropdown.options]}, got {value!r}")

    def _refuse(self, name, exc):
        """A value of ``name`` was refused: its message in place of the view (what showed before
        comes back with a valid value). A bad input's message stays: it is the one to fix."""
        if getattr(self, "_hold", True) or self._bad_input is not None:
            return
        before = self._refusal or (self._error, self._error_view.value)
        self._show_error(f"{exc}\n\n{name} stays {getattr(self, name)!r}; a valid value shows the view again.",
                         title=f"{name} was not changed")
        self._refusal = before

    def _accept(self):
        """A valid value after a refused one, which nothing showed anew (the same value as
        before): what showed before the refusal comes back."""
        if getattr(self, "_refusal", None) is None:
            return
        (error, box), self._refusal = self._refusal, None
        if error is None:
            self._clear_error()
        else:
            self._error, self._error_view.value = error, box

    def _setup_common(self, size):
        self.size = float(size)
        self._size_dd = widgets.Dropdown(options=options_with(SIZE_CHOICES, self.size), value=self.size,
                                         description="size", layout=widgets.Layout(width="14em"))
        traitlets.link((self._size_dd, "value"), (self, "size"))
        self._error_view = widgets.HTML(layout=widgets.Layout(display="none"))
        self._view = widgets.VBox()
        self._error: str | None = None
        self._refusal = None  # (error, box) shown before a refused value, until a valid one
        self._choices: dict = {}  # trait -> its dropdown (_link_choice)
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

    @contextlib.contextmanager
    def _held(self):
        """Set traits quietly: nothing trains or renders inside the block (``_hold``)."""
        self._hold, held = True, self._hold
        try:
            yield
        finally:
            self._hold = held

    # -- the step controls ------------------------------------------------------------------
    def _last_step(self) -> int | None:
        """The last step there is to show (``None``: nothing yet, any step goes)."""
        return None

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        k = proposal["value"]
        last = self._last_step()
        if last is not None and not 0 <= k <= last:
            raise traitlets.TraitError(f"step must be between 0 and {last}, got {k}")
        return k

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
        slider = StepSlider(value=value, min=0, max=last, description=self._step_desc,
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

    def _settle(self):
        """A render that waits for the page's slider to settle, done now (before the view is
        read): see :class:`~bpe_viz.widgets.paned.PanedExplorer`; none here."""

    # -- errors -------------------------------------------------------------------------------
    def _show_error(self, exc, title="This needs a fix", *, blocking: bool = False):
        """The error box in place of the view. ``blocking``: a bad input; the box stays, and the
        step controls are off, until the input is fixed (a successful training clears it)."""
        self._refusal = None
        message = exc if isinstance(exc, str) else (str(exc) or type(exc).__name__)
        if not isinstance(exc, (str, ValueError, TypeError, IndexError, KeyError)):
            message = f"{type(exc).__name__}: {message}"
        if blocking:
            self._bad_input = message
            message += "\n\nThe steps wait until this is fixed."
            self._set_stepping(False)
        self._error = message
        self._error_view.value = error_html(message, title=title, size=self.size)
        self._error_view.layout.display = ""
        self._view.layout.display = "none"
        self._forget_saved()

    def _clear_error(self):
        self._refusal = None
        if self._bad_input is not None:
            self._bad_input = None
            self._set_stepping(True)
        self._error = None
        self._error_view.value = ""
        self._error_view.layout.display = "none"
        self._view.layout.display = ""
        self._forget_saved()

    @property
    def error(self) -> str | None:
        """The message shown instead of the view, or ``None`` when the view is shown."""
        self._settle()
        return self._error

    # -- the view as HTML --------------------------------------------------------------------
    def _html_widgets(self):
        return []

    @property
    def view_html(self) -> str:
        """The HTML the learner sees now (the error box, or every HTML part of the view)."""
        self._settle()
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
        self._settle()
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
            png = figure_png(fig, dpi=CHART_DPI * self.size * dpi_scale) if fig is not None else b""
        return image_html(png, alt=self._chart_alt(), scale=1 / dpi_scale) if png else ""

    def _chart_alt(self) -> str:
        return "the chart of this step"

    def _title(self) -> str:
        """A one-line description of what is shown (the saved page's title, the text fallback)."""
        return type(self).__name__

    def static_html(self) -> str:
        """The current view as static HTML (the error box when one shows), nothing to fetch:
        what a notebook shows before it runs, and on GitHub. Its SVG charts are images (an
        untrusted notebook's sanitizer drops ``<svg>`` and runs its texts together)."""
        self._settle()
        if self._error is not None:
            return self._error_view.value
        return f'<div class="bpe-static">{svg_charts_as_images(self._static_body(self._chart_html()))}</div>'

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
        self._settle()
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

        The file is written whole or not at all (:func:`~bpe_viz.widgets.inputs.replace_file`:
        a temporary file beside it, renamed over it), so a failure never destroys the file that
        was there; a symbolic link you name is followed (its target is replaced, the link stays).

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
        self._settle()
        # the whole file is made before anything is written: nothing half written, ever
        if suffix in (".html", ".htm"):
            data = utf8_bytes(self.standalone_html())
        elif suffix == ".png":
            if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not 20 <= dpi <= 600:
                raise ValueError(f"dpi must be a number between 20 and 600, got {dpi!r}")
            if self._error is not None:
                raise ValueError(f"Nothing to save: the explorer shows an error ({self._error.splitlines()[0]})")
            fig = self._chart_figure_now()
            if fig is None:
                raise ValueError(f"path: this {type(self).__name__} shows no chart now, so there is no PNG to "
                                 "save; choose a chart, or save the whole view as .html")
            data = figure_png(fig, dpi=dpi)
        else:
            raise ValueError(f"path must end in .html or .png, got {str(path)!r}")
        return replace_file(path, data)

    def _offer_download(self):
        """The Save button: a link that downloads this step as an HTML page. A link with a
        ``data:`` URI, not a file beside the notebook: Voilà does not serve .html files and a
        Binder's files vanish with it, while the link works there, locally and offline. (So the
        button writes no file: nothing in the notebook's folder, a symbolic link included, is
        ever overwritten by it.)"""
        try:
            page = self.standalone_html()
            raw = utf8_bytes(page)
        except Exception as exc:  # a click handler never raises: the message shows beside the button
            text = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
            self._save_link.value = f'<span class="bpe-save-error" style="color:#C00000">{html.escape(text)}</span>'
            return
        name = re.sub(r"[^\w.-]+", "-", self._save_name()).strip("-") + ".html"
        data = base64.b64encode(raw).decode("ascii")
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


_serialize(Explorer)  # (its subclasses are, as they are made: Explorer.__init_subclass__)
