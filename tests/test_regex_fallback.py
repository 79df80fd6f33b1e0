"""bpe-viz without the ``regex`` package (issue 22: Pyodide has no wheel for it): the ``re``
fallback of :mod:`bpe_viz.engine.text.regex_compat` cuts every pre-tokenizer pattern exactly as
``regex`` does, and the script table generated from ``regex`` equals it.

``regex`` is the reference here, so the module skips without it. Where the two disagree it is
because Python's :mod:`unicodedata` (Unicode 14.0 on Python 3.11) and ``regex`` (a newer Unicode)
class a code point differently: :data:`CHANGED` computes those code points, and a text may split
differently only if it holds one of them (the test names which).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

regex = pytest.importorskip("regex")

from bpe_viz.engine.text import corpora, regex_compat
from bpe_viz.engine.text.pretokenize import (CL100K_PATTERN, GPT2_PATTERN, GPT4_PATTERN,
                                             O200K_PATTERN)

ROOT = Path(__file__).resolve().parent.parent
FALLBACK = regex_compat.fallback()
EVERYTHING = "".join(map(chr, range(sys.maxunicode + 1)))
CATEGORIES = ("Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No Pc Pd Ps Pe Pi Pf Po Sm Sc Sk So Zs Zl Zp Cc Cf Cs Co Cn").split()

#: the patterns bpe-viz runs: the named pre-tokenizers, the Hugging Face Whitespace pre-tokenizer,
#: and Split patterns of real tokenizer.json files (Llama 3, Qwen 2, a DeepSeek-style digit split)
PATTERNS = {
    "gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "cl100k": CL100K_PATTERN, "o200k": O200K_PATTERN,
    "hf-whitespace": r"\w+|[^\w\s]+",
    "llama3": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
              r"|\s*[\r\n]+|\s+(?!\S)|\s+",
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
             r"|\s+(?!\S)|\s+",
    "digits-punct": r"\p{N}{1,3}|[\p{P}\p{S}]+|\P{L}\b",
}

HARD = {
    "file-separators": "a\x1cb\x1d c\x1e\n\x1f d \x1c\x1c  e\x1f",
    "nbsp": "one\u00a0two \u00a0three\u202f4\u2007",
    "emoji-zwj": "family 👩\u200d👩\u200d👧 ok 👍🏽! 🏳️\u200d🌈x",
    "combining": "cafe\u0301 n\u0303o e\u0301\u0301 \u0301start ǅungla ﬁne",
    "other-digits": "١٢٣٤ ۴۵ ०१२ ๑๒๓ ½ ²³ Ⅻ 𝟘𝟙𝟚 ⑦",
    "cjk": "漢字かなカナ한국어 ｶﾀｶﾅ 〇",
    "rtl": "שָׁלוֹם עולם مرحبا بالعالم 123",
    "astral": "𝐀𝐁𝐂 𐍈 𝔘𝔫𝔦 🤖 𓀀 𠀀𠀁 \U000e0041",
    "contractions": "I'LL 'ſ 'S 'K they've THEY'RE İ'd ǅ's",
    "whitespace-runs": "a \t\r\n\n  b\u2028c\u3000 \x85d   \n",
}


def texts() -> dict[str, str]:
    out = {"python-docs": corpora.python_docs_text()}
    out.update({f"language:{k}": v for k, v in corpora.LANGUAGES.items()})
    out.update(HARD)
    return out


def runs_of(pattern: str) -> set[int]:
    """The code points ``regex`` matches with ``pattern`` (one character)."""
    found: set[int] = set()
    for m in regex.finditer(f"(?:{pattern})+", EVERYTHING):
        found.update(range(m.start(), m.end()))
    return found


def points(runs) -> set[int]:
    return {c for a, b in runs for c in range(a, b + 1)}


@pytest.fixture(scope="module")
def changed() -> set[int]:
    """The code points whose general category differs between unicodedata and regex."""
    out: set[int] = set()
    for cat in CATEGORIES:
        out |= runs_of(rf"\p{{{cat}}}") ^ points(regex_compat.property_runs(cat))
    return out


def test_categories_equal_a_full_unicodedata_scan():
    # the fallback skips planes 4-13 and 15-16 (no characters there): check every code point
    by_cat: dict[str, set[int]] = {}
    for cp in range(sys.maxunicode + 1):
        by_cat.setdefault(unicodedata.category(chr(cp)), set()).add(cp)
    for cat in CATEGORIES:
        assert points(regex_compat.property_runs(cat)) == by_cat.get(cat, set()), cat


def test_changed_characters_are_named(changed):
    # what differs is what Unicode changed after Python's version: new characters (Cn in
    # unicodedata), and a few re-classed ones, e.g. U+0295 LATIN LETTER PHARYNGEAL VOICED
    # FRICATIVE (Ll in Unicode 14, Lo in regex's Unicode)
    if unicodedata.unidata_version == "14.0.0" and regex.__version__ == "2026.11.15":
        assert len(changed) == 28113
        assert 0x0295 in changed and unicodedata.category("\u0295") == "Ll" and regex.match(r"\p{Lo}", "\u0295")
    new = {c for c in changed if unicodedata.category(chr(c)) == "Cn"}
    assert len(new) > 0.99 * len(changed)


@pytest.mark.parametrize("cls", [r"\s", r"\S", r"\w", r"\W", r"\d", r"\D", r"\p{L}", r"\p{N}", r"\P{L}",
                                 r"[^\s\p{L}\p{N}]", r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", r"\p{P}", r"\p{S}"])
def test_classes_equal_regex(cls, changed):
    """Every code point: the fallback's class matches it exactly when regex's does (but for
    the changed code points). ``\\s`` exactly: regex's does not match U+001C-U+001F."""
    ours = {c for m in FALLBACK.finditer(f"(?:{cls})+", EVERYTHING) for c in range(*m.span())}
    theirs = runs_of(cls)
    assert not (ours ^ theirs) - changed
    if cls == r"\s":
        assert ours == theirs and not ours & {0x1C, 0x1D, 0x1E, 0x1F}
        assert re.match(r"\s", "\x1c")  # what the fallback works around


