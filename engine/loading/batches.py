"""How a folder's traces are cut into batches: the traces one worker parses at once (into one side store, or in
one Dask task) and whose runs are merged into the store in one transaction.

A batch pays once what a trace used to pay on its own: a side store created, finished and checkpointed, a
merge's store opened, committed and checkpointed, and its finishing statements (2-25 ms each however few their
rows): 0.1-0.15 s of CPU per batch. So a job's traces go in as few batches as memory allows: one per worker
when they fit in BATCH_BYTES each. With as many workers as cores, the merges have no idle core to overlap
with, so more batches only add CPU: a 128-rank job (2.6 MB ranks) on 2 cores took 2.02-2.09 s in 2 batches of
64, 2.35-2.47 s in 4 of 32 and 2.64-2.71 s in 6 of 36, 36, 24, 24, 4 and 4 (interleaved). BATCH_BYTES bounds a
worker's memory and the merge's: the merging process peaked at 0.2 GB for 167 MB of JSON; two 100 MB traces
pass it, so each goes alone. BATCH_TRACES bounds the reads of one statement (ingest/chrome_json/together.py):
512 ranks of 0.8 MB went in 4 statements of 128."""

BATCH_BYTES = 192 << 20
BATCH_TRACES = 128


def batches_of(planned, workers: int) -> list[list[int]]:
    """The planned traces' indices (each with `.bytes`) in plan order, cut into batches of about equal bytes:
    as few as BATCH_BYTES and BATCH_TRACES allow, a multiple of the workers (so that they end together), at
    most one per trace. A trace of BATCH_BYTES or more is a batch of its own."""
    sizes = [max(1, item.bytes) for item in planned]      # a file that cannot be read: its ingest says why
    total = sum(sizes)
    count = max(workers, -(-total // BATCH_BYTES), -(-len(planned) // BATCH_TRACES))
    count = min(len(planned), -(-count // workers) * workers)
    out, done, held = [], 0, 0        # held: the bytes of the batch being filled
    for i, size in enumerate(sizes):
        # a new batch once this trace's middle lies past the share of the batches so far
        if not out or len(out[-1]) >= BATCH_TRACES or held + size > BATCH_BYTES or \
                done + size / 2 > total * len(out) / count:
            out.append([])
            held = 0
        out[-1].append(i)
        done += size
        held += size
    return out
