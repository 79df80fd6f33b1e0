"""The benchmark's sections, one module each (``--only`` names them), and what they are given.

Each section module has ``run(ctx) -> (checks, console, md)``: it times its competitors, then
returns its rows of the Targets table, the tables printed on the console and its Markdown
section (prose in ``text/<section>.md``). ``main`` is the documentation-text suite (training,
memory, snapshots, encoding in ``bpe_training``, the slider in ``slider``, the notebooks in
``notebooks``); ``gpt``, ``spm``, ``unigram`` (with ``unigram_report`` and ``ste``), ``unigram_scaling``, ``long``,
``big`` and ``rss`` follow; ``browser`` reads the browser test's figures.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Callable

from settings import Sizes


@dataclasses.dataclass
class Context:
    """What every section gets: the documentation text, the sizes, runs per timing for each
    section, the command line, a logger (stderr), and for ``big`` and ``rss`` the bigger corpus,
    its statistics and the shared whole-process RSS measurer."""

    text: str
    sizes: Sizes
    repeats: dict[str, int]
    args: argparse.Namespace
    log: Callable[..., None]
    big: str | None = None
    big_stats: dict | None = None
    whole_rss: Callable | None = None

    def repeat(self, section: str) -> int:
        return self.repeats[section]
