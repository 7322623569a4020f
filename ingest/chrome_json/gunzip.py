"""Inflating a .gz trace on a thread of its own into a plain file that the parts are cut from while it grows."""
import os
import threading
import zlib

from tracedb.errors import InputError, StoreError
from tracedb.ingest.capped_read import gzip_cap, gzip_refusal
from tracedb.ingest.chrome_json.config import JsonIngestConfig
from tracedb.ingest.chrome_json.part_files import cannot_write


class Gunzip(threading.Thread):
    """Decompresses a .gz trace into `out` on its own thread, so parsing starts on the first parts while
    the rest is still being inflated (zlib releases the GIL); readers wait for bytes with `wait_for`.
    A corrupt stream is an InputError naming the offset; a cut one keeps what came before the cut
    (the layout then marks the run truncated); a full disk is one line naming the folder (StoreError).
    Reads config.gunzip_in_block compressed bytes at a time and inflates at most config.gunzip_out_cap
    bytes per call; a stream that inflates past capped_read.gzip_cap of its size on disk is refused (a
    2 MB stream of blanks inflated to 2 GiB took 43-49 s and 5.4 GB of memory to refuse or load)."""

    def __init__(self, path: str, workdir: str, config: JsonIngestConfig):
        super().__init__(daemon=True)
        self.path, self.out, self.config = path, os.path.join(workdir, "trace.json"), config
        self.workdir = workdir
        self.size, self.done, self.stop, self.error = 0, False, False, None
        self.compressed, self.cap = 0, 0     # set from the size on disk of the file opened
        self.cond = threading.Condition()
        with cannot_write(os.path.dirname(workdir)):
            open(self.out, "wb").close()   # readers may open it before the first bytes arrive

    def run(self):
        read = 0
        try:
            d = zlib.decompressobj(wbits=31)
            with open(self.path, "rb") as src, open(self.out, "wb") as dst:
                self.compressed = os.fstat(src.fileno()).st_size
                self.cap = gzip_cap(self.compressed)
                while (block := self._read(src)) and not self.stop:
                    read += len(block)
                    while block and not self.stop:
                        self._emit(dst, d.decompress(block, self.config.gunzip_out_cap))
                        block = d.unconsumed_tail
                        if not block and d.unused_data:       # concatenated gzip members
                            block, d = d.unused_data, zlib.decompressobj(wbits=31)
                self._emit(dst, d.flush())
        except zlib.error as e:
            self.error = InputError(f"{self.path}: byte offset ~{read}: corrupt gzip data ({e})")
        except (InputError, StoreError) as e:
            self.error = e
        except OSError as e:      # opening either file
            self.error = InputError(f"{e.filename or self.path}: cannot open: {e.strerror}")
        except BaseException as e:   # never lost on this thread: the reader raises it
            self.error = e
        finally:
            with self.cond:
                self.done = True
                self.cond.notify_all()

    def _read(self, src) -> bytes:
        try:
            return src.read(self.config.gunzip_in_block)
        except OSError as e:
            raise InputError(f"{self.path}: cannot read: {e.strerror}") from None

    def _emit(self, dst, data: bytes):
        if data and self.size + len(data) > self.cap:
            raise InputError(gzip_refusal(self.path, self.compressed))
        if data:
            with cannot_write(os.path.dirname(self.workdir)):   # a full disk: the store's folder named
                dst.write(data)
                dst.flush()   # on disk before readers are told
            with self.cond:
                self.size += len(data)
                self.cond.notify_all()

    def wait_for(self, n: int) -> int:
        """Bytes decompressed once there are at least `n` or the stream has ended."""
        with self.cond:
            self.cond.wait_for(lambda: self.size >= n or self.done)
        if self.error:
            raise self.error
        return self.size

    def close(self):
        self.stop = True
        if self.is_alive():
            self.join()
