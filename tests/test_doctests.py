"""Run the examples in every bpe_viz module's docstrings (doctest), one test per module."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import bpe_viz

MODULES = sorted(
    ["bpe_viz"] + [m.name for m in pkgutil.walk_packages(bpe_viz.__path__, prefix="bpe_viz.")]
)


def test_modules_found():
    """The package's modules are all discovered, in every layer (so the parametrized test is not empty)."""
    for name in ("bpe_viz.engine.bpe.model", "bpe_viz.engine.merges.trace", "bpe_viz.engine.text.markers",
                 "bpe_viz.engine.merges.ranking", "bpe_viz.view.merges.tables", "bpe_viz.widgets.merge",
                 "bpe_viz.interop.subword_nmt"):
        assert name in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # a module that needs an optional heavy dependency
        pytest.skip(f"{name} needs an optional dependency: {exc}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed in {name} (run: python -m doctest -v {module.__file__})"
