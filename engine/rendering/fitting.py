"""Fit a terminal table to the terminal's width, in steps that each lose as little as possible.

Only when the table as drawn is wider than the terminal, and in this order until it fits:

1. columns empty in every row, and (with two rows or more) columns holding one value in every row, are left
   out; a note names them with their value (`same in every row: run w, pass 0`);
2. headers are wrapped at `_` onto two lines (`host_bound_idle_us` -> `host_bound` / `idle_us`), so that a
   number column is as wide as its numbers;
3. text columns give way, the widest first, down to 24 characters (or their header), their names shortened
   so that different names still print differently (engine/rendering/names.py);
4. columns are left out from the right (a note names them) until the table fits, keeping the first column
   and the row's name when it leads; then text columns give way down to 12 characters and, if need be,
   more columns are left out.

Numbers are never cut or wrapped. `--wide` skips all of this, and piped output is never fitted (it keeps
whole names, as CSV, JSON and Markdown always do)."""
from tracedb.engine.rendering.names import shorten

FLOOR = 12        # the narrowest a text column gets
COMFORT = 24      # text columns give way to this before any column is left out


def widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def _wrap_header(h: str, room: int) -> str:
    """`h` on two lines split at the `_` nearest its middle, when that makes it narrower than `room`."""
    if len(h) <= max(room, 9) or "_" not in h:
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
    if widest(draw(columns, numeric, rows)) > width:
        cells = [max([len(str(r[i])) for r in rows] + [1]) for i in range(len(columns))]
        columns = [_wrap_header(h, max(c, FLOOR) if not n else c) for h, c, n in zip(columns, cells, numeric)]
    # 3. text columns give way, widest first, to COMFORT; 4. columns from the right; then text to FLOOR
    cap = [max([len(str(r[i])) for r in rows] + [max(len(p) for p in h.split("\n"))])
           for i, h in enumerate(columns)]
    header = [max(len(p) for p in h.split("\n")) for h in columns]
    shown, numbered, cut = rows, False, []
    for least in (COMFORT, FLOOR):
        floor = [cap[i] if numeric[i] else min(cap[i], max(least, header[i])) for i in range(len(columns))]
        for _ in range(2 * len(columns) + 2):
            over = widest(draw(columns, numeric, shown)) - width
            i = max((j for j in range(len(cap)) if cap[j] > floor[j]), key=lambda j: cap[j], default=None)
            if over <= 0 or i is None:
                break
            cap[i] = max(floor[i], cap[i] - over)
            shown, numbered = _shortened(rows, cap, numeric)
        columns, numeric, shown, cap, more = _cut_right(columns, numeric, shown, cap, width, draw,
                                                        identity=least == COMFORT)
        cut = more + cut
    if numbered:
        notes.append("names marked ~N differ only beyond the width shown (--wide shows them whole)")
    elif shown is not rows:
        notes.append("long names shortened: … marks what was left out (--wide or --format csv shows them whole)")
    if cut:
        notes.append(f"left out to fit {width} columns: {', '.join(cut)} (--wide shows every column)")
    return columns, numeric, shown, notes


def _cut_right(columns, numeric, shown, cap, width, draw, identity=True):
    """Columns left out from the right until the table fits, keeping the first column and, with `identity`,
    the first text column when it is among the first three (the row's name, which can shrink further)."""
    cut = []
    text = [i for i, n in enumerate(numeric) if not n]
    keep = text[0] + 1 if identity and text and text[0] < 3 else 1
    while len(columns) > keep and widest(draw(columns, numeric, shown)) > width:
        cut.insert(0, columns[-1].replace("\n", "_"))
        columns, numeric, shown, cap = columns[:-1], numeric[:-1], [r[:-1] for r in shown], cap[:-1]
    return columns, numeric, shown, cap, cut


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
