"""Fuzz case generators (helper module, not a test file): input files mutated from seed traces, and file-
system oddities, for tests/test_fuzz_inputs.py; and the command tree of the `tracedb` app with wrong option
values, for tests/test_fuzz_cli.py. Also `check_ingest`, the ingest check both use, and `report_failures`.

Everything here is deterministic: a case is a small description (seed, mutation, argument) with a
readable id, and its bytes are made from it when the test runs (random choices come from
random.Random(a seed derived from the case id), never from the clock). Collecting the cases reads no
file: a case built on a real trace of $TRACEDB_TEST_DATA skips when the trace is absent, when it runs.

Seeds (plain bytes; a mutation may compress them):
    kineto, kineto-pretty, kineto-array   tests/tiny_kineto.py (Kineto JSON: object compact / indented,
                                          bare event array)
    ascend                                tests/tiny_trace.py (kernel_details.csv, 60 rows)
    opsum                                 the same kernels as an msprof op_summary CSV
    swimlane                              tests/tiny_swimlane.py (on-device per-core JSON)
    r-mi250, r-vllm                       real Kineto traces (ROCm; vLLM CUDA graphs), inflated, verbatim
    r-traceview                           a real Ascend trace_view.json, sliced to ~1,500 events
    r-swimlane                            a real on-device swimlane JSON, sliced to ~400 tasks
    r-kd, r-kd47                          real kernel_details.csv (33 and 47 columns), first 150 / 200 rows
    r-opsum                               a real msprof op_summary CSV (3 rows)
"""
import bz2
import csv
import functools
import gzip
import hashlib
import io
import json
import lzma
import os
import random
import zipfile
import zlib
from dataclasses import dataclass


from fuzz_promise import (Outcome, describe, landed_run_violations, log_violations, new_run_names,
                          promise_violations, run_inprocess, store_state)

HERE = os.path.dirname(os.path.abspath(__file__))


def rng_for(*parts) -> random.Random:
    """A Random seeded from the case's identity (stable across runs and Python versions)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


# ============================================================================================== seeds
@dataclass(frozen=True)
class Seed:
    name: str
    filename: str
    kind: str            # json | csv
    real: tuple = ()     # path parts under the real-trace folder (empty: synthetic)
    device_events: str = "x"   # which events the structural mutations aim at (see _targets)


SEEDS = {s.name: s for s in [
    Seed("kineto", "tiny.pt.trace.json", "json"),
    Seed("kineto-pretty", "pretty.pt.trace.json", "json"),
    Seed("kineto-array", "array.json", "json"),
    Seed("ascend", "kernel_details.csv", "csv"),
    Seed("opsum", "op_summary_0_1.csv", "csv"),
    Seed("swimlane", "swimlane.json", "json"),
    Seed("r-mi250", "mi250_kineto.json", "json",
         ("hta-tests-data", "amd_trace", "mi250_minitoy_train_ROCm6_2_kineto.json.gz")),
    Seed("r-vllm", "graph_execution.json", "json",
         ("amd-tracelens", "inference", "vllm_decode_full", "graph_execution.json.gz")),
    Seed("r-traceview", "trace_view.json", "json", ("ascend-mstt", "trace_view.json")),
    Seed("r-swimlane", "merged_swimlane.json", "json",
         ("npu-swimlane-simpler", "yanghaoran29_simpler", "merged_swimlane.json")),
    Seed("r-kd", "kernel_details.csv", "csv", ("ascend-mstt", "kernel_details.csv")),
    Seed("r-kd47", "kernel_details.csv", "csv",
         ("ascend-msinsight", "st_level2_qwen3_megatron", "rank_0_ascend_pt", "ASCEND_PROFILER_OUTPUT",
          "kernel_details.csv")),
    Seed("r-opsum", "op_summary_20260823165421.csv", "csv",
         ("ascend-msprof-op_summary-vllm-ascend-tmp", "op_summary_20260823165421.csv")),
]}

OPSUM_HEADER = ["Device_id", "Model ID", "Task ID", "Stream ID", "Op Name", "OP Type", "OP State", "Task Type",
                "Task Start Time(us)", "Task Duration(us)", "Task Wait Time(us)", "Block Num", "Mix Block Num",
                "HF32 Eligible", "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes",
                "Output Data Types", "Output Formats", "Context ID", "aicore_time(us)", "aic_total_cycles"]


@functools.cache
def seed_bytes(name: str) -> bytes:
    """The seed's plain bytes (a real trace: verbatim, inflated, or sliced as the table above says)."""
    import tiny_kineto
    import tiny_swimlane
    import tiny_trace
    seed = SEEDS[name]
    if name == "kineto":
        return json.dumps(tiny_kineto.document(), separators=(",", ":")).encode()
    if name == "kineto-pretty":
        return json.dumps(tiny_kineto.document(), indent=1).encode()
    if name == "kineto-array":
        return json.dumps(tiny_kineto.events()).encode()
    if name == "ascend":
        return _csv_text(tiny_trace.HEADER, tiny_trace.rows(), verbatim=True).encode()
    if name == "opsum":
        rows = [[r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15],
                 r[16], r[17], r[18], r[19], r[20], r[21], r[22], "123"] for r in tiny_trace.rows()]
        return _csv_text(OPSUM_HEADER, rows, verbatim=True).encode()
    if name == "swimlane":
        return json.dumps({"traceEvents": tiny_swimlane.events()}).encode()
    from helpers import real_trace   # skips the test when the real trace is absent
    path = real_trace(*seed.real)
    raw = (gzip.open if path.endswith(".gz") else open)(path, "rb").read()
    if name == "r-traceview":
        return _slice_events(raw, 1500, dumps=lambda d: json.dumps(d))
    if name == "r-swimlane":
        return _slice_events(raw, 400, dumps=lambda d: json.dumps(d, indent=2, sort_keys=True))
    if name in ("r-kd", "r-kd47"):
        lines = raw.split(b"\n")
        return b"\n".join(lines[:151 if name == "r-kd" else 201]) + b"\n"
    return raw


def _slice_events(raw: bytes, keep: int, dumps) -> bytes:
    """Every metadata event and the first `keep` others, written back in the file's own style."""
    doc = json.loads(raw)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    meta = [e for e in events if e.get("ph") == "M"]
    rest = [e for e in events if e.get("ph") != "M"][:keep]
    sliced = meta + rest
    if isinstance(doc, dict):
        doc = {**doc, "traceEvents": sliced}
    else:
        doc = sliced
    return dumps(doc).encode()


def _csv_text(header, rows, verbatim=False) -> str:
    """CSV text: cells written as they are (verbatim, as tests/helpers.write_csv does), else quoted as needed."""
    if verbatim:
        return ",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def seed_doc(name: str):
    return json.loads(seed_bytes(name))


def seed_table(name: str) -> tuple[list, list]:
    rows = list(csv.reader(io.StringIO(seed_bytes(name).decode("utf-8-sig"), newline="")))
    return rows[0], [r for r in rows[1:] if r]


def dumps(doc) -> bytes:
    return json.dumps(doc, separators=(",", ":"), allow_nan=True).encode()


# ============================================================================================== cases
@dataclass(frozen=True)
class InputCase:
    """One input: `op(seed bytes, arg)` written as `filename` (or, for op fs:*, a path built by a builder)."""
    id: str
    seed: str
    op: str
    arg: object = None
    runner: str = "inprocess"   # or subprocess: a FIFO, a device, a memory or stack bound

    def __str__(self):
        return self.id


def case(seed, op, arg=None, runner="inprocess", label=None) -> InputCase:
    shown = label if label is not None else ("" if arg is None else f"@{arg}")
    return InputCase(f"{seed}/{op}{shown}", seed, op, arg, runner)


class Built:
    """What a case wrote: the path to ingest and the basenames an input error may name."""

    def __init__(self, target, names=(), skip=None, multi=False):
        self.target, self.names, self.skip = str(target), tuple(names) or (os.path.basename(str(target)),), skip
        self.multi = multi   # a folder of several traces: one run each (see check_ingest)


# ---------------------------------------------------------------------------------------------- byte ops
INTERESTING = [b'"', b",", b"\n", b"\r", b"{", b"}", b"[", b"]", b":", b"\\", b"\0", b"\xff", b"\xc3", b"\t",
               b"-", b"e", b"9", b".", b" ", b"\xef\xbb\xbf", b"NaN", b"null"]


def op_as_is(data, arg, seed):
    return data, seed.filename


def op_trunc(data, frac, seed):
    return data[:int(len(data) * frac)], seed.filename


def op_trunc_at(data, n, seed):
    return data[:n], seed.filename


def op_gz(data, arg, seed):
    return gzip.compress(data, mtime=0), seed.filename + ".gz"


def op_trunc_gz(data, frac, seed):
    """The compressed stream cut (a crashed writer of a .gz)."""
    z = gzip.compress(data, mtime=0)
    return z[:int(len(z) * frac)], seed.filename + ".gz"


def op_gz_trunc(data, frac, seed):
    """A complete gzip of cut content."""
    return gzip.compress(data[:int(len(data) * frac)], mtime=0), seed.filename + ".gz"


