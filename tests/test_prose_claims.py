"""The few claims of the lessons' prose that text can check (issue 21's list of slips): each
was once wrong in a notebook or the README, and each test reads the prose for the wrong claim
(or for the correction that must stay)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import notebook_files, notebook_id

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = notebook_files()  # the core lessons and the deep dives


def prose(path: Path) -> str:
    """The Markdown cells of a notebook, joined, with line breaks as spaces."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown").replace("\n", " ")


#: notebook id ("04_the_bpe_inside_gpt", "deep-dives/04_unigram_errata_and_four_trainers") or README.md -> prose
DOCUMENTS = {notebook_id(p): prose(p) for p in NOTEBOOKS} | {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}


def document(name: str) -> str:
    """The prose of the notebook that holds a claim (its id in the course's layout)."""
    assert name in DOCUMENTS, f"the notebook {name}.ipynb that holds this claim is missing"
    return DOCUMENTS[name]


def paragraphs(path: Path) -> list[str]:
    """The paragraphs and list items of a notebook's Markdown cells (or of a Markdown file)."""
    if path.suffix == ".md":
        texts = [path.read_text(encoding="utf-8")]
    else:
        texts = ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                 if c["cell_type"] == "markdown"]
    return [p for t in texts for p in re.split(r"\n\s*\n|\n(?=\s*[*-] )", t)]


@pytest.mark.parametrize("path", [*NOTEBOOKS, ROOT / "README.md"], ids=[*map(notebook_id, NOTEBOOKS), "README.md"])
def test_t5_is_named_with_unigram(path):
    # T5's SentencePiece model is a Unigram model, not BPE: a paragraph naming T5 says Unigram
    for para in paragraphs(path):
        if re.search(r"\bT5\b", para):
            assert "Unigram" in para, f"{path.name}: {para!r}"


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_no_slip_of_the_known_list_comes_back(name):
    text = re.sub(r"\s+", " ", DOCUMENTS[name])
    slips = {
        "just as widespread": "SubwordTextEncoder lives in TFDS's deprecated module",
        "never released its code for training WordPiece": "TensorFlow Text documents a vocabulary builder",
        "plus the 450 most frequent": "450 is the course's total of pieces, characters included",
        "Hugging Face: nothing marks": "true only of BpeTrainer with WhitespaceSplit",
        "Hugging Face**: nothing marks": "true only of BpeTrainer with WhitespaceSplit",
    }
    for slip, why in slips.items():
        assert slip not in text, f"{name} says {slip!r} ({why})"


def test_the_special_token_default_is_set_against_tiktoken():
    # bpe_viz reads special-token text as the special token by default; tiktoken refuses it
    text = document("04_the_bpe_inside_gpt")  # its section on special tokens
    assert 'allowed_special="all"' in text and "refuses" in text


def test_the_byte_fallback_example_explains_every_byte_token():
    # the SubwordTextEncoder cell spells f, the space and e t y in bytes too, and the prose says so
    text = document("deep-dives/04_unigram_errata_and_four_trainers")  # its SubwordTextEncoder section
    for byte in ("<0x66>", "<0x20>", "<0x65> <0x74> <0x79>", "<0xC3> <0xA9>"):
        assert byte in text, byte
