"""Fit a terminal table to the terminal's width, in steps that each lose as little as possible.

Only when the table as drawn is wider than the terminal, and in this order until it fits:

1. columns empty in every row, and (with two rows or more) columns holding one value in every row, are left
   out; a note names them with their value (`same in every row: run w, pass 0`);
2. headers are wrapped at `_` onto two lines (`host_bound_idle_us` -> `host_bound` / `idle_us`), so that a
   number column is as wide as its numbers;
3. long ids (a 19-digit process-group hash, a hex digest) are cut in the middle to ID_WIDTH, keeping both
   ends; then text columns give way, the widest first, down to 24 characters (or their header), their names
   shortened so that different names still print differently (engine/rendering/names.py);
4. columns are left out (a note names them) by what they say, least first (`drop_rank`): where a row lies
   in time (start, end, wall, ids), then the profiler's own copies of a figure (`prof_…`), counts, words,
   and measures last; among equals, from the right. The first column and the row's key columns (run, pass,
   layer, rank, name, …) stay; then text columns give way down to 12 characters and, if need be, more
   columns are left out, keys too (but the first column and the row's name).

Numbers are never cut or wrapped. `--wide` skips all of this, and piped output is never fitted (it keeps
whole names, as CSV, JSON and Markdown always do)."""
import re

from tracedb.engine.rendering.names import shorten

FLOOR = 12        # the narrowest a text column gets
COMFORT = 24      # text columns give way to this before any column is left out
ID_WIDTH = 11     # a long id cut in the middle: 5 characters, `…`, 5 (`39853…36764`)
# a value that names a thing by number: digits or hex (a group hash, a digest, a uuid), 13 characters or more
LONG_ID = re.compile(r"(?=[^\s]*\d)[0-9A-Fa-f][0-9A-Fa-f:_-]{12,}")

# What a column says, from least to most (drop_rank): the first ones go first when a table is too wide.
# Where a row lies in time or which object it is by number says least about what it costs: a layer's start
# and end are in report timeline, and its wall time follows from them.
POSITIONAL = re.compile(r"(^|_)(start|end|begin|ts|first_start|last_end)(_(us|ms|s|ns))?$|(^|_)id$|_at$")
WALL = re.compile(r"^wall(_|$)")
PROFILER_COPY = re.compile(r"^prof_")    # the profiler's own figure, beside tracedb's of the same name
MEASURE = re.compile(r"_(us|ms|s|ns|pct|gbps|mb|rank)$|^(ratio|skew|intensity|straggler)$")
# the columns that say which row it is: kept while any other column can go
KEYS = {"run", "pass", "layer", "rank", "step", "microbatch", "phase", "seq", "op", "group", "category", "module",
        "name", "short_name", "kernel", "unit", "stage", "core_class", "pp_stage", "model_layer", "ordinal",
        "device", "format", "source", "layer_type", "by", "half"}


def drop_rank(column: str, numeric: bool) -> int:
    """How much a column says (0: least, left out first; 6: a key). Columns are told apart by name, so a
    report keeps its categories and measures while its positions go: `report layers` leaves out end_us,
    start_us, wall_us before any category."""
    name = column.replace("\n", "_")
    if name in KEYS:
        return 6
    if POSITIONAL.search(name):
        return 0
    if WALL.search(name):
        return 1
    if PROFILER_COPY.search(name):
        return 2
    if MEASURE.search(name):
        return 5
    return 3 if numeric else 4      # counts (kernels, anchors, bytes), then words (a note, a description)


def widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def _wrap_header(h: str, room: int) -> str:
    """`h` on two lines split at the `_` nearest its middle, when as drawn (tabulate pads a header by two) it
    is wider than `room`, the column's widest cell."""
    if len(h) + 2 <= max(room, 9) or "_" not in h:
        return h
    cuts = [i for i, ch in enumerate(h) if ch == "_"]
    i = min(cuts, key=lambda k: max(k, len(h) - k - 1))
    return h[:i] + "\n" + h[i + 1:]


