"""The main section's notebook run time: every ``--notebooks`` notebook executed headless with
nbclient in a fresh kernel, and the kernel's start-up alone (an empty notebook).

Its siblings: ``bpe_training`` and ``slider``.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

from report import check, md_table, verdict
from settings import NOTEBOOK_TIMEOUT, ROOT, TARGETS
from timing import children_cpu


def execute_with_nbconvert(path: Path, kernel_env: dict) -> tuple[float, str | None]:
    """``jupyter nbconvert --execute`` (when nbclient cannot be imported): (wall seconds, error)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["jupyter", "nbconvert", "--to", "notebook", "--execute", "--output-dir", tmp,
               f"--ExecutePreprocessor.timeout={NOTEBOOK_TIMEOUT}", str(path)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=kernel_env)
        secs = time.perf_counter() - t0
    return secs, None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["failed"])[-1]


def execute_notebook(path: Path, kernel_env: dict) -> tuple[float, float, str | None]:
    """Execute one notebook headless in a fresh kernel (working directory: its folder); returns
    (wall seconds including kernel start-up and shutdown, the kernel's CPU seconds, error or
    None). nbclient in-process, else ``jupyter nbconvert --execute`` (whose times then also
    include nbconvert's own start-up)."""
    cpu0 = children_cpu()  # the kernel is a child process, reaped when it shuts down
    try:
        import nbformat
        from nbclient import NotebookClient
    except ImportError:
        secs, err = execute_with_nbconvert(path, kernel_env)
        return secs, children_cpu() - cpu0, err
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=NOTEBOOK_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    saved = os.environ.copy()
    os.environ.clear()
    os.environ.update(kernel_env)  # the kernel inherits this process's environment
    try:
        t0 = time.perf_counter()
        try:
            client.execute()
            err = None
        except Exception as exc:  # a failing cell: report it, go on
            plain = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # the traceback's colors
            lines = [ln for ln in plain.strip().splitlines() if ln.strip()]
            err = f"{type(exc).__name__}: {lines[-1] if lines else ''}"[:200]
        secs = time.perf_counter() - t0
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return secs, children_cpu() - cpu0, err


def bench_notebooks(ctx) -> dict:
    """Every notebook of ``--notebooks`` (the first ``Sizes.notebooks``), after the empty one."""
    folder = Path(ctx.args.notebooks)
    if not folder.is_absolute():
        folder = ROOT / folder
    paths = sorted(folder.glob("*.ipynb"))[:ctx.sizes.notebooks]
    if not paths:
        return {"rows": [], "skipped": "no notebooks"}
    try:
        import nbformat
    except ImportError:
        return {"rows": [], "skipped": "nbformat (Jupyter) not installed"}
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("MPLBACKEND", None)  # the notebooks get Jupyter's own inline backend
    # start-up alone: an empty notebook in a fresh kernel (what every notebook below pays too)
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.ipynb"
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("pass")]
        nbformat.write(nb, empty)
        ctx.log("notebooks: kernel start-up (empty notebook)")
        baseline, baseline_cpu, baseline_err = execute_notebook(empty, env)
    rows = []
    for path in paths:
        ctx.log(f"notebooks: executing {path.name}")
        secs, cpu, err = execute_notebook(path, env)
        n_code = sum(c.get("cell_type") == "code" for c in nbformat.read(path, as_version=4).cells)
        rows.append((path, n_code, secs, cpu, err))
    return {"rows": rows, "baseline": (baseline, baseline_cpu), "baseline_err": baseline_err}


def report_notebooks(notebooks: dict, folder: str) -> tuple[list, str]:
    """(Targets rows, Notebook run time table or the reason there is none)."""
    if not notebooks["rows"]:
        t_nb = (f"No notebooks in `{folder}/`: nothing executed." if notebooks["skipped"] == "no notebooks"
                else f"Skipped: {notebooks['skipped']}.")
        return [check("notebooks executed headless", f"≤ {TARGETS['notebook_s']:.0f} s each",
                      notebooks["skipped"], None)], t_nb
    rows, checks = [], []
    for path, n_code, secs, cpu, err in notebooks["rows"]:
        ok = err is None and secs <= TARGETS["notebook_s"]
        rows.append([f"`{path.name}`", n_code, f"{secs:.1f}", f"{cpu:.1f}",
                     "ok" if err is None else f"error: {err}", verdict(ok)])
        checks.append(check(f"notebook `{path.name}` executed headless", f"≤ {TARGETS['notebook_s']:.0f} s, no error",
                            f"{secs:.1f} s" + ("" if err is None else ", error"), ok))
    base, base_cpu = notebooks["baseline"]
    rows.append(["(kernel start-up alone: an empty notebook)", 1, f"{base:.1f}", f"{base_cpu:.1f}",
                 "ok" if notebooks["baseline_err"] is None else f"error: {notebooks['baseline_err']}", ""])
    return checks, md_table(["notebook", "code cells", "seconds", "kernel CPU s", "result",
                             f"≤ {TARGETS['notebook_s']:.0f} s"], rows)