@pytest.mark.parametrize("name", PATTERNS)
def test_patterns_split_like_regex(name, changed):
    pattern = PATTERNS[name]
    compiled = FALLBACK.compile(pattern)
    for label, text in texts().items():
        ours = [(m.group(), m.span()) for m in compiled.finditer(text)]
        theirs = [(m.group(), m.span()) for m in regex.finditer(pattern, text)]
        if ours != theirs:
            odd = sorted({f"U+{ord(c):04X}" for c in text if ord(c) in changed})
            assert odd, f"{name} on {label}: the fallback splits differently with no changed character"
            pytest.fail(f"{name} on {label}: differs; characters classed differently by Unicode version: {odd}")


def test_a_changed_character_is_where_splits_differ():
    # ʕ (U+0295): Ll for Python 3.11, Lo for regex: o200k's upper-case run may start with it
    # for regex only (regex: "ʕA" upper, "b" lower; the fallback: "ʕ" lower, then "Ab")
    text = "ʕAb"
    if unicodedata.category("\u0295") != "Ll" or not regex.match(r"\p{Lo}", "\u0295"):
        pytest.skip("U+0295 is classed alike by this Python and this regex")
    assert regex.findall(O200K_PATTERN, text) == ["ʕAb"]
    assert FALLBACK.findall(O200K_PATTERN, text) == ["ʕ", "Ab"]


def test_what_the_fallback_cannot_run():
    for pattern in (r"\X", r"\p{Alphabetic}", r"[[:alpha:]]", r"\p{Han}", r"\G"):
        with pytest.raises(re.error):
            FALLBACK.compile(pattern)
    assert FALLBACK.findall(r"\p{Script=Greek}+", "abc αβγ") == ["αβγ"]
    assert FALLBACK.findall(r"\bis\b", "this is\u0301 is") == ["is"]
    assert regex.findall(r"\bis\b", "this is\u0301 is") == ["is"]


