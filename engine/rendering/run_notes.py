"""Notes that say the same thing of many runs, said once: a job of 128 ranks gave 128 notes `run 'X': anchor
chosen: ...` and 128 pass-split notes that differ only in the run's name and a gap or two. Notes of one run,
and notes about no run, stay as they are."""
import re

_OF_RUN = re.compile(r"run '([^']*)': (.*)", re.S)
# a minus sign only where no word or number ends just before it: `layers 13-23` holds 13 and 23, not -23
_NUMBER = re.compile(r"(?:(?<![\w.)])-)?\d[\d,]*(?:\.\d+)?")
SHOWN = 4      # run names a merged note lists before "and N more"


def merged(notes: list[str]) -> list[str]:
    """`notes` with every set of `run 'X': BODY` notes whose bodies differ at most in their numbers made one
    note, where the first of them stood: `runs 'A', 'B' and 3 more (5 runs): BODY`, each number that differs
    between them shown as its range over the runs (`250.0–260.7`)."""
    groups: dict[str, list[tuple[str, list[str]]]] = {}
    order: list[tuple[str | None, str]] = []
    for note in notes:
        m = _OF_RUN.fullmatch(note)
        if not m:
            order.append((None, note))
            continue
        name, body = m.groups()
        template = _NUMBER.sub("\0", body)      # NUL: never in a note (shown.printable escapes it)
        if template not in groups:
            groups[template] = []
            order.append((template, note))
        groups[template].append((name, _NUMBER.findall(body)))
    out = []
    for template, note in order:
        runs = groups.get(template) if template is not None else None
        if not runs or len(runs) == 1:
            out.append(note)
            continue
        # a run that says it more than once (of its forward and its backward passes): its k-th note is merged
        # with the other runs' k-th, never with its own
        seen: dict[str, int] = {}
        rounds: list[list[tuple[str, list[str]]]] = []
        for name, nums in runs:
            k = seen[name] = seen.get(name, -1) + 1
            if k == len(rounds):
                rounds.append([])
            rounds[k].append((name, nums))
        out.extend(_one(template, r) for r in rounds)
    return out


def _one(template: str, runs: list[tuple[str, list[str]]]) -> str:
    """The note of `runs` (each named once): as written for one run, else merged over them."""
    if len(runs) == 1:
        return f"run '{runs[0][0]}': " + _filled(template, runs[0][1])
    names = [f"'{n}'" for n, _ in runs]
    numbers = [_span([nums[i] for _, nums in runs]) for i in range(len(runs[0][1]))]
    return f"runs {listed(names, SHOWN)} ({len(names)} runs): " + _filled(template, numbers)


def _filled(template: str, numbers: list[str]) -> str:
    it = iter(numbers)
    return re.sub("\0", lambda _: next(it), template)


def listed(items: list[str], shown: int) -> str:
    """Items for a note: all of a few, else the first `shown` and how many more (a note of a 128-rank job
    names 128 runs otherwise)."""
    if len(items) <= shown + 1:
        return ", ".join(items) or "none"
    return ", ".join(items[:shown]) + f" and {len(items) - shown} more"


def _span(values: list[str]) -> str:
    """One number as written when every run has it, else `least–most` over the runs."""
    if len(set(values)) == 1:
        return values[0]
    key = lambda v: float(v.replace(",", ""))   # noqa: E731
    return f"{min(values, key=key)}–{max(values, key=key)}"
