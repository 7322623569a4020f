"""How a folder's traces are cut into batches: the traces one worker parses at once (into one side store, or
in one Dask task) and whose runs are merged into the store in one transaction.

Each trace of a 128-rank job (2.6 MB) cost ~0.1 s of opening, creating, checkpointing and merging stores when
each had a side store and a merge of its own, as much as its parse; a batch pays that once. Batches hold at
most BATCH_BYTES (a 100 MB trace stays alone, so memory and the first merge do not wait for many) and
BATCH_TRACES, and each worker gets at least two, so that merges overlap parsing."""

BATCH_BYTES = 64 << 20
BATCH_TRACES = 32


def batches_of(planned, workers: int) -> list[list[int]]:
    """The planned traces' indices (each with `.bytes`) in plan order, cut into batches."""
    per = max(1, min(BATCH_TRACES, -(-len(planned) // (2 * workers))))
    out, size = [], 0
    for i, item in enumerate(planned):
        if not out or len(out[-1]) >= per or size + item.bytes > BATCH_BYTES:
            out.append([])
            size = 0
        out[-1].append(i)
        size += item.bytes
    return out
