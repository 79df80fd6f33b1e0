"""The architecture, checked: engine -> view -> widgets, imports in one direction only.

Reads every module's imports with ``ast`` (function-level imports included), resolves relative
imports, and fails if ``bpe_viz.engine`` imports the view, the widgets or interop, if
``bpe_viz.view`` imports the widgets, or if anything outside the model modules tests an
algorithm's name (``algorithm == "bpe"``): behaviour that differs by model is asked of the model.

Three rules keep the families apart: no module imports a private name (``_x``) from another
module of ``bpe_viz`` (a family uses the shared parts' public names, never another family's
internals); no two modules import each other, directly or around a circle (module-level imports:
a function-level import is still a circle, so those count too); and nothing probes an object for
a private method (``getattr(x, "_encode")``; an object asking for its own optional parts,
``getattr(self, "_pane", None)``, is not probing): every trained tokenizer answers the public
protocol (``bpe_viz.engine.protocol``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "bpe_viz"

# layer -> packages it must never import
FORBIDDEN = {
    "engine": ("bpe_viz.view", "bpe_viz.widgets", "bpe_viz.interop"),
    "view": ("bpe_viz.widgets", "bpe_viz.interop"),
    "interop": ("bpe_viz.view", "bpe_viz.widgets"),
    # the exercise checkers ask the engine only; the answers a learner reads are plain Python
    "exercises": ("bpe_viz.view", "bpe_viz.widgets", "bpe_viz.interop"),
    "exercises_inputs": ("bpe_viz.view", "bpe_viz.widgets", "bpe_viz.interop"),
    "exercises_solutions": ("bpe_viz",),
}
# stdlib only in the engine (``regex`` is allowed for the GPT-style pre-tokenizers; pandas only
# inside the Snapshot.*_frame() methods, imported when called)
ENGINE_THIRD_PARTY_ALLOWED = {"regex"}


def modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
            package = ".".join(parts)
        else:
            package = ".".join(parts[:-1])
        yield ".".join(parts), package, path


def resolve(package: str, node: ast.ImportFrom) -> str | None:
    """The absolute name of the module a ``from ... import`` reads (relative ones resolved)."""
    if not node.level:
        return node.module
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(name, package, path, top_level_only=False):
    """Absolute names of everything a module imports, anywhere in it (or at module level)."""
    out = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in (tree.body if top_level_only else ast.walk(tree)):
        if isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = resolve(package, node)
            out.append(mod)
            out.extend(f"{mod}.{a.name}" for a in node.names)
    return out


ALL = list(modules())


def test_every_layer_is_found():
    names = {n for n, _, _ in ALL}
    for layer in ("bpe_viz.engine", "bpe_viz.view", "bpe_viz.widgets", "bpe_viz.interop"):
        assert layer in names
    assert len([n for n in names if n.startswith("bpe_viz.engine.")]) >= 10


@pytest.mark.parametrize("name,package,path", ALL, ids=[n for n, _, _ in ALL])
def test_imports_point_down_the_layers(name, package, path):
    parts = name.split(".")
    layer = parts[1] if len(parts) > 1 else None
    bad = [
        imp for imp in imports_of(name, package, path)
        for forbidden in FORBIDDEN.get(layer, ())
        if imp == forbidden or imp.startswith(forbidden + ".")
    ]
    assert not bad, f"{name} (layer {layer}) imports {bad}"
    if layer == "engine":
        import sys

        def third_party(imps):
            return {i.split(".")[0] for i in imps if not i.startswith("bpe_viz")} - set(
                sys.stdlib_module_names) - {"__future__"} - ENGINE_THIRD_PARTY_ALLOWED

        top = third_party(imports_of(name, package, path, top_level_only=True))
        assert not top, f"{name}: the engine is pure Python, but it imports {sorted(top)}"
        # pandas only inside the Snapshot.*_frame() methods, for those who ask for a DataFrame;
        # numpy only inside the Unigram trainer's array kernels (unigram/flat_*.py), when they run
        lazy = third_party(imports_of(name, package, path)) - {"pandas", "numpy"}
        assert not lazy, f"{name}: the engine is pure Python, but it imports {sorted(lazy)}"


def test_the_checker_catches_a_wrong_import(tmp_path):
    """The check itself can fail: a view module importing the widgets is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from ..widgets import merge\n")
    found = imports_of("bpe_viz.view.bad", "bpe_viz.view", bad)
    assert "bpe_viz.widgets" in found


