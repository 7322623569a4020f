"""One trace to ingest, checked before anything is written: its source (tracedb.ingest.sources), run name, tags
and --core-rule rules, and its content hash started on a thread (tracedb.engine.loading.hashing), as a _Job."""
import contextlib
import copy
import time
from dataclasses import dataclass

import duckdb

from tracedb.errors import UsageError
from tracedb.engine.loading import hashing
from tracedb.patterns import check_regex
from tracedb.engine.store.connect import parse_tags
from tracedb.engine.store.schema import NO_NETWORK
from tracedb.ingest import formats, sources


def _parse_core_rules(rules) -> list[tuple[str, str]]:
    """`REGEX=CLASS` strings -> (pattern, class), in order; checked before the built-in AIC/AIV/AICPU naming."""
    out = []
    for r in rules or []:
        pat, sep, cls = str(r).rpartition("=")
        if not sep or not pat or not cls.strip():
            raise UsageError(f"--core-rule {r!r}: expected REGEX=CLASS, e.g. '^Channel_[0-7]$=AIC'")
        out.append((pat, cls.strip().upper()))
    return out


@dataclass
class _Job:
    """One trace to ingest: what it is, what to call it, and its content hash (running on a thread)."""
    src: sources.Source
    name: str
    tag_map: dict
    core_rules: list
    replace: bool
    hasher: hashing.Hasher
    t0: float
    capture: bool = False   # a graph capture trace: its launch calls keep their kernel's name (--capture)


@contextlib.contextmanager
def _scratch():
    con = duckdb.connect(config=dict(NO_NETWORK))
    try:
        yield con
    finally:
        con.close()


def _prepare(con, path, name, tags, replace, core_rules, agent=None, reader=None, lazy_hash=False,
             capture=False, source=None) -> _Job:
    """Check the call and the trace before anything is written; starts the content hash (`lazy_hash`: it runs
    when first needed, on that thread). `source`: what the path resolved to when the ingest was planned
    (engine/loading/folder.py), used as it is instead of resolving the path again (a copy: reading sets its
    fields)."""
    t0 = time.perf_counter()
    tag_map = parse_tags(tags)
    rules = _parse_core_rules(core_rules)
    for pattern, _ in rules:
        check_regex(con, pattern, "--core-rule")
    src = copy.deepcopy(source) if source is not None else sources.resolve(path, reader)
    hasher = hashing.hasher_for(src.files, lazy=lazy_hash)
    if agent is not None and formats.by_name(src.reader).several:
        src.agent, hasher = agent, hashing.for_agent(hasher, agent)   # one device of the file: its own content
    hasher = hashing.with_core_rules(hasher, rules)
    return _Job(src=src, name=name or src.default_name, tag_map=tag_map, core_rules=rules, replace=replace,
                hasher=hasher, t0=t0, capture=bool(capture))
