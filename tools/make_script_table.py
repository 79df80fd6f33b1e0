"""Write ``bpe_viz/engine/text/script_data.py``: the Unicode script of every code point, as the
``regex`` package sees it, for where ``regex`` is missing (Pyodide/JupyterLite, issue 22).

:func:`bpe_viz.engine.text.scripts.script_of` asks ``regex`` (``\\p{Script=...}``) where it is
installed; without it, it reads this table (:func:`bpe_viz.engine.text.regex_compat.table_script`).
The table is runs: each run's first code point (hex) and the index of its script's name, so
about 2,000 runs cover all 1,114,112 code points. Run it after upgrading ``regex``:
``python tools/make_script_table.py`` (``--check`` only says whether the file is current);
tests/test_regex_fallback.py checks the table equals ``regex`` code point by code point.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import regex

OUT = Path(__file__).resolve().parent.parent / "bpe_viz" / "engine" / "text" / "script_data.py"
HEADER = '''"""The Unicode script of every code point, as the ``regex`` package {version} names it (generated
by ``tools/make_script_table.py``; do not edit). Read by
:func:`~bpe_viz.engine.text.regex_compat.table_script` where ``regex`` is not installed.

``TABLE``: comma-separated runs ``first-code-point-in-hex:index-into-NAMES``; a run lasts until
the next one starts.
"""

__all__ = ["REGEX_VERSION", "NAMES", "TABLE"]

#: the ``regex`` version the table was generated from
REGEX_VERSION = {version!r}
'''


def script_names() -> list[str]:
    """The long name of each script ``regex`` knows (as ``scripts._script_pattern`` picks them)."""
    import regex._regex_core as core

    names: dict[int, str] = {}
    for name, value in core.PROPERTIES["SCRIPT"][1].items():
        if value and name.isidentifier():
            names.setdefault(value, name)
    return list(names.values())


def runs() -> tuple[list[str], list[tuple[int, int]]]:
    """``(names, [(first code point, name index), ...])`` over all of Unicode."""
    names = script_names()
    pattern = regex.compile("|".join(f"(?P<{n}>\\p{{Script={n}}})" for n in names))
    index = {n: i for i, n in enumerate(names)}
    unknown = "UNKNOWN"
    if unknown not in index:
        index[unknown] = len(names)
        names.append(unknown)
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    out: list[tuple[int, int]] = []
    pos = 0
    for m in pattern.finditer(everything):  # one match per character: the scripts are disjoint
        if m.start() > pos:
            out.append((pos, index[unknown]))
        i = index[m.lastgroup]
        if not out or out[-1][1] != i or m.start() > pos:
            out.append((m.start(), i))
        pos = m.end()
    if pos <= sys.maxunicode:
        out.append((pos, index[unknown]))
    merged = [r for k, r in enumerate(out) if k == 0 or r[1] != out[k - 1][1]]
    return names, merged


def source() -> str:
    names, table = runs()
    body = ",".join(f"{a:x}:{i}" for a, i in table)
    lines = textwrap.wrap(body, 96, break_on_hyphens=False)
    name_lines = textwrap.wrap(", ".join(map(repr, names)), 96)
    return (HEADER.format(version=regex.__version__)
            + "#: the scripts' long names, upper case without spaces, as regex spells them\n"
            + "NAMES = (\n" + "".join(f"    {ln}\n" for ln in name_lines) + ")\n\n"
            + "#: the runs (see the module docstring)\n"
            + "TABLE = (\n" + "".join(f"    {ln!r}\n" for ln in lines) + ")\n")


def main(argv: list[str]) -> int:
    text = source()
    if "--check" in argv:
        current = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT}: {'current' if current else 'OUT OF DATE: run python tools/make_script_table.py'}")
        return 0 if current else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(text):,} characters)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
