"""Dependencies run one way: cli -> engine -> ingest, sql; errors from anywhere; no import cycles.

Every `import` and `from ... import` of the package's modules is read with `ast` (those inside functions
too: a lazy import is still a dependency), so a wrong-way or circular import fails here, not in review."""
import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A module may import modules of its own layer or a lower one.
LAYER = {"cli": 3, "engine": 2, "ingest": 1, "sql": 1, "errors": 0}


def _modules():
    """{dotted name: path} for every module of the package (the repository root is `tracedb`)."""
    out = {}
    for top in LAYER:
        path = os.path.join(ROOT, top + ".py")
        if os.path.exists(path):
            out[f"tracedb.{top}"] = path
            continue
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith(".py"):
                    rel = os.path.relpath(os.path.join(dirpath, f), ROOT)[:-3].replace(os.sep, ".")
                    out["tracedb." + (rel[:-len(".__init__")] if rel.endswith(".__init__") else rel)] = \
                        os.path.join(dirpath, f)
    return out


def _imports(path, modules):
    """The package modules `path` imports (`from tracedb.engine import segment` -> tracedb.engine.segment)."""
    found = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def _layer(module):
    return LAYER[module.split(".")[1]]


def _graph():
    modules = _modules()
    return {m: {d for d in _imports(p, modules) if d != m and not m.startswith(d + ".")} for m, p in modules.items()}


def test_imports_go_down_the_layers_only():
    wrong = sorted(f"{m} imports {d}" for m, deps in _graph().items() for d in deps if _layer(d) > _layer(m))
    assert not wrong, "imports against the direction cli -> engine -> ingest, sql:\n" + "\n".join(wrong)


def test_no_import_cycles():
    graph = _graph()
    cycles, state = [], {}

    def visit(m, stack):
        state[m] = "open"
        for d in sorted(graph.get(m, ())):
            if state.get(d) == "open":
                cycles.append(" -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d, stack + [d])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_checks_see_the_package():
    """The walk finds the modules it must judge (an empty graph would pass every check above)."""
    graph = _graph()
    assert {"tracedb.cli.app", "tracedb.engine.reports", "tracedb.engine.segment", "tracedb.sql"} <= set(graph)
    assert "tracedb.engine.segment" in graph["tracedb.engine.reports"]