def fit(columns: list[str], numeric: list[bool], rows: list, width: int, draw):
    """(columns, numeric, rows, notes) of a table that `draw(columns, numeric, rows)` draws at most `width`
    characters wide where it can; the notes say what was left out or shortened."""
    notes: list[str] = []
    if widest(draw(columns, numeric, rows)) <= width or not rows:
        return columns, numeric, rows, notes
    # 1. empty and constant columns
    empty = [i for i in range(len(columns)) if all(str(r[i]) == "" for r in rows)]
    same = [i for i in range(len(columns)) if i not in empty and len(rows) > 1
            and all(r[i] == rows[0][i] for r in rows)]
    drop = set(empty) | set(same)
    if len(drop) >= len(columns):
        drop = set(empty[:len(columns) - 1])
    if drop:
        said = []
        if empty:
            said.append("empty: " + ", ".join(columns[i] for i in empty if i in drop))
        if same:
            said.append("same in every row: " + ", ".join(f"{columns[i]} {rows[0][i]}" for i in same if i in drop))
        notes.append("left out: " + "; ".join(said))
        keep = [i for i in range(len(columns)) if i not in drop]
        columns, numeric = [columns[i] for i in keep], [numeric[i] for i in keep]
        rows = [[r[i] for i in keep] for r in rows]
    # 2. headers on two lines
    names = list(columns)          # as the notes name them
    if widest(draw(columns, numeric, rows)) > width:
        cells = [max([len(str(r[i])) for r in rows] + [1]) for i in range(len(columns))]
        columns = _headers(columns, cells, numeric)
    # 3. long ids to ID_WIDTH, text columns give way, widest first, to COMFORT; 4. columns by drop_rank;
    # then text to FLOOR and more columns left out
    header = [max(len(p) for p in h.split("\n")) for h in columns]
    cap = [max([len(str(r[i])) for r in rows] + [header[i]]) for i in range(len(columns))]
    ids = [not numeric[i] and _ids(rows, i) for i in range(len(columns))]
    shown, numbered, cut = rows, False, []
    if widest(draw(columns, numeric, shown)) > width and any(ids):
        cap = [max(ID_WIDTH, header[i]) if ids[i] else c for i, c in enumerate(cap)]
        shown, numbered = _shortened(rows, cap, numeric)
    for least in (COMFORT, FLOOR):
        floor = [cap[i] if numeric[i] else min(cap[i], max(least, header[i])) for i in range(len(columns))]
        for _ in range(2 * len(columns) + 2):
            over = widest(draw(columns, numeric, shown)) - width
            i = max((j for j in range(len(cap)) if cap[j] > floor[j]), key=lambda j: cap[j], default=None)
            if over <= 0 or i is None:
                break
            cap[i] = max(floor[i], cap[i] - over)
            shown, numbered = _shortened(rows, cap, numeric)
        kept = _kept(names, columns, numeric, shown, width, draw)
        cut += [names[i] for i in range(len(names)) if i not in kept]
        columns, names, numeric, cap, header = ([x[i] for i in kept] for x in (columns, names, numeric, cap, header))
        rows, shown = [[r[i] for i in kept] for r in rows], [[r[i] for i in kept] for r in shown]
    if numbered:
        notes.append("names marked ~N differ only beyond the width shown (--wide shows them whole)")
    elif any(a != b for r, s in zip(rows, shown) for a, b in zip(r, s)):
        notes.append("long names shortened: … marks what was left out (--wide or --format csv shows them whole)")
    if cut:
        notes.append(f"left out to fit {width} columns: {', '.join(cut)} (--wide shows every column)")
    return columns, numeric, shown, notes


def _headers(columns: list[str], cells: list[int], numeric: list[bool]) -> list[str]:
    """The headers on two lines where that narrows their columns (_wrap_header). A header longer than a text
    column may be (a run's name before `_us` in report compare) puts its last part on the second line and is
    shortened as names are, both ends kept and no two alike (`amd-h1…016005` over `us`)."""
    out = [_wrap_header(h, max(c, FLOOR) if not n else c) for h, c, n in zip(columns, cells, numeric)]
    long = [i for i, h in enumerate(out) if max(len(p) for p in h.split("\n")) > COMFORT]
    if long:
        parts = [columns[i].rpartition("_") if "_" in columns[i] else ("", "", columns[i]) for i in long]
        heads = [p[0] or p[2] for p in parts]
        short, _ = shorten(heads, max([FLOOR] + [cells[i] for i in long]))
        for i, (head, sep, tail), s in zip(long, parts, short):
            out[i] = s + ("\n" + tail if head and tail else "")
    return out


def _ids(rows: list, i: int) -> bool:
    """Whether every value of column i that is not empty is a long id (LONG_ID), and one is."""
    values = [str(r[i]) for r in rows if str(r[i])]
    return bool(values) and all(LONG_ID.fullmatch(v) for v in values)


def _kept(names, columns, numeric, shown, width, draw) -> list[int]:
    """The columns to keep (their indices), leaving out one at a time, least telling first (drop_rank of its
    name; among equals, the rightmost), until the table fits: positions before counts, counts before words,
    words before measures, and the keys last. The first column stays, and so does the first text column when
    it is among the first three (the row's name, which can shrink further)."""
    text = [i for i, n in enumerate(numeric) if not n]
    name = text[0] if text and text[0] < 3 else 0
    kept = list(range(len(columns)))
    while widest(draw([columns[i] for i in kept], [numeric[i] for i in kept],
                      [[r[i] for i in kept] for r in shown])) > width:
        candidates = [i for i in kept if i not in (0, name)]
        if not candidates:
            break
        kept.remove(min(candidates, key=lambda j: (drop_rank(names[j], numeric[j]), -j)))
    return kept


def _shortened(rows: list, cap: list[int], numeric: list[bool]):
    """The rows with each text column's names shortened to its cap (names.shorten)."""
    cols, numbered = [], False
    for i, (w, n) in enumerate(zip(cap, numeric)):
        values = [str(r[i]) for r in rows]
        if n or all(len(v) <= w for v in values):
            cols.append(values)
            continue
        short, marked = shorten(values, w)
        cols.append(short)
        numbered = numbered or marked
    return [list(r) for r in zip(*cols)], numbered

