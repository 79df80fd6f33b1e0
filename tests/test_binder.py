"""The Binder setup (binder/), checked without Docker.

repo2docker, the tool behind mybinder.org, reads binder/runtime.txt for the Python version,
installs binder/requirements.txt with pip from the repository root, then runs binder/postBuild.
The slow test does the same in a fresh virtual environment and then executes every notebook in
it, so a missing or mismatched dependency fails here rather than in a classroom.
(jupyter-testing.md, "Binder (repo2docker)".)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from helpers import notebook_files

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
NOTEBOOKS = notebook_files()  # the core lessons and the deep dives (their names are unique: one output dir)


def requirement_lines(path: Path) -> list[str]:
    """The requirement lines of a pip requirements file (comments and blank lines dropped)."""
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return lines


def pins(path: Path) -> dict[str, str]:
    """name -> version for every ``name==version`` line."""
    out = {}
    for line in requirement_lines(path):
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if m:
            out[m.group(1).lower().replace("_", "-")] = m.group(2)
    return out


def test_runtime_matches_this_python():
    text = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    assert text == f"python-{sys.version_info.major}.{sys.version_info.minor}", (
        f"binder/runtime.txt says {text!r}; this project is developed on "
        f"Python {sys.version_info.major}.{sys.version_info.minor}"
    )


def test_requirements_end_with_the_package_and_match_the_pins():
    lines = requirement_lines(BINDER / "requirements.txt")
    assert lines[-1] == "-e .", "binder/requirements.txt must end with '-e .' (repo2docker does not install the package)"
    binder, main = pins(BINDER / "requirements.txt"), pins(ROOT / "requirements.txt")
    assert len(binder) == len(lines) - 1, "every other line of binder/requirements.txt must be pinned with =="
    for name, version in binder.items():
        assert main.get(name) == version, f"{name}: binder pins {version}, requirements.txt pins {main.get(name)}"
    for needed in ("ipywidgets", "jupyterlab", "ipykernel", "subword-nmt", "tokenizers"):
        assert needed in binder, f"the notebooks need {needed}"


def test_postbuild_installs_the_nodeps_pins_it_names():
    """What postBuild installs with --no-deps is pinned as in requirements-nodeps.txt."""
    nodeps = pins(ROOT / "requirements-nodeps.txt")
    text = (BINDER / "postBuild").read_text(encoding="utf-8")
    installs = re.findall(r"pip install --no-deps .*?([A-Za-z0-9_.\-]+)==(\S+)", text)
    assert installs, "postBuild installs GPT-2's rank file (openai-whisper) with --no-deps"
    for name, version in installs:
        assert nodeps.get(name.lower()) == version, (
            f"postBuild installs {name}=={version}; requirements-nodeps.txt pins {nodeps.get(name.lower())}")


def test_postbuild_is_an_executable_strict_bash_script():
    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable (chmod +x)"
    text = post.read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env bash\n")
    assert re.search(r"^set -e", text, re.M), "postBuild must stop at the first failing command (set -e)"
    assert "overrides.json" in text


def run(cmd, **kwargs):
    """Run a command; on failure show its output in the assertion message."""
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, (
        f"{' '.join(map(str, cmd))} exited with {proc.returncode}\n"
        f"--- stdout ---\n{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
    )
    return proc


@pytest.mark.slow
def test_binder_build_then_every_notebook_runs(tmp_path):
    """Fresh venv -> pip install -r binder/requirements.txt -> postBuild -> execute the notebooks."""
    assert NOTEBOOKS, "no notebooks in notebooks/"
    env_dir = tmp_path / "binder-env"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    bindir = env_dir / "bin"
    python = bindir / "python"

    # keep Jupyter and matplotlib away from the user's own settings, kernels and caches
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JUPYTER", "VIRTUAL_ENV", "MPL"))}
    env.update(
        PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(env_dir),
        JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
        JUPYTER_DATA_DIR=str(tmp_path / "jupyter-data"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "jupyter-runtime"),
        IPYTHONDIR=str(tmp_path / "ipython"),
        MPLCONFIGDIR=str(tmp_path / "matplotlib"),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )

    # 1. what repo2docker does: pip from the repository root, so "-e ." is this repository
    # (--no-compile only saves time: the notebooks compile what they import)
    run([python, "-m", "pip", "install", "-q", "--no-compile", "-r", "binder/requirements.txt"], cwd=ROOT, env=env)
    # 2. postBuild, with the venv's python first on PATH (as NB_PYTHON_PREFIX's is on Binder)
    run(["bash", BINDER / "postBuild"], cwd=ROOT, env=env)
    overrides = json.loads((env_dir / "share/jupyter/lab/settings/overrides.json").read_text(encoding="utf-8"))
    assert overrides["@jupyterlab/apputils-extension:notification"] == {"fetchNews": "false", "checkForUpdates": False}

    # the kernel the notebooks get must be this environment's Python, with bpe_viz from this repo
    probe = run(
        [python, "-c", "import sys, bpe_viz, ipywidgets, tokenizers, subword_nmt; "
                       "print(sys.prefix); print(bpe_viz.__file__)"],
        cwd=tmp_path, env=env,
    ).stdout.split("\n")
    assert Path(probe[0]) == env_dir
    assert Path(probe[1]).resolve().is_relative_to(ROOT)

    # 3. every notebook, executed by the environment's own Jupyter (copies go to tmp_path),
    # plus a one-cell probe saying which Python the kernel runs
    probe_nb = tmp_path / "kernel_probe.ipynb"
    probe_nb.write_text(json.dumps({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "code", "id": "probe", "metadata": {}, "execution_count": None,
                   "outputs": [], "source": "import sys\nprint(sys.prefix)"}],
    }), encoding="utf-8")
    out = tmp_path / "executed"
    nbconvert = [bindir / "jupyter", "nbconvert", "--to", "notebook", "--execute",
                 "--ExecutePreprocessor.timeout=300", "--ExecutePreprocessor.kernel_name=python3",
                 "--output-dir", out]
    # two nbconvert processes side by side (a 2-core machine runs the notebooks in half the time)
    groups = [[probe_nb, *NOTEBOOKS[0::2]], NOTEBOOKS[1::2]]
    procs = [subprocess.Popen([*nbconvert, *group], cwd=ROOT / "notebooks", env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for group in groups if group]
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"nbconvert --execute failed:\n{stdout[-3000:]}\n{stderr[-6000:]}"
    kernel_prefix = json.loads((out / probe_nb.name).read_text(encoding="utf-8"))["cells"][0]["outputs"][0]["text"]
    assert Path("".join(kernel_prefix).strip()) == env_dir, "the notebooks ran in another Python than the Binder one"
    for nb_path in NOTEBOOKS:
        nb = json.loads((out / nb_path.name).read_text(encoding="utf-8"))
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert all(c.get("execution_count") for c in code), f"{nb_path.name}: some cells did not run"
        errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, f"{nb_path.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"


def test_fonts_for_korean_and_emoji_are_installed_where_the_notebooks_run():
    """Binder installs binder/apt.txt (repo2docker: one Debian package a line, # comments);
    .ci/run installs the same list. Korean and emoji labels need them (see test_fonts.py)."""
    packages = [line.partition("#")[0].strip() for line in (BINDER / "apt.txt").read_text(encoding="utf-8").splitlines()]
    packages = [p for p in packages if p]
    assert {"fonts-noto-cjk", "fonts-noto-color-emoji", "fonts-symbola"} <= set(packages)
    assert all(re.fullmatch(r"[a-z0-9.+-]+", p) for p in packages), packages
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "binder/apt.txt" in ci and "apt-get update" in ci and "apt-get install -y" in ci
