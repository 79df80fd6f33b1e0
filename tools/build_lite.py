"""Build the JupyterLite site (``make lite``): the lessons in JupyterLab with a Pyodide kernel, as
static files that run in the browser with no server and, for the core cells, no internet.

What goes into the site (``_site/`` unless ``--out``):

* the JupyterLab UI of ``jupyterlite-core`` and the Pyodide kernel extension of
  ``jupyterlite-pyodide-kernel`` (requirements-lite.txt, installed into a venv of their own,
  build/lite-venv: in .venv the kernel's JupyterLab extension would load into ``make lab`` and
  Voilà, where it fails), with the two widget front ends the lessons need (ipywidgets'
  ``@jupyter-widgets/jupyterlab-manager`` and ``anywidget``, copied from .venv, where
  requirements.txt installed them);
* the Pyodide runtime from the npm package ``pyodide`` (lite/package.json, pinned in
  lite/package-lock.json, installed with ``npm ci``) under ``static/pyodide/``;
* beside it the wheels the kernel needs at start-up (micropip, IPython, jedi and what they
  depend on in the Pyodide lock, downloaded from PyPI at the lock's versions), the widget wheels of
  lite/wheels.txt, and a wheel of bpe_viz built from this checkout with ``python_docs.json.gz``
  (``corpora.write_python_docs``) inside;
* ``pyodide-lock.json`` rewritten for the files shipped (their sha256), with an entry for each
  added wheel (so ``from bpe_viz import ...`` in a cell loads bpe_viz and the widgets, through
  Pyodide's import scan), every other entry pointing at the public Pyodide CDN of the same
  version (pandas and matplotlib load from there for users online);
* the lessons: notebooks/ and notebooks/deep-dives/, with their stored outputs.

Nothing is downloaded except from the package registries (PyPI through pip, npm through npm).
The inputs' hash is written into the site (``.bpe-viz-lite-inputs``): ``--if-changed`` skips the
build when the site was built from the same inputs (the browser test uses it).

Run ``.venv/bin/python tools/build_lite.py --help``.
"""

from __future__ import annotations

import argparse
import email.parser
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LITE = ROOT / "lite"
WORK = ROOT / "build" / "lite"
SITE = ROOT / "_site"
NPM_PYODIDE = LITE / "node_modules" / "pyodide"
#: the venv of the build tools (requirements-lite.txt), apart from .venv (see the docstring)
LITE_VENV = ROOT / "build" / "lite-venv"
#: the file in the site that records the inputs' hash (see ``--if-changed``)
STAMP = ".bpe-viz-lite-inputs"
#: what the site is built from: a change to any of these makes ``--if-changed`` rebuild
INPUTS = ["bpe_viz/**/*.py", "bpe_viz/**/*.js", "pyproject.toml", "notebooks/**/*.ipynb",
          "lite/package.json", "lite/package-lock.json", "lite/jupyter-lite.json", "lite/wheels.txt",
          "lite/overrides.json", "requirements-lite.txt", "requirements.txt", "tools/build_lite.py"]

#: Pyodide packages the kernel loads as it starts (its worker: micropip; then piplite installs
#: ipython and jedi, found in the lock), shipped with everything they depend on in the lock
KERNEL_ROOTS = ["micropip", "ipython", "jedi", "typing-extensions"]
#: requirements of the added wheels left out of the site on purpose, and why
LEFT_OUT = {
    "regex": "bpe_viz falls back to the standard library's re (bpe_viz.engine.text.regex_compat)",
    "pandas": "imported only where a DataFrame is asked for; loads from the Pyodide CDN online",
    "matplotlib": "imported only where a chart is drawn; loads from the Pyodide CDN online",
    "numpy": "optional: a merge step uses it when it is there and pure Python when not (the offline "
             "site); the sentencepiece-flavour Unigram trainer and the CompareExplorer's every-pair "
             "chart need it, in lessons that also draw with matplotlib, which needs it; loads from "
             "the Pyodide CDN online",
    "widgetsnbextension": "the classic Notebook's widget front end; the site's JupyterLab uses "
                          "jupyterlab_widgets (the kernel extension ships a stub of it)",
}
#: the JupyterLab extensions the site ships: the kernel's from build/lite-venv, the widgets' from .venv
KERNEL_EXTENSION = "@jupyterlite/pyodide-kernel-extension"
LAB_EXTENSIONS = ["@jupyter-widgets/jupyterlab-manager", "anywidget"]
#: the Pyodide files the site needs (the npm package also has source maps, typings, a console)
PYODIDE_FILES = ["pyodide.mjs", "pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"]


