"""Keep the proofs out of the learner's way in JupyterLab (issue 21): every code cell that only
checks claims (``assert`` statements) is hidden (``metadata.jupyter.source_hidden``: JupyterLab
shows a collapsed bar; Voilà hides all code anyway), and a cell that ends with asserts after
code the learner should read is split in two, the code visible and the asserts hidden below it.

Run it after editing a notebook, then re-execute the notebook (the split cells need outputs of
their own): ``python tools/hide_proofs.py notebooks/*.ipynb notebooks/deep-dives/*.ipynb``
(``--check`` only reports).
What it does not split: asserts between other statements (move them to the end by hand).
"""

from __future__ import annotations

import ast
import json
import sys
import uuid
from pathlib import Path


def source(cell) -> str:
    s = cell["source"]
    return s if isinstance(s, str) else "".join(s)


def as_lines(text: str) -> list[str]:
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + [parts[-1]]


def hidden(cell) -> bool:
    return bool(cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"))


def tail_start(body: list) -> int:
    """Index of the first statement of the run of asserts that ends the cell (len: none)."""
    i = len(body)
    while i and isinstance(body[i - 1], ast.Assert):
        i -= 1
    return i


def quiet(stmt, line: str) -> str | None:
    """The head's last line, changed so that the cell still displays nothing (a trailing ``;``
    after an expression whose value would now show), or None when that cannot be done safely."""
    if not isinstance(stmt, ast.Expr):
        return line
    call = stmt.value
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("print", "display"):
        return line  # returns None: nothing shows
    if "#" in line:
        return None
    return line.rstrip() + ";"


def split_cell(cell) -> list:
    """``[cell]`` unchanged, ``[cell]`` hidden, or ``[code, hidden asserts]``."""
    if cell["cell_type"] != "code" or hidden(cell):
        return [cell]
    text = source(cell)
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return [cell]
    t = tail_start(body)
    if t == len(body) or not body:
        return [cell]
    if t == 0:
        cell.setdefault("metadata", {}).setdefault("jupyter", {})["source_hidden"] = True
        return [cell]
    lines = text.split("\n")
    first = body[t].lineno - 1
    while first > 0 and lines[first - 1].lstrip().startswith("#"):
        first -= 1  # a comment just above the asserts goes with them
    head = lines[:first]
    while head and not head[-1].strip():
        head.pop()
    last = body[t - 1]
    if last.end_lineno != len(head):
        return [cell]  # something between the code and its asserts: leave it
    changed = quiet(last, head[-1])
    if changed is None:
        return [cell]
    head[-1] = changed
    proofs = {"cell_type": "code", "id": uuid.uuid4().hex[:8], "execution_count": None,
              "metadata": {"jupyter": {"source_hidden": True}},
              "outputs": [], "source": as_lines("\n".join(lines[first:]).strip("\n"))}
    cell["source"] = as_lines("\n".join(head))
    return [cell, proofs]


def visible_asserts(book) -> list[str]:
    """The first line of each visible code cell that still holds an assert."""
    out = []
    for c in book["cells"]:
        if c["cell_type"] == "code" and not hidden(c):
            try:
                body = ast.parse(source(c)).body
            except SyntaxError:
                continue
            if any(isinstance(s, ast.Assert) for s in body):
                out.append(source(c).split("\n")[0])
    return out


def main(argv: list[str]) -> int:
    check = "--check" in argv
    for name in (a for a in argv if a != "--check"):
        path = Path(name)
        book = json.loads(path.read_text(encoding="utf-8"))
        if not check:
            book["cells"] = [new for cell in book["cells"] for new in split_cell(cell)]
            path.write_text(json.dumps(book, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        left = visible_asserts(book)
        print(f"{path.name}: {len(left)} visible cells with an assert" + (f" (first: {left[0]!r})" if left else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
