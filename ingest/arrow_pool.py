"""pyarrow's allocator under an address-space limit (`ulimit -v`, as batch schedulers and login nodes set).

pyarrow's default pool (jemalloc or mimalloc) reserves far more address space than it uses. Under a 2 GiB
limit, beside DuckDB's own reservations, a reservation refused inside Arrow's thread pool left the CSV reader
waiting forever on a task that never ran (every thread in a futex wait, SIGTERM unanswered); with the system
allocator the same ingest took 0.2 s. So where a limit is set, Arrow allocates through the system allocator,
which reserves only what it uses; without a limit nothing changes."""
import resource

_DONE: list = []


def fit_to_limits() -> None:
    """Switch pyarrow to the system allocator when the process has an address-space limit (once)."""
    if _DONE:
        return
    _DONE.append(True)
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        import pyarrow as pa
        pa.set_memory_pool(pa.system_memory_pool())
