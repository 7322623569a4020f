"""Files and folders an ingest leaves beside the store while it runs (side stores, JSON part folders,
and the like), named `<prefix><pid>.<host>-<random>` so that whoever comes next can tell a live
ingest's from a killed one's: a process killed with SIGKILL cannot remove them, the next ingest into that
folder does (`sweep`). `<host>` (8 hex digits of the host name's hash) keeps an ingest from judging the
pids of another machine writing into the same shared folder (a Parquet dataset on a network share)."""
import glob
import hashlib
import os
import secrets
import shutil
import socket

HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def own_name(prefix: str) -> str:
    """A name for this process's file or folder: prefix, our pid and host, 8 random hex digits."""
    return f"{prefix}{os.getpid()}.{HOST}-{secrets.token_hex(4)}"


def sweep(folder: str, prefix: str) -> list[str]:
    """Remove the entries of `folder` named `<prefix><pid>[.<host>]-...` of this machine whose process is
    gone; returns them."""
    gone = []
    for path in glob.glob(os.path.join(glob.escape(folder), glob.escape(prefix) + "*")):
        pid, _, host = os.path.basename(path)[len(prefix):].split("-", 1)[0].partition(".")
        if not pid.isdigit() or (host and host != HOST) or alive(int(pid)):
            continue
        try:
            shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
            gone.append(path)
        except OSError:
            pass
    return gone


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:             # another user's live process
        return True
    return True
