"""The notebooks' shape, as STYLE.md ("Notebooks") asks for it; no kernel needed.

Whether the stored outputs are right is nbval's job (``make test`` runs it strictly); this checks
what nbval can't: the course's layout (core lessons in notebooks/, deep dives for implementers in
notebooks/deep-dives/, each folder numbered 01, 02, ...), an H1 title, "What you will learn", a
"What you learned" and a "Next:" link to a notebook that exists, outputs stored from one clean
top-to-bottom run, no error or stderr output, claims checked by asserts, nothing fetched from the
network; and a core lesson's shape (issue 21): short prose, questions to predict before the answer.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from helpers import DEEP_DIVES, NOTEBOOK_DIR, notebook_files, notebook_id

NOTEBOOKS = notebook_files()
LESSONS = [p for p in NOTEBOOKS if p.parent == NOTEBOOK_DIR]
DEEP_DIVE_FILES = [p for p in NOTEBOOKS if p.parent == NOTEBOOK_DIR / DEEP_DIVES]

#: a core lesson's prose at most (markdown cells, whitespace-split words: /work/tools/lesson_words.py)
MAX_LESSON_WORDS = 1_500
#: a core lesson asks at least this many questions (``Predict(...)`` cells) before it shows the answer
MIN_PREDICTIONS = 2
#: the closing "What you learned" sits in one of the last cells (before or with the Next: link)
LAST_CELLS = 3
NEXT_LINK = re.compile(r"\*\*Next:\*\*.*?\(((?:\.\./|deep-dives/)?[0-9]{2}_[a-z0-9_]+\.ipynb)\)", re.S)


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell) -> str:
    s = cell["source"]
    return s if isinstance(s, str) else "".join(s)


def number(path: Path) -> int:
    return int(re.match(r"(\d\d)_[a-z0-9_]+\.ipynb$", path.name).group(1))


@pytest.mark.parametrize("folder", [NOTEBOOK_DIR, NOTEBOOK_DIR / DEEP_DIVES], ids=["lessons", DEEP_DIVES])
def test_notebooks_are_numbered_in_sequence(folder):
    files = sorted(folder.glob("*.ipynb"))
    assert files, f"no notebooks in {folder.relative_to(NOTEBOOK_DIR.parent)}/"
    bad = [p.name for p in files if not re.match(r"\d\d_[a-z0-9_]+\.ipynb$", p.name)]
    assert not bad, f"name a notebook NN_words.ipynb: {bad}"
    assert [number(p) for p in files] == list(range(1, len(files) + 1))


def test_notebook_names_are_unique_across_the_folders():
    # the Binder test executes them into one folder, the untrusted-view test copies them into one,
    # and the browser tests' screenshots are named by the file's stem
    stems = [p.stem for p in NOTEBOOKS]
    assert len(set(stems)) == len(stems), sorted(s for s in stems if stems.count(s) > 1)


@pytest.fixture(params=NOTEBOOKS, ids=[notebook_id(p) for p in NOTEBOOKS])
def nb(request):
    return request.param, load(request.param)


def test_title_learn_and_next(nb):
    path, book = nb
    name = notebook_id(path)
    cells = book["cells"]
    first = source(cells[0])
    title = rf"# Deep dive {number(path)} · " if path in DEEP_DIVE_FILES else rf"# {number(path)} · "
    assert re.match(title, first), f"{name}: the first cell must start with the H1 title {title!r}"
    assert "## What you will learn" in first, f"{name}: say what the learner will learn, up front"
    closing = [source(c) for c in cells[-LAST_CELLS:] if c["cell_type"] == "markdown"]
    assert any(re.search(r"^## What you learned", s, re.M) for s in closing), (
        f"{name}: end with a '## What you learned' heading (in the last {LAST_CELLS} cells)")
    links = NEXT_LINK.findall(source(cells[-1]))
    assert links, f"{name}: the last cell must end with a '**Next:** [...](NN_....ipynb)' link"
    target = (path.parent / links[0]).resolve()
    assert target.exists(), f"{name}: Next points to a missing notebook {links[0]}"
    assert target in [p.resolve() for p in NOTEBOOKS], f"{name}: Next points outside the course: {links[0]}"


@pytest.mark.parametrize("path", LESSONS, ids=[notebook_id(p) for p in LESSONS])
def test_a_core_lesson_is_short_and_asks_before_it_shows(path):
    """Issue 21: a core lesson holds at most ~1,500 words of prose (implementer detail goes to a
    deep dive) and asks the learner to predict at least twice (``Predict(question)``)."""
    cells = load(path)["cells"]
    words = sum(len(source(c).split()) for c in cells if c["cell_type"] == "markdown")
    assert words <= MAX_LESSON_WORDS, (
        f"{path.name}: {words:,} words of prose, at most {MAX_LESSON_WORDS:,} (move detail to a deep dive)")
    predictions = sum(1 for c in cells if c["cell_type"] == "code" and "Predict(" in source(c))
    assert predictions >= MIN_PREDICTIONS, (
        f"{path.name}: {predictions} Predict(...) cells, at least {MIN_PREDICTIONS}: ask before the explorer shows")


def test_kernel_is_plain_python3(nb):
    path, book = nb
    assert book["metadata"]["kernelspec"]["name"] == "python3", path.name


def test_stored_outputs_come_from_one_clean_run(nb):
    path, book = nb
    code = [c for c in book["cells"] if c["cell_type"] == "code"]
    counts = [c.get("execution_count") for c in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: store the outputs of one top-to-bottom run "
        "(jupyter nbconvert --to notebook --execute --inplace)")
    for c in code:
        for o in c.get("outputs", []):
            assert o["output_type"] != "error", f"{path.name}: an error output is stored"
            assert o.get("name") != "stderr", f"{path.name}: stderr output is stored: {o.get('text')!r:.200}"


def test_claims_are_checked_and_cells_stay_short(nb):
    path, book = nb
    code = [source(c) for c in book["cells"] if c["cell_type"] == "code"]
    asserts = sum(1 for s in code if re.search(r"^\s*assert\b", s, re.M))
    assert asserts >= 6, f"{path.name}: only {asserts} cells check a claim with assert"
    longest = max(len(s.splitlines()) for s in code)
    assert longest <= 25, f"{path.name}: a code cell has {longest} lines; keep cells short"


def test_nothing_from_the_network_and_few_ignored_outputs(nb):
    path, book = nb
    code = "\n".join(source(c) for c in book["cells"] if c["cell_type"] == "code")
    assert not re.search(r"https?://", code), f"{path.name}: code must not fetch anything"
    assert "urlopen" not in code and "requests." not in code
    for c in book["cells"]:
        for o in c.get("outputs", []):
            html = o.get("data", {}).get("text/html", "")
            html = html if isinstance(html, str) else "".join(html)
            assert "<script" not in html, f"{path.name}: an output carries a <script> (CDN or JS)"
    tags = [t for c in book["cells"] for t in c.get("metadata", {}).get("tags", [])]
    assert tags.count("nbval-ignore-output") + tags.count("nbval-skip") <= 1, (
        f"{path.name}: keep nbval-ignore-output / nbval-skip rare")


#: visible code cells that mix asserts between other statements (tools/hide_proofs.py cannot split
#: them), over every notebook of both folders: none since the course restructure (issue 21 item 6);
#: a proof goes last in its cell or in a cell of its own (count: .venv/bin/python -c "import sys; sys.path[:0] = ['tests']; import test_notebooks_meta as t; print(len(t.mixed_proof_cells()))")
MIXED_PROOF_CELLS_LEFT = 0


def mixed_proof_cells() -> list[str]:
    """Visible code cells with asserts between other statements, one line each (notebook: source).
    A cell of asserts only must be hidden (AssertionError naming it otherwise)."""
    # a cell of asserts only is collapsed in JupyterLab (Voilà hides every source); a cell that
    # ended with asserts was split by tools/hide_proofs.py, code visible, asserts hidden below
    mixed = []
    for path in NOTEBOOKS:
        for c in load(path)["cells"]:
            if c["cell_type"] != "code":
                continue
            body = ast.parse(source(c)).body
            is_hidden = c.get("metadata", {}).get("jupyter", {}).get("source_hidden", False)
            if body and all(isinstance(s, ast.Assert) for s in body):
                assert is_hidden, f"{notebook_id(path)}: a cell of asserts only is not hidden: {source(c)[:80]!r}"
            elif not is_hidden and any(isinstance(s, ast.Assert) for s in body):
                mixed.append(f"{notebook_id(path)}: {source(c)[:60]!r}")
    return mixed


def test_proofs_are_hidden_in_jupyterlab():
    mixed = mixed_proof_cells()
    assert len(mixed) <= MIXED_PROOF_CELLS_LEFT, "\n".join(mixed)
