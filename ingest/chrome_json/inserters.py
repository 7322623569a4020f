"""The pool that inserts part files into trace_events on a few cursors at once, each part committed on its
own, and that tells how long the busy cursors still need."""
import collections
import queue
import threading
import time
from concurrent.futures import FIRST_COMPLETED, CancelledError, ThreadPoolExecutor
from concurrent.futures import wait as wait_any

from tracedb import sql
from tracedb.ingest.chrome_json.config import JsonIngestConfig


class Inserters:
    """Parts inserted into trace_events on config.inserters cursors at once, each part in its own
    transaction.

    The calling thread writes the next part file while the cursors parse; `submit` waits while
    config.inserters + config.ahead parts are in flight, so memory and temporary disk stay bounded. The
    first error stops the ingest once the inserts in flight have ended (the caller then removes the run's
    rows). Each insert's bytes and seconds are kept, so `settle` can tell how long the busy cursor still
    needs."""

    def __init__(self, con, insert, config: JsonIngestConfig, macros: bool = True):
        self.width, self.ahead = config.inserters, config.ahead
        self.cursors, self.all = queue.SimpleQueue(), []
        for _ in range(self.width):
            cur = con.cursor()
            self.cursors.put(cur)
            self.all.append(cur)
            if macros:     # temporary: each cursor is a connection of its own; 5 ms a cursor, so only when
                sql.run(cur, "macros")   # the inserts use one (Ascend's string ts: us_text_to_ns)
        self.pool = ThreadPoolExecutor(self.width)
        self.insert, self.flight = insert, collections.deque()
        self.lock, self.running, self.done_bytes, self.done_seconds = threading.Lock(), {}, 0, 0.0
        self.stopping = False     # set by close(failing=True): no insert starts after it

    def submit(self, size: int, *args):
        """Insert the part of `size` bytes: insert(cursor, *args) on the next free cursor."""
        self._raise_done_error()
        while len(self.flight) >= self.width + self.ahead or (self.flight and self.flight[0].done()):
            self.flight.popleft().result()   # an insert's error is raised here
        self.flight.append(self.pool.submit(self._run, size, *args))

    def _raise_done_error(self):
        for f in self.flight:
            if f.done() and f.exception() is not None:
                raise f.exception()

    def _run(self, size, *args):
        cur = self.cursors.get()
        key, t0 = object(), time.perf_counter()
        with self.lock:
            if self.stopping:
                self.cursors.put(cur)
                raise CancelledError()
            self.running[key] = (t0, size)
        try:
            self.insert(cur, *args)
        finally:
            with self.lock:
                del self.running[key]
                self.done_bytes += size
                self.done_seconds += time.perf_counter() - t0
            self.cursors.put(cur)

    def settle(self) -> tuple[float, float | None]:
        """Waits until a cursor is free and no part waits for one. Returns (seconds the busiest running
        insert still needs, bytes a cursor parses per second), the rate from the inserts done (None
        before any ended: then the seconds are 0)."""
        while sum(not f.done() for f in self.flight) >= self.width:
            wait_any([f for f in self.flight if not f.done()], return_when=FIRST_COMPLETED)
        self._raise_done_error()
        with self.lock:
            rate = self.done_bytes / self.done_seconds if self.done_seconds > 0 else None
            now = time.perf_counter()
            left = max((size / rate - (now - t0) for t0, size in self.running.values()), default=0.0) if rate else 0.0
        return max(left, 0.0), rate

    def wait(self):
        """Until every insert has ended; the first error is raised after all of them ended."""
        error = None
        while self.flight:
            try:
                self.flight.popleft().result()
            except BaseException as e:
                error = error or e
        if error is not None:
            raise error

    def close(self, failing: bool = False):
        """Ends the pool once every insert has ended. failing: an exception is on its way (Ctrl-C, a failed
        part, a full disk): no insert starts any more, the running ones are interrupted (again every 10 ms,
        in case one started just then), and their errors are dropped, so that exception is the one the
        caller raises. Every insert the pool took is waited for, also one whose submit Ctrl-C cut short
        (its future never reached self.flight): a connection still busy on a cursor would refuse the
        caller's next call on it (DuckDB's ResourceInUseException instead of `interrupted`)."""
        if not failing:
            try:
                self.wait()
            finally:
                self.pool.shutdown()
            return
        with self.lock:
            self.stopping = True
        while True:
            with self.lock:
                if not self.running:
                    break
            for cur in self.all:
                try:
                    cur.interrupt()
                except Exception:   # a cursor already closed: nothing runs on it
                    pass
            time.sleep(0.01)
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.flight.clear()         # their errors (interrupted, cancelled) are not the ingest's error
