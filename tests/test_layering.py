"""Dependencies run one way: the package root's API -> cli -> engine -> ingest, sql, patterns (which checks a
pattern with a query) -> the ground modules (errors, version, atomic, shown); inside the engine, room by room
(tracedb/engine/__init__.py); no import cycles.

Every `import` and `from ... import` of the package's modules is read with `ast` (those inside functions
too: a lazy import is still a dependency), the package root included, so a wrong-way or circular import fails
here, not in review."""
import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A module may import modules of its own layer or a lower one.
LAYER = {"__init__": 4, "cli": 3, "engine": 2, "ingest": 1, "sql": 1, "patterns": 1,
         "errors": 0, "version": 0, "atomic": 0, "shown": 0}
# Inside the engine a room may import its own modules and the rooms named here, as the "May import:" line of
# its __init__ docstring names them; the rooms form no cycle (each may import only rooms listed before it).
# The engine's own top modules (api, demo) sit above every room.
ROOM = {"store": set(), "loading": {"store"}, "rendering": set(), "gate": set(), "segmentation": {"store"},
        "jobs": {"segmentation", "rendering", "store"}, "admin": {"segmentation", "rendering", "store"},
        "reports": {"jobs", "segmentation", "rendering", "store"},
        "exports": {"reports", "segmentation", "rendering", "store"},
        "advise": {"reports", "jobs", "segmentation", "rendering", "store"}}


def _modules():
    """{dotted name: path} for every module of the package (the repository root is `tracedb`)."""
    out = {}
    for top in LAYER:
        path = os.path.join(ROOT, top + ".py")
        if top == "__init__":
            out["tracedb"] = path
            continue
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
    """The package modules `path` imports
    (`from tracedb.engine import segment` -> tracedb.engine.segmentation.segment)."""
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
    return LAYER[module.split(".")[1] if "." in module else "__init__"]


def _room(module):
    """The engine room of an engine module (TOP for engine/__init__, api, demo), None outside the engine."""
    parts = module.split(".")
    if parts[1:2] != ["engine"]:
        return None
    return parts[2] if len(parts) > 2 and parts[2] in ROOM else None


def _graph():
    modules = _modules()
    return {m: {d for d in _imports(p, modules) if d != m and not m.startswith(d + ".")} for m, p in modules.items()}


def test_imports_go_down_the_layers_only():
    wrong = sorted(f"{m} imports {d}" for m, deps in _graph().items() for d in deps if _layer(d) > _layer(m))
    assert not wrong, "imports against the direction cli -> engine -> ingest, sql:\n" + "\n".join(wrong)


def test_every_engine_module_is_in_a_room():
    loose = sorted(m for m in _graph() if m.startswith("tracedb.engine.") and m.count(".") == 2
                   and m.split(".")[2] not in ROOM and m.split(".")[2] not in ("api", "demo"))
    assert not loose, "engine modules outside a room (add them to one, or to ROOM): " + ", ".join(loose)


def test_engine_rooms_import_their_allowed_rooms_only():
    wrong = []
    for m, deps in _graph().items():
        if not m.startswith("tracedb.engine"):
            continue
        for d in deps:
            if not d.startswith("tracedb.engine") or _room(d) == _room(m) or d == "tracedb.engine":
                continue
            # a top module (api, demo) may import any room; no room may import a top module
            if _room(d) is None or (_room(m) is not None and _room(d) not in ROOM[_room(m)]):
                wrong.append(f"{m} ({_room(m) or 'top'}) imports {d} ({_room(d) or 'top'})")
    assert not wrong, "engine rooms importing a room their __init__ does not allow:\n" + "\n".join(sorted(wrong))


def test_rooms_import_only_rooms_before_them():
    """One way inside the engine: a room may import only rooms listed before it, so rooms form no cycle."""
    order = list(ROOM)
    wrong = sorted(f"{r} may import {d}" for r, allowed in ROOM.items() for d in allowed
                   if d not in ROOM or order.index(d) >= order.index(r))
    assert not wrong, "rooms allowed a room listed after them (or no room):\n" + "\n".join(wrong)


def test_room_docstrings_name_the_rooms_they_may_import():
    """The "May import:" line of each room's __init__ docstring names exactly the rooms ROOM allows it, and
    every sub-package of the engine is a room."""
    engine = os.path.join(ROOT, "engine")
    found = {d for d in os.listdir(engine) if os.path.exists(os.path.join(engine, d, "__init__.py"))}
    assert found == set(ROOM), f"engine sub-packages {sorted(found)} are not the rooms {sorted(ROOM)}"
    wrong = []
    for room, allowed in ROOM.items():
        doc = ast.get_docstring(ast.parse(open(os.path.join(engine, room, "__init__.py"), encoding="utf-8").read()))
        line = " ".join((doc or "").split("May import:", 1)[1].split()) if "May import:" in (doc or "") else None
        if line is None:
            wrong.append(f"{room}: no 'May import:' line")
            continue
        named = {item.split()[0] for item in line.rstrip(".").split(", ") if item.split()[0] in ROOM}
        if named != allowed:
            wrong.append(f"{room}: 'May import:' names {sorted(named)}, ROOM allows {sorted(allowed)}")
    assert not wrong, "room docstrings and ROOM disagree:\n" + "\n".join(wrong)


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
    assert {"tracedb.cli.app", "tracedb.engine.reports.registry", "tracedb.engine.segmentation.segment",
            "tracedb.sql"} <= set(graph)
    assert "tracedb.engine.segmentation.segment" in graph["tracedb.engine.reports.layered"]
    assert {"tracedb", "tracedb.version", "tracedb.engine.store.connect"} <= set(graph)
    assert "tracedb.engine.store.connect" in graph["tracedb"]   # the root's lazy imports are seen


def test_modules_and_readme_fit_their_rooms():
    """A module over 400 lines holds more than one idea, and a README over 250 lines is no longer a guide: both
    are split (docs/ takes the rest)."""
    long = {name: n for name, path in _modules().items()
            if (n := sum(1 for _ in open(path, encoding="utf-8"))) > 400}
    assert long == {}
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        assert sum(1 for _ in f) <= 250
