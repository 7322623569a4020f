"""Write runs as a Parquet dataset (engine/store/dataset.py describes the layout): `tracedb export parquet` from a
store, and `tracedb ingest … --to DIR` straight from an ingest's side store.

Every base table of the store is written (found in the catalog, so tables added by later schema versions
come along), plus the counted kernels as the table `kernels`. Files go to a staging folder inside the
dataset first (`.tracedb-write-<pid>-…`, which other engines skip: Hive readers ignore names starting with
`.`), are renamed into their partition folders, and only then does the manifest name them: a reader sees
a run whole or not at all.
"""
import os
import shutil
import time
from dataclasses import dataclass, field

from tracedb import sql
from tracedb.version import __version__
from tracedb.engine.store import dataset
from tracedb.errors import StoreError, UsageError
from tracedb.ingest import leftovers

DATA_FILE = dataset.DATA_FILE
STAGE_PREFIX = ".tracedb-write-"     # + pid and a random part: a writer's staging folder inside the dataset


@dataclass
class ExportResult:
    folder: str
    runs: list[str] = field(default_factory=list)
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        return (f"wrote {len(self.runs)} run(s) to {self.folder}: {self.files} Parquet files, "
                f"{self.bytes / 1e6:.1f} MB in {self.seconds:.2f} s")


def export_parquet(db: str | None, folder: str, runs=(), tags=()) -> ExportResult:
    """Write the runs of the store at `db` (all, or those `runs`/`tags` select) as a new dataset at `folder`."""
    from tracedb.engine.store.connect import open_store
    if dataset.is_dataset_path(db):
        raise UsageError(f"--db {db}: a dataset; export parquet reads a store file (a DuckDB file)")
    con = open_store(db, read_only=True)
    try:
        return export_store(con, folder, runs, tags)
    finally:
        con.close()


def export_store(con, folder: str, runs=(), tags=()) -> ExportResult:
    """Write the runs of the store open on `con` (all, or those `runs`/`tags` select) as a new dataset at
    `folder` (a new or empty folder)."""
    from tracedb.engine.store.connect import resolve_runs
    t0 = time.perf_counter()
    ids = resolve_runs(con, runs, tags) if runs or tags else \
        [r[0] for r in sql.run(con, "run_ids").fetchall()]
    if not ids:
        raise UsageError("the store has no runs yet; nothing to export")
    created = _check_new_folder(folder)
    tables = source_tables(con)
    done = False
    try:
        stage = _stage_folder(folder)
        m = new_manifest(con, tables)
        for run_id in ids:
            files = write_run(con, run_id, run_id, tables, stage)
            m["runs"].append({**run_facts(con, run_id), "files": files})
        m["shared"] = write_whole(con, tables, stage, DATA_FILE)
        m["next_run_id"] = max(ids) + 1
        _move_into_place(stage, folder)
        dataset.write_manifest(folder, m)
        done = True
    finally:
        if not done:        # a failed or interrupted export leaves the folder as it found it (new or empty)
            shutil.rmtree(folder, ignore_errors=True) if created else _empty(folder)
        else:
            shutil.rmtree(stage, ignore_errors=True)
    res = ExportResult(folder=folder, runs=[r["name"] for r in m["runs"]], seconds=time.perf_counter() - t0)
    for dirpath, _, names in os.walk(folder):
        for n in names:
            if n.endswith(".parquet"):
                res.files += 1
                res.bytes += os.path.getsize(os.path.join(dirpath, n))
    return res


def source_tables(con) -> dict[str, list[tuple[str, str]]]:
    """Base table -> [(column, type)] of the store open on `con`."""
    out: dict[str, list[tuple[str, str]]] = {}
    for table, column, typ in sql.run(con, "dataset_tables").fetchall():
        out.setdefault(table, []).append((column, typ))
    return out


def partitioned(tables) -> list[str]:
    return [t for t, cols in tables.items() if any(c == dataset.PARTITION for c, _ in cols)]


