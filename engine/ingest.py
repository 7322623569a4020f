"""Ingest one trace (file or profiler folder) as one run, in one transaction.

Either the whole run lands (run row, every kernel row, duplicate marks) or the store is unchanged.
The content hash (sha256 over the source bytes, ~0.5 s for 464 MB; tracedb.engine.hashing) runs in a thread
beside DuckDB's parse, so it costs little wall time; identical content is detected and skipped unless
`replace`."""
import json
import time
from dataclasses import dataclass

import duckdb

from tracedb import __version__, sql
from tracedb.errors import InputError, UsageError
from tracedb.engine import hashing
from tracedb.engine.patterns import check_regex
from tracedb.engine.store import parse_tags
from tracedb.ingest import ascend_csv, chrome_json, kernel_names, sources


@dataclass
class IngestResult:
    name: str
    run_id: int | None
    status: str            # ingested | skipped | replaced
    rows: int = 0
    duplicates: int = 0
    seconds: float = 0.0
    bytes: int = 0
    same_as: str | None = None
    truncated: bool = False
    inflated: int | None = None   # a .gz trace's JSON bytes

    def summary(self, named: bool = False) -> str:
        """One line; `named`: a skipped trace says which run it would have been (folder ingests)."""
        if self.status == "skipped":
            return (f"skipped{f' run {self.name!r}' if named else ''}: identical content is already run "
                    f"'{self.same_as}' (use --replace to ingest again)")
        mb, secs = self.bytes / 1e6, max(self.seconds, 1e-9)
        cut = "; the file is cut short (crashed run?): the complete events were kept" if self.truncated else ""
        size = (f"{mb:.1f} MB gzip, {self.inflated / 1e6:.1f} MB inflated, in {self.seconds:.2f} s "
                f"({self.inflated / 1e6 / secs:.0f} MB/s inflated)" if self.inflated is not None
                else f"{mb:.1f} MB in {self.seconds:.2f} s ({mb / secs:.0f} MB/s)")
        return (f"{self.status} run '{self.name}': {self.rows:,} kernel rows ({self.duplicates:,} duplicates not "
                f"counted), {size}{cut}")


def checkpoint_appended(con):
    """Write the run's rows to the file now, without DuckDB's vacuum: at the default checkpoint (on close)
    it merges the partly filled row groups that each committed part ends with, which rewrote ~11 MB and
    took 0.4 s after a 1 GB trace for no gain in reading. A checkpoint that cannot run now (another
    transaction of an API user is open) is left to DuckDB's next one."""
    before = con.execute("SELECT current_setting('max_vacuum_tasks')").fetchone()[0]   # an API user's own
    try:
        con.execute("SET max_vacuum_tasks = 0")
        con.execute("CHECKPOINT")
    except duckdb.Error:
        pass
    finally:
        con.execute("SET max_vacuum_tasks = $v", {"v": before})


def _parse_core_rules(rules) -> list[tuple[str, str]]:
    """`REGEX=CLASS` strings -> (pattern, class), in order; checked before the built-in AIC/AIV rules."""
    out = []
    for r in rules or []:
        pat, sep, cls = str(r).rpartition("=")
        if not sep or not pat or not cls.strip():
            raise UsageError(f"--core-rule {r!r}: expected REGEX=CLASS, e.g. '^Channel_[0-7]$=AIC'")
        out.append((pat, cls.strip().upper()))
    return out


def ingest_path(con, path: str, name: str | None = None, tags=None, replace: bool = False,
                core_rules=None) -> IngestResult:
    t0 = time.perf_counter()
    tag_map = parse_tags(tags)
    rules = _parse_core_rules(core_rules)
    for pattern, _ in rules:
        check_regex(con, pattern, "--core-rule")
    src = sources.resolve(path)
    name = name or src.default_name
    hasher = hashing.hasher_for(src.files)
    retry = {"as_text": set(), "parts": None, "safe": False}
    while True:
        try:
            outcome = _load_run(con, src, name, tag_map, replace, hasher, retry, rules)
            break
        except ascend_csv.NotNumeric as e:   # rare: a metric column with text past the sampled rows
            con.execute("ROLLBACK")
            retry["as_text"].add(e.index)
        except chrome_json.RetrySafely:      # rare: a cut inside an event, or args of unexpected types
            retry.update(parts=1, safe=True)
    if outcome[0] == "skipped":
        return IngestResult(name=name, run_id=None, status="skipped", same_as=outcome[1],
                            seconds=time.perf_counter() - t0, bytes=hasher.size)
    checkpoint_appended(con)
    status, run_id, rows, dups, truncated, inflated = outcome
    return IngestResult(name=name, run_id=run_id, status=status, rows=rows, duplicates=dups,
                        seconds=time.perf_counter() - t0, bytes=hasher.size, truncated=truncated, inflated=inflated)


