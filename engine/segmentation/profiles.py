"""Model profiles: TOML data naming the anchor kernel, layers, blocks per layer, a layer start offset
and ordered category rules. Built-ins live in engine/segmentation/profiles/; `--profile path.toml` loads a user file.

A profile may `extends = ["_base", ...]`: its own category rules come first, then each base's, in order.
Files starting with `_` are bases, not listed as profiles."""
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources

from tracedb.errors import UsageError

_CATEGORY_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_KEYS = {"description", "extends", "anchor", "anchor_fallback", "layers", "blocks_per_layer", "layer_offset",
         "category"}


@dataclass
class Profile:
    name: str
    description: str = ""
    anchor: str | None = None
    anchor_fallback: str | None = None
    layers: int | None = None
    blocks_per_layer: int = 1
    layer_offset: int = 0
    rules: list[tuple[str, str]] = field(default_factory=list)   # (category, RE2 pattern), in order
    source: str = ""

    @property
    def categories(self) -> list[str]:
        """Category names in rule order, then `other`."""
        return list(dict.fromkeys([c for c, _ in self.rules] + ["other"]))


def _builtin_dir():
    return resources.files("tracedb.engine.segmentation").joinpath("profiles")


def builtin_names() -> list[str]:
    return sorted(p.name[:-5] for p in _builtin_dir().iterdir()
                  if p.name.endswith(".toml") and not p.name.startswith("_"))


def _read(name_or_path: str) -> tuple[dict, str]:
    if name_or_path.endswith(".toml") or os.sep in name_or_path:
        path = name_or_path
        try:
            with open(path, "rb") as f:
                return tomllib.load(f), path
        except OSError as e:
            raise UsageError(f"profile file {path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise UsageError(f"profile file {path}: {e}") from None
    res = _builtin_dir().joinpath(f"{name_or_path}.toml")
    if not res.is_file():
        raise UsageError(f"unknown profile '{name_or_path}'; built-in profiles: {', '.join(builtin_names())} "
                         "(or give a path to a .toml file)")
    return tomllib.loads(res.read_text(encoding="utf-8")), f"built-in:{name_or_path}"


def load(name_or_path: str, _seen: tuple = ()) -> Profile:
    data, source = _read(name_or_path)
    unknown = set(data) - _KEYS
    if unknown:
        raise UsageError(f"profile {source}: unknown keys {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(sorted(_KEYS))}")
    name = os.path.splitext(os.path.basename(name_or_path))[0]
    rules = []
    for i, c in enumerate(data.get("category", [])):
        if not isinstance(c, dict) or "name" not in c or "pattern" not in c:
            raise UsageError(f"profile {source}: [[category]] #{i + 1} needs name and pattern")
        if not _CATEGORY_NAME.match(c["name"]):
            raise UsageError(f"profile {source}: category name {c['name']!r} must be snake_case (it becomes a column)")
        rules.append((c["name"], c["pattern"]))
    bases = data.get("extends", [])
    for base in [bases] if isinstance(bases, str) else bases:
        if base in _seen:
            raise UsageError(f"profile {source}: extends itself through {base}")
        rules += load(base, _seen + (name_or_path,)).rules
    p = Profile(name=name, description=data.get("description", ""), anchor=data.get("anchor"),
                anchor_fallback=data.get("anchor_fallback"), layers=data.get("layers"),
                blocks_per_layer=int(data.get("blocks_per_layer", 1)), layer_offset=int(data.get("layer_offset", 0)),
                rules=rules, source=source)
    if p.blocks_per_layer < 1 or p.layer_offset < 0 or (p.layers is not None and int(p.layers) < 1):
        raise UsageError(f"profile {source}: layers and blocks_per_layer must be >= 1, layer_offset >= 0")
    return p


def as_dict(p: Profile) -> dict:
    return {"name": p.name, "description": p.description, "anchor": p.anchor, "anchor_fallback": p.anchor_fallback,
            "layers": p.layers, "blocks_per_layer": p.blocks_per_layer, "layer_offset": p.layer_offset,
            "categories": [{"name": c, "pattern": pat} for c, pat in p.rules], "source": p.source}


def model_config(path: str) -> dict:
    """What segmentation takes from a HuggingFace config.json: layer count and per-layer types."""
    try:
        with open(path, encoding="utf-8") as f:
            cfg = json.load(f)
    except OSError as e:
        raise UsageError(f"config {path}: {e.strerror}") from None
    except ValueError as e:
        raise UsageError(f"config {path}: not JSON: {e}") from None
    cfg = cfg.get("text_config", cfg) if isinstance(cfg, dict) else {}
    n = cfg.get("num_hidden_layers")
    if not isinstance(n, int) or n < 1:
        raise UsageError(f"config {path}: no positive integer num_hidden_layers")
    return {"layers": n, "layer_types": layer_types(cfg, n)}


def layer_types(cfg: dict, n: int) -> list[str] | None:
    """Per-layer type labels when the config says: DSv4 compress_ratios (0 FULL_ATTN, 4 C4_LIGHT,
    128 C128_HEAVY), Qwen3-Next/Gemma `layer_types`, or DeepSeek `first_k_dense_replace` (dense/moe)."""
    ratios = cfg.get("compress_ratios")
    if isinstance(ratios, list) and ratios:
        names = {0: "FULL_ATTN", 4: "C4_LIGHT", 128: "C128_HEAVY"}
        return [names.get(r, f"C{r}") for r in ratios[:n]]
    lt = cfg.get("layer_types")
    if isinstance(lt, list) and lt:
        return [str(t) for t in lt[:n]]
    k = cfg.get("first_k_dense_replace")
    if isinstance(k, int) and cfg.get("n_routed_experts"):
        return ["dense" if i < k else "moe" for i in range(n)]
    return None
