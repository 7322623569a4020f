"""The options several reports share, declared once: --pass, --absolute, --module-path, --no-align, the
segmentation options every segmenting report takes, the device peaks of the roofline, and the helpers that
build a report's --by and flag options (engine/reports/catalog/ declares the reports with them)."""
from typing import Optional

from tracedb.engine.reports.declaration import Option
from tracedb.engine.segmentation.words import PHASES, WINDOWS

PASS = Option("pass_", ("--pass",), str, "all", "A pass number, all, steady, auto (the steady pass, else the last full "
              "one), or mean (layers, compare: the mean of the steady passes).", check="pass", engine="pass_spec")
ABSOLUTE = Option("absolute", ("--absolute",), bool, False,
                  "Absolute times instead of relative to the run's first kernel.")
MODULE_PATH = Option("module_path", ("--module-path",), bool, False, "Modules by instance path "
                     "(Model_0/Layer_5/Attention_5/Linear_37) instead of their layer-free role.")
NO_ALIGN = Option("no_align", ("--no-align",), bool, False, "Cross-rank reports: raw clocks, without the per-rank "
                  "offsets estimated on the collectives.")


# The segmentation options every segmenting report (and `tracedb segment`, `export perfetto`) takes, in help
# order: the keywords of binding.Options. The command line adds them to each such command; the Python API
# takes them by the same keys.
SEGMENTATION = (
    Option("profile", ("--profile", "-p"), Optional[str], None,
           "Built-in profile name or a .toml path (default: generic).", check="profile"),
    Option("anchor", ("--anchor", "-a"), Optional[str], None,
           "RE2 pattern for the anchor kernel (name or op type); overrides the profile's.", check="anchor"),
    Option("layers", ("--layers", "-l"), Optional[int], None,
           "Layers per pass: passes by anchor count (else by gaps).", check="layers"),
    Option("blocks_per_layer", ("--blocks-per-layer",), Optional[int], None,
           "Anchors per layer (default: profile's, 1).", check="blocks"),
    Option("layer_offset", ("--layer-offset",), Optional[int], None,
           "Move every layer boundary this many kernels before its anchor.", check="count"),
    Option("window", ("--window", "-w"), str, "full",
           "full (default): every kernel of a pass in its prologue or a layer; strict: first to last anchor (the "
           "last layer ends at its anchor).", choices=WINDOWS),
    Option("pass_gap", ("--pass-gap",), Optional[float], None,
           "Split passes where the anchor gap exceeds G x the median gap (default: at gaps >= 2x every gap inside "
           "a pass, found per run).", check="gap"),
    Option("config", ("--config",), Optional[str], None,
           "Model config.json: num_hidden_layers, layer types.", check="config"),
    Option("phase", ("--phase",), Optional[str], None,
           "forward (default) or backward: which passes of a training trace (a backward --anchor picks backward); "
           "report roofline also takes all: every kernel of the run, whatever its phase (forward, backward, "
           "optimizer).", choices=PHASES + ("all",)),
)


def _by(default, choices, help_text):
    return Option("by", ("--by",), str, default, help_text, choices=tuple(choices))


def _flag(key, help_text):
    return Option(key, ("--" + key.replace("_", "-"),), bool, False, help_text)


PEAK_TFLOPS = Option("peak_tflops", ("--peak-tflops",), Optional[float], None,
                     "The device's peak dense TFLOP/s, for every dtype (default: the peak table by device name).",
                     check="peak_tflops")
PEAK_TBS = Option("peak_tbs", ("--peak-tbs",), Optional[float], None,
                  "The device's peak memory bandwidth in TB/s (default: the peak table by device name).",
                  check="peak_tbs")
