"""What the keys around a Chrome trace's event array say about its run (device name, rank, world size,
process groups, time base), each checked for type and range: a wrong one is refused naming the key."""
from tracedb.errors import InputError

# Checked facts: rank and world size are INTEGER columns; epoch ns up to 4e18 (year 2096) leave room for
# ts and dur (tracedb.ingest.chrome_json.schema) within BIGINT.
INT32_MAX = 2 ** 31 - 1
BASE_NS_MAX = 4 * 10 ** 18


def run_facts(meta: dict, source: str = "the trace") -> dict:
    """What the top-level keys say about the run: device name, rank, world size, time base; each checked
    for type and range (an InputError names the key)."""
    facts = {}
    props = meta.get("deviceProperties")
    if props is not None:
        if not isinstance(props, list) or (props and not isinstance(props[0], dict)):
            _bad(source, "deviceProperties", props, "a list of objects")
        name = props[0].get("name") if props else None
        if name is not None and not (isinstance(name, str) and len(name) <= 1024):
            _bad(source, "deviceProperties[0].name", name, "a device name (text, at most 1,024 characters)")
        facts["device_name"] = name or None
    dist = meta.get("distributedInfo")
    if dist is not None:
        if not isinstance(dist, dict):
            _bad(source, "distributedInfo", dist, "an object")
        for key, low in (("rank", 0), ("world_size", 1)):
            if dist.get(key) is not None:
                facts[key] = _int_in(source, f"distributedInfo.{key}", dist[key], low, INT32_MAX)
        if facts.get("rank", 0) >= facts.get("world_size", INT32_MAX):
            _bad(source, "distributedInfo.rank", facts["rank"], f"a rank below world_size ({facts['world_size']})")
        if dist.get("pg_config") is not None:
            facts["groups"] = _pg_config(source, dist["pg_config"], facts.get("rank"))
    base = meta.get("baseTimeNanoseconds")
    facts["base_ns"] = 0 if base is None else _int_in(source, "baseTimeNanoseconds", base, 0, BASE_NS_MAX)
    return facts


def _pg_config(source: str, groups, rank) -> list[dict]:
    """distributedInfo.pg_config (PyTorch 2.2+: one object per process group: pg_name, pg_desc,
    backend_config, pg_size, ranks) as run_groups rows. Older PyTorch writes it as an object keyed by
    pg_name; both are read. A rank list that c10d shortened (it writes no list for large groups) is kept empty."""
    items = list(groups.values()) if isinstance(groups, dict) else groups
    if not isinstance(items, list):
        _bad(source, "distributedInfo.pg_config", groups, "a list of process groups")
    out = []
    for i, g in enumerate(items):
        where = f"distributedInfo.pg_config[{i}]"
        if not isinstance(g, dict):
            _bad(source, where, g, "an object (pg_name, pg_desc, backend_config, pg_size, ranks)")
        ranks = g.get("ranks")
        if isinstance(ranks, list) and all(isinstance(r, int) and not isinstance(r, bool) for r in ranks):
            ranks = [_int_in(source, f"{where}.ranks", r, 0, INT32_MAX) for r in ranks]
        else:
            ranks = []
        size = g.get("pg_size")
        size = _int_in(source, f"{where}.pg_size", size, 0, INT32_MAX) if size is not None else len(ranks) or None
        text = {k: (str(g[k])[:1024] if g.get(k) is not None else None)
                for k in ("pg_name", "pg_desc", "backend_config")}
        out.append({"name": text["pg_name"] or str(i), "desc": text["pg_desc"], "backend": text["backend_config"],
                    "size": size, "ranks": ranks, "group_rank": ranks.index(rank) if rank in ranks else None})
    return out


def _int_in(source: str, what: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        _bad(source, what, value, f"an integer from {low:,} to {high:,}")
    return value


def _bad(source: str, what: str, value, expected: str):
    shown = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__.replace("dict", "an object") \
        .replace("list", "a list")
    raise InputError(f"{source}: {what} is {shown[:60]}; expected {expected}")
