"""Every report, one module each, found here by discovery. A report module ends with its declaration,
`REPORT = Report(...)` (engine/reports/declaration.py): its name, help and options, what it does with
`--pass mean`, the SQL files it reads, its chart layouts, its `build` function and its examples (the option
sets its goldens and the tests run). Its output columns are stated once, in the header of its first SQL file.
A new report is a module here, its SQL and its goldens; nothing else lists it.

A module imports plain data only at its top (declarations, Vega-Lite layouts): `tracedb --help` reads every
declaration and must not load DuckDB (about 0.1 s); its build function imports the engine it runs."""
import importlib
import pkgutil


def discover() -> tuple:
    """The REPORT of every module of this package (names starting with `_` are helpers), in their declared
    place order."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        report = getattr(module, "REPORT", None)
        if report is None:
            raise ImportError(f"{module.__name__}: a report module ends with `REPORT = Report(...)`")
        found.append(report)
    return tuple(sorted(found, key=lambda r: (r.place, r.name)))