def new_manifest(con, tables) -> dict:
    from tracedb.engine.store.schema import SCHEMA_VERSION
    kernel_cols = [(r[0], r[1]) for r in sql.run(con, "parquet_kernel_columns").fetchall()]
    described = {t: {"partition_by": dataset.PARTITION if t in partitioned(tables) else None,
                     "columns": dict(cols)} for t, cols in sorted(tables.items())}
    described[dataset.KERNELS] = {"partition_by": dataset.PARTITION, "columns": dict(kernel_cols),
                                  "view": True}
    return {"format": dataset.FORMAT, "format_version": dataset.FORMAT_VERSION, "schema_version": SCHEMA_VERSION,
            "tracedb_version": __version__, "partition_by": dataset.PARTITION, "tables": described,
            "views": [{"name": n, "sql": s} for n, s in sql.run(con, "dataset_views").fetchall()],
            "runs": [], "shared": {}, "next_run_id": 1}


def run_facts(con, run_id: int) -> dict:
    """What the manifest says of a run (for readers without tracedb, and for skipping identical content)."""
    name, tags, content_hash, source_bytes, kernels = sql.run(con, "run_facts", {"run_id": run_id}).fetchone()
    return {"run_id": run_id, "name": name, "tags": dict(tags or {}), "content_hash": content_hash,
            "source_bytes": source_bytes, "kernels": kernels}


def write_run(con, src_run_id: int, run_id: int, tables, stage: str) -> dict[str, str]:
    """Write run `src_run_id` of `con` as run `run_id` under `stage`: one file per partitioned table and the
    kernels table. Returns table -> file path relative to the dataset folder."""
    files = {}
    for table in partitioned(tables) + [dataset.KERNELS]:
        rel = os.path.join(table, f"{dataset.PARTITION}={run_id}", DATA_FILE)
        path = os.path.join(stage, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        sql.run(con, "dataset_write_run", {"run_id": src_run_id, "path": path}, table=sql.ident(table))
        files[table] = rel
    return files


def write_whole(con, tables, stage: str, filename: str) -> dict[str, list[str]]:
    """Write each table without run_id whole as `<table>/<filename>` under `stage`."""
    out = {}
    for table in tables:
        if table in partitioned(tables):
            continue
        rel = os.path.join(table, filename)
        os.makedirs(os.path.join(stage, table), exist_ok=True)
        sql.run(con, "dataset_write_whole", {"path": os.path.join(stage, rel)}, table=sql.ident(table))
        out[table] = [rel]
    return out


def _empty(folder: str):
    for n in os.listdir(folder):
        p = os.path.join(folder, n)
        shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)


def _check_new_folder(folder: str) -> bool:
    """The export's folder: missing (created, its parent must exist: True) or an empty folder (False). The
    staging folder of an export that was killed does not count: it is removed first."""
    if os.path.isdir(folder):
        leftovers.sweep(folder, STAGE_PREFIX)
        if dataset.has_manifest(folder):
            raise UsageError(f"{folder}: already a tracedb dataset; export into a new folder, or add runs to it "
                             "with `tracedb ingest TRACE --to FOLDER`")
        if os.listdir(folder):
            raise UsageError(f"{folder}: a folder that is not empty and not a tracedb dataset; expected a new or "
                             "empty folder")
    elif os.path.exists(folder):
        raise UsageError(f"{folder}: exists and is not a folder; expected a new or empty folder")
    else:
        _create(folder, folder)
        return True
    _check_writable(folder)
    return False


def _create(folder: str, label: str, shared: bool = False):
    """Make the missing folder `folder` (its parent must exist); `label` names it in errors. `shared`: a
    folder made meanwhile by another process (two ingests into one new dataset) is taken as it is."""
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent):
        raise UsageError(f"{label}: its parent folder {parent} does not exist")
    try:
        os.mkdir(folder)
    except FileExistsError:
        if not shared:
            raise StoreError(f"{folder}: made by another process meanwhile; expected a new or empty folder") from None
    except OSError as e:
        raise StoreError(f"{folder}: cannot create: {e.strerror}") from None


