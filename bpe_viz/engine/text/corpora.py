"""Bundled corpora: the textbook examples and an offline real text. Nothing is downloaded.

* ``sennrich2016``: the toy dictionary of Sennrich, Haddow & Birch (2016): low×5, lower×2,
  newest×6, widest×3.
* ``slp3``: the corpus of Jurafsky & Martin, *Speech and Language Processing* (3rd ed.
  draft), section 2.5.2.
* ``hf-course``: the word counts of the Hugging Face NLP course's tokenizer chapter.
* ``compression1994``: ``aaabdaaabac``, the classic example of Gage's 1994 byte pair
  compression.
* ``korean``: a few Korean words, to compare syllables (NFC), jamo (NFD) and bytes.
* ``python-docs``: Python's own documentation topics (``pydoc_data.topics``), present on every
  Python install: about 465,000 characters, 65,000 words, 8,800 distinct words (Python 3.11).
  Where the standard library leaves ``pydoc_data`` out (Pyodide, so JupyterLite), the same topics
  are read from :data:`PYTHON_DOCS_FILE`, which :func:`write_python_docs` writes at build time
  on a Python that has them (about 140 KB gzipped; generated, never committed).

For choosing a vocabulary size on text the tokenizer never saw: :func:`python_docs_parts` (the
documentation, with every eighth topic held out) and :func:`python_source_text` (another domain:
the source code of a few standard-library modules, also on every Python install).

Also here, from :mod:`.languages`: :data:`LANGUAGES`, one paragraph in many languages (the same
text, to encode and compare, not to train on), and :func:`language_lines`.

Example::

    >>> load("sennrich2016")["newest"]
    6
    >>> len(python_docs_text()) > 100_000
    True
"""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path

from .languages import LANGUAGES, language_lines

__all__ = ["EXAMPLES", "SAMPLES", "CORPUS_NAMES", "load", "python_docs_text", "python_docs_parts",
           "python_docs_topics", "write_python_docs", "PYTHON_DOCS_FILE", "python_source_text", "PYTHON_SOURCE_MODULES", "describe", "LANGUAGES", "language_lines"]

EXAMPLES: dict[str, object] = {
    "sennrich2016": {"low": 5, "lower": 2, "newest": 6, "widest": 3},
    "slp3": (
        "low low low low low lowest lowest newer newer newer newer newer newer "
        "wider wider wider new new"
    ),
    "hf-course": {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
    "compression1994": "aaabdaaabac",
    "korean": "한국어 토큰 한국어 문장 토큰화 한글 한국 문장 한글 토큰",
}

#: A sentence to color at each step, per corpus (unseen words on purpose).
SAMPLES: dict[str, str] = {
    "sennrich2016": "the lowest newer widest loki",
    "slp3": "the newest lower wider",
    "hf-course": "hugs bug puns",
    "compression1994": "aaabdaaabac abac",
    "korean": "한국어 문장 토큰화",
    "python-docs": "The tokenizer splits unfamiliar words into subword units.",
}

DESCRIPTIONS: dict[str, str] = {
    "sennrich2016": "Sennrich et al. (2016) toy dictionary: low×5, lower×2, newest×6, widest×3",
    "slp3": "Jurafsky & Martin, SLP3 §2.5.2 corpus (18 words)",
    "hf-course": "Hugging Face NLP course word counts: hug, pug, pun, bun, hugs",
    "compression1994": "Gage (1994) compression example: aaabdaaabac",
    "korean": "a few Korean words (syllables, jamo, bytes)",
    "python-docs": "Python's documentation text (pydoc_data.topics), offline",
}

CORPUS_NAMES: tuple[str, ...] = (*EXAMPLES, "python-docs")


#: where :func:`python_docs_topics` looks when ``pydoc_data`` is missing (next to this module)
PYTHON_DOCS_FILE = Path(__file__).with_name("python_docs.json.gz")


@lru_cache(maxsize=2)
def python_docs_topics(path=None) -> dict[str, str]:
    """Python's documentation topics, ``{name: text}`` in ``pydoc_data``'s order: from the
    standard library's ``pydoc_data.topics``, or where it is missing (Pyodide) from ``path``
    (default :data:`PYTHON_DOCS_FILE`), a file :func:`write_python_docs` wrote.

    Example::

        >>> "assert" in python_docs_topics()
        True
    """
    if path is None:
        try:
            import pydoc_data.topics
        except ImportError:
            path = PYTHON_DOCS_FILE
        else:
            return dict(pydoc_data.topics.topics)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"the python-docs corpus needs the standard library's pydoc_data (missing on this Python, as in "
            f"Pyodide) or the file {path}: write it with bpe_viz.corpora.write_python_docs(path) on a Python "
            f"that has pydoc_data (the JupyterLite build does)")
    raw = path.read_bytes()
    try:
        topics = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    except (OSError, EOFError, ValueError) as exc:
        raise ValueError(f"{path}: not a python-docs file written by write_python_docs (JSON, maybe gzipped): "
                         f"{exc}") from None
    if not isinstance(topics, dict) or not topics or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in topics.items()):
        raise ValueError(f"{path}: expected a non-empty JSON object of topic name -> text (str -> str)")
    return topics


