"""The values the segmentation's options take, written once: the command line's choices and checks
(engine/reports/shared_options.py, cli/options.py), the checks of a bound call (binding.py), the kept
segmentations' keys (snapshots.py) and every report's pass selection read them here. Imports no more than
tracedb.errors, so that the command line's start-up does not pay for the segmentation."""
from dataclasses import dataclass

from tracedb.errors import UsageError, refusal

# --window: full, every kernel of a pass in its prologue or a layer; strict, first to last anchor
WINDOWS = ("full", "strict")
# --phase: the phases a training trace's passes are segmented in (report roofline also takes "all")
PHASES = ("forward", "backward")
# --pass: every pass; the steady one; the steady one, else the last full one; the mean of the steady ones
PASS_WORDS = ("all", "steady", "auto", "mean")
# a pass number is below it (a 10k-token decode has 10k passes)
MAX_PASSES = 10_000_000


@dataclass(frozen=True)
class PassSpec:
    """`--pass`, parsed once where a call comes in (the command line, tracedb.report, build_report): one of
    PASS_WORDS, or a pass `number` (then `word` is empty)."""
    word: str = "all"
    number: int | None = None

    @staticmethod
    def problem(value) -> tuple[str, str] | None:
        """None when `value` is a --pass (any case, spaces around it, an int from Python), else (what is
        wrong, what --pass takes)."""
        text = str(value).strip().lower()
        if text in PASS_WORDS:
            return None
        if isinstance(value, bool) or not (text.isascii() and text.isdigit()):
            return "unknown", "a pass number, all, steady, auto or mean"
        if int(text) >= MAX_PASSES:
            return "out of range", f"a pass number from 0 to {MAX_PASSES - 1}"
        return None

    @classmethod
    def parse(cls, value) -> "PassSpec":
        """`value` as the command line or Python gives it, or a PassSpec as it is. Raises UsageError naming the
        value and what --pass takes."""
        if isinstance(value, PassSpec):
            return value
        problem = cls.problem(value)
        if problem:
            raise UsageError(refusal("--pass", value, *problem))
        text = str(value).strip().lower()
        return cls(text) if text in PASS_WORDS else cls("", int(text))

    @property
    def chosen(self) -> bool:
        """The passes are chosen run by run (steady, auto, mean), not named."""
        return self.word in ("steady", "auto", "mean")

    def __str__(self) -> str:
        return self.word or str(self.number)


ALL_PASSES = PassSpec("all")
