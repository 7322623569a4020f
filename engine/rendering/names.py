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
4. and, where two different names would still print alike, shows their first word and the stretch where they
   differ, read from the end when that is where they part (TensorRT-LLM's `fmhaSm100aKernel_…` cubins differ
   in their last words); only names that differ in places too far apart for the width are numbered (`~1`).

The same name always prints the same way within one table. `tidy_text` readies a sentence (a note, an error):
an Itanium-mangled name in it is demangled, a name longer than a line cut in the middle; the sentence itself
wraps, uncut. `distinguished` gives kernels that share a short name the words that tell them apart."""
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
    """`text` cut to `width` characters with one `…` in the middle (its start and end kept). The end starts
    with a whole word where one starts within three characters (`…PersistentContext`, not `…ersistentContext`):
    the start gives way, or takes the characters the end leaves."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    first = max(1, int((width - 1) * head))
    last = width - 1 - first
    if last > 3 and first > 3:
        cut = len(text) - last
        starts = [i for i in _starts(text[cut - 3:cut + 4]) if i] if cut > first + 3 else []
        if starts:
            moved = min((cut - 3 + i for i in starts), key=lambda i: (abs(i - cut), -i))
            first, last = first + (moved - cut), len(text) - moved
    # a cut next to an elision already in the text (`elementwise…` + `…12 BFloat16`) is one `…`, not two
    return (text[:first].rstrip(ELLIPSIS) + ELLIPSIS + (text[-last:] if last else "").lstrip(ELLIPSIS))


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
    `…`; within `width`, elided words are given back while the name still fits: its last word first (the op
    of `index_elementwise_kernel[index]`, where `index` is common to its family), then from the left."""
    parts = words(name)
    keep = [True] + [bool(w) and w not in common for w in parts[2::2]]
    text = _joined(parts, keep)
    if width is None or len(text) >= width:
        return text
    last = max((k for k in range(len(keep)) if parts[2 * k]), default=0)
    if not keep[last]:
        keep[last] = True
        longer = _joined(parts, keep)
        if len(longer) > width:
            keep[last] = False
        else:
            text = longer
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


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def _starts(text: str) -> list[int]:
    """Where a word starts in `text`: after a separator, at a change to an upper-case letter and between digits
    and letters (`fmhaSm100aKernel` -> fmha, Sm, 100, a, Kernel), so that a window cut there begins with a whole
    word."""
    out = [0]
    for i in range(1, len(text)):
        a, b = text[i - 1], text[i]
        if (not a.isalnum() and b.isalnum()) or (a.islower() and b.isupper()) or (a.isdigit() != b.isdigit()
                                                                                     and b.isalnum()):
            out.append(i)
    return out


def _told_apart(group: list[str], width: int) -> dict[str, str] | None:
    """Names that print alike, each shown as its first word, `…` and the stretch where the names differ,
    `width` characters at most: read from the left when they part early, from the right when they part late
    (`fmhaSm100aKernel…Kv128PersistentContext` beside `…Kv128StaticContext`). Every two of them differ inside
    the stretch shown, so they print differently; None when no stretch within the width holds every place
    where two of them part."""
    pairs = [(a, b) for i, a in enumerate(group) for b in group[i + 1:]]
    options = []
    for side in ("left", "right"):
        parts = [_common_prefix(a, b) if side == "left" else _common_prefix(a[::-1], b[::-1]) for a, b in pairs]
        options.append((max(parts) - min(parts), side, min(parts), max(parts)))
    for _, side, lo, hi in sorted(options):
        out = {v: _stretch(v, lo, hi, width, side) for v in group}
        if None not in out.values() and len(set(out.values())) == len(group):
            return out
    return None


def _stretch(name: str, lo: int, hi: int, width: int, side: str) -> str | None:
    """`name` in `width` characters: its first word, `…` and the part holding the places `lo` to `hi`
    (counted from its start, or for side `right` from its end), then `…` where more follows."""
    if len(name) <= width:
        return name
    head = words(name)[0][:max(4, width // 4)]
    room = width - len(head) - 2           # the head, `…` before the stretch and `…` after it
    if room < hi - lo + 1 or room < 4:
        return None
    if side == "right":                     # positions from the end -> from the start
        lo, hi = len(name) - 1 - hi, len(name) - 1 - lo
    # a third of the spare room before the first difference, two thirds after the last
    start = min(lo, max(0, hi - room + 1, lo - (room - (hi - lo + 1)) // 3))
    if side == "right" and hi >= len(name) - 1 - room // 2:   # near the end: show the end, no `…` after it
        start = len(name) - (room + 1)
    slack = start + room - 1 - hi           # how far back the stretch may start, to begin with a whole word
    near = [b for b in _starts(name) if start - slack <= b <= start]
    start = max(near) if near else start
    if start <= len(head) + 1:              # the stretch starts at the name's start: no head needed
        return name[:width - 1] + ELLIPSIS
    end = start + room + (1 if start + room + 1 >= len(name) else 0)
    return head + ELLIPSIS + name[start:end] + (ELLIPSIS if end < len(name) else "")


def _nearest(v: str, group: list[str]) -> str:
    """The name of `group` that shares the longest start or end with `v` (the one it is hardest to tell from)."""
    return max((o for o in group if o != v),
               key=lambda o: max(_common_prefix(v, o), _common_prefix(v[::-1], o[::-1])))


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
        first = words(v)[0]
        if len(elided) > width and elided.startswith(first + ELLIPSIS) and len(first) > 4:
            # the family's first word, shared by all its names, gives way before the words that differ
            # (`elem…add] <8 BFloat16>`, not `elementwise…a…8 BFloat16`)
            elided = first[:max(4, len(first) - (len(elided) - width))] + elided[len(first):]
        # a path keeps its file name, an id (a hash: one word of letters and digits) both ends alike
        short[v] = middle(elided if len(elided) < len(v) else v, width,
                          head=0.25 if "/" in v else 0.5 if v.isalnum() else 0.45)
    for _ in range(3):
        seen: dict[str, list[str]] = {}
        for v, s in short.items():
            seen.setdefault(s, []).append(v)
        clashes = [group for group in seen.values() if len(group) > 1]
        if not clashes:
            break
        for group in clashes:
            apart = _told_apart(group, width)
            if apart is None:        # no one stretch holds every difference: each shows where it parts from
                apart = {v: (_told_apart([v, _nearest(v, group)], width) or {v: short[v]})[v] for v in group}
            short.update(apart)
    seen = {}
    for v, s in short.items():
        seen.setdefault(s, []).append(v)
    groups = [group for group in seen.values() if len(group) > 1]
    # each group numbered from 1; where cutting room for the numbers makes two groups' texts alike, one
    # numbering runs over every group, so no two names share a text
    for one_count in (False, True):
        marked = {}
        for g, group in enumerate(groups):
            for k, v in enumerate(group, 1 + (sum(len(x) for x in groups[:g]) if one_count else 0)):
                mark = f"~{k}"
                marked[v] = middle(short[v], max(1, width - len(mark))) + mark
        if len(set(marked.values())) == len(marked):
            break
    short.update(marked)
    return [short.get(v, v) if v else v for v in values], bool(groups)


def _units(text: str) -> list[str]:
    """`text` split at its spaces, except inside a C++ name's brackets: `void f<int, 2>(x, y)` stays one unit.
    A bracket opens a name only right after a name's character (`f<`, `f(`, `>(`), so the brackets of prose,
    `(the capture starts mid-pass: …)`, split as any words do."""
    closing = {"<": ">", "(": ")", "[": "]", "{": "}"}
    units, cur, stack, prev = [], [], [], " "
    for ch in text:
        if ch == " " and not stack:
            units.append("".join(cur))
            cur, prev = [], ch
            continue
        if stack:
            if ch in closing:
                stack.append(closing[ch])
            elif ch == stack[-1]:
                stack.pop()
        elif ch in "<(" and (prev.isalnum() or prev == "_" or (ch == "(" and prev == ">")):
            stack.append(closing[ch])
        cur.append(ch)
        prev = ch
    if stack:       # a bracket never closed (a name cut short): its unit splits at spaces after all
        units += "".join(cur).split(" ")
    else:
        units.append("".join(cur))
    return units


def tidy_text(text: str, width: int) -> str:
    """A note or an error for a terminal of `width` columns: mangled names demangled; a name (a C++ name with
    its brackets, a path, an id) longer than a line cut in the middle, keeping both ends (a path keeps its file
    name). The sentences themselves are never cut: they wrap."""
    from tracedb.ingest.kernel_names import demangle
    text = MANGLED.sub(lambda m: demangle(m.group()), text)
    cap = max(24, width - 4)        # a line, indented by two
    return " ".join(middle(u, cap, head=0.25 if "/" in u and " " not in u else 0.45) if len(u) > cap else u
                    for u in _units(text))


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
    at most eight of them (namespaces and qualifiers left out): `elementwise_kernel[direct_copy] <4 long>`
    beside `<2 float>`. No two names get the same text: where those words are alike (names that differ only
    in a namespace, or in more than eight words), the qualifiers count too, then every differing word, then
    a number (`#2`)."""
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
        own = {}
        for n in names:
            at = set()
            for o in names - {n}:
                match = difflib.SequenceMatcher(None, split[n], split[o], autojunk=False)
                at |= {i for tag, i1, i2, _, _ in match.get_opcodes() if tag != "equal" for i in range(i1, i2)}
            own[n] = [split[n][i] for i in sorted(at)]
        texts = {n: _with_words(short, own[n], NOISE, 8) for n in names}
        for noise, most in ((set(), 8), (set(), None)):
            alike = _alike(texts)
            for n in alike:
                texts[n] = _with_words(short, own[n], noise, most)
        for k, n in enumerate(sorted(_alike(texts), key=lambda n: (texts[n], full[n]))):
            texts[n] = f"{texts[n]} #{k + 1}"
        out.update({(n, short): s for n, s in texts.items()})
    return out


def _with_words(short: str, own: list[str], noise: set, most: int | None) -> str:
    """`short <w1 w2 …>`: the words of `own` not in `noise`, each once, at most `most` of them."""
    kept = list(dict.fromkeys(w for w in own if w not in noise))
    if not kept:
        return short
    shown = kept if most is None else kept[:most]
    return f"{short} <{' '.join(shown)}{' ' + ELLIPSIS if len(shown) < len(kept) else ''}>"


def _alike(texts: dict) -> list:
    """The keys of `texts` whose text another key has too."""
    count: dict[str, int] = {}
    for s in texts.values():
        count[s] = count.get(s, 0) + 1
    return [n for n, s in texts.items() if count[s] > 1]