def write_python_docs(path=PYTHON_DOCS_FILE) -> Path:
    """Write this Python's ``pydoc_data`` topics to ``path`` (gzipped JSON if it ends in ``.gz``,
    byte-identical on every run), for a Python without them; the path written.

    Example::

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     python_docs_topics(write_python_docs(Path(d) / "docs.json.gz")) == python_docs_topics()
        True
    """
    import pydoc_data.topics

    path = Path(path)
    data = json.dumps(pydoc_data.topics.topics, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    path.write_bytes(gzip.compress(data, 9, mtime=0) if path.suffix == ".gz" else data)
    return path


@lru_cache(maxsize=1)
def python_docs_text() -> str:
    """Python's documentation topics as one text: the built-in real corpus, always offline."""
    return "\n".join(python_docs_topics().values())


def python_docs_parts(every: int = 8) -> tuple[str, str]:
    """``(training text, held-out text)`` of Python's documentation topics: every ``every``-th
    topic, in the order of the topics' names, is held out (different topics, so different words:
    text a tokenizer trained on the rest has never seen).

    Example::

        >>> train, held_out = python_docs_parts()
        >>> len(held_out) < len(train) and held_out not in train
        True
    """
    if isinstance(every, bool) or not isinstance(every, int) or every < 2:
        raise ValueError(f"every must be an int >= 2 (hold out one topic in every), got {every!r}")
    topics = python_docs_topics()
    names = sorted(topics)
    held = set(names[every - 1::every])
    return ("\n".join(topics[n] for n in names if n not in held), "\n".join(topics[n] for n in names if n in held))


#: standard-library modules whose source :func:`python_source_text` reads (pure Python, stable)
PYTHON_SOURCE_MODULES: tuple[str, ...] = ("textwrap", "string", "shlex", "fractions", "difflib", "heapq",
                                          "calendar", "json.decoder", "json.encoder", "csv")


def python_source_text(modules=PYTHON_SOURCE_MODULES) -> str:
    """The source code of some standard-library modules, joined: a domain other than prose
    (indentation, ``self.``, ``_names``, operators) that ships with Python, read from disk.

    Example::

        >>> "def " in python_source_text(["textwrap"])
        True
    """
    import importlib.util
    from pathlib import Path

    if isinstance(modules, str) or not all(isinstance(m, str) for m in modules):
        raise TypeError(f"modules must be a list of module names (str), got {modules!r}")
    parts = []
    for name in modules:
        spec = importlib.util.find_spec(name)
        origin = getattr(spec, "origin", None)
        if not origin or not origin.endswith(".py"):
            raise ValueError(f"modules: {name!r} has no Python source file on this install (found {origin!r})")
        parts.append(Path(origin).read_text(encoding="utf-8"))
    return "\n".join(parts)


def load(name: str):
    """A bundled corpus by name (see :data:`CORPUS_NAMES`)."""
    if name == "python-docs":
        return python_docs_text()
    if not isinstance(name, str) or name not in EXAMPLES:
        raise ValueError(f"name must be one of {list(CORPUS_NAMES)}, got {name!r}")
    corpus = EXAMPLES[name]
    return dict(corpus) if isinstance(corpus, dict) else corpus


def describe(name: str) -> str:
    """One line saying what a bundled corpus is."""
    if name not in DESCRIPTIONS:
        raise ValueError(f"name must be one of {list(CORPUS_NAMES)}, got {name!r}")
    return DESCRIPTIONS[name]