def _check_writable(folder: str):
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(f"{folder}: not writable")


def _stage_folder(folder: str) -> str:
    path = os.path.join(folder, leftovers.own_name(STAGE_PREFIX))
    try:
        os.mkdir(path)
    except OSError as e:
        raise StoreError(f"{folder}: cannot write: {e.strerror}") from None
    return path


def _move_into_place(stage: str, folder: str):
    """Rename every file of `stage` to the same place under `folder` (same file system: atomic renames)."""
    for dirpath, _, names in os.walk(stage):
        rel = os.path.relpath(dirpath, stage)
        target = os.path.normpath(os.path.join(folder, rel))
        os.makedirs(target, exist_ok=True)
        for n in names:
            os.replace(os.path.join(dirpath, n), os.path.join(target, n))


# ------------------------------------------------------------------ ingest --to DIR: one run at a time

def prepare_target(folder: str) -> str:
    """Check (or create) the dataset folder an ingest writes into; returns the path its side stores are
    named after (`.tracedb-dataset.json.ingest-<pid>-…` inside the folder)."""
    if os.path.isdir(folder):
        if not dataset.has_manifest(folder):
            foreign = [n for n in os.listdir(folder) if not n.startswith(".tracedb-")]   # lock, staging, side stores
            if foreign:
                raise UsageError(f"--to {folder}: a folder that is not empty and not a tracedb dataset; expected a "
                                 "dataset folder, or a new or empty one")
    elif os.path.exists(folder):
        raise UsageError(f"--to {folder}: exists and is not a folder; expected a dataset folder")
    else:
        _create(folder, f"--to {folder}", shared=True)
    _check_writable(folder)
    leftovers.sweep(folder, STAGE_PREFIX)     # the staging folders of ingests that were killed
    return dataset.manifest_path(folder)


def stored_runs(folder: str) -> list[dict]:
    """The runs the dataset's manifest names (none before its first run)."""
    if not dataset.has_manifest(folder):
        return []
    from tracedb.engine.store.schema import SCHEMA_VERSION
    m = dataset.read_manifest(folder)
    dataset.check_version(m, folder, SCHEMA_VERSION)
    return m["runs"]


@dataclass
class StagedRun:
    """One run's files written beside a dataset, not yet named by its manifest (small: it travels from a
    cluster worker to the client, which commits the runs of a job together)."""
    stage: str                  # the staging folder holding the files
    files: dict                 # table -> file path relative to `stage`
    facts: dict                 # what the manifest says of the run (run_facts)
    fresh: dict                 # the manifest a new dataset starts from (the tables' columns, the views)


def stage_run(folder: str, side: str, stage: str | None = None) -> StagedRun:
    """Write the one run of the side store at `side` (run 1) as files in a staging folder inside the
    dataset at `folder` (`stage`, or a new one named after this process)."""
    from tracedb.engine.store.connect import open_store
    con = open_store(side, read_only=True)
    if stage is None:
        stage = _stage_folder(folder)
    else:
        os.makedirs(stage, exist_ok=True)
    try:
        tables = source_tables(con)
        staged = {}
        for table in tables:
            rel = os.path.join(table, DATA_FILE)
            os.makedirs(os.path.join(stage, table), exist_ok=True)
            if table in partitioned(tables):
                sql.run(con, "dataset_write_run", {"run_id": 1, "path": os.path.join(stage, rel)},
                        table=sql.ident(table))
            else:
                sql.run(con, "dataset_write_whole", {"path": os.path.join(stage, rel)}, table=sql.ident(table))
            staged[table] = rel
        rel = os.path.join(dataset.KERNELS, DATA_FILE)
        os.makedirs(os.path.join(stage, dataset.KERNELS), exist_ok=True)
        sql.run(con, "dataset_write_run", {"run_id": 1, "path": os.path.join(stage, rel)},
                table=sql.ident(dataset.KERNELS))
        staged[dataset.KERNELS] = rel
        return StagedRun(stage=stage, files=staged, facts=run_facts(con, 1), fresh=new_manifest(con, tables))
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    finally:
        con.close()


