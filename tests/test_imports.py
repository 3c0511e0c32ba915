"""The product's import graph, read from the source with ``ast``: no circles in ``ocean/`` or
``tuning/`` (imports at module level and inside functions alike: a function-level import is
for cost, never to break a circle), tuning's rooms import only the rooms below them, every
room says what it holds and names a public surface that loads, no product file over 600
lines (frozen bots excepted), and no product module reads the drills' batch log."""
from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("ocean", "tuning")
MAX_LINES = 600
# What each of tuning's rooms may import of tuning (besides itself); ``errors`` is the one
# error hierarchy, importable from every room but ``stats``, which is pure statistics.
ROOMS = {
    "errors": set(),
    "stats": set(),
    "study": {"errors", "stats"},
    "storage": {"errors", "study", "stats"},
    "driver": {"errors", "study", "stats", "storage"},
    "results": {"errors", "study", "stats", "storage", "driver"},
    "cli": {"errors", "study", "stats", "storage", "driver", "results"},
}
ROOM_PACKAGES = sorted(set(ROOMS) - {"errors"})


def modules(package: str) -> dict[str, Path]:
    """Dotted name -> file of every module of ``package`` (a package is its ``__init__``)."""
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``name`` imports anywhere in its file, and the packages
    above them that the import runs (``import a.b.c`` runs ``a`` and ``a.b`` first); its own
    enclosing packages are left out (they are being imported already)."""

    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(resolve(a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:  # ``from pkg import module`` imports the module itself
                found.add(resolve(f"{base}.{alias.name}") if f"{base}.{alias.name}" in known else resolve(base))
    out = set()
    for target in found - {None, name}:
        parts = target.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return {m for m in out if m in known and m != name and not name.startswith(m + ".")}


def graph(*packages: str) -> dict[str, set[str]]:
    mods = {name: path for package in packages for name, path in modules(package).items()}
    return {name: imports(name, path, set(mods)) for name, path in mods.items()}


def cycles(edges: dict[str, set[str]]) -> list[tuple[list[str], set[str]]]:
    """Per strongly connected component of more than one module: one circle through it
    (a -> ... -> a) and the component (every module on some circle with it)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [(_circle(edges, component), component) for component in components]


def _circle(edges: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest circle through the component's first module (breadth first)."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v] & component):
            if w == start:
                return paths[v] + [start]
            if w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    raise AssertionError(f"no circle through {start}")  # a strongly connected component has one


def _named(found: list[tuple[list[str], set[str]]]) -> str:
    return "; ".join(f"{' -> '.join(circle)} (all of: {', '.join(sorted(component))})" for circle, component in found)


def test_no_import_circle_in_tuning():
    found = cycles(graph("tuning"))
    assert not found, f"import circles in tuning/: {_named(found)}"


def test_no_import_circle_in_ocean():
    found = cycles(graph("ocean"))
    assert not found, f"import circles in ocean/: {_named(found)}"


def test_ocean_never_imports_tuning():
    tuning = set(modules("tuning"))
    edges = graph("ocean", "tuning")
    leaks = sorted(f"{m} -> {t}" for m in modules("ocean") for t in edges[m] if t in tuning)
    assert not leaks, leaks


def test_each_room_of_tuning_imports_only_the_rooms_below_it():
    edges = graph("tuning")
    wrong = []
    for module, targets in edges.items():
        room = module.split(".")[1] if module.count(".") else None
        if room not in ROOMS:  # tuning itself, tuning.__main__ (the command line's entry)
            continue
        for target in targets:
            other = target.split(".")[1] if target.count(".") else None
            if other is not None and other != room and other not in ROOMS[room]:
                wrong.append(f"{module} -> {target}")
    assert not wrong, "imports across rooms against their order: " + ", ".join(sorted(wrong))


def test_stats_is_pure_statistics():
    """``tuning.stats`` imports the standard library, numpy and scipy, itself and ``ocean.stats``
    (the pair interval and Elo, which arenas use too), and ``ocean.stats`` the same: nothing else."""
    allowed = set(sys.stdlib_module_names) | {"numpy", "scipy"}
    foreign = set()
    pure = {**{n: p for n, p in modules("tuning").items() if n == "tuning.stats" or n.startswith("tuning.stats.")},
            "ocean.stats": ROOT / "ocean" / "stats.py"}
    for path in pure.values():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                foreign.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                foreign.add(node.module)
    foreign = {m for m in foreign if m.split(".")[0] not in allowed and not m.startswith("tuning.stats")
               and m != "ocean.stats"}
    assert not foreign, sorted(foreign)


@pytest.mark.parametrize("room", ROOM_PACKAGES)
def test_each_room_says_what_it_holds_and_its_public_names_load(room):
    package = importlib.import_module(f"tuning.{room}")
    doc = package.__doc__ or ""
    assert doc.strip() and "\n\n" not in doc.strip(), "a one-paragraph docstring"
    assert "import" in doc, "the docstring says what the room may import"
    assert package.__all__, "a public surface"
    for name in package.__all__:
        assert getattr(package, name) is not None, name


def _frozen(path: Path) -> bool:
    """A frozen bot module: its docstring, or its package's, says it is frozen."""
    for doc_of in (path, *[p / "__init__.py" for p in path.parents if (p / "__init__.py").exists()]):
        doc = ast.get_docstring(ast.parse(doc_of.read_text())) or ""
        if doc.startswith("FROZEN") or "Frozen since" in doc:
            return True
    return False


def test_no_product_file_over_600_lines_but_frozen_bots():
    long = {f"{path.relative_to(ROOT)}: {n} lines"
            for package in PRODUCT for path in modules(package).values()
            if (n := len(path.read_text().splitlines())) > MAX_LINES and not _frozen(path)}
    assert not long, sorted(long)


def test_the_frozen_exception_is_narrow():
    frozen = {str(path.relative_to(ROOT)) for package in PRODUCT for path in modules(package).values() if _frozen(path)}
    assert frozen and all(f.startswith("ocean/bots/") for f in frozen), sorted(frozen)


def test_no_product_module_reads_the_drills_batch_log():
    readers = [str(path.relative_to(ROOT)) for package in PRODUCT for path in modules(package).values()
               if "OCEAN_BATCH_LOG" in path.read_text()]
    assert not readers, readers


# --- the checks can fail --------------------------------------------------------------------------

def test_a_circle_through_a_function_level_import_is_found(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import thing\n")
    (pkg / "b.py").write_text("def thing():\n    from pkg import c\n")
    (pkg / "c.py").write_text("import pkg.a\n")
    (pkg / "d.py").write_text("from . import a\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = cycles(graph("pkg"))
    assert found == [(["pkg.a", "pkg.b", "pkg.c", "pkg.a"], {"pkg.a", "pkg.b", "pkg.c"})]
    (pkg / "c.py").write_text("import pkg\n")
    assert cycles(graph("pkg")) == []
