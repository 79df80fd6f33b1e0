"""Issue 19 item 15, kernel side: the static HTML an explorer stores beside its widget (what a
notebook opened untrusted, from a fresh clone or on Binder, shows before Run All) keeps its
meaning through JupyterLab's sanitizer, which drops ``<svg>`` and ``<style>`` and keeps ``<img>``
with a ``data:`` source and inline ``style=`` attributes. The page itself is checked in Chromium
by tests/browser/test_untrusted_lab.py.

Also item 17's last blank chip: an unknown invisible character (a ZWJ typed in a sentence).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest

from bpe_viz import corpora, train_bpe
from bpe_viz.view import svg_charts_as_images
from bpe_viz.view.kit import svg_texts, token_html
from bpe_viz.widgets import CompareExplorer, MergeExplorer, UnigramExplorer
from bpe_viz.widgets.inputs import plain_text
from helpers import NOTEBOOK_DIR as NOTEBOOKS
from helpers import notebook_files, notebook_id
IMG = re.compile(r'<img class="(bpe-chart[^"]*)" alt="([^"]*)"[^>]* src="data:image/svg\+xml;base64,([^"]+)">')


def charts_in(html: str) -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", html, flags=re.S)


def images_in(html: str) -> list[tuple[str, str, str]]:
    """(class, alt, the SVG decoded) of every chart image."""
    return [(cls, alt, base64.b64decode(data).decode("utf-8")) for cls, alt, data in IMG.findall(html)]


@pytest.mark.parametrize("make", [
    lambda: MergeExplorer("sennrich2016", 10),
    lambda: MergeExplorer("sennrich2016", 10, chart="merges"),
    lambda: MergeExplorer("sennrich2016", 10, chart="compression", size=1.75),
    lambda: CompareExplorer("hf-course", 4),
    lambda: UnigramExplorer("hf-course", vocab_size=14),
], ids=["pairs", "merges", "compression-projector", "compare", "unigram"])
def test_stored_charts_are_images_of_the_live_svg(make):
    ex = make()
    ex.step = 2
    live = ex._static_body(ex._chart_html())  # what the page shows, charts inline
    stored = ex._repr_mimebundle_()["text/html"]
    assert "<svg" not in stored and "<style" not in stored and "<script" not in stored
    svgs = charts_in(live)
    assert svgs, "the live view has a chart"
    images = images_in(stored)
    assert [svg for _cls, _alt, svg in images] == svgs  # the very pictures, in order
    for (cls, alt, _svg), svg in zip(images, svgs):
        assert cls.startswith("bpe-chart") and alt and alt in svg  # the chart's title as its alt text
    # everything but the charts is as the widget shows it
    assert stored == f'<div class="bpe-static">{svg_charts_as_images(live)}</div>'
    rest = re.sub(r"<svg\b.*?</svg>", "", live, flags=re.S)
    assert re.sub(r"<img [^>]*>", "", stored) == f'<div class="bpe-static">{rest}</div>'


def test_an_image_keeps_the_size_and_the_text_of_its_chart():
    ex = MergeExplorer("sennrich2016", 10, size=1.75)
    svg = charts_in(ex._chart_html())[0]
    img = svg_charts_as_images(svg)
    width, height = re.search(r'<svg[^>]* width="([\d.]+)" height="([\d.]+)"', svg).groups()
    assert f'width="{width}" height="{height}"' in img and "max-width:100%" in img
    assert "Best pairs at step 0" in img.split(" src=")[0]  # the alt text, readable without the picture
    decoded = images_in(img)[0][2]
    assert svg_texts(decoded) == svg_texts(svg) and 'xmlns="http://www.w3.org/2000/svg"' in decoded


def test_text_without_a_chart_is_unchanged():
    html = '<div style="display:block">a &lt;svg&gt; in text</div>'
    assert svg_charts_as_images(html) == html
    with pytest.raises(TypeError, match="fragment must be an HTML string"):
        svg_charts_as_images(None)


def _stored_explorers(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            html = o.get("data", {}).get("text/html", "")
            html = html if isinstance(html, str) else "".join(html)
            if "bpe-static" in html:
                out.append(html)
    return out


@pytest.mark.parametrize("path", notebook_files(), ids=notebook_id)
def test_stored_notebooks_carry_no_inline_svg(path):
    """The stored notebooks were run again with the images (else nbval would fail too)."""
    for html in _stored_explorers(path):
        assert "<svg" not in html and "<style" not in html, path.name


def test_notebook_01_opens_at_step_2_as_its_text_says():
    # its first explorer (the prediction questions stored before it have no step header)
    first = next((h for h in _stored_explorers(NOTEBOOKS / "01_from_compression_to_subwords.ipynb") if "bpe-header" in h), None)
    assert first, "lesson 01 stores no explorer output (run it: jupyter nbconvert --execute --inplace)"
    trace = train_bpe(corpora.load("sennrich2016"), 10, preset="sennrich2016")
    m = trace[2].merge
    text = plain_text(first)
    assert "Step 2 of 10" in text and f"merge 2: ({m.pair[0]}, {m.pair[1]}) → {m.token}, count {m.count}" in text
    assert images_in(first)[0][1].startswith("Best pairs at step 2")


def test_an_unknown_invisible_character_is_named():
    chip = token_html("\u200d", unknown=True)
    assert "&lt;U+200D&gt;" in chip and "bpe-unk" in chip
    assert ">\u200d<" not in chip
    assert token_html("k", unknown=True).count(">k<") == 1  # a visible one as before
    ex = MergeExplorer("sennrich2016", 10)
    ex.sentence = "low 👨\u200d👩 ❤\ufe0f"
    assert "&lt;U+200D&gt;" in ex._sentence_view.value and "&lt;U+FE0F&gt;" in ex._sentence_view.value
