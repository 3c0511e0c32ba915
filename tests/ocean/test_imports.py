"""No import circles in ocean/, at module or function level (an import inside a function is a
circle all the same: it only moves the failure to the first call), and ocean never imports tuning."""
import ast
from pathlib import Path

OCEAN = Path(__file__).resolve().parents[2] / "ocean"


def _modules() -> dict[str, Path]:
    out = {}
    for path in OCEAN.rglob("*.py"):
        parts = list(path.relative_to(OCEAN.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict) -> set[str]:
    """The ocean modules ``name`` imports anywhere in its body (``from pkg import sub`` is ``pkg.sub``
    when sub is a module, else ``pkg`` itself)."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            assert not source.startswith("tuning"), f"{name} imports {source}: ocean never imports tuning"
            for alias in node.names:
                target = f"{source}.{alias.name}"
                found.add(target if target in modules else source)
    return {m for m in found if m in modules and m != name}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, or None."""
    state = {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, stack)
                if found:
                    return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def test_the_graph_is_read_right():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
    modules = _modules()
    assert "ocean.bots.panel" in _imports("ocean.bots", modules["ocean.bots"], modules)


def test_ocean_has_no_import_circle():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    circle = _cycle(graph)
    assert circle is None, " -> ".join(circle)
