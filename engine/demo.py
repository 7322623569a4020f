"""`tracedb demo`: the main job on bundled samples (written by this project: a Qwen3-like model with
28 layers, decode batch 16 and prefill 4096 tokens, in kernel_details.csv form, every hcom op logged twice
as real traces do). Ingest both into a fresh store, then report passes and the steady pass's layers."""
import os
from importlib import resources

from tracedb.engine.reports import registry as reports
from tracedb.engine.loading.single import ingest_path
from tracedb.engine.store.connect import open_store
from tracedb.errors import StoreError, UsageError

SAMPLES = {"qwen3-decode-b16": "qwen3_decode_kernel_details.csv",
           "qwen3-prefill-4k": "qwen3_prefill_kernel_details.csv"}
SEGMENT = {"profile": "qwen3-npu", "layers": 28}


def sample_path(file: str) -> str:
    """Path of a bundled sample (engine/samples/), e.g. qwen3_decode_kernel_details.csv."""
    return str(resources.files("tracedb.engine").joinpath("samples", file))


def _check_replaceable(db: str):
    """The demo replaces its store: only a tracedb store (or an empty file) may be replaced, never a file of
    the user's that happens to be named by --db."""
    from tracedb.engine.store.schema import EmptyStore
    if not os.path.exists(db):
        return
    try:
        open_store(db, read_only=True).close()
    except EmptyStore:
        return
    except StoreError as e:
        raise UsageError(f"{e}; `tracedb demo` replaces its --db store, so it only replaces a tracedb store: "
                         "choose another --db") from None


def run_demo(db: str):
    _check_replaceable(db)
    for f in (db, db + ".wal"):
        if os.path.exists(f):
            os.remove(f)
    con = open_store(db)
    try:
        for name, file in SAMPLES.items():
            yield ingest_path(con, sample_path(file), name=name, tags={"hw": "910B", "model": "qwen3-like"}).summary()
        yield ""
        yield reports.render_report(con, "passes", runs=["qwen3-decode-b16"], **SEGMENT)
        yield reports.render_report(con, "layers", runs=["qwen3-decode-b16"], pass_spec="steady", **SEGMENT)
        yield reports.render_report(con, "layers", runs=["qwen3-prefill-4k"], pass_spec="1", **SEGMENT)
    finally:
        con.close()
    yield (f"The store is {db}; try:\n  tracedb report kernels --db {db} --run qwen3-decode-b16 --profile qwen3-npu "
           f"--layers 28 --pass 3 --layer 10 --format compute-flow\n  tracedb sql --db {db} \"select run, name, "
           "sum(dur_ns)/1e3 as us from run_kernels group by all order by us desc limit 10\"")