def log(msg: str):
    print(f"[build_lite] {msg}", flush=True)


def run(cmd: list[str], cwd: Path = ROOT):
    log("$ " + " ".join(str(c) for c in cmd))
    subprocess.run([str(c) for c in cmd], cwd=cwd, check=True)


def norm(name: str) -> str:
    """A distribution name as the Pyodide lock spells its keys: ``typing_extensions`` → ``typing-extensions``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def inputs_hash() -> str:
    """The sha256 of every input file (path and content), the Pyodide version included."""
    h = hashlib.sha256()
    for pattern in INPUTS:
        for path in sorted(ROOT.glob(pattern)):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            h.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- the inputs: Pyodide from npm, wheels from PyPI, bpe_viz from this checkout ------------------


def lite_venv() -> Path:
    """build/lite-venv with requirements-lite.txt installed (constrained by requirements.txt's
    pins), made or refreshed when the requirements change; returns its ``bin`` folder."""
    stamp = LITE_VENV / ".requirements"
    wanted = hashlib.sha256((ROOT / "requirements-lite.txt").read_bytes()
                            + (ROOT / "requirements.txt").read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text().strip() != wanted:
        shutil.rmtree(LITE_VENV, ignore_errors=True)
        run([sys.executable, "-m", "venv", LITE_VENV])
        run([LITE_VENV / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check",
             "-r", ROOT / "requirements-lite.txt", "-c", ROOT / "requirements.txt"])
        stamp.write_text(wanted + "\n")
    return LITE_VENV / "bin"


def npm_pyodide() -> Path:
    """lite/node_modules/pyodide, installed by ``npm ci`` when missing or not the locked version."""
    locked = json.loads((LITE / "package-lock.json").read_text())["packages"]["node_modules/pyodide"]["version"]
    installed = NPM_PYODIDE / "package.json"
    if not installed.exists() or json.loads(installed.read_text())["version"] != locked:
        if shutil.which("npm") is None:
            sys.exit("build_lite: `npm` is needed to install Pyodide (apt-get install -y npm)")
        run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=LITE)
    return NPM_PYODIDE


def pip_download(specs: list[str], dest: Path) -> list[Path]:
    """Pure-Python wheels (``py3-none-any``) of exactly these pins, from PyPI (pip's cache helps)."""
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.glob("*.whl"))
    run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
         "--only-binary=:all:", "--platform", "any", "--implementation", "py", "--abi", "none",
         "--python-version", "3.14", "-d", dest, *specs])
    wheels = {wheel_key(p): p for p in dest.glob("*.whl")}
    found = []
    for spec in specs:
        name, version = spec.split("==")
        path = wheels.get((norm(name), version))
        if path is None:
            sys.exit(f"build_lite: pip did not download a wheel of {spec} into {dest} "
                     f"(new files: {sorted(p.name for p in set(dest.glob('*.whl')) - before)})")
        found.append(path)
    return found


def wheel_key(path: Path) -> tuple[str, str]:
    name, version = path.name.split("-")[:2]
    return norm(name), version


def bpe_viz_wheel(dest: Path) -> Path:
    """A wheel of bpe_viz from this checkout, with ``python_docs.json.gz`` inside (written by
    ``corpora.write_python_docs`` from this Python's ``pydoc_data``, which Pyodide lacks)."""
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("bpe_viz-*.whl"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "bpe-viz"
        src.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, src / name)
        shutil.copytree(ROOT / "bpe_viz", src / "bpe_viz",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "python_docs.json.gz"))
        sys.path.insert(0, str(ROOT))
        from bpe_viz import corpora

        corpora.write_python_docs(src / "bpe_viz" / "engine" / "text" / corpora.PYTHON_DOCS_FILE.name)
        run([sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps",
             "-w", dest, src])
    (wheel,) = dest.glob("bpe_viz-*.whl")
    with zipfile.ZipFile(wheel) as z:
        if "bpe_viz/engine/text/python_docs.json.gz" not in z.namelist():
            sys.exit(f"build_lite: {wheel.name} lacks bpe_viz/engine/text/python_docs.json.gz")
    return wheel


