"""What the docs generators share: a block of a page between a begin and an end marker line, replaced
whole, and the command line of a generator (`--write` rewrites the page, else the block goes to stdout).

A generator imports this module beside it: `sys.path` gets the generator's own folder first, as running
`python docs/gen_x.py` gives it."""
import sys


def replaced(text: str, begin: str, end: str, block: str) -> str:
    """`text` with the lines from `begin` to `end` (both kept in `block`) replaced by `block`."""
    head, rest = text.split(begin, 1)
    return head + block + rest.split(end, 1)[1]


def main(doc: str, updated, preview: str) -> None:
    """`--write`: the page at `doc` rewritten by `updated(text)`; else `preview` printed."""
    if "--write" in sys.argv[1:]:
        with open(doc, encoding="utf-8") as f:
            text = updated(f.read())
        with open(doc, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(preview + "\n")
