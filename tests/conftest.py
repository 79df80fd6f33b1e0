"""Shared fixtures: make the package importable from a checkout, and load the docs text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)


@pytest.fixture(scope="session")
def docs_text() -> str:
    """Python's own documentation topics (ships with CPython, no network)."""
    import pydoc_data.topics

    return "\n".join(pydoc_data.topics.topics.values())
