"""The python-docs corpus without the standard library's ``pydoc_data`` (Pyodide leaves it out,
issue 22): :func:`corpora.write_python_docs` writes the topics at build time and
:func:`corpora.python_docs_topics` reads them back when ``pydoc_data`` cannot be imported, the
same text to the character; with neither, the error names both.
"""

from __future__ import annotations

import gzip
import json
import sys

import pytest

from bpe_viz import corpora


@pytest.fixture
def no_pydoc_data(monkeypatch):
    """``import pydoc_data.topics`` fails, as on Pyodide; the corpus caches emptied around it."""
    monkeypatch.setitem(sys.modules, "pydoc_data", None)
    monkeypatch.setitem(sys.modules, "pydoc_data.topics", None)
    corpora.python_docs_topics.cache_clear()
    corpora.python_docs_text.cache_clear()
    yield
    corpora.python_docs_topics.cache_clear()
    corpora.python_docs_text.cache_clear()


@pytest.fixture(scope="module")
def real():
    import pydoc_data.topics

    return dict(pydoc_data.topics.topics), corpora.python_docs_text(), corpora.python_docs_parts()


def test_with_pydoc_data_the_text_is_pydoc_datas(real):
    topics, text, _ = real
    assert corpora.python_docs_topics() == topics
    assert text == "\n".join(topics.values())


def test_written_file_gives_the_same_corpus_without_pydoc_data(tmp_path, monkeypatch, real, no_pydoc_data):
    topics, text, parts = real
    with pytest.MonkeyPatch.context() as m:  # write while pydoc_data can still be imported
        m.delitem(sys.modules, "pydoc_data")
        m.delitem(sys.modules, "pydoc_data.topics")
        path = corpora.write_python_docs(tmp_path / "python_docs.json.gz")
    with pytest.raises(ImportError):
        import pydoc_data.topics  # noqa: F401
    monkeypatch.setattr(corpora, "PYTHON_DOCS_FILE", path)
    assert list(corpora.python_docs_topics()) == list(topics)
    assert corpora.python_docs_text() == text
    assert corpora.load("python-docs") == text
    assert corpora.python_docs_parts() == parts
    assert 50_000 < path.stat().st_size < 400_000  # gzipped (~140 KB on 3.11): why it is generated, not committed
    plain = tmp_path / "plain.json"
    plain.write_bytes(gzip.decompress(path.read_bytes()))
    assert corpora.python_docs_topics(plain) == topics


def test_writing_is_byte_identical(tmp_path):
    a = corpora.write_python_docs(tmp_path / "a.json.gz").read_bytes()
    b = corpora.write_python_docs(tmp_path / "b.json.gz").read_bytes()
    assert a == b


def test_missing_both_names_what_is_missing(tmp_path, monkeypatch, no_pydoc_data):
    missing = tmp_path / "nowhere.json.gz"
    monkeypatch.setattr(corpora, "PYTHON_DOCS_FILE", missing)
    with pytest.raises(FileNotFoundError, match="pydoc_data") as info:
        corpora.load("python-docs")
    assert str(missing) in str(info.value) and "write_python_docs" in str(info.value)


@pytest.mark.parametrize("content", [b"not json", b'["a list"]', b"{}", b'{"a": 1}', b"\x1f\x8b broken gzip"])
def test_bad_file_is_a_value_error_naming_it(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="bad.json"):
        corpora.python_docs_topics(path)


def test_file_is_json_of_topic_texts(tmp_path, real):
    path = corpora.write_python_docs(tmp_path / "docs.json")
    assert json.loads(path.read_text(encoding="utf-8")) == real[0]
