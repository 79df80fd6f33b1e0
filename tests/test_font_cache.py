"""A PNG export of Korean text draws Hangul even when matplotlib's font cache predates the fonts
(issue 19, item 21).

matplotlib lists the system's fonts once, in ``fontlist-*.json`` in its cache folder. A machine
that installed Noto Sans CJK after that (a first chart, then ``apt-get install
fonts-noto-cjk``; a Docker layer built after matplotlib's) had the fonts and still drew every
Hangul label as a box, with "Glyph ... missing from font(s) DejaVu Sans Mono" warnings. Now
:func:`bpe_viz.view.kit.mpl.register_fonts` finds the installed fallbacks a stale cache lacks.

The stale cache is made for real: a copy of this machine's cache without the Noto CJK and
Symbola entries, in a fresh ``MPLCONFIGDIR``, read by a new Python process that exports a
MergeExplorer's chart of the bundled Korean corpus with ``save("….png")``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest
from matplotlib import font_manager

FALLBACKS = ("Noto Sans CJK JP", "Noto Sans Mono CJK JP")


def installed_on_this_machine(family: str) -> bool:
    from bpe_viz.view.kit.mpl import register_fonts

    register_fonts()  # (this process's cache may be stale too)
    return any(f.name == family for f in font_manager.fontManager.ttflist)


pytestmark = pytest.mark.skipif(
    not all(installed_on_this_machine(f) for f in FALLBACKS),
    reason="Noto Sans CJK is not installed (apt-get install -y fonts-noto-cjk, as binder/apt.txt lists)")

EXPORT = textwrap.dedent("""
    import json, sys, warnings
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import font_manager
    from matplotlib.font_manager import FontProperties, findfont, get_font

    listed = {f.name for f in font_manager.fontManager.ttflist}
    from bpe_viz import corpora
    from bpe_viz.view import font_families
    from bpe_viz.widgets import MergeExplorer

    ex = MergeExplorer(corpora.load("korean"), 5, preset="hf-course")
    ex.step = 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        png = ex.save(sys.argv[1]).read_bytes()
    hangul = sorted({ch for (a, b), _ in ex.trace[1].top_pairs(8) for ch in a + b if "\\uac00" <= ch <= "\\ud7a3"})

    def drawn_by(ch, generic):
        for family in font_families(generic):  # the fonts the chart's texts are given, in order
            path = findfont(FontProperties(family=family), fallback_to_default=False)
            if get_font(path).get_char_index(ord(ch)):
                return family
        return None

    print(json.dumps({
        "listed": sorted(listed), "png": png[:4].decode("latin-1"), "hangul": hangul,
        "missing": [str(w.message) for w in caught if "missing from font" in str(w.message)],
        "drawn by": {g: {ch: drawn_by(ch, g) for ch in hangul} for g in ("monospace", "sans-serif")},
    }))
""")


def stale_cache(folder: Path) -> Path:
    """This machine's font cache without the fallback fonts, as ``folder``'s own cache (as if
    they had been installed after matplotlib listed the fonts)."""
    name = f"fontlist-v{font_manager.FontManager.__version__}.json"
    fm = font_manager.json_load(Path(matplotlib.get_cachedir(), name))
    fm.ttflist = [f for f in fm.ttflist if "CJK" not in f.name and f.name != "Symbola"]
    folder.mkdir()
    font_manager.json_dump(fm, folder / name)
    return folder


def test_png_export_of_korean_draws_hangul_with_a_stale_font_cache(tmp_path):
    env = dict(os.environ, MPLCONFIGDIR=str(stale_cache(tmp_path / "mpl")), MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, "-c", EXPORT, str(tmp_path / "korean.png")], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert not set(FALLBACKS) & set(out["listed"]), "the cache in the new process is not stale: no test"
    assert out["png"] == "\x89PNG" and out["hangul"], out
    assert out["missing"] == [], out["missing"][:3]
    for generic in ("monospace", "sans-serif"):
        assert all(out["drawn by"][generic].values()), out["drawn by"]
    assert set(out["drawn by"]["monospace"].values()) == {"Noto Sans Mono CJK JP"}