def op_gz_flip(data, n, seed):
    z = bytearray(gzip.compress(data, mtime=0))
    r = rng_for(seed.name, "gz-flip", n)
    for _ in range(n):
        i = r.randrange(10, len(z))
        z[i] ^= 1 << r.randrange(8)
    return bytes(z), seed.filename + ".gz"


def op_flip(data, key, seed):
    r = rng_for(seed.name, "flip", key)
    b = bytearray(data)
    for _ in range(r.randint(1, 8)):
        i = r.randrange(len(b))
        b[i] ^= 1 << r.randrange(8)
    return bytes(b), seed.filename


def op_insert(data, key, seed):
    r = rng_for(seed.name, "insert", key)
    b = bytearray(data)
    for _ in range(r.randint(1, 4)):
        b[r.randrange(len(b) + 1):0] = r.choice(INTERESTING)
    return bytes(b), seed.filename


def op_delete(data, key, seed):
    r = rng_for(seed.name, "delete", key)
    b = bytearray(data)
    for _ in range(r.randint(1, 4)):
        i = r.randrange(len(b))
        del b[i:i + r.randint(1, 16)]
    return bytes(b), seed.filename


def op_dup_span(data, key, seed):
    r = rng_for(seed.name, "dup", key)
    i = r.randrange(len(data))
    j = min(len(data), i + r.randint(1, 200))
    return data[:j] + data[i:j] + data[j:], seed.filename


TRAILERS = {"garbage": b"garbage", "nuls": b"\0" * 64, "newlines": b"\n\n\n", "brace": b"}", "bracket": b"]",
            "comma": b",", "twice": None, "bom": b"\xef\xbb\xbf", "ff-fe": b"\xff\xfe", "json-obj": b'{"a":1}'}


def op_trailing(data, kind, seed):
    return data + (data if kind == "twice" else TRAILERS[kind]), seed.filename


