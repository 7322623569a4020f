"""The rules of `tracedb advise` and their thresholds (docs/advise.md says where each default comes from;
each rule's SQL file repeats it)."""
from tracedb.errors import UsageError

# rule -> {key: default}; every key can be set with --threshold RULE.KEY=VALUE
RULES = {
    "idle-gap": {"min_gap_us": 1000.0},
    "exposed-comm": {"min_pct": 5.0},
    "slow-rank": {"min_excess_pct": 5.0},
    "roofline-gap": {"min_share_pct": 3.0, "max_achieved_pct": 30.0},
    "host-bound": {"min_pct": 10.0},
    "sync-in-step": {"min_pct": 1.0},
    "slow-link": {"min_instances": 5.0, "min_excess_pct": 50.0, "min_excess_us": 20.0, "min_pct": 1.0},
    "small-collectives": {"max_bytes": 1048576.0, "min_per_step": 8.0, "min_pct": 3.0},
    "pipeline-bubble": {"min_pct": 5.0},
    "pageable-copy": {"min_pct": 1.0},
    "moe-imbalance": {"min_excess_pct": 20.0, "min_pct": 1.0},
    "regression": {"min_pct": 5.0},
    "launch-bound": {"max_launch_us": 50.0, "min_kernels": 20.0, "min_pct": 3.0},
    "fusion": {"min_times": 5.0, "min_pct": 1.0},
    "low-utilisation": {"min_gap_us": 20.0, "min_span_us": 1000.0, "max_busy_pct": 50.0, "min_pct": 3.0},
}
SEVERITIES = ("info", "low", "medium", "high", "critical")


def thresholds(given=()) -> dict:
    """The defaults with each `RULE.KEY=VALUE` of `given` applied; a wrong rule, key or value is a UsageError."""
    out = {rule: dict(keys) for rule, keys in RULES.items()}
    for item in given or ():
        name, eq, value = str(item).partition("=")
        rule, dot, key = name.strip().partition(".")
        if not eq or not dot:
            raise UsageError(f"--threshold {item!r}: expected RULE.KEY=VALUE (e.g. idle-gap.min_gap_us=500)")
        if rule not in RULES:
            raise UsageError(f"--threshold {item!r}: no rule {rule!r}; rules: {', '.join(RULES)}")
        if key not in RULES[rule]:
            raise UsageError(f"--threshold {item!r}: rule {rule} has no threshold {key!r}; it has "
                             + ", ".join(RULES[rule]))
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not (number >= 0 and number != float("inf")):
            raise UsageError(f"--threshold {item!r}: expected a finite number >= 0")
        out[rule][key] = number
    return out


def severity_at_least(severity: str, floor: str) -> bool:
    return SEVERITIES.index(severity) >= SEVERITIES.index(floor)


def described(th: dict) -> str:
    """The thresholds as one line for a note."""
    return "; ".join(f"{rule}: " + ", ".join(f"{k}={v:.15g}" for k, v in keys.items()) for rule, keys in th.items())
