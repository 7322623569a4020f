"""Shorten the names of a table column so that rows stay distinguishable: what every name of a family shares
is elided and what differs is kept.

Kernel names are long and differ in few places: three hipBLASLt GEMMs share 60 of their ~70 `_`-separated
fields (`Cijk_Alik_Bljk_BBS_BH_Bias_…_MT128x256x32_…` against `…_MT320x224x64_…`), CUTLASS and CK templates
share their namespaces and most template arguments, Ascend names share `aclnn…_`. Clipping their ends
therefore makes them all look alike. `shorten` instead

1. splits each name into words at separators (`_ : < > , ( ) { } [ ] / . = # & * -` and spaces),
2. elides (as `…`) the words that every other name of its family (the names with the same first word) holds
   too, keeping the first word,
3. cuts what is still too long in the middle (`…`), keeping its start and its end,
4. and, where two different names would still print alike, shows the window starting at the first word where
   they differ; if even that cannot tell them apart within the width, numbers them (`~1`, `~2`).

The same name always prints the same way within one table. `tidy_text` does the same for a sentence (a note,
an error): an Itanium-mangled name in it is demangled and cut in the middle."""
import difflib
import re

ELLIPSIS = "…"
SEPARATORS = re.compile(r"([\s_:<>,(){}\[\]/.=#&*-]+)")
# words of C++ names that never tell two instances apart (namespaces, qualifiers)
NOISE = {"void", "const", "at", "native", "c10", "std", "detail", "anonymous", "namespace", "operator", "lambda",
         "cuda", "unsigned", "struct", "class"}
MANGLED = re.compile(r"_Z[A-Za-z0-9_$.]{16,}")


def words(name: str) -> list[str]:
    """Alternating words and separators: [word, sep, word, sep, ..., word]."""
    return SEPARATORS.split(name)