def op_encoding(data, kind, seed):
    text = data.decode("utf-8")
    if kind == "utf8-bom":
        return b"\xef\xbb\xbf" + data, seed.filename
    if kind == "double-bom":
        return b"\xef\xbb\xbf\xef\xbb\xbf" + data, seed.filename
    if kind in ("utf-16", "utf-16-le", "utf-16-be", "utf-32"):
        return text.encode(kind), seed.filename
    if kind == "utf-16-le-bom":
        return b"\xff\xfe" + text.encode("utf-16-le"), seed.filename
    if kind == "latin-1":   # a non-ASCII character in a name, written as Latin-1 (an invalid UTF-8 byte)
        return _with_accent(text).encode("latin-1", "replace"), seed.filename
    if kind == "cp1252-quotes":
        return _with_accent(text).replace("é", "\u201cq\u201d").encode("cp1252", "replace"), seed.filename
    if kind == "utf8-accent":
        return _with_accent(text).encode("utf-8"), seed.filename
    if kind == "nul-middle":
        return data[:len(data) // 2] + b"\0" + data[len(data) // 2:], seed.filename
    if kind == "nul-end":
        return data + b"\0", seed.filename
    if kind == "nul-start":
        return b"\0" + data, seed.filename
    if kind == "surrogate":   # a lone surrogate escaped in JSON text / raw CESU bytes in CSV
        return _with_accent(text).replace("é", "\\ud800" if seed.kind == "json" else "\udc80").encode(
            "utf-8", "surrogateescape"), seed.filename
    raise ValueError(kind)


def _with_accent(text: str) -> str:
    """The first kernel-ish name with an é in it (the text itself when none is found)."""
    for needle in ("gemm_kernel", "RmsNorm", "MatMul", "aclnn", '"name"'):
        if needle in text:
            return text.replace(needle, needle[:2] + "é" + needle[2:], 1)
    return "é" + text


def op_eol(data, kind, seed):
    text = data.replace(b"\r\n", b"\n")
    if kind == "crlf":
        return text.replace(b"\n", b"\r\n"), seed.filename
    if kind == "cr":
        return text.replace(b"\n", b"\r"), seed.filename
    if kind == "mixed":
        lines = text.split(b"\n")
        return b"".join(ln + (b"\r\n" if i % 2 else b"\n") for i, ln in enumerate(lines)), seed.filename
    if kind == "none":   # no final newline
        return text.rstrip(b"\n"), seed.filename
    raise ValueError(kind)


def op_compress(data, kind, seed):
    """Other compressions (and broken gzip) named .gz."""
    name = seed.filename + ".gz"
    if kind == "bz2":
        return bz2.compress(data), name
    if kind == "xz":
        return lzma.compress(data), name
    if kind == "zlib":
        return zlib.compress(data), name
    if kind == "zip":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(seed.filename, data)
        return buf.getvalue(), name
    if kind == "double-gzip":
        return gzip.compress(gzip.compress(data, mtime=0), mtime=0), name
    if kind == "multi-member":
        h = len(data) // 2
        return gzip.compress(data[:h], mtime=0) + gzip.compress(data[h:], mtime=0), name
    if kind == "gzip-trailing-garbage":
        return gzip.compress(data, mtime=0) + b"garbage after the stream", name
    if kind == "gzip-of-empty":
        return gzip.compress(b"", mtime=0), name
    if kind == "gzip-header-only":
        return gzip.compress(data, mtime=0)[:10], name
    if kind == "gzip-magic-only":
        return b"\x1f\x8b", name
    if kind == "bad-crc":
        z = bytearray(gzip.compress(data, mtime=0))
        z[-8] ^= 0xFF
        return bytes(z), name
    if kind == "bad-isize":
        z = bytearray(gzip.compress(data, mtime=0))
        z[-1] ^= 0x7F
        return bytes(z), name
    if kind == "plain-named-gz":
        return data, name
    raise ValueError(kind)


# ---------------------------------------------------------------------------------------------- JSON ops
WRONG = {"null": None, "empty-str": "", "str": "abc", "list": [], "obj": {}, "true": True, "neg": -1, "zero": 0,
         "big-float": 1e308, "neg-big-float": -1e308, "2^63": 2**63, "2^64": 2**64, "1e30-int": 10**30,
         "num-str": "1e3", "nan": float("nan"), "inf": float("inf"), "-inf": float("-inf"), "tiny": 1e-300,
         "list-num": [1], "obj-num": {"a": 1}, "neg-str": "-5", "huge-str": "9" * 400, "float-str": "12.5\t"}
ROOT_FORMS = {"null": None, "num": 1, "str": "x", "true": True, "empty-list": [], "empty-obj": {},
              "list-of-list": [[]], "list-of-num": [1, 2], "list-of-null": [None], "list-of-str": ["x"],
              "obj-other": {"events": []}}


def _targets(events, which):
    xs = [i for i, e in enumerate(events) if isinstance(e, dict) and e.get("ph") == "X"]
    if which == "first":
        return xs[:1]
    if which == "last":
        return xs[-1:]
    if which == "mid":
        return xs[len(xs) // 2:len(xs) // 2 + 1]
    return xs


def _events(doc):
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def op_root(data, form, seed):
    return dumps(ROOT_FORMS[form]), seed.filename


def op_events_type(data, wrong, seed):
    doc = seed_doc(seed.name)
    value = WRONG[wrong] if wrong in WRONG else ROOT_FORMS[wrong]
    if isinstance(doc, dict):
        doc["traceEvents"] = value
        return dumps(doc), seed.filename
    return dumps(value), seed.filename


def op_event_type(data, arg, seed):
    """One X event (first/mid/last) replaced by a value of the wrong type."""
    which, wrong = arg.split(":")
    doc = seed_doc(seed.name)
    ev = _events(doc)
    for i in _targets(ev, which):
        ev[i] = WRONG[wrong]
    return dumps(doc), seed.filename


def op_field_type(data, arg, seed):
    """field=wrong on the X events chosen (first, mid, all)."""
    which, field, wrong = arg.split(":")
    doc = seed_doc(seed.name)
    ev = _events(doc)
    for i in _targets(ev, which):
        _set_path(ev[i], field, WRONG[wrong])
    return dumps(doc), seed.filename


def _set_path(obj, path, value):
    keys = path.split(".")
    for k in keys[:-1]:
        if not isinstance(obj.get(k), dict):
            obj[k] = {}
        obj = obj[k]
    obj[keys[-1]] = value


def op_missing_key(data, arg, seed):
    """key removed from the X events chosen, or a top-level key / the metadata events removed."""
    which, key = arg.split(":")
    doc = seed_doc(seed.name)
    if which == "top":
        if isinstance(doc, dict):
            doc.pop(key, None)
        return dumps(doc), seed.filename
    ev = _events(doc)
    if which == "meta":   # every M event (process and thread names) removed
        ev[:] = [e for e in ev if not (isinstance(e, dict) and e.get("ph") == "M")]
        return dumps(doc), seed.filename
    for i in _targets(ev, which):
        node, keys = ev[i], key.split(".")
        for k in keys[:-1]:
            node = node.get(k, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node.pop(keys[-1], None)
    return dumps(doc), seed.filename


def op_meta_type(data, arg, seed):
    """A top-level metadata key of a Kineto object with a value of the wrong type."""
    key, wrong = arg.split(":")
    doc = seed_doc(seed.name)
    if isinstance(doc, dict):
        doc[key] = WRONG[wrong]
    return dumps(doc), seed.filename


def op_meta_order(data, where, seed):
    """The metadata keys all before traceEvents, all after, or split around it (and, for `huge`, a 2 MB
    metadata value after the events)."""
    doc = seed_doc(seed.name)
    if not isinstance(doc, dict):
        doc = {"traceEvents": doc, "schemaVersion": 1, "displayTimeUnit": "ms"}
    ev = doc.pop("traceEvents")
    keys = list(doc)
    if where == "before":
        out = {**doc, "traceEvents": ev}
    elif where == "after":
        out = {"traceEvents": ev, **doc}
    elif where == "split":
        h = len(keys) // 2
        out = {**{k: doc[k] for k in keys[:h]}, "traceEvents": ev, **{k: doc[k] for k in keys[h:]}}
    elif where == "huge-after":
        out = {"traceEvents": ev, **doc, "traceName": "x" * (2 << 20)}
    elif where == "nested-key":   # "traceEvents" also named inside a metadata object before the array
        out = {"distributedInfo": {"traceEvents": [{"ph": "X"}]}, **doc, "traceEvents": ev}
    elif where == "string-mention":   # the key's text inside a string before the array
        out = {"note": '"traceEvents": [', **doc, "traceEvents": ev}
    else:
        raise ValueError(where)
    return dumps(out), seed.filename


def op_dup_key(data, kind, seed):
    """Duplicate keys, written as text (json.dumps cannot)."""
    doc = seed_doc(seed.name)
    ev = _events(doc)
    if kind in ("traceEvents-empty-first", "traceEvents-empty-last"):
        body = json.dumps(ev, separators=(",", ":"))
        pair = ['"traceEvents":[]', f'"traceEvents":{body}']
        if kind == "traceEvents-empty-last":
            pair.reverse()
        return ("{" + ",".join(pair) + "}").encode(), seed.filename
    i = _targets(ev, "first")[0]
    key = {"ph": "ph", "ts": "ts", "dur": "dur", "name": "name", "pid": "pid"}[kind]
    other = {"ph": '"i"', "ts": '"abc"', "dur": "-1", "name": "null", "pid": "[]"}[kind]
    text = json.dumps(ev[i], separators=(",", ":"))
    ev[i] = "\x00MARK\x00"
    out = dumps(doc).replace(json.dumps("\x00MARK\x00").encode(),
                             ("{" + f'"{key}":{other},' + text[1:]).encode())
    return out, seed.filename


def op_nesting(data, arg, seed):
    """Arrays or objects nested `depth` deep: inside an event's args, as an event, or as the whole file;
    closed or not."""
    where, depth, closed = arg.split(":")
    depth = int(depth)
    opener, closer = ("[", "]") if where != "obj" else ('{"a":', "}")
    nest = opener * depth + "1" + (closer * depth if closed == "closed" else "")
    if where == "root":
        return nest.encode(), seed.filename
    doc = seed_doc(seed.name)
    ev = _events(doc)
    i = _targets(ev, "first")[0]
    if where in ("args", "obj"):
        ev[i].setdefault("args", {})["deep"] = "\x00MARK\x00"
    else:   # an event of its own
        ev.insert(i, "\x00MARK\x00")
    return dumps(doc).replace(json.dumps("\x00MARK\x00").encode(), nest.encode()), seed.filename


def op_huge_string(data, arg, seed):
    """A kernel name (or an args value, or a key) of `mb` MB."""
    where, mb = arg.split(":")
    n = int(float(mb) * (1 << 20))
    doc = seed_doc(seed.name)
    ev = _events(doc)
    i = _targets(ev, "first")[0]
    if where == "name":
        ev[i]["name"] = "K" * n
    elif where == "args":
        ev[i].setdefault("args", {})["big"] = "v" * n
    elif where == "key":
        ev[i].setdefault("args", {})["k" * n] = 1
    elif where == "escapes":   # a name made of JSON escapes: inflates 6x when decoded... and back
        ev[i]["name"] = "\u0001" * (n // 6)
    return dumps(doc), seed.filename


def op_many_events(data, n, seed):
    """The first X event repeated n times (one name, one track)."""
    doc = seed_doc(seed.name)
    ev = _events(doc)
    i = _targets(ev, "first")[0]
    ev.extend([ev[i]] * int(n))
    return dumps(doc), seed.filename


NUMBER_FORMS = {"exp": "1.5e3", "EXP": "1E3", "neg-zero": "-0", "tiny": "1e-7", "underflow": "1e-400",
                "overflow": "1e400", "huge-int": "9" * 30, "leading-zeros": "000012", "plus": "+3",
                "hex": "0x10", "frac-only": ".5", "trailing-dot": "5.", "NaN": "NaN", "Infinity": "Infinity",
                "-Infinity": "-Infinity", "bigint-max": str(2**63 - 1), "bigint-over": str(2**63)}


def op_number_form(data, arg, seed):
    """ts or dur of the X events written as a raw number token (some invalid JSON: hex, +3, .5)."""
    field, form = arg.split(":")
    doc = seed_doc(seed.name)
    ev = _events(doc)
    for i in _targets(ev, "all"):
        ev[i][field] = f"\x00NUM{i}\x00"
    out = dumps(doc)
    for i in _targets(ev, "all"):
        out = out.replace(json.dumps(f"\x00NUM{i}\x00").encode(), NUMBER_FORMS[form].encode())
    return out, seed.filename


EMPTY_FORMS = {"empty": b"", "space": b" ", "newline": b"\n", "bom": b"\xef\xbb\xbf", "obj": b"{}", "list": b"[]",
               "null": b"null", "events-empty": b'{"traceEvents":[]}', "events-null": b'{"traceEvents":null}',
               "open-brace": b"{", "open-list": b"[", "nul": b"\0", "ws-kb": b" \n\t" * 4000,
               "events-open": b'{"traceEvents":[', "events-comma": b'{"traceEvents":[,]}',
               "events-meta-only": b'{"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":"x"}}]}',
               "one-cpu-event": b'[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]'}


def op_empty(data, form, seed):
    return EMPTY_FORMS[form], seed.filename


# ---------------------------------------------------------------------------------------------- CSV ops
CSV_VALUES = {"abc": "abc", "neg": "-5", "neg-frac": "-0.001", "zero": "0", "1e300": "1e300", "-1e300": "-1e300",
              "23-digits": "99999999999999999999999", "bigint-ns-over": "9223372036854775.808",
              "underscore": "1_000", "empty": "", "na": "N/A", "padded": " 12 ", "hex": "0x10", "inf": "inf",
              "-inf": "-inf", "nan": "nan", "plus": "+3", "frac-only": ".5", "trailing-dot": "5.", "exp": "1e3",
              "comma": "1,5", "tab": "\t", "arabic-digits": "\u0661\u0662\u0663", "fullwidth": "\uff11\uff12",
              "two-dots": "1.5.6", "null": "null", "quote": '"', "apostrophe": "'", "underflow": "1e-400",
              "2^32": "4294967296", "-2^63-1": "-9223372036854775809", "2^64": "18446744073709551616",
              "newline": "1\n2", "nul": "1\x002", "long-digits": "1" * 5000, "spaces": "   "}


def op_csv_value(data, arg, seed):
    """Column `col` of row `which` (first, last, all, or row index) set to a CSV_VALUES value."""
    which, col, val = arg.split("|")
    header, rows = seed_table(seed.name)
    c = header.index(col)
    idx = {"first": [0], "last": [len(rows) - 1], "all": range(len(rows))}.get(which) or [int(which)]
    for i in idx:
        if i < len(rows) and c < len(rows[i]):
            rows[i][c] = CSV_VALUES[val]
    return _csv_text(header, rows).encode(), seed.filename


def op_csv_header(data, arg, seed):
    """The header mutated: a column renamed, dropped, duplicated (header and cells), two swapped, case and
    blanks changed, an empty or BOM-prefixed cell."""
    kind, _, col = arg.partition("|")
    header, rows = seed_table(seed.name)
    c = header.index(col) if col else 0
    if kind == "rename":
        header[c] = header[c].replace("(us)", " (us)").replace(" ", "_", 1) + "x"
    elif kind == "empty-name":
        header[c] = ""
    elif kind == "upper":
        header[c] = header[c].upper()
    elif kind == "padded":
        header[c] = "  " + header[c].replace(" ", "   ") + "\t"
    elif kind == "bom-cell":
        header[c] = "\ufeff" + header[c]
    elif kind == "drop":
        header.pop(c)
        rows = [r[:c] + r[c + 1:] for r in rows]
    elif kind == "dup":          # the column twice, the copy with other values
        header.insert(c + 1, header[c])
        rows = [r[:c + 1] + ["9" + r[c] if r[c] else "x"] + r[c + 1:] for r in rows]
    elif kind == "dup-header-only":   # the header names it twice, the rows have one cell: counts differ
        header.insert(c + 1, header[c])
    elif kind == "swap":
        d = (c + 1) % len(header)
        header[c], header[d] = header[d], header[c]
    elif kind == "extra-col":
        header.append("Extra")
        rows = [r + [str(i)] for i, r in enumerate(rows)]
    elif kind == "trailing-comma":
        header.append("")
        rows = [r + [""] for r in rows]
    elif kind == "many-cols":
        header += [f"metric_{i}" for i in range(3000)]
        rows = [r + ["1.5"] * 3000 for r in rows]
    elif kind == "only-required":
        keep = [i for i, h in enumerate(header) if h.lower() in
                ("name", "op name", "start time(us)", "task start time(us)", "duration(us)", "task duration(us)")]
        header = [header[i] for i in keep]
        rows = [[r[i] for i in keep] for r in rows]
    elif kind == "semicolons":
        return (";".join(header) + "\n" + "".join(";".join(r) + "\n" for r in rows)).encode(), seed.filename
    elif kind == "tabs":
        return ("\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows)).encode(), seed.filename
    else:
        raise ValueError(kind)
    return _csv_text(header, rows).encode(), seed.filename


def op_csv_rows(data, kind, seed):
    """Row-level damage: header only, no header, blank lines, a row with more / fewer cells, quotes."""
    header, rows = seed_table(seed.name)
    name = next((i for i, h in enumerate(header) if h.lower() in ("name", "op name")), 0)
    text = None
    if kind == "header-only":
        rows = []
    elif kind == "no-header":
        header, rows = rows[0], rows[1:]
    elif kind == "blank-lines":
        text = _csv_text(header, rows).replace("\n", "\n\n")
    elif kind == "blank-cells-line":
        rows.insert(1, [""] * len(header))
    elif kind == "extra-cells":
        rows[1] = rows[1] + ["x", "y"]
    elif kind == "short-row":
        rows[1] = rows[1][:3]
    elif kind == "one-cell-row":
        rows[1] = ["x"]
    elif kind == "unbalanced-quote":
        text = _csv_text(header, rows).replace(rows[1][name], '"' + rows[1][name], 1)
    elif kind == "quote-mid-cell":
        text = _csv_text(header, rows).replace(rows[1][name], rows[1][name][:3] + '"' + rows[1][name][3:], 1)
    elif kind == "quoted-newline":
        rows[1][name] = "a\nb"
    elif kind == "quoted-crlf":
        rows[1][name] = "a\r\nb"
    elif kind == "quoted-comma":
        rows[1][name] = "a,b"
    elif kind == "escaped-quotes":
        rows[1][name] = 'a"b"c'
    elif kind == "backslash-quote":
        text = _csv_text(header, rows).replace(rows[1][name], rows[1][name] + '\\"', 1)
    elif kind == "comment-line":
        text = _csv_text(header, rows).replace("\n", "\n# a comment\n", 1)
    elif kind == "dup-header-row":   # the header again in the middle (two files concatenated)
        rows.insert(len(rows) // 2, list(header))
    elif kind == "reversed":
        rows.reverse()
    elif kind == "identical-rows":
        rows = [rows[0]] * len(rows)
    else:
        raise ValueError(kind)
    return (text if text is not None else _csv_text(header, rows)).encode(), seed.filename


def op_csv_huge(data, arg, seed):
    """A huge cell (`mb` MB) in the Name column of row 1, or a huge line of many short cells."""
    kind, mb = arg.split(":")
    n = int(float(mb) * (1 << 20))
    header, rows = seed_table(seed.name)
    name = next((i for i, h in enumerate(header) if h.lower() in ("name", "op name")), 0)
    if kind == "name":
        rows[0][name] = "N" * n
    elif kind == "quoted-name":
        rows[0][name] = "N,\"" * (n // 3)
    elif kind == "cells":
        rows[0] = rows[0] + ["1"] * (n // 2)
    elif kind == "rows":   # many copies of row 0
        rows = rows + [rows[0]] * max(1, n // max(1, len(",".join(rows[0]))))
    return _csv_text(header, rows).encode(), seed.filename


OPS = {"as-is": op_as_is, "trunc": op_trunc, "trunc-at": op_trunc_at, "gz": op_gz, "trunc-gz": op_trunc_gz,
       "gz-trunc": op_gz_trunc, "gz-flip": op_gz_flip, "flip": op_flip, "insert": op_insert, "delete": op_delete,
       "dup-span": op_dup_span, "trailing": op_trailing, "encoding": op_encoding, "eol": op_eol,
       "compress": op_compress, "root": op_root, "events-type": op_events_type, "event-type": op_event_type,
       "field-type": op_field_type, "missing-key": op_missing_key, "meta-type": op_meta_type,
       "meta-order": op_meta_order, "dup-key": op_dup_key, "nesting": op_nesting, "huge-string": op_huge_string,
       "many-events": op_many_events, "number-form": op_number_form, "empty": op_empty, "csv-value": op_csv_value,
       "csv-header": op_csv_header, "csv-rows": op_csv_rows, "csv-huge": op_csv_huge}


# ---------------------------------------------------------------------------------------------- file system
def _good(folder, seed="ascend", name=None):
    s = SEEDS[seed]
    p = os.path.join(str(folder), name or s.filename)
    with open(p, "wb") as f:
        f.write(seed_bytes(seed))
    return p


def fs_build(kind: str, folder) -> Built:
    """A file-system oddity under `folder`; the path to ingest, and the names its error may give."""
    folder = str(folder)
    j = lambda *p: os.path.join(folder, *p)   # noqa: E731
    if kind in ("fifo-json", "fifo-csv", "fifo-gz"):
        p = j({"fifo-json": "trace.json", "fifo-csv": "kernel_details.csv", "fifo-gz": "t.json.gz"}[kind])
        os.mkfifo(p)
        return Built(p)
    if kind == "fifo-in-folder":   # a folder of traces holding a FIFO named like a trace
        os.mkdir(j("d"))
        _good(j("d"))
        os.mkfifo(j("d", "rank1.json"))
        return Built(j("d"), names=("d", "rank1.json", "kernel_details.csv"), multi=True)
    if kind == "fifo-as-kernel-details":
        os.makedirs(j("x_ascend_pt", "ASCEND_PROFILER_OUTPUT"))
        os.mkfifo(j("x_ascend_pt", "ASCEND_PROFILER_OUTPUT", "kernel_details.csv"))
        return Built(j("x_ascend_pt"), names=("x_ascend_pt", "kernel_details.csv"))
    if kind == "folder-named-json":
        os.mkdir(j("trace.json"))
        return Built(j("trace.json"))
    if kind == "folder-named-json-with-trace":
        os.mkdir(j("trace.json"))
        _good(j("trace.json"), "kineto")
        return Built(j("trace.json"), names=("trace.json", "tiny.pt.trace.json"))
    if kind == "folder-as-kernel-details":
        os.makedirs(j("x_ascend_pt", "ASCEND_PROFILER_OUTPUT", "kernel_details.csv"))
        return Built(j("x_ascend_pt"), names=("x_ascend_pt", "kernel_details.csv"))
    if kind in ("chmod-000", "chmod-000-folder", "chmod-000-gz"):
        if kind == "chmod-000-folder":
            os.mkdir(j("locked_ascend_pt"))
            os.mkdir(j("locked_ascend_pt", "ASCEND_PROFILER_OUTPUT"))
            _good(j("locked_ascend_pt", "ASCEND_PROFILER_OUTPUT"))
            p = j("locked_ascend_pt", "ASCEND_PROFILER_OUTPUT")
        else:
            p = _good(folder, "kineto" if kind == "chmod-000-gz" else "ascend")
            if kind == "chmod-000-gz":
                data = open(p, "rb").read()
                os.unlink(p)
                p = p + ".gz"
                open(p, "wb").write(gzip.compress(data, mtime=0))
        os.chmod(p, 0)
        skip = None
        if os.access(p, os.R_OK) or (os.path.isdir(p) and os.access(p, os.X_OK)):
            skip = "running as root: chmod 000 does not stop this process reading the file"
        target = j("locked_ascend_pt") if kind == "chmod-000-folder" else p
        return Built(target, names=(os.path.basename(target), os.path.basename(p), "kernel_details.csv"), skip=skip)
    if kind == "symlink-loop":
        os.symlink(j("b.json"), j("a.json"))
        os.symlink(j("a.json"), j("b.json"))
        return Built(j("a.json"), names=("a.json", "b.json"))
    if kind == "symlink-self":
        os.symlink(j("self.csv"), j("self.csv"))
        return Built(j("self.csv"))
    if kind == "symlink-dangling":
        os.symlink(j("missing.csv"), j("dangling.csv"))
        return Built(j("dangling.csv"), names=("dangling.csv", "missing.csv"))
    if kind == "symlink-good":
        p = _good(folder)
        os.symlink(p, j("link.csv"))
        return Built(j("link.csv"), names=("link.csv", "kernel_details.csv"))
    if kind == "symlink-dir-loop":   # a folder of traces with a link back to itself
        os.mkdir(j("d"))
        _good(j("d"))
        os.symlink(j("d"), j("d", "loop"))
        return Built(j("d"), names=("d", "loop", "kernel_details.csv"), multi=True)
    if kind == "symlink-dir-loop-named-pt":
        os.mkdir(j("d"))
        _good(j("d"), "kineto")
        os.symlink(j("d"), j("d", "loop_ascend_pt"))
        return Built(j("d"), names=("d", "loop_ascend_pt", "tiny.pt.trace.json"), multi=True)
    if kind.startswith("name-"):
        name, seed, content = FS_NAMES[kind]
        p = j(name)
        with open(p, "wb") as f:
            f.write(seed_bytes(seed) if content == "good" else b'{"traceEvents":[{"ph":"X"')
        return Built(p)
    if kind == "empty-folder":
        os.mkdir(j("empty"))
        return Built(j("empty"))
    if kind == "folder-of-empty-folder":
        os.makedirs(j("outer", "inner"))
        return Built(j("outer"), names=("outer", "inner"))
    if kind == "folder-of-other-files":
        os.mkdir(j("other"))
        open(j("other", "notes.txt"), "w").write("hello\n")
        open(j("other", "step_trace_time.csv"), "w").write("Step,Computing\n1,2\n")
        open(j("other", "config.json"), "w").write('{"a": 1}')
        return Built(j("other"))
    if kind == "pt-empty-output":
        os.makedirs(j("e_ascend_pt", "ASCEND_PROFILER_OUTPUT"))
        return Built(j("e_ascend_pt"), names=("e_ascend_pt", "ASCEND_PROFILER_OUTPUT"))
    if kind == "pt-empty-kernel-details":
        os.makedirs(j("k_ascend_pt", "ASCEND_PROFILER_OUTPUT"))
        open(j("k_ascend_pt", "ASCEND_PROFILER_OUTPUT", "kernel_details.csv"), "w").close()
        return Built(j("k_ascend_pt"), names=("k_ascend_pt", "kernel_details.csv"))
    if kind == "pt-bad-profiler-info":
        os.makedirs(j("i_ascend_pt", "ASCEND_PROFILER_OUTPUT"))
        _good(j("i_ascend_pt", "ASCEND_PROFILER_OUTPUT"))
        open(j("i_ascend_pt", "profiler_info_0.json"), "w").write('{"config": [1, 2, {"rank_id": "x"')
        return Built(j("i_ascend_pt"), names=("i_ascend_pt", "profiler_info_0.json", "kernel_details.csv"))
    if kind == "pt-profiler-info-wrong-types":
        os.makedirs(j("w_ascend_pt", "ASCEND_PROFILER_OUTPUT"))
        _good(j("w_ascend_pt", "ASCEND_PROFILER_OUTPUT"))
        open(j("w_ascend_pt", "profiler_info_0.json"), "w").write(
            '{"rank_id": [1], "config": "x", "start_info": null, "end_info": 5, "DeviceInfo": {"id": {}}}')
        return Built(j("w_ascend_pt"), names=("w_ascend_pt", "profiler_info_0.json", "kernel_details.csv"))
    if kind == "op-summary-folder-bad-slices":
        os.mkdir(j("PROF_1"))
        open(j("PROF_1", "op_summary_slice_x_1.csv"), "wb").write(seed_bytes("opsum"))
        open(j("PROF_1", "op_summary_slice_0_1.csv"), "wb").write(b"")
        return Built(j("PROF_1"), names=("PROF_1", "op_summary_slice_0_1.csv", "op_summary_slice_x_1.csv"))
    if kind == "dev-null":
        return Built("/dev/null", names=("/dev/null", "null"))
    if kind == "dev-zero":
        return Built("/dev/zero", names=("/dev/zero", "zero"))
    if kind == "proc-file":   # size 0 on stat, content when read
        return Built("/proc/self/status", names=("status",))
    if kind == "store-as-input":
        return Built(j("store.duckdb"))   # the test's store itself
    if kind == "sqlite-as-input":
        import sqlite3
        p = j("profile.json")
        con = sqlite3.connect(p)
        con.execute("CREATE TABLE t(a)")
        con.commit()
        con.close()
        return Built(p)
    if kind == "trailing-slash-file":
        p = _good(folder)
        return Built(p + "/", names=("kernel_details.csv",))
    if kind == "sparse-zeros":   # 2 GB of zeros (sparse: no disk used) named like a trace
        p = j("kernel_details.csv")
        with open(p, "wb") as f:
            f.truncate(2 << 30)
        return Built(p)
    if kind == "sparse-after-header":   # a valid header and rows, then 1 GB of zeros
        p = _good(folder)
        with open(p, "r+b") as f:
            f.truncate(os.path.getsize(p) + (1 << 30))
        return Built(p)
    if kind == "sparse-json":   # a Kineto object whose array goes on as 1 GB of zeros
        p = j("big.json")
        with open(p, "wb") as f:
            f.write(b'{"traceEvents":[')
            f.truncate(1 << 30)
        return Built(p)
    if kind == "gzip-bomb-spaces":   # inflates to 64 MB of blanks inside the event array
        return Built(_gzip_bomb(j("bomb.json.gz"), b'{"traceEvents":[', b" " * (1 << 20), b"]}"))
    if kind == "gzip-bomb-string":   # one 64 MB kernel name
        return Built(_gzip_bomb(j("bomb.json.gz"), b'{"traceEvents":[{"ph":"X","cat":"kernel","pid":0,"tid":7,'
                                b'"ts":1,"dur":1,"name":"', b"K" * (1 << 20), b'"}]}'))
    if kind == "gzip-bomb-events":   # ~1 M copies of one tiny kernel event (64 MB inflated)
        ev = b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{}},'
        return Built(_gzip_bomb(j("bomb.json.gz"), b'{"traceEvents":[', ev * ((1 << 20) // len(ev)),
                                ev[:-1] + b"]}"))
    if kind == "deep-nesting-root":
        p = j("deep.json")
        open(p, "w").write("[" * 100_000 + "]" * 100_000)
        return Built(p)
    if kind == "deep-nesting-args":
        p = j("deep.json")
        data, _ = op_nesting(None, "args:100000:closed", SEEDS["kineto"])
        open(p, "wb").write(data)
        return Built(p)
    if kind == "deep-nesting-obj-unclosed":
        p = j("deep.json")
        data, _ = op_nesting(None, "obj:100000:open", SEEDS["kineto"])
        open(p, "wb").write(data)
        return Built(p)
    raise ValueError(kind)


def _gzip_bomb(path, head: bytes, block: bytes, tail: bytes, copies: int = 64) -> str:
    """A gzip file inflating to head, `copies` times block, tail (block ~1 MB: ~64 MB inflated)."""
    with gzip.open(path, "wb", compresslevel=9) as f:
        f.write(head)
        for _ in range(copies):
            f.write(block)
        f.write(tail)
    return path


# name -> (file name, seed, good content or a broken one)
FS_NAMES = {
    "name-newline": ("tra\nce.json", "kineto", "good"),
    "name-newline-bad": ("bad\nname.json", "kineto", "bad"),
    "name-unicode": ("трасса_跟踪_🚀.json", "kineto", "good"),
    "name-unicode-bad": ("трасса_跟踪_🚀_bad.json", "kineto", "bad"),
    "name-nfd": ("cafe\u0301.csv", "ascend", "good"),
    "name-spaces": ("  my trace .csv", "ascend", "good"),
    "name-glob": ("k*[1]?.csv", "ascend", "good"),
    "name-quotes": ("it's \"q\".json", "kineto", "good"),
    "name-sql": ("x' OR 1=1 --.csv", "ascend", "good"),
    "name-long": ("k" * 240 + ".csv", "ascend", "good"),
    "name-dash": ("-x.json", "kineto", "good"),
    "name-tab-escape": ("t\tab\x1b[31m.json", "kineto", "bad"),
    "name-upper-ext": ("TRACE.JSON", "kineto", "good"),
    "name-no-ext": ("trace", "kineto", "good"),
    "name-csv-holding-json": ("kernel_details.csv", "kineto", "good"),
    "name-json-holding-csv": ("trace.json", "ascend", "good"),
    "name-gz-holding-plain": ("trace.json.gz", "kineto", "good"),
    "name-only-ext": (".json", "kineto", "good"),
    "name-line-separator": ("a\u2028b.json", "kineto", "bad"),
}

FS_SUBPROCESS = {"fifo-json", "fifo-csv", "fifo-gz", "fifo-in-folder", "fifo-as-kernel-details", "dev-zero",
                 "sparse-zeros", "sparse-after-header", "sparse-json", "gzip-bomb-spaces", "gzip-bomb-string",
                 "gzip-bomb-events", "deep-nesting-root", "deep-nesting-args", "deep-nesting-obj-unclosed",
                 "proc-file"}
FS_FAST = ["fifo-json", "folder-named-json", "chmod-000", "symlink-loop", "name-newline", "name-newline-bad",
           "name-unicode-bad", "empty-folder", "dev-null", "gzip-bomb-spaces", "deep-nesting-args",
           "pt-empty-output", "name-sql"]
FS_ALL = ["fifo-json", "fifo-csv", "fifo-gz", "fifo-in-folder", "fifo-as-kernel-details", "folder-named-json",
          "folder-named-json-with-trace", "folder-as-kernel-details", "chmod-000", "chmod-000-folder",
          "chmod-000-gz", "symlink-loop", "symlink-self", "symlink-dangling", "symlink-good", "symlink-dir-loop",
          "symlink-dir-loop-named-pt", *FS_NAMES, "empty-folder", "folder-of-empty-folder", "folder-of-other-files",
          "pt-empty-output", "pt-empty-kernel-details", "pt-bad-profiler-info", "pt-profiler-info-wrong-types",
          "op-summary-folder-bad-slices", "dev-null", "dev-zero", "proc-file", "store-as-input", "sqlite-as-input",
          "trailing-slash-file", "sparse-zeros", "sparse-after-header", "sparse-json", "gzip-bomb-spaces",
          "gzip-bomb-string", "gzip-bomb-events", "deep-nesting-root", "deep-nesting-args",
          "deep-nesting-obj-unclosed"]


def build(c: InputCase, folder) -> Built:
    """Write the case's input under `folder` (which already holds the store, store.duckdb)."""
    if c.op == "fs":
        return fs_build(c.arg, folder)
    seed = SEEDS[c.seed]
    data, filename = OPS[c.op](seed_bytes(c.seed), c.arg, seed)
    sub = os.path.join(str(folder), "in")
    os.makedirs(sub, exist_ok=True)
    path = os.path.join(sub, filename)
    with open(path, "wb") as f:
        f.write(data)
    return Built(path)


# ---------------------------------------------------------------------------------------------- case lists
JSON_SEEDS_FAST = ["kineto", "swimlane", "r-traceview"]
CSV_SEEDS_FAST = ["ascend", "opsum"]
JSON_SEEDS_DEEP = ["kineto", "kineto-pretty", "kineto-array", "swimlane", "r-mi250", "r-vllm", "r-traceview",
                   "r-swimlane"]
CSV_SEEDS_DEEP = ["ascend", "opsum", "r-kd", "r-kd47", "r-opsum"]
KINETO_FIELDS = ["ph", "ts", "dur", "pid", "tid", "name", "cat", "args", "args.correlation", "args.External id",
                 "args.device", "args.stream", "args.grid"]
ASCEND_COLS = ["Start Time(us)", "Duration(us)", "Wait Time(us)", "Name", "Type", "Accelerator Core", "Task ID",
               "Stream ID", "Step Id", "Device_id", "Model ID", "Block Dim", "Mix Block Dim", "Context ID",
               "aicore_time(us)", "Input Shapes", "OP State"]
OPSUM_COLS = ["Task Start Time(us)", "Task Duration(us)", "Op Name", "OP Type", "Task Type", "Task ID",
              "Device_id", "Block Num", "aic_total_cycles"]
FRACTIONS_FAST = [0.0005, 0.31, 0.5, 0.77, 0.999]


def _fracs(n, key):
    r = rng_for("fracs", key)
    return sorted({round(r.random(), 4) for _ in range(n)} | {0.0001, 0.9999})


def curated_input_cases() -> list[InputCase]:
    """Every mutation family on a few seeds, a few arguments each (~160 cases): the fast tier is a subset of
    them (FAST_IDS), the rest go to the deep tier."""
    cs = []
    for s in ("kineto", "ascend", "swimlane", "r-traceview", "r-kd47", "r-opsum"):
        cs.append(case(s, "as-is"))
    for s, fr in (("kineto", 0.31), ("kineto", 0.999), ("ascend", 0.5), ("ascend", 0.0005), ("swimlane", 0.77),
                  ("r-traceview", 0.5), ("opsum", 0.77)):
        cs.append(case(s, "trunc", fr))
    cs += [case("kineto", "trunc-gz", 0.5), case("kineto", "trunc-gz", 0.999), case("ascend", "trunc-gz", 0.3),
           case("kineto", "gz-trunc", 0.6), case("kineto", "gz-flip", 3), case("kineto", "gz")]
    for s in ("kineto", "ascend", "swimlane", "opsum"):
        cs += [case(s, "flip", 1), case(s, "insert", 1), case(s, "delete", 1)]
    cs += [case("kineto", "dup-span", 1), case("ascend", "dup-span", 1)]
    cs += [case("kineto", "trailing", k) for k in ("garbage", "twice", "nuls")]
    cs += [case("ascend", "trailing", "garbage")]
    cs += [case("kineto", "encoding", k) for k in ("utf8-bom", "utf-16", "latin-1", "nul-middle")]
    cs += [case("ascend", "encoding", k) for k in ("utf8-bom", "utf-16-le-bom", "latin-1", "nul-end", "utf-32")]
    cs += [case("ascend", "eol", k) for k in ("crlf", "cr", "mixed")]
    cs += [case("kineto", "compress", k) for k in ("bz2", "xz", "zip", "multi-member", "gzip-trailing-garbage",
                                                    "gzip-of-empty", "bad-crc")]
    cs += [case("kineto", "root", k) for k in ("null", "str", "list-of-num", "obj-other")]
    cs += [case("kineto", "events-type", k) for k in ("null", "obj", "str", "list-num")]
    cs += [case("kineto", "event-type", k) for k in ("first:null", "mid:str", "last:list")]
    cs += [case("kineto", "field-type", k) for k in ("all:ts:str", "first:ts:nan", "all:dur:neg", "first:dur:2^64",
                                                      "all:pid:obj", "first:name:list", "all:args:str",
                                                      "first:ph:null", "all:args.correlation:str",
                                                      "all:tid:big-float")]
    cs += [case("swimlane", "field-type", k) for k in ("all:ts:neg-str", "first:tid:list")]
    cs += [case("r-traceview", "field-type", k) for k in ("all:ts:float-str", "first:ts:huge-str", "mid:dur:str")]
    cs += [case("kineto", "missing-key", k) for k in ("all:ts", "all:dur", "all:ph", "first:pid", "meta:-",
                                                       "top:traceEvents")]
    cs += [case("kineto", "meta-type", k) for k in ("baseTimeNanoseconds:str", "deviceProperties:obj",
                                                     "distributedInfo:list")]
    cs += [case("kineto", "meta-order", k) for k in ("after", "split", "string-mention")]
    cs += [case("kineto", "dup-key", k) for k in ("ph", "ts", "traceEvents-empty-first")]
    cs += [case("kineto", "nesting", k) for k in ("args:1000:closed", "event:1000:closed", "root:1000:open")]
    cs += [case("kineto", "huge-string", "name:1")]
    cs += [case("kineto", "number-form", k) for k in ("ts:NaN", "ts:hex", "dur:overflow", "ts:exp")]
    cs += [case("kineto", "empty", k) for k in ("empty", "obj", "events-empty", "open-brace", "one-cpu-event")]
    cs += [case("ascend", "empty", k) for k in ("empty", "bom", "nul")]
    cs += [case("ascend", "csv-value", f"{w}|{c}|{v}") for w, c, v in (
        ("first", "Start Time(us)", "abc"), ("all", "Duration(us)", "neg"), ("last", "Start Time(us)", "1e300"),
        ("first", "Task ID", "23-digits"), ("all", "Start Time(us)", "underscore"), ("first", "Duration(us)", "empty"),
        ("all", "Stream ID", "na"), ("first", "Block Dim", "2^64"), ("last", "Duration(us)", "nan"),
        ("first", "Name", "empty"), ("all", "Start Time(us)", "bigint-ns-over"), ("first", "Wait Time(us)", "inf"))]
    cs += [case("opsum", "csv-value", f"{w}|{c}|{v}") for w, c, v in (
        ("first", "Task Start Time(us)", "comma"), ("all", "Task Duration(us)", "exp"))]
    cs += [case("ascend", "csv-header", k) for k in ("rename|Start Time(us)", "drop|Duration(us)", "dup|Start Time(us)",
                                                     "dup-header-only|Name", "upper|Name", "bom-cell|Step Id",
                                                     "empty-name|Type", "semicolons")]
    cs += [case("opsum", "csv-header", k) for k in ("drop|Op Name", "dup|Task Duration(us)")]
    cs += [case("ascend", "csv-rows", k) for k in ("header-only", "no-header", "blank-lines", "extra-cells",
                                                   "short-row", "unbalanced-quote", "quoted-newline", "dup-header-row")]
    cs += [case("ascend", "csv-huge", "name:1")]
    cs += [InputCase(f"fs/{k}", "", "fs", k, "subprocess" if k in FS_SUBPROCESS else "inprocess") for k in FS_FAST]
    return _unique(cs)


# The fast tier (CI, every `pytest`): ~50 cases, one or two of each family, ~30 s. A successful ingest costs
# ~1.5 s (the ingest and the two reports checked on it), a refused one ~0.3 s.
FAST_IDS = [
    "kineto/as-is", "r-kd47/as-is", "r-traceview/as-is", "swimlane/as-is", "kineto/trunc@0.31", "ascend/trunc@0.5",
    "kineto/trunc-gz@0.5", "kineto/gz-flip@3", "ascend/flip@1", "kineto/flip@1", "opsum/insert@1",
    "swimlane/delete@1", "kineto/trailing@garbage", "ascend/encoding@utf-16-le-bom", "ascend/encoding@latin-1",
    "kineto/encoding@utf-16", "kineto/encoding@nul-middle", "ascend/eol@cr", "kineto/compress@bz2",
    "kineto/compress@zip", "kineto/root@list-of-num", "kineto/events-type@obj", "kineto/event-type@first:null",
    "kineto/field-type@all:ts:str", "kineto/field-type@first:dur:2^64", "kineto/field-type@all:pid:obj",
    "r-traceview/field-type@first:ts:huge-str", "swimlane/field-type@all:ts:neg-str", "kineto/missing-key@all:ts",
    "kineto/missing-key@top:traceEvents", "kineto/meta-type@baseTimeNanoseconds:str",
    "kineto/meta-order@string-mention", "kineto/dup-key@traceEvents-empty-first", "kineto/nesting@root:1000:open",
    "kineto/number-form@ts:NaN", "kineto/empty@empty", "ascend/empty@bom",
    "ascend/csv-value@first|Start Time(us)|abc", "ascend/csv-value@all|Duration(us)|neg",
    "ascend/csv-value@first|Task ID|23-digits", "ascend/csv-value@all|Start Time(us)|underscore",
    "ascend/csv-value@first|Block Dim|2^64", "ascend/csv-value@all|Start Time(us)|bigint-ns-over",
    "opsum/csv-value@first|Task Start Time(us)|comma", "ascend/csv-header@dup|Start Time(us)",
    "ascend/csv-header@drop|Duration(us)", "ascend/csv-header@dup-header-only|Name", "opsum/csv-header@drop|Op Name",
    "ascend/csv-rows@unbalanced-quote", "ascend/csv-rows@quoted-newline", "ascend/csv-huge@name:1",
    "fs/fifo-json", "fs/folder-named-json", "fs/chmod-000", "fs/symlink-loop", "fs/name-newline-bad",
    "fs/name-unicode-bad", "fs/empty-folder", "fs/dev-null", "fs/gzip-bomb-spaces", "fs/deep-nesting-args"]


def fast_input_cases() -> list[InputCase]:
    by_id = {c.id: c for c in curated_input_cases()}
    return [by_id[i] for i in FAST_IDS]


def deep_input_cases() -> list[InputCase]:
    """The deep tier: the fast tier's families on every seed, many more arguments (thousands of cases)."""
    cs = []
    for s in JSON_SEEDS_DEEP + CSV_SEEDS_DEEP:
        cs.append(case(s, "as-is"))
        cs += [case(s, "trunc", f) for f in _fracs(20 if s.startswith("r-") else 30, s)]
        cs += [case(s, "trunc-gz", f) for f in _fracs(8, s + "gz")]
        cs += [case(s, "gz-trunc", f) for f in _fracs(4, s + "gzt")]
        cs += [case(s, "gz-flip", n) for n in (1, 2, 5)]
        cs.append(case(s, "gz"))
        n = 12 if s.startswith("r-") else 25
        cs += [case(s, op, k) for op in ("flip", "insert", "delete") for k in range(n)]
        cs += [case(s, "dup-span", k) for k in range(5)]
        cs += [case(s, "trailing", k) for k in TRAILERS]
        cs += [case(s, "encoding", k) for k in ("utf8-bom", "double-bom", "utf-16", "utf-16-le", "utf-16-be",
                                                "utf-32", "utf-16-le-bom", "latin-1", "cp1252-quotes", "utf8-accent",
                                                "nul-middle", "nul-end", "nul-start", "surrogate")]
        cs += [case(s, "eol", k) for k in ("crlf", "cr", "mixed", "none")]
        cs += [case(s, "compress", k) for k in ("bz2", "xz", "zlib", "zip", "double-gzip", "multi-member",
                                                "gzip-trailing-garbage", "gzip-of-empty", "gzip-header-only",
                                                "gzip-magic-only", "bad-crc", "bad-isize", "plain-named-gz")]
    for s in ("kineto", "ascend"):
        cs += [case(s, "trunc-at", n) for n in range(0, 64)]
    for s in JSON_SEEDS_DEEP:
        cs += [case(s, "root", k) for k in ROOT_FORMS]
        cs += [case(s, "events-type", k) for k in ("null", "obj", "str", "true", "zero", "list-num", "obj-num")]
        cs += [case(s, "event-type", f"{w}:{k}") for w in ("first", "mid", "last")
               for k in ("null", "str", "list", "true", "zero", "obj")]
        fields = KINETO_FIELDS if s.startswith(("kineto", "r-mi250", "r-vllm")) else \
            ["ph", "ts", "dur", "pid", "tid", "name", "cat", "args"]
        for f in fields:
            for w in ("first", "all") if s in ("kineto", "swimlane", "r-traceview") else ("first",):
                cs += [case(s, "field-type", f"{w}:{f}:{k}") for k in WRONG]
        cs += [case(s, "missing-key", f"{w}:{k}") for w in ("first", "all")
               for k in ("ph", "ts", "dur", "pid", "tid", "name", "cat", "args")]
        cs += [case(s, "missing-key", k) for k in ("meta:-", "top:traceEvents")]
        cs += [case(s, "meta-order", k) for k in ("before", "after", "split", "huge-after", "nested-key",
                                                  "string-mention")]
        cs += [case(s, "dup-key", k) for k in ("ph", "ts", "dur", "name", "pid", "traceEvents-empty-first",
                                               "traceEvents-empty-last")]
        # the deepest nesting and the biggest strings in a process of their own (a crash of the JSON parser
        # must not take the test run with it) under the memory limit
        cs += [case(s, "nesting", f"{w}:{d}:{c}", runner="subprocess" if d >= 10000 else "inprocess")
               for w in ("args", "event", "obj") for d in (100, 1000, 10000) for c in ("closed", "open")]
        cs += [case(s, "huge-string", f"{w}:{mb}", runner="subprocess" if mb >= 8 else "inprocess")
               for w in ("name", "args", "key", "escapes") for mb in (1, 8)]
        cs += [case(s, "many-events", n) for n in (1000, 50000)]
        cs += [case(s, "number-form", f"{f}:{k}") for f in ("ts", "dur") for k in NUMBER_FORMS]
    for k in ("kineto",):
        cs += [case(k, "meta-type", f"{m}:{w}") for m in ("baseTimeNanoseconds", "deviceProperties",
                                                          "distributedInfo", "displayTimeUnit", "schemaVersion",
                                                          "traceName") for w in WRONG]
        cs += [case(k, "empty", e) for e in EMPTY_FORMS]
    cs += [case("ascend", "empty", e) for e in EMPTY_FORMS]
    for s, cols in (("ascend", ASCEND_COLS), ("opsum", OPSUM_COLS)):
        for c in cols:
            cs += [case(s, "csv-value", f"first|{c}|{v}") for v in CSV_VALUES]
            cs += [case(s, "csv-value", f"all|{c}|{v}") for v in ("abc", "neg", "empty", "na", "1e300", "underscore",
                                                                   "23-digits", "comma", "newline", "padded")]
            cs += [case(s, "csv-header", f"{k}|{c}") for k in ("rename", "empty-name", "upper", "padded", "bom-cell",
                                                               "drop", "dup", "dup-header-only", "swap")]
        cs += [case(s, "csv-header", k) for k in ("extra-col", "trailing-comma", "many-cols", "only-required",
                                                  "semicolons", "tabs")]
        cs += [case(s, "csv-rows", k) for k in ("header-only", "no-header", "blank-lines", "blank-cells-line",
                                                "extra-cells", "short-row", "one-cell-row", "unbalanced-quote",
                                                "quote-mid-cell", "quoted-newline", "quoted-crlf", "quoted-comma",
                                                "escaped-quotes", "backslash-quote", "comment-line", "dup-header-row",
                                                "reversed", "identical-rows")]
        cs += [case(s, "csv-huge", f"{k}:{mb}", runner="subprocess" if mb >= 16 else "inprocess")
               for k in ("name", "quoted-name", "cells", "rows") for mb in (1, 16)]
    for s in ("r-kd", "r-kd47", "r-opsum"):
        header_cols = {"r-opsum": ["Task Start Time(us)", "Task Duration(us)", "Op Name", "Task ID", "aicore_time(us)"]}
        for c in header_cols.get(s, ["Start Time(us)", "Duration(us)", "Name", "Task ID", "aicore_time(us)"]):
            cs += [case(s, "csv-value", f"{w}|{c}|{v}") for w in ("first", "all")
                   for v in ("abc", "neg", "empty", "na", "1e300", "underscore", "comma", "nan")]
            cs += [case(s, "csv-header", f"{k}|{c}") for k in ("rename", "drop", "dup", "dup-header-only")]
    cs += [InputCase(f"fs/{k}", "", "fs", k, "subprocess" if k in FS_SUBPROCESS else "inprocess") for k in FS_ALL]
    fast = set(FAST_IDS)
    cs = [c for c in _unique(cs) if c.id not in fast]
    curated = [c for c in curated_input_cases() if c.id not in fast]
    return _unique(curated + _capped([c for c in cs if c.id not in {k.id for k in curated}], DEEP_CAPS))


# Cases per mutation family in the deep tier: the full cross products above hold ~7,700 cases (over an hour
# on the 2-core CI machine); a fixed sample of each large family keeps the tier near 2,700 (~30 min).
DEEP_CAPS = {"field-type": 500, "csv-value": 400, "csv-header": 150, "number-form": 80, "flip": 120, "insert": 120,
             "delete": 120, "trunc": 200, "encoding": 100, "compress": 90, "nesting": 60, "event-type": 50,
             "missing-key": 60, "meta-type": 50, "trunc-gz": 60, "trailing": 50, "root": 40, "gz-trunc": 30,
             "dup-span": 30, "huge-string": 24, "dup-key": 30, "events-type": 25, "gz-flip": 20, "many-events": 8}


def _capped(cs, caps):
    """At most caps[op] cases of each family, a fixed sample (seeded by the family's name), in list order."""
    by_op = {}
    for c in cs:
        by_op.setdefault(c.op, []).append(c)
    keep = set()
    for op, group in by_op.items():
        n = caps.get(op, len(group))
        keep |= {c.id for c in (group if n >= len(group) else rng_for("deep", op).sample(group, n))}
    return [c for c in cs if c.id in keep]


def _unique(cs):
    seen, out = set(), []
    for c in cs:
        if c.id not in seen:
            seen.add(c.id)
            out.append(c)
    return out


# ============================================================================================== checking
def check_ingest(case_id, store, target, *, names=(), runner=run_inprocess, env=None, cwd=None, multi=False):
    """Ingest `target` into the prepared `store` and check the whole promise: the call's own, and when it
    exits 0 the landed run's consistency and the reports on it. Beyond a plain check:
    - `multi`: the target is a folder of several traces, one run each in its own transaction (by design:
      tests/test_bad_input.py::test_second_path_fails_first_stays), so a failed call may still add the runs
      of the traces that were good: then each added run must be consistent and the runs already there as
      they were, instead of the whole store as it was;
    - the reports on a landed run are read-only: when the store's bytes are the same after one, its state is
      the same, and the two store_state reads around it (~0.1 s) are saved."""
    before = store_state(store)
    out = runner("ingest", target, "--db", store, env=env, cwd=cwd)
    after = store_state(store)
    partial = multi and out.returncode == 1 and not out.hung and new_run_names(before, after)
    if partial:
        failures = [(out, promise_violations(out, names=names))]
        failures.append((out, landed_run_violations(before, after, Outcome(out.args, 0, out.stdout))))
    else:
        failures = [(out, promise_violations(out, names=names, before=before, after=after))]
    if (out.returncode == 0 or partial) and not out.hung:
        if not partial:
            failures.append((out, landed_run_violations(before, after, out)))
        for name in new_run_names(before, after):
            failures += report_failures(store, name, after)
    messages = []
    for o, violations in failures:
        log_violations(case_id, o, violations)
        if violations:
            messages.append(describe(case_id, o, violations, cwd))
    assert not messages, "\n".join(messages)


def signature(store):
    h = hashlib.sha1()
    for p in (store, store + ".wal"):
        if os.path.isfile(p):
            with open(p, "rb") as f:
                h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()


def report_failures(store, run_name, state):
    """`report passes` and `report kernels` on a newly landed run: (outcome, violations) of each."""
    found = []
    for report in ("passes", "kernels"):
        sig = signature(store)
        out = run_inprocess("report", report, "--db", store, f"--run={run_name}")
        after = state if signature(store) == sig else store_state(store)
        found.append((out, promise_violations(out, before=state, after=after)))
        state = after
    return found


# ============================================================================================== the CLI
@dataclass(frozen=True)
class Param:
    """One parameter of one command, as the typer app declares it."""
    command: tuple        # ("report", "layers")
    name: str             # the Python keyword
    opts: tuple           # ("--layers", "-l"); () for an argument
    kind: str             # int | float | str | flag | choice
    multiple: bool
    argument: bool
    required: bool
    group_callback: bool = False   # an option of a group's own callback (`tracedb runs --format`)


def command_tree():
    """The click command the console script runs (built from the typer app, as `tracedb` builds it)."""
    import typer

    from tracedb.cli.app import app
    return typer.main.get_command(app)


def _kind(p) -> str:
    if getattr(p, "is_flag", False):
        return "flag"
    t = getattr(p.type, "name", str(p.type)).lower()
    if t in ("integer", "int"):
        return "int"
    if t == "float":
        return "float"
    if t == "choice":
        return "choice"
    return "str"


def enumerate_params() -> tuple[list[tuple], list[Param]]:
    """Every leaf command path (a group that runs without a subcommand counts too) and every parameter,
    found by walking the app: a new command or option is covered without editing the fuzz suite."""
    commands, params = [], []

    def walk(cmd, path):
        sub = getattr(cmd, "commands", None)
        if sub is not None:
            if path and getattr(cmd, "invoke_without_command", False):
                commands.append(tuple(path))
                params.extend(_params(cmd, path, True))
            for name, c in sorted(sub.items()):
                if getattr(c, "hidden", False):
                    continue
                walk(c, path + [name])
        else:
            commands.append(tuple(path))
            params.extend(_params(cmd, path, False))

    walk(command_tree(), [])
    return commands, params


def _params(cmd, path, group):
    out = []
    for p in cmd.params:
        if p.name in ("help",) or getattr(p, "hidden", False):
            continue
        argument = type(p).__name__.endswith("Argument")
        out.append(Param(tuple(path), p.name, tuple(() if argument else p.opts), _kind(p),
                         bool(getattr(p, "multiple", False) or getattr(p, "nargs", 1) == -1), argument,
                         bool(p.required), group))
    return out


# Wrong values by parameter kind. *_USAGE: no option of that kind may take them (exit 2 expected); the
# others may be valid for some option (a 0 for --top means all) and only the promise is checked.
INT_VALUES = {"zero": "0", "neg": "-1", "abc": "abc", "huge": "99999999999999999999",
              "neg-huge": "-99999999999999999999", "float": "1.5", "empty": "", "hex": "0x10", "underscore": "1_0",
              "padded": " 7", "max-int64": str(2**63 - 1), "plus": "+2"}
INT_USAGE = {"abc", "huge", "neg-huge", "float", "empty", "hex", "max-int64"}
FLOAT_VALUES = {"nan": "nan", "inf": "inf", "-inf": "-inf", "neg": "-1", "abc": "abc", "empty": "", "1e400": "1e400",
                "zero": "0", "1e-400": "1e-400", "NaN": "NaN", "neg-zero": "-0", "huge": "1e300"}
FLOAT_USAGE = {"nan", "inf", "-inf", "abc", "empty", "1e400", "NaN", "huge"}
STR_VALUES = {"empty": "", "space": " ", "newline": "\n", "name-newline": "x\ny", "sql": "x' OR 1=1 --",
              "drop": "'; DROP TABLE runs; --", "star": "*", "bracket": "[", "backslash": "\\", "unicode": "é🚀",
              "long": "L" * 5000, "dash": "-", "percent": "%s%n", "shell": "$(id)", "dotdot": "../../etc/passwd",
              "nul-ish": "\x01\x7f", "regex-bomb": "(a+)+$", "cr": "a\rb", "ansi": "\x1b[2J"}
# Options whose meaning refuses some values outright (exit 2 expected): option -> value keys.
MUST_REFUSE = {
    "--layers": {"zero", "neg"}, "--blocks-per-layer": {"zero", "neg"}, "--top": {"neg"}, "--top-gaps": {"neg"},
    "--layer": {"neg"}, "--compare-layer": {"neg"}, "--pass-gap": {"neg"},
    "--pass": {"empty", "space", "sql", "star", "long", "dash", "unicode"},
    "--format": {"empty", "space", "sql", "star", "long", "unicode"},
    "--window": {"empty", "space", "sql", "star"}, "--order": {"empty", "sql"}, "--by": {"empty", "sql"},
    "--anchor": {"empty"}, "--run": {"empty"}, "--db": {"empty"}, "--profile": {"empty"},
    "--match": {"empty"}, "--from": {"neg"}, "--to": {"neg"},
}


def values_for(p: Param) -> dict[str, str]:
    return {"int": INT_VALUES, "float": FLOAT_VALUES}.get(p.kind, STR_VALUES)


def must_refuse(p: Param, key: str) -> bool:
    if p.kind == "int" and key in INT_USAGE:
        return True
    if p.kind == "float" and key in FLOAT_USAGE:
        return True
    return any(o in MUST_REFUSE and key in MUST_REFUSE[o] for o in p.opts)