def wheel_metadata(path: Path) -> dict:
    """name, version, the top-level import names and the requirements of a wheel."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(z.read(meta_name).decode())
    tops = sorted({n.split("/")[0] for n in names if n.count("/") == 1 and n.endswith("/__init__.py")}
                  | {n[:-3] for n in names if "/" not in n and n.endswith(".py")})
    return {"name": meta["Name"], "version": meta["Version"], "imports": tops,
            "requires": meta.get_all("Requires-Dist") or []}


def runtime_requirements(requires: list[str]) -> list[str]:
    """The normalized names of the requirements that apply in Pyodide (not extras, markers true)."""
    from packaging.requirements import Requirement

    env = {"python_version": "3.14", "python_full_version": "3.14.2", "sys_platform": "emscripten",
           "platform_system": "Emscripten", "platform_machine": "wasm32", "os_name": "posix",
           "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}
    names = []
    for text in requires:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate(env):
            names.append(norm(req.name))
    return names


# -- the Pyodide folder: runtime, wheels, rewritten lock -----------------------------------------


def closure(packages: dict, roots: list[str]) -> list[str]:
    """The lock entries ``roots`` need, themselves included (the lock's ``depends``)."""
    seen: list[str] = []
    todo = [norm(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in packages:
            sys.exit(f"build_lite: {name} is not in Pyodide's lock")
        seen.append(name)
        todo.extend(norm(d) for d in packages[name]["depends"])
    return sorted(seen)


def lock_entry(path: Path, meta: dict, depends: list[str]) -> dict:
    return {"name": norm(meta["name"]), "version": meta["version"], "file_name": path.name,
            "install_dir": "site", "sha256": sha256_file(path), "package_type": "package",
            "imports": meta["imports"], "depends": depends, "unvendored_tests": False,
            "shared_library": False}


def added_entries(wheels: list[Path], shipped: set[str]) -> dict:
    """Lock entries for the wheels Pyodide's lock does not list (bpe_viz, the widgets); their
    ``depends`` name only shipped packages: any other requirement must be in ``LEFT_OUT``."""
    metas = {p: wheel_metadata(p) for p in wheels}
    names = shipped | {norm(m["name"]) for m in metas.values()}
    entries = {}
    for path, meta in metas.items():
        depends = []
        for req in runtime_requirements(meta["requires"]):
            if req in names:
                depends.append(req)
            elif req not in LEFT_OUT:
                sys.exit(f"build_lite: {path.name} requires {req}, which the site neither ships nor "
                         "leaves out on purpose (add it to lite/wheels.txt or to LEFT_OUT)")
        entries[norm(meta["name"])] = lock_entry(path, meta, sorted(set(depends)))
    return entries


def write_lock(src_lock: dict, shipped: dict[str, Path], added: dict, cdn: str) -> dict:
    """Pyodide's lock with the shipped files' names and sha256, the added entries, and every
    other entry's file at ``cdn``."""
    lock = json.loads(json.dumps(src_lock))
    for name, entry in lock["packages"].items():
        path = shipped.get(name)
        if path is None:
            entry["file_name"] = f"{cdn}/{entry['file_name']}"
            continue
        if wheel_key(path) != (name, entry["version"]):
            sys.exit(f"build_lite: {path.name} is not {name} {entry['version']} (the lock's)")
        entry["file_name"], entry["sha256"] = path.name, sha256_file(path)
    clash = set(added) & set(lock["packages"])
    if clash:
        sys.exit(f"build_lite: lite/wheels.txt adds {sorted(clash)}, already in Pyodide's lock")
    lock["packages"].update(added)
    return lock


def stage_pyodide(dest: Path) -> dict:
    """``dest``: the Pyodide runtime, every wheel the site ships and the rewritten lock; returns
    what was shipped (for the report)."""
    pyodide = npm_pyodide()
    version = json.loads((pyodide / "package.json").read_text())["version"]
    src_lock = json.loads((pyodide / "pyodide-lock.json").read_text())
    kernel_pkgs = closure(src_lock["packages"], KERNEL_ROOTS)
    pins = [f"{n}=={src_lock['packages'][n]['version']}" for n in kernel_pkgs]
    wheels_dir = WORK / "wheels"
    kernel_wheels = dict(zip(kernel_pkgs, pip_download(pins, wheels_dir)))
    extra_pins = [line.split("#")[0].strip() for line in (LITE / "wheels.txt").read_text().splitlines()]
    extra = pip_download([p for p in extra_pins if p], wheels_dir) + [bpe_viz_wheel(WORK / "bpe_viz")]
    added = added_entries(extra, set(kernel_wheels))
    lock = write_lock(src_lock, kernel_wheels, added, f"https://cdn.jsdelivr.net/pyodide/v{version}/full")
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for name in PYODIDE_FILES:
        shutil.copy2(pyodide / name, dest / name)
    for path in [*kernel_wheels.values(), *extra]:
        shutil.copy2(path, dest / path.name)
    (dest / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    return {"pyodide": version, "python": src_lock["info"]["python"], "abi": src_lock["info"]["abi_version"],
            "shipped": sorted([*kernel_wheels, *added])}


def check_kernel_version(pyodide_version: str, tools: Path):
    """The npm Pyodide must be the one jupyterlite-pyodide-kernel was built for (same Python, ABI)."""
    expected = subprocess.run(
        [tools / "python", "-c", "from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION as v; print(v)"],
        check=True, capture_output=True, text=True).stdout.strip()
    if pyodide_version != expected:
        sys.exit(f"build_lite: lite/package.json pins pyodide {pyodide_version}, but "
                 f"jupyterlite-pyodide-kernel expects {expected}")


# -- the site -----------------------------------------------------------------------------------


def stage_extensions(dest: Path, tools: Path):
    """The JupyterLab extensions the site ships: the kernel's from the tools' venv, the widgets'
    (``LAB_EXTENSIONS``) from .venv."""
    shutil.rmtree(dest, ignore_errors=True)
    ours = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
    for source, name in [(tools.parent / "share" / "jupyter" / "labextensions", KERNEL_EXTENSION),
                         *((ours, n) for n in LAB_EXTENSIONS)]:
        if not (source / name / "package.json").exists():
            sys.exit(f"build_lite: no JupyterLab extension {name} in {source} (make venv)")
        shutil.copytree(source / name, dest / name)


def build(out: Path) -> dict:
    """Build the site into ``out``; what was shipped, for the report."""
    # jupyter lite keeps its doit state and a cache in the lite dir: build from a fresh one in
    # WORK, Pyodide at its well-known place there (static/pyodide)
    lite_dir = WORK / "lite-dir"
    shutil.rmtree(lite_dir, ignore_errors=True)
    lite_dir.mkdir(parents=True)
    for name in ("jupyter-lite.json", "overrides.json"):
        shutil.copy2(LITE / name, lite_dir / name)
    tools = lite_venv()
    shipped = stage_pyodide(lite_dir / "static" / "pyodide")
    check_kernel_version(shipped["pyodide"], tools)
    stage_extensions(WORK / "labextensions", tools)
    shutil.rmtree(out, ignore_errors=True)
    run([tools / "jupyter", "lite", "build", "--lite-dir", lite_dir,
         "--output-dir", out, "--contents", ROOT / "notebooks",
         "--ignore-sys-prefix", "--no-sourcemaps", "--apps", "lab", "--apps", "notebooks",
         "--apps", "tree", "--settings-overrides", lite_dir / "overrides.json",
         f"--FederatedExtensionAddon.extra_labextensions_path={WORK / 'labextensions'}"],
        cwd=lite_dir)  # where doit keeps its state (.jupyterlite.doit.db): fresh for every build
    config = json.loads((out / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = config["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    if kernel.get("pyodideUrl") != "./static/pyodide/pyodide.mjs" or not kernel.get("disablePyPIFallback"):
        sys.exit(f"build_lite: {out}/jupyter-lite.json does not point the kernel at the site's own "
                 f"Pyodide with PyPI off: {kernel}")
    return shipped


def site_size(out: Path) -> tuple[int, int]:
    files = [p for p in out.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=SITE, help="where to build the site (default: _site/)")
    ap.add_argument("--if-changed", action="store_true",
                    help=f"do nothing when OUT/{STAMP} holds the hash of the current inputs")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    digest = inputs_hash()
    if args.if_changed and (out / STAMP).exists() and (out / STAMP).read_text().strip() == digest:
        log(f"{out} is up to date (inputs {digest[:12]})")
        return 0
    t0 = time.monotonic()
    shipped = build(out)
    (out / STAMP).write_text(digest + "\n")
    size, count = site_size(out)
    log(f"Pyodide {shipped['pyodide']} (Python {shipped['python']}, ABI {shipped['abi']}); "
        f"shipped: {', '.join(shipped['shipped'])}")
    log(f"built {out} in {time.monotonic() - t0:.0f} s: {count} files, {size / 1e6:.1f} MB. "
        f"Serve it: python -m http.server -d {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
