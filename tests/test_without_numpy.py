"""A merge explorer's steps without numpy (a JupyterLite site offline ships no numpy: its first
lesson's MergeExplorer must step there): every step's HTML equals the one numpy computes.

numpy is hidden in a subprocess (``sys.modules["numpy"] = None`` makes ``import numpy`` fail, as
in Pyodide without the package), so nothing of this test process changes.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SCRIPT = r"""
import json, sys
if sys.argv[1] == "hide":
    sys.modules["numpy"] = None
from bpe_viz import corpora, train_bpe
from bpe_viz.engine.merges.recorder import numpy_or_none
from bpe_viz.widgets import MergeExplorer
text = corpora.load("python-docs")
out = {"numpy": numpy_or_none() is not None, "steps": {}}
for preset, n in (("subword-nmt", 3000), ("cs336", 800), ("sennrich2016", None)):
    if n is None:
        ex = MergeExplorer("sennrich2016", 10)
    else:
        ex = MergeExplorer.from_trace(train_bpe(text, n, preset=preset), sentence=corpora.SAMPLES["python-docs"])
    last = len(ex.trace) - 1
    for k in sorted({0, 1, last // 3, last // 2, last - 1, last}):
        out["steps"][f"{preset}/{k}"] = ex._compose(ex._step_parts(k))
print(json.dumps(out))
"""


def _steps(mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_merge_steps_without_numpy_equal_those_with_it():
    pytest.importorskip("numpy")
    hidden, seen = _steps("hide"), _steps("show")
    assert hidden["numpy"] is False and seen["numpy"] is True
    assert hidden["steps"].keys() == seen["steps"].keys() and len(seen["steps"]) >= 15
    for key, html in seen["steps"].items():
        assert hidden["steps"][key] == html, key
