"""Text from a trace, a file name or a store is shown, never obeyed: the characters that would restyle,
split or reorder a terminal line are shown as Python escapes.

CONTROL are C0 and C1 controls (ESC starts the sequences that clear the screen, set the window title or
write the clipboard through OSC 52; CR and LF split a line or a table row), DEL, and the Unicode line and
paragraph separators. UNSAFE adds the bidirectional overrides and isolates, which display text in another
order than it is stored. A run name holds no CONTROL character (cli/options.py, ingest/run_source.py); an
error line, a note and the terminal and Markdown tables show UNSAFE ones escaped (ESC as \\x1b)."""
import re

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with the UNSAFE characters shown as escapes (ESC as \\x1b, a newline as \\n)."""
    text = str(text)
    if not UNSAFE.search(text):
        return text
    return UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