def _load_run(con, src, name, tag_map, replace, hasher, retry, core_rules):
    """The run's rows, then one transaction: duplicate marks, run row, stats. ('skipped', same_as) when the
    content is known, else (status, run_id, rows, duplicates, truncated, inflated bytes of a .gz). On any
    error the store is left as it was: the transaction is rolled back, and a Chrome trace's committed
    parts are removed."""
    run_id = con.execute("SELECT coalesce(max(run_id), 0) + 1 FROM runs").fetchone()[0]
    facts = {"format": src.format, "device_kind": src.device_kind, "clock_domain": src.clock_domain,
             "rank": src.rank, "truncated": False, "inflated_bytes": None}
    chrome = src.format == "chrome-json"
    if chrome:
        facts.update(_load_chrome_parts(con, run_id, src, retry, core_rules))
    con.execute("BEGIN")
    try:
        columns = _finish_rows(con, run_id, src, retry, core_rules, chrome)
        same = _runs_of_same_content(con, hasher)
        if same and not replace:
            _abandon(con, run_id, chrome)
            return "skipped", same[0][1]
        replaced = _delete_replaced(con, name, same, replace)
        _insert_run_row(con, run_id, name, tag_map, src, hasher, facts, columns)
        rows, dups = sql.run(con, "ingest_run_stats", {"run_id": run_id}).fetchone()
        if rows == 0:
            raise InputError(f"{src.files[0]}: header only, no kernel rows; expected at least one data line")
        kernel_names.fill(con, run_id)
        con.execute("COMMIT")
    except ascend_csv.NotNumeric:
        raise   # the caller rolls back and retries
    except BaseException:
        _abandon(con, run_id, chrome)
        raise
    return ("replaced" if replaced else "ingested"), run_id, rows, dups, facts["truncated"], facts["inflated_bytes"]


def _load_chrome_parts(con, run_id, src, retry, core_rules) -> dict:
    """A Chrome trace's events, committed part by part but invisible until the run's transaction adds its
    runs row; removed again when loading fails. Returns the facts the file gives about the run."""
    sql.run(con, "ingest_pending", {"run_id": run_id})
    try:
        return chrome_json.load(con, run_id, src.files[0], parts=retry["parts"], safe=retry["safe"],
                                core_rules=core_rules)
    except BaseException:
        sql.run(con, "discard_pending", {"run_id": run_id})
        raise


def _finish_rows(con, run_id, src, retry, core_rules, chrome) -> tuple[list, list]:
    """Inside the run's transaction: a Chrome trace's tracks, tasks and cores (and the check that it holds
    device activity), or an Ascend CSV's rows. Returns (metric columns, extra columns) of the runs row."""
    if not chrome:
        metric_cols, extra_cols = ascend_csv.load(con, run_id, src.headers, retry["as_text"])
        sql.run(con, "ingest_finish", {"run_id": run_id})
        return metric_cols, extra_cols
    chrome_json.finish(con, run_id, core_rules)
    _check_device_activity(con, run_id, src)
    return [], []


def _check_device_activity(con, run_id, src):
    """A Chrome trace without device activity (no event with a kind) is refused, naming the threads seen
    in case they are cores."""
    kernels = con.execute("SELECT count(*) FROM trace_events WHERE run_id = $r AND kind IS NOT NULL",
                          {"r": run_id}).fetchone()[0]
    if kernels:
        return
    seen = [r[0] for r in con.execute(
        "SELECT DISTINCT thread_name FROM tracks WHERE run_id = $r AND thread_name IS NOT NULL "
        "ORDER BY 1 LIMIT 8", {"r": run_id}).fetchall()]
    names = (f"; thread names seen: {', '.join(seen)} — if those are cores, map them with "
             "--core-rule 'REGEX=AIC'") if seen else ""
    raise InputError(f"{src.path}: no device activity (no kernel, gpu_memcpy or gpu_memset events, no "
                     "threads named like cores): a CPU-only profile? Record it with "
                     f"ProfilerActivity.CUDA (or the NPU activity){names}")


def _runs_of_same_content(con, hasher) -> list:
    """(run_id, name) of the stored runs whose content hash is the source's, once the hash is done."""
    hasher.join()
    if hasher.error:
        raise InputError(f"{hasher.error.filename}: cannot read: {hasher.error.strerror}")
    return con.execute("SELECT run_id, name FROM runs WHERE content_hash = $h ORDER BY run_id",
                       {"h": hasher.digest}).fetchall()


def _delete_replaced(con, name, same, replace) -> list:
    """Deletes the runs this one replaces (same content, or same name with `replace`); returns their ids.
    Another run of this name with other content is an error without `replace`."""
    clash = con.execute("SELECT run_id FROM runs WHERE name = $n", {"n": name}).fetchone()
    if clash and not replace:
        raise UsageError(f"run '{name}' already exists with other content; choose another --name or pass --replace")
    replaced = list(dict.fromkeys([r[0] for r in same] + ([clash[0]] if clash else [])))
    if replaced:
        sql.run(con, "delete_run", {"run_ids": replaced})
    return replaced


def _insert_run_row(con, run_id, name, tag_map, src, hasher, facts, columns):
    """The runs row that makes the run's rows visible; `columns` is (metric columns, extra columns)."""
    metric_cols, extra_cols = columns
    sql.run(con, "insert_run", {
        "run_id": run_id, "name": name, "tag_keys": list(tag_map), "tag_values": list(tag_map.values()),
        "source_path": src.path, "source_files": src.files, "source_bytes": hasher.size, "format": facts["format"],
        "content_hash": hasher.digest, "rank": facts.get("rank"), "device_kind": facts["device_kind"],
        "device_name": facts.get("device_name"), "world_size": facts.get("world_size"),
        "clock_domain": facts["clock_domain"], "truncated": facts["truncated"], "metric_columns": metric_cols,
        "extra_columns": extra_cols, "metadata": json.dumps(src.metadata, sort_keys=True), "version": __version__,
        "time_base_ns": facts.get("time_base_ns")})


def _abandon(con, run_id, chrome):
    try:
        con.execute("ROLLBACK")
    except Exception:
        pass  # the transaction may already be closed by the error
    if chrome:
        sql.run(con, "discard_pending", {"run_id": run_id})
