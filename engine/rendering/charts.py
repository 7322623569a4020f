"""The chart of each HTML report, as a Vega-Lite spec (https://vega.github.io/vega-lite/). Each report declares
its layouts, one per variant (`report kernels` hot list, compute flow or layer diff, ...), beside its build
(engine/reports/catalog/), built of the pieces of engine/rendering/vega_lite.py; this module picks the one the
rows fit and adds the data set.

Specs are declarative: Vega draws them in the page. A spec reads the data set `rows`, which the page fills
with the report's JSON rows, so every bar is a number of the table (exact DuckDB text parsed by the browser)
and no number is copied or rounded in Python. Marks are named (`bars`, `wall`, `ratio`): the SVG groups
carry the name, which the browser test counts. Kernel and module lists keep their 40 longest bars."""

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"


def spec(res) -> dict | None:
    """The Vega-Lite spec of the report's chart: the first of its declared layouts (res.charts) whose columns
    the rows have; None when it has no rows or no chart."""
    if not res.rows:
        return None
    cols = set(res.columns)
    for chart in res.charts:
        if chart.needs <= cols:
            return {"$schema": SCHEMA, "data": {"name": "rows"}, **chart.layout(res)}
    return None
