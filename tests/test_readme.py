"""The README's "API at a glance" is a doctest: the examples people copy must stay true; and its
notebook tables list the course as it is (every core lesson, then every deep dive, in order)."""

import doctest
import re
from pathlib import Path

from helpers import NOTEBOOK_DIR, notebook_files

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run():
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 5, "the README lost its examples"
    assert result.failed == 0


def test_readme_tables_list_every_lesson_and_deep_dive_in_order():
    text = README.read_text(encoding="utf-8")
    section = text.split("## The notebooks", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d+) \| \[[^\]]+\]\((notebooks/[^)]+\.ipynb)\) \| \S", section, re.M)
    listed = [path for _n, path in rows]
    expected = [p.relative_to(NOTEBOOK_DIR.parent).as_posix() for p in notebook_files()]
    assert listed == expected, "the README's notebook tables must list every lesson, then every deep dive"
    # numbered 1, 2, ... in each table (the lessons', then the deep dives')
    numbers = [int(n) for n, _path in rows]
    lessons = sum(1 for path in listed if "/deep-dives/" not in path)
    assert numbers == [*range(1, lessons + 1), *range(1, len(rows) - lessons + 1)], numbers
    assert "Deep dives, for implementers" in section
    # the Binder badges open lesson 1
    first = expected[0]
    assert f"urlpath=lab/tree/{first}" in text and f"urlpath=voila/render/{first}" in text
