"""The benchmark's machinery (``benchmarks/``), not its figures: the command line, the report's
templates, the before/after table's verdicts, and two tiny end-to-end runs (``--tiny --only
long``, and ``--baseline`` against this very checkout), a few seconds each.
"""

from __future__ import annotations

import string
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import baseline  # noqa: E402
import bench  # noqa: E402
import report  # noqa: E402


def test_default_command_line():
    assert bench.command_line(bench.parse_args([])) == (
        "python benchmarks/bench.py --merges 1000 5000 10000 --repeat 3 --notebooks notebooks --out docs/benchmarks.md")


def test_quick_and_tiny():
    quick = bench.parse_args(["--quick"])
    assert (quick.merges, quick.repeat, quick.out) == ([1000, 10000], 1, "docs/benchmarks.md")
    tiny = bench.parse_args(["--tiny", "--only", "rss,long", "--long-repeat", "2"])
    assert tiny.only == ["long", "rss"] and tiny.repeats["long"] == 2 and tiny.repeats["rss"] == 1
    assert not tiny.out.startswith("docs/") and not tiny.baseline_out.startswith("docs/")
    assert tiny.sizes.text_chars and tiny.sizes.big_bytes < bench.Sizes.full().big_bytes
    with pytest.raises(SystemExit):
        bench.parse_args(["--only", "nope"])


def test_every_template_names_only_simple_fields():
    for path in sorted(report.TEXT.glob("*.md")):
        for _text, field, _spec, _conv in string.Formatter().parse(path.read_text(encoding="utf-8")):
            if field is not None:
                assert field.split("[")[0].isidentifier(), (path.name, field)


def test_first_difference_cells():
    assert report.merge_difference(["a b", "c d"], ["a b", "c d"]) is None
    assert report.merge_difference(["a b", "x|y"], ["a b", "c d"]) == "merge 2: ours 'x\\|y', theirs 'c d'"
    assert report.merge_difference(["a b"], ["a b", "c d"]) == "ours made 1 merges, theirs 2"
    assert report.piece_difference(["a"], ["b"]) == "id 0: ours 'a', sentencepiece 'b'"


def test_baseline_verdicts():
    def row(before, after):
        return baseline.table_row({"section": "long", "label": "x, s", "error": {},
                                   "values": {"before": before, "after": after}})

    assert row([1.0, 1.0], [1.2, 1.1])[-3:] == ["1.15", "1.10–1.20", "slower"]
    assert row([1.0, 1.0], [0.8, 0.9])[-1] == "faster"
    assert row([1.0, 1.0], [1.2, 0.9])[-1] == "same"
    assert row([1.0], [2.0])[-1] == "one run: not judged"


def test_baseline_cases_call_only_ours():
    import ours

    args = bench.parse_args(["--tiny"])
    for sec, make in baseline.CASES.items():
        for label, case in make(args):
            fn = case["fn"] if case["kind"] == "call" else case["trace"][0]
            assert callable(getattr(ours, fn)), (sec, label)
            assert label.rsplit(", ", 1)[1] in ("s", "ms"), label


def run_bench(*argv) -> str:
    proc = subprocess.run([sys.executable, str(BENCH / "bench.py"), *argv], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_tiny_long_section(tmp_path):
    out = tmp_path / "bench.md"
    run_bench("--tiny", "--only", "long", "--out", str(out))
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n") and "## Long single word" in text
    assert "| long word: same 20 merges as the recount loop, every length | yes | yes, yes, yes | PASS |" in text


def test_baseline_against_this_checkout(tmp_path):
    out = tmp_path / "baseline.md"
    run_bench("--baseline", str(ROOT), "--tiny", "--only", "long", "--repeat", "2", "--baseline-out", str(out))
    rows = [line for line in out.read_text(encoding="utf-8").splitlines() if line.startswith("| long:")]
    assert len(rows) == 3 and all(line.endswith(" |") for line in rows)
