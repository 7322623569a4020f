"""torch_npu's profiler_info_{rank}.json beside a profiler folder's output: the rank, profiler level and
versions of the capture, each field checked for type and range. The file is small side JSON, size- and
depth-checked before it is parsed; a malformed one is refused naming the file and the field (the run's
rank would be wrong without it). Also the chip, where the folder's metadata names it (a value such as
Ascend910B3 or Ascend910_9391 in profiler_info or in msprof's device info files, PROF_*/device_*/info.json*
and PROF_*/host/info.json*), kept as `chip` for the peak table (engine/reports/peaks.py); a device info file
that cannot be read names no chip and refuses nothing."""
import glob
import json
import os
import re

from tracedb.errors import InputError
from tracedb.ingest import sniff

# profiler_info_{rank}.json: torch_npu writes ~1.5 KB (the config, start/end clocks, versions, rank_id;
# 1,231-1,547 bytes in the real test data) nested 3 deep (config.common_config.schedule). 1 MiB and 32
# levels leave ample room and keep a runaway or hostile file from costing memory or Python's recursion.
SIDE_JSON_BYTES = 1 << 20
SIDE_JSON_DEPTH = 32
MAX_RANK = 2**31 - 1              # runs.rank is INTEGER
MAX_TEXT = 256                    # a version or level string, stored in runs.metadata
# a chip as CANN names it (Ascend910B3, Ascend910_9391, Ascend310P3), alone in a JSON string
CHIP = re.compile(r"Ascend ?\d{3}[A-Za-z0-9_]{0,16}")
DEVICE_INFO_FILES = 16            # msprof's info.json files looked at, at most (one per device and host)


def profiler_info(pt_root: str) -> dict | None:
    """profiler_info_{rank}.json (or profiler_info.json): rank_id, profiler level, versions. A file that is
    there but malformed, or holds a field tracedb reads with a wrong type or range, is refused naming the
    file and the field (fix or remove it: the run's rank would be wrong without it)."""
    files = sorted(glob.glob(os.path.join(glob.escape(pt_root), "profiler_info*.json")))
    if not files:
        chip = device_info_chip(pt_root)
        return {"chip": chip} if chip else None
    f = files[0]
    info = read_side_json(f)
    if not isinstance(info, dict):
        raise InputError(f"{f}: a JSON {_json_type(info)}; expected torch_npu's profiler_info JSON object")
    keep = {}
    m = re.search(r"profiler_info_(\d+)\.json$", f)
    named = _rank(f, "the rank in the file name", m.group(1)) if m else None
    if info.get("rank_id") is not None:
        keep["rank_id"] = _rank(f, "field rank_id", info["rank_id"])
        if named is not None and named != keep["rank_id"]:
            raise InputError(f"{f}: field rank_id is {keep['rank_id']} but the file name says rank {named}; "
                             "expected them to agree (torch_npu writes both from one rank)")
    elif named is not None:
        keep["rank_id"] = named
    for key in ("torch_npu_version", "cann_version"):
        if info.get(key) is not None:
            keep[key] = _text_field(f, key, info[key])
    config = _object_field(f, "config", info.get("config"))
    experimental = _object_field(f, "config.experimental_config", config.get("experimental_config"))
    level = experimental.get("_profiler_level")
    if level is not None:
        keep["profiler_level"] = _text_field(f, "config.experimental_config._profiler_level", level)
    chip = named_chip(info) or device_info_chip(pt_root)
    if chip:
        keep["chip"] = chip
    return keep


def named_chip(value) -> str | None:
    """The first JSON string (depth first, keys in file order) that is a chip name as CANN writes it."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if CHIP.fullmatch(v.strip()):
                return v.strip()
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
        elif isinstance(v, list):
            stack.extend(reversed(v))
    return None


def device_info_chip(pt_root: str) -> str | None:
    """The chip named in msprof's device info files under the folder's PROF_* folders, if one names it; a
    file that is missing, too large or malformed names none (it is optional metadata, not the trace)."""
    root = glob.escape(pt_root)
    files = sorted(glob.glob(os.path.join(root, "PROF_*", "device_*", "info.json*"))
                   + glob.glob(os.path.join(root, "PROF_*", "host", "info.json*")))
    for path in files[:DEVICE_INFO_FILES]:
        try:
            chip = named_chip(read_side_json(path))
        except (InputError, OSError):
            continue
        if chip:
            return chip
    return None


def read_side_json(path: str):
    """A small JSON side file, size- and depth-checked before it is parsed (SIDE_JSON_BYTES, SIDE_JSON_DEPTH)."""
    with sniff.open_regular(path) as fh:
        data = fh.read(SIDE_JSON_BYTES + 1)
    if len(data) > SIDE_JSON_BYTES:
        raise InputError(f"{path}: larger than {SIDE_JSON_BYTES >> 20} MiB; expected torch_npu's profiler_info JSON "
                         "(about 1.5 KB)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: byte offset {e.start}: invalid UTF-8; expected a JSON text file") from None
    depth, at = _json_depth(text)
    if depth > SIDE_JSON_DEPTH:
        raise InputError(f"{path}: character offset {at}: nested more than {SIDE_JSON_DEPTH} levels deep; expected "
                         "torch_npu's profiler_info JSON (3 levels)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: line {e.lineno} column {e.colno}: not valid JSON ({e.msg}); expected "
                         "torch_npu's profiler_info JSON") from None
    except ValueError:      # Python reads integers of at most 4300 digits
        raise InputError(f"{path}: a number of more than 4300 digits; expected torch_npu's profiler_info JSON") \
            from None
    except RecursionError:  # not reached after the depth check; kept so that no nesting can escape as a traceback
        raise InputError(f"{path}: nested too deep to read; expected torch_npu's profiler_info JSON") from None


# a string token's closing quote is optional: an unterminated string then takes the rest of the text in one
# match instead of being rescanned from every quote inside it (quadratic: 20 KB took 0.8 s)
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


def _json_depth(text: str) -> tuple[int, int]:
    """The deepest nesting of brackets outside strings, and the character offset where it is first reached."""
    depth = deepest = at = 0
    for m in _JSON_TOKENS.finditer(text):
        c = m.group()
        if c in ("[", "{"):
            depth += 1
            if depth > deepest:
                deepest, at = depth, m.start()
                if deepest > SIDE_JSON_DEPTH:
                    break
        elif c in ("]", "}"):
            depth -= 1
    return deepest, at


def _json_type(value) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


def _rank(path: str, what: str, value) -> int:
    """A rank: an integer, or a string of digits (torch_npu writes os.environ['RANK'] as is), 0..2^31-1."""
    ok = (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, str) and value.isdecimal()
                                                                    and value.isascii() and len(value) <= 10)
    if ok and 0 <= int(value) <= MAX_RANK:
        return int(value)
    shown = repr(value) if isinstance(value, str) else json.dumps(value)[:40]
    raise InputError(f"{path}: {what} is {shown}; expected a rank from 0 to {MAX_RANK} (an integer or a string "
                     "of digits)")


def _text_field(path: str, key: str, value) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        shown = f"a string of {len(value):,} characters" if isinstance(value, str) else \
            f"{json.dumps(value)[:40]} (a JSON {_json_type(value)})"
        raise InputError(f"{path}: field {key} is {shown}; expected a string of at most {MAX_TEXT} characters")
    return value


def _object_field(path: str, key: str, value) -> dict:
    """An optional JSON object: {} when absent or null."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"{path}: field {key} is {json.dumps(value)[:40]} (a JSON {_json_type(value)}); expected "
                         "a JSON object")
    return value
