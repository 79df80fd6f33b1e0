"""The README's "API at a glance" is a doctest: the examples people copy must stay true."""

import doctest
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run():
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 5, "the README lost its examples"
    assert result.failed == 0