MODEL_MODULES = {"bpe_viz.engine.bpe.model", "bpe_viz.engine.wordpiece.model", "bpe_viz.engine.merges.model"}


@pytest.mark.parametrize("name,package,path", ALL, ids=[n for n, _, _ in ALL])
def test_no_algorithm_name_tests_outside_the_models(name, package, path):
    if name in MODEL_MODULES:
        return
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            names = [n for n in [node.left, *node.comparators]
                     if isinstance(n, ast.Attribute) and n.attr == "algorithm"]
            consts = [n.value for n in [node.left, *node.comparators] if isinstance(n, ast.Constant)]
            if names and any(c in ("bpe", "wordpiece") for c in consts):
                found.append(node.lineno)
    assert not found, f"{name} tests the algorithm's name at lines {found}: ask trace.model instead"


def _bpe_viz_imports(name, package, path):
    """(module imported, names taken) for every import of a bpe_viz module, anywhere in the file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            mod = resolve(package, node) or ""
            if mod == "bpe_viz" or mod.startswith("bpe_viz."):
                out.append((mod, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names if a.name.startswith("bpe_viz"))
    return out


NAMES = {n for n, _, _ in ALL}


@pytest.mark.parametrize("name,package,path", ALL, ids=[n for n, _, _ in ALL])
def test_no_private_name_is_imported_from_another_module(name, package, path):
    bad = [f"{mod}.{n}" for mod, names in _bpe_viz_imports(name, package, path) for n in names
           if n.startswith("_") and not n.startswith("__") and f"{mod}.{n}" not in NAMES]
    assert not bad, f"{name} imports private names {bad}: give them a public name in their module"


def _graph():
    """module -> the bpe_viz modules it imports (a package import counts as its __init__)."""
    graph = {}
    for name, package, path in ALL:
        deps = set()
        for mod, names in _bpe_viz_imports(name, package, path):
            for n in names:  # "from .pkg import module" imports the module
                if f"{mod}.{n}" in NAMES:
                    deps.add(f"{mod}.{n}")
            if mod in NAMES and not all(f"{mod}.{n}" in NAMES for n in names or ["?"]):
                deps.add(mod)
        deps.discard(name)
        graph[name] = deps
    return graph


def _cycles(graph):
    """Every strongly connected group of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    """A package's __init__ importing its own modules is how packages work; circles between
    modules (or between a module and another package's __init__) are not."""
    graph = _graph()
    for name in graph:  # a package may import its own modules: drop those edges from __init__s
        if any(name == n.rsplit(".", 1)[0] for n in NAMES if "." in n):
            graph[name] = {d for d in graph[name] if not d.startswith(name + ".")}
    assert _cycles(graph) == []


def test_the_circle_check_can_fail():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("name,package,path", ALL, ids=[n for n, _, _ in ALL])
def test_nothing_probes_for_private_methods(name, package, path):
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
            on_self = isinstance(node.args[0], ast.Name) and node.args[0].id == "self"  # its own optional parts
            if len(node.args) > 1 and not on_self and isinstance(node.args[1], ast.Constant) and str(node.args[1].value).startswith("_") \
                    and not str(node.args[1].value).startswith("__"):
                found.append(node.lineno)
    assert not found, f"{name} probes for a private attribute at lines {found}: ask the public protocol"


def test_the_private_name_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from .lattice import _best_cut, best_cut\n")
    assert _bpe_viz_imports("bpe_viz.engine.unigram.bad", "bpe_viz.engine.unigram", bad) == [
        ("bpe_viz.engine.unigram.lattice", ["_best_cut", "best_cut"])]