def middle(text: str, width: int, head: float = 0.45) -> str:
    """`text` cut to `width` characters with one `…` in the middle (its start and end kept)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    first = max(1, int((width - 1) * head))
    last = width - 1 - first
    return text[:first] + ELLIPSIS + (text[-last:] if last else "")


def _joined(parts: list[str], keep: list[bool]) -> str:
    """The words of `parts` (words and separators) whose `keep` is set; each run of left-out words is one
    `…`."""
    out = [parts[0]]
    skipping = False
    for i in range(2, len(parts), 2):
        sep, word = parts[i - 1], parts[i]
        if not keep[i // 2]:
            if word and not skipping:
                out.append(ELLIPSIS)
            skipping = skipping or bool(word)
            continue
        out.append(word if skipping else sep + word)
        skipping = False
    return "".join(out)


def _elide(name: str, common: set[str], width: int | None = None) -> str:
    """`name` without the words in `common` (its first word is always kept), each run of elided words one
    `…`; within `width`, elided words are given back from the left while the name still fits."""
    parts = words(name)
    keep = [True] + [bool(w) and w not in common for w in parts[2::2]]
    text = _joined(parts, keep)
    if width is None or len(text) >= width:
        return text
    for k in range(1, len(keep)):
        if keep[k]:
            continue
        keep[k] = True
        longer = _joined(parts, keep)
        if len(longer) > width:
            keep[k] = False
            break
        text = longer
    return text


def _common_words(names: list[str]) -> dict[str, set[str]]:
    """Per family (first word), the words every name of the family holds, when the family has two or more
    names; a family of one shares nothing."""
    families: dict[str, list[set[str]]] = {}
    for n in names:
        parts = words(n)
        families.setdefault(parts[0], []).append(set(parts[2::2]))
    return {f: set.intersection(*sets) if len(sets) > 1 else set() for f, sets in families.items()}


def _window(name: str, others: list[str], width: int) -> str:
    """The name from its first word that differs from every other of `others` (its first word kept before
    it), cut at the end to `width`."""
    parts = words(name)[::2]
    at = 0
    for o in others:
        theirs = words(o)[::2]
        k = next((i for i, (a, b) in enumerate(zip(parts, theirs)) if a != b), min(len(parts), len(theirs)))
        at = max(at, k)
    if at <= 1:
        return middle(name, width)
    tail = name[sum(len(p) for p in words(name)[:2 * at]):]
    text = parts[0] + ELLIPSIS + tail
    return text if len(text) <= width else text[:width - 1] + ELLIPSIS


def shorten(values: list, width: int) -> tuple[list, bool]:
    """The column's values fit to `width` characters, distinct names kept distinct; also whether any two
    could only be told apart by a number (`~N`)."""
    distinct = list(dict.fromkeys(v for v in values if v))
    if all(len(v) <= width for v in distinct):
        return values, False
    common = _common_words([v for v in distinct if len(v) > width])
    short = {}
    for v in distinct:
        if len(v) <= width:
            short[v] = v
            continue
        elided = _elide(v, common.get(words(v)[0], set()), width)
        short[v] = middle(elided if len(elided) < len(v) else v, width, head=0.25 if "/" in v else 0.45)
    numbered = False
    for _ in range(2):
        seen: dict[str, list[str]] = {}
        for v, s in short.items():
            seen.setdefault(s, []).append(v)
        clashes = [group for group in seen.values() if len(group) > 1]
        if not clashes:
            break
        for group in clashes:
            for v in group:
                short[v] = _window(v, [o for o in group if o != v], width)
    seen = {}
    for v, s in short.items():
        seen.setdefault(s, []).append(v)
    for s, group in seen.items():
        if len(group) > 1:
            numbered = True
            for k, v in enumerate(group, 1):
                mark = f"~{k}"
                short[v] = middle(s, max(1, width - len(mark))) + mark
    return [short.get(v, v) if v else v for v in values], numbered


def tidy_text(text: str, width: int) -> str:
    """A note or an error for a terminal of `width` columns: mangled names demangled, every word (a name, a
    path) longer than half the width and every `;`-separated clause longer than two lines cut in
    the middle."""
    from tracedb.ingest.kernel_names import demangle

    def readable(m):
        return middle(demangle(m.group()), max(24, width // 2))
    text = MANGLED.sub(readable, text)
    cap = max(24, width // 2)
    text = " ".join(middle(w, cap) if len(w) > cap else w for w in text.split(" "))
    # a clause (between `; `) longer than the width, such as a full kernel name, is cut to one line
    return "; ".join(middle(c, width - 8) if len(c) > 2 * width else c for c in text.split("; "))


def wrapped(prefix: str, text: str, width: int, max_lines: int = 6) -> str:
    """`prefix + text` wrapped at `width` (continuation lines indented by two), at most `max_lines` lines
    (the last ends in `…` when cut; --wide shows it whole)."""
    import textwrap
    lines = textwrap.wrap(prefix + tidy_text(text, width), max(20, width), break_long_words=True,
                          subsequent_indent="  ", break_on_hyphens=False)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][:max(0, width - 1)].rstrip() + ELLIPSIS
    return "\n".join(lines)


def distinguished(pairs: list[tuple]) -> dict:
    """For (name, short name) pairs whose short name stands for more than one name: (name, short) -> the
    short name followed by the words of the (demangled) name that the other names of that short name lack,
    at most eight of them (namespaces and qualifiers left out)."""
    from tracedb.ingest.kernel_names import demangle
    by_short: dict[str, set[str]] = {}
    for name, short in pairs:
        if name and short:
            by_short.setdefault(short, set()).add(name)
    out = {}
    for short, names in by_short.items():
        if len(names) < 2:
            continue
        full = {n: demangle(n) if n.startswith("_Z") else n for n in names}
        split = {n: [w for w in words(t)[::2] if w] for n, t in full.items()}
        for n in names:
            own = []
            for o in names - {n}:
                match = difflib.SequenceMatcher(None, split[n], split[o], autojunk=False)
                own += [i for tag, i1, i2, _, _ in match.get_opcodes() if tag != "equal" for i in range(i1, i2)]
            own = list(dict.fromkeys(split[n][i] for i in sorted(set(own)) if split[n][i] not in NOISE))
            more = " " + ELLIPSIS if len(own) > 8 else ""
            out[(n, short)] = f"{short} <{' '.join(own[:8])}{more}>" if own else short
    return out