def test_script_table_equals_regex():
    """Every code point where both know a script: the shipped table says what regex says
    (exactly, when the installed regex is the one it was generated from)."""
    from bpe_viz.engine.text import script_data

    names = list(script_data.NAMES)
    pattern = regex.compile("|".join(f"(?P<{n}>\\p{{Script={n}}})" for n in names if n != "UNKNOWN"))
    theirs = bytearray([names.index("UNKNOWN")]) * (sys.maxunicode + 1)
    for m in pattern.finditer(EVERYTHING):
        theirs[m.start()] = names.index(m.lastgroup)
    ours = bytearray(len(theirs))
    entries = [e.split(":") for e in script_data.TABLE.split(",")]
    starts = [int(a, 16) for a, _ in entries] + [sys.maxunicode + 1]
    for (_, i), a, b in zip(entries, starts, starts[1:]):
        ours[a:b] = bytes([int(i)]) * (b - a)
    if regex.__version__ == script_data.REGEX_VERSION:
        assert ours == theirs
    unknown = names.index("UNKNOWN")
    differ = [cp for cp in range(len(ours)) if ours[cp] != theirs[cp] and unknown not in (ours[cp], theirs[cp])]
    assert not differ, [hex(c) for c in differ[:10]]
    assert [regex_compat.table_script(c) for c in "aαא一\u0301?"] == ["LATIN", "GREEK", "HEBREW", "HAN", "INHERITED",
                                                                     "COMMON"]


def _run(code: str, env_extra: dict | None = None) -> str:
    env = {**os.environ, **(env_extra or {})}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


GPT_JOB = """
import json, sys
{prelude}
import bpe_viz
from bpe_viz.engine.text import corpora, regex_compat
from bpe_viz.engine.text.pretokenize import PRE_TOKENIZERS
from bpe_viz.engine.text.scripts import script_of
texts = [corpora.python_docs_text(), *corpora.LANGUAGES.values(), *json.loads(sys.argv[1] if len(sys.argv) > 1 else {hard!r})]
out = {{"have_regex": regex_compat.HAVE_REGEX, "regex_imported": sys.modules.get("regex") is not None}}
out["words"] = {{n: [PRE_TOKENIZERS[n].split(t) for t in texts] for n in ("gpt2", "gpt4", "cl100k", "o200k")}}
trace = bpe_viz.train_bpe(corpora.python_docs_text()[:60000], 150, preset="minbpe")
out["merges"] = [repr(trace[i].merge) for i in range(1, 151)]
out["ids"] = [trace.encode(t).ids for t in texts[1:]]
out["scripts"] = [script_of(c) for c in "aαא一カー\u0301?ꦲ"]
print(json.dumps(out))
"""


def _gpt_job(prelude: str) -> dict:
    code = GPT_JOB.format(prelude=prelude, hard=json.dumps(list(HARD.values())))
    return json.loads(_run(code))


def test_bpe_viz_runs_without_regex():
    """``regex`` blocked from import: bpe_viz imports, pre-tokenizes, trains GPT-style and
    encodes exactly as with ``regex`` (same pieces, merges and ids)."""
    without = _gpt_job("sys.modules['regex'] = None")
    with_regex = _gpt_job("")
    assert (without["have_regex"], without["regex_imported"]) == (False, False)
    assert (with_regex["have_regex"], with_regex["regex_imported"]) == (True, True)
    for key in ("words", "merges", "ids", "scripts"):
        assert without[key] == with_regex[key], key
    assert with_regex["scripts"] == ["LATIN", "GREEK", "HEBREW", "HAN", "HAN", "HAN", "INHERITED", "COMMON",
                                     "JAVANESE"]


def test_environment_variable_forces_the_fallback():
    out = _run("import json; from bpe_viz.engine.text import regex_compat as r; "
               "print(json.dumps([r.HAVE_REGEX, type(r.regex).__name__]))", {regex_compat.FALLBACK_ENV: "1"})
    assert json.loads(out) == [False, "ReFallback"]


def test_import_does_not_load_pandas_or_matplotlib():
    out = _run("import sys; sys.modules['pandas'] = None; sys.modules['matplotlib'] = None\n"
               "import bpe_viz, bpe_viz.engine, bpe_viz.interop, bpe_viz.view\n"
               "print(sorted(m for m in sys.modules if m.startswith(('pandas.', 'matplotlib.'))))")
    assert out.strip() == "[]"