def commit_runs(folder: str, runs: list[StagedRun], replace: bool) -> list[tuple[str, int | None, str | None]]:
    """Under the dataset's lock, give each staged run its id, rename its files into their partition folders
    and commit the manifest once, naming them all. Identical content already there is skipped (or
    replaced with `replace`), as in a store; a name taken by other content is an error for that run only,
    returned as ("error", None, message). Returns (status, run_id, name of the identical run) per run."""
    out, gone = [], []
    with dataset.locked(folder):
        if not dataset.has_manifest(folder):   # the folder is a dataset (of no run) before any file moves in
            dataset.write_manifest(folder, runs[0].fresh)
        m = dataset.read_manifest(folder)
        dataset.check_version(m, folder, runs[0].fresh["schema_version"])
        fresh = runs[0].fresh
        theirs = {t: d.get("columns") for t, d in m["tables"].items()}
        if theirs != {t: d["columns"] for t, d in fresh["tables"].items()}:
            raise StoreError(f"--to {folder}: the dataset's tables differ from this tracedb's (written by tracedb "
                             f"{m.get('tracedb_version')}); ingest into a new folder")
        for run in runs:
            name, content_hash = run.facts["name"], run.facts["content_hash"]
            same = [r for r in m["runs"] if r.get("content_hash") == content_hash]
            if same and not replace:
                out.append(("skipped", None, same[0]["name"]))
                continue
            clash = [r for r in m["runs"] if r.get("name") == name]
            if clash and not replace:
                out.append(("error", None, f"run '{name}' already exists with other content; choose another --name "
                                           "or pass --replace"))
                continue
            replaced = same + [r for r in clash if r not in same]
            run_id = max([int(m.get("next_run_id") or 1)] + [r["run_id"] + 1 for r in m["runs"]])
            files = {}
            for table, rel in run.files.items():
                if fresh["tables"].get(table, {}).get("partition_by"):     # the kernels table too
                    files[table] = os.path.join(table, f"{dataset.PARTITION}={run_id}", DATA_FILE)
                else:
                    files[table] = os.path.join(table, f"run-{run_id}.parquet")
                os.makedirs(os.path.dirname(os.path.join(folder, files[table])), exist_ok=True)
                os.replace(os.path.join(run.stage, rel), os.path.join(folder, files[table]))
            m["runs"] = [r for r in m["runs"] if r not in replaced] + [{**run.facts, "run_id": run_id, "files": files}]
            m["next_run_id"] = run_id + 1
            gone += replaced
            out.append((("replaced" if replaced else "ingested"), run_id, None))
        dataset.write_manifest(folder, m)
    for r in gone:                    # no manifest names them any more
        _remove_run_files(folder, r)
    return out


def add_run(folder: str, side: str, name: str, content_hash: str, replace: bool) -> tuple[str, int | None, str | None]:
    """Add the one run of the side store at `side` (run 1) to the dataset at `folder`. Its files are
    written beside the dataset first; under the dataset's lock the run gets its id, its files are renamed
    into their partition folders and the manifest is committed. Identical content already there is skipped
    (or replaced with `replace`), as in a store. Returns (status, run_id, name of the identical run)."""
    run = stage_run(folder, side)
    try:
        status, run_id, other = commit_runs(folder, [run], replace)[0]
        if status == "error":
            raise UsageError(other)
        return status, run_id, other
    finally:
        shutil.rmtree(run.stage, ignore_errors=True)


def _remove_run_files(folder: str, run: dict):
    """The replaced run's files: only at the paths the dataset writes for that run (the manifest was checked
    on reading) and only where they resolve inside the folder."""
    for table, rel in (run.get("files") or {}).items():
        if rel not in dataset.run_file_paths(table, run["run_id"]):
            continue
        try:
            path = dataset.inside(folder, rel)
        except StoreError:
            continue
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        parent = os.path.dirname(path)
        if os.path.basename(parent).startswith(dataset.PARTITION + "="):
            try:
                os.rmdir(parent)
            except OSError:
                pass
