"""The pieces the charts' Vega-Lite specs are built of: expressions over a row, the unit each bar stands for,
encodings and marks.

Each report module (engine/reports/catalog/) builds its layouts from them: `datum` and `text` (a column's
value in a Vega expression), `unit` (the unit of each row and its axis title), `axis`, `tip` and `color_by` (encodings),
and the marks: bars stacked (`stack`), side by side (`side_by_side`) or one per row (`bar_per_row`), a
wall-time line over stacked bars (`wall_line`, `with_line`), time ranges on lanes (`ranges`). Each returns
plain JSON-able dicts and strings; none knows a report."""
import json

SCHEME = "tableau10"
US = "µs"


# --- expressions and encodings ---------------------------------------------------------------------------

def datum(col: str) -> str:
    return "datum[" + json.dumps(col) + "]"


def text(col: str) -> str:
    return f"({datum(col)} == null ? '-' : {datum(col)} + '')"


def values(res, col):
    i = res.columns.index(col)
    return [r[i] for r in res.rows]


def unit(res, fields, prefix=(), suffix=None, name=""):
    """A calculate transform naming each row's unit, and the axis title: the `fields` whose value differs
    between rows (and the `prefix` ones always) joined by / ('h100/1/prologue'), then the `suffix`
    expression (what the title calls `name`). With neither, the last of the fields the report has."""
    present = [c for c in fields if c in res.columns]
    shown = [c for c in present if c in prefix or len(set(values(res, c))) > 1]
    if not shown and not suffix:
        shown = present[-1:]
    expr = " + '/' + ".join(text(c) for c in shown)
    if suffix:
        expr = f"{expr} + ' ' + {suffix}" if shown else suffix
    return {"calculate": expr, "as": "unit"}, " ".join(t for t in ("/".join(shown), name) if t)


# an axis label longer than 48 characters keeps its start and its end (a module role's or kernel's own name)
SHORT_LABEL = "length(datum.label) > 48 ? slice(datum.label, 0, 14) + '…' + slice(datum.label, -33) : datum.label"


def axis(field, title):
    """The units along an axis, in the report's row order."""
    return {"field": field, "type": "ordinal", "title": title, "sort": None,
            "axis": {"labelExpr": SHORT_LABEL, "labelLimit": 400}}


def tip(*fields):
    return [{"field": f} for f in fields]


# --- marks -----------------------------------------------------------------------------------------------

def color_by(field, sort=None):
    enc = {"field": field, "type": "nominal", "scale": {"scheme": SCHEME}}
    if sort is not None:
        enc["sort"] = sort
    return enc


def fold(parts, name):
    """The `parts` columns as rows (`name`: the column without its unit suffix, `us`: its value), zero
    parts left out, `part_order` their column order (the stacking order)."""
    return [{"fold": list(parts), "as": ["part", "us"]}, {"filter": "datum.us > 0"},
            {"calculate": "slice(datum.part, 0, lastindexof(datum.part, '_'))", "as": name},
            {"calculate": f"indexof({json.dumps(list(parts))}, datum.part)", "as": "part_order"}]


def bars(title, color, horizontal=False, stacked=False, offset=None, value_title=US, tooltip=()):
    """Bars of `us` per unit: stacked in `part_order`, or side by side per `offset` value."""
    where, across = ("y", "x") if horizontal else ("x", "y")
    enc = {where: axis("unit", title), across: {"field": "us", "type": "quantitative", "title": value_title},
           "color": color, "tooltip": tip("unit", *tooltip, "us")}
    if stacked:
        enc[across]["stack"] = "zero"
        enc["order"] = {"field": "part_order"}
    if offset:
        enc[where + "Offset"] = {"field": offset, "sort": None}
    return {"name": "bars", "mark": "bar", "encoding": enc}


def stack(unit, title, parts, part, horizontal=False, pre=(), value_title=US):
    """Stacked bars of the `parts` columns per unit, coloured by part (`part`: the legend's title)."""
    names = [p.rsplit("_", 1)[0] for p in parts]
    return {"transform": [unit, *pre, *fold(parts, part)],
            **bars(title, color_by(part, names), horizontal, stacked=True, value_title=value_title, tooltip=(part,))}


def bar_per_row(unit, title, value, color, horizontal=True, pre=()):
    """A bar per row of its `value` column, coloured by the row's own `color` column."""
    return {"transform": [unit, *pre, {"calculate": datum(value), "as": "us"}, {"filter": "datum.us > 0"}],
            **bars(title, color_by(color), horizontal, tooltip=(color,))}


def side_by_side(unit, title, parts, side, horizontal=False):
    """Per unit a bar for each of the `parts` columns, side by side; `side` names a part's legend entry."""
    return {"transform": [unit, *fold(parts, "part_name"), {"calculate": side, "as": "side"}],
            **bars(title, color_by("side", None), horizontal, offset="side", tooltip=("side",))}


def wall_line(field, series, title):
    """The wall time as a line with points over the stacked bars, one line per `series`."""
    return {"name": "wall", "mark": {"type": "line", "point": True, "color": "#222"},
            "encoding": {"x": axis("unit", title), "y": {"field": field, "type": "quantitative", "title": US},
                         "detail": {"field": series}, "tooltip": tip("unit", field)}}


def with_line(stack, line, extra=()):
    """The stacked bars with a line over them: the unit (and `extra`) at the top, the fold in the bars."""
    unit, *rest = stack.pop("transform")
    stack["transform"] = rest
    return {"transform": [unit, *extra], "layer": [stack, line]}


def ranges(lane, title, start, end, color, unit_title, tooltip, extra=()):
    """Time ranges as bars from `start` to `end` on lanes."""
    return {"name": "bars", "transform": [lane, *extra], "mark": "bar", "encoding": {
        "y": axis("unit", title),
        "x": {"field": start, "type": "quantitative", "title": unit_title, "scale": {"zero": False}},
        "x2": {"field": end}, "color": color_by(color), "tooltip": tip(*tooltip)}}
