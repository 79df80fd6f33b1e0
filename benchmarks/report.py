"""How the benchmark writes what it measured: Markdown tables (printed as they are on the
console), number formats, ratios, PASS / FAIL, the "first difference" cells, the prose
templates of ``text/*.md`` and the machine's description.

A section's result is ``(checks, console, md)``: the rows it adds to the Targets table, the
(title, table) pairs printed on the console, and its Markdown section. ``timing`` measures;
this file only formats.
"""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

from settings import ROOT

TEXT = Path(__file__).resolve().parent / "text"


def md_table(header: list[str], rows: list[list]) -> str:
    """A Markdown table; the console shows the same text."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def print_console(tables: list[tuple[str, str]]) -> None:
    """Every (title, table) as a Markdown heading and table, on stdout."""
    for title, table in tables:
        print(f"## {title}\n{table}\n")


def fill(name: str, **values) -> str:
    """The prose template ``text/<name>.md`` with ``values`` filled in (``str.format``)."""
    return (TEXT / f"{name}.md").read_text(encoding="utf-8").format(**values)


def fmt_s(x) -> str:
    """Seconds, three decimals ("n/a" for None)."""
    return "n/a" if x is None else f"{x:.3f}"


def fmt_mib(x) -> str:
    """MiB, one decimal ("n/a" for None)."""
    return "n/a" if x is None else f"{x:.1f}"


def runs(xs) -> str:
    """Every run's seconds, comma-separated."""
    return ", ".join(fmt_s(x) for x in xs)


def ratio(a, b) -> str:
    """``a / b`` with two decimals, "n/a" if either is missing."""
    return "n/a" if a is None or b is None else f"{a / b:.2f}"


def verdict(ok) -> str:
    """PASS, FAIL, or n/a when the figure is missing."""
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def yes(ok) -> str:
    return "yes" if ok else "no"


def same(diff) -> str:
    """A "same as theirs" cell: yes, or no with where they first differ."""
    return "yes" if diff is None else f"no ({diff})"


def check(target: str, wanted: str, measured: str, ok) -> list:
    """One row of the Targets table."""
    return [target, wanted, measured, verdict(ok)]


def check_same(target: str, diff) -> list:
    """A Targets row for "the same as theirs": wanted yes, measured yes or no."""
    return check(target, "yes", yes(diff is None), diff is None)


def loads(spans) -> str:
    """``name a → b`` for every (name, (load before, load after)), comma-separated."""
    return ", ".join(f"{name} {a:.2f} → {b:.2f}" for name, (a, b) in spans)


def first_difference(ours: list, theirs: list, at, short) -> str | None:
    """None if the two lists are equal, else ``at(i, a, b)`` at the first position where they
    differ (a Markdown table cell: "|" escaped), or ``short(len(ours), len(theirs))`` when one
    is a prefix of the other."""
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return at(i, a, b).replace("|", "\\|")
    if len(ours) != len(theirs):
        return short(len(ours), len(theirs))
    return None


def merge_difference(ours: list, theirs: list) -> str | None:
    """Where two merge lists first differ (None if equal)."""
    return first_difference(ours, theirs, lambda i, a, b: f"merge {i + 1}: ours {a!r}, theirs {b!r}",
                            lambda m, n: f"ours made {m:,} merges, theirs {n:,}")


def id_difference(trace, ours: list[int], theirs: list[int]) -> str | None:
    """Where two id lists first differ, with the trace's tokens (None if equal)."""
    toks = trace.id_to_token

    def at(i, a, b):
        return f"token {i:,}: ours {a} {toks[a]!r}, theirs {b} {toks[b] if 0 <= b < len(toks) else '?'!r}"

    return first_difference(ours, theirs, at, lambda m, n: f"ours {m:,} tokens, theirs {n:,}")


def piece_difference(ours: list[str], theirs: list[str]) -> str | None:
    """Where our pieces and sentencepiece's first differ, id for id (None if equal)."""
    return first_difference(ours, theirs, lambda i, a, b: f"id {i:,}: ours {a!r}, sentencepiece {b!r}",
                            lambda m, n: f"ours {m:,} pieces, sentencepiece {n:,}")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def version_of(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def git_rev(root: Path = ROOT) -> str:
    """The checkout's short commit, and whether its ``bpe_viz/`` has uncommitted changes."""
    try:
        rev = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "bpe_viz"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + (" (bpe_viz/ has uncommitted changes)" if dirty else "")
    except Exception:
        return "unknown"
