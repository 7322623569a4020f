"""The shapes of what `tracedb segment` keeps in a store (engine/segmentation/snapshots.py): the index of kept
segmentations and every TEMP table of the connection it keeps, with their columns and DuckDB types, against which a kept
segmentation is proved before it is restored."""

# The index's columns (snapshot_schema.sql), as the schema listing gives them; an index of the columns before
# `digests` was added is an earlier tracedb's: its keys cannot match this code, and `tracedb segment` adds
# the column.
INDEX = ("snap_id INTEGER", "keys VARCHAR[]", "run_ids INTEGER[]", "tables VARCHAR[]", "state VARCHAR",
         "made_at TIMESTAMP", "tracedb_version VARCHAR", "digests VARCHAR")
INDEX_BEFORE_DIGESTS = INDEX[:-1]

# The TEMP tables a segmentation makes and `tracedb segment` keeps, each with its columns and DuckDB types
# in order (`a|b`: either type; a "NULL" column is one a CREATE ... AS SELECT typed from NULLs only: the
# names that say a phase, in a run with none). Only tables of these very shapes are read back: a dropped
# column or another type would otherwise fail a report halfway (BinderException, ConversionException).
# A stage that changes a kept table's columns changes them here too: test_kept_forged.py compares these with
# what a segmentation makes and prints the line to write.
SHAPES = {
    "_anchor_pass": ("run_id INTEGER", "seq BIGINT", "start_ns BIGINT", "end_ns BIGINT", "idx BIGINT", "pass BIGINT",
                     "grp HUGEINT", "offset_o BIGINT", "gap_ns BIGINT", "k BIGINT", "forced BOOLEAN",
                     "after_optimizer BOOLEAN", "block BIGINT"),
    "_anchors": ("run_id INTEGER", "seq BIGINT", "start_ns BIGINT", "end_ns BIGINT", "idx BIGINT", "src_run INTEGER",
                 "after_optimizer BOOLEAN", "module_break BOOLEAN", "joined BOOLEAN", "step_break BOOLEAN",
                 "replay_break BOOLEAN", "kind_break BOOLEAN", "forced BOOLEAN", "step_ns BIGINT"),
    "_assigned": ("run_id INTEGER", "pass BIGINT", "layer BIGINT", "block BIGINT", "half BIGINT", "seq BIGINT",
                  "start_ns BIGINT", "end_ns BIGINT", "dur_ns BIGINT", "is_comm BOOLEAN", "cat_ord INTEGER",
                  "unit VARCHAR"),
    "_block_classes": ("run_id INTEGER", "cls VARCHAR", "instances BIGINT", "first_inst VARCHAR", "last_inst VARCHAR"),
    "_boundary_names": ("name VARCHAR",),
    "_bwd_norm": ("run_id INTEGER", "seq BIGINT"),
    "_cand_names": ("cand INTEGER", "run_id INTEGER", "name VARCHAR"),
    "_cats": ("name VARCHAR", "op_type VARCHAR", "cat_ord INTEGER", "category VARCHAR"),
    "_chosen": ("cand INTEGER", "run_id INTEGER"),
    "_layer_sources": ("run_id INTEGER", "frames BOOLEAN", "ranges BOOLEAN"),
    "_kernel_blocks": ("run_id INTEGER", "seq BIGINT", "framed BOOLEAN", "cls VARCHAR", "inst VARCHAR",
                       "inst_no BIGINT", "call_ns BIGINT"),
    "_marks": ("run_id INTEGER", "pass BIGINT", "bstart BIGINT", "block BIGINT"),
    "_name_phase": ("name VARCHAR", 'phase VARCHAR|"NULL"', 'grad VARCHAR|"NULL"', "weak BOOLEAN"),
    "_names": ("name VARCHAR", "op_type VARCHAR"),
    "_p2p_names": ("name VARCHAR",),
    "_pass_groups": ("run_id INTEGER", "grp HUGEINT", "anchors BIGINT", "offset_o BIGINT", "first_pass BIGINT",
                     "passes BIGINT", "cut_min_ns BIGINT", "gap_before_ns BIGINT"),
    "_pass_info": ("run_id INTEGER", "pass BIGINT", "step BIGINT", "step_from VARCHAR", "microbatch BIGINT",
                   "step_kind VARCHAR", "kind_from VARCHAR", "tokens BIGINT", "requests BIGINT", "annotation VARCHAR"),
    "_pass_split": ("run_id INTEGER", "rule VARCHAR", "threshold_ns BIGINT", "inside_max_ns BIGINT", "breaks BIGINT",
                    "forced_breaks BIGINT", "step_breaks BIGINT", "replay_breaks BIGINT", "kind_breaks BIGINT",
                    "module_breaks BIGINT"),
    "_passes": ("run_id INTEGER", "pass BIGINT", "anchors BIGINT", "first_start BIGINT", "last_end BIGINT",
                "expected BIGINT", "partial BOOLEAN", "grp HUGEINT", "block_base BIGINT"),
    "_phase": ("run_id INTEGER", "seq BIGINT", "phase VARCHAR", "grad VARCHAR", "evidence VARCHAR", "start_ns BIGINT",
               "dur_ns BIGINT"),
    "_range_classes": ("run_id INTEGER", "cls VARCHAR", "instances BIGINT", "first_inst VARCHAR", "last_inst VARCHAR"),
    "_rules": ("ord INTEGER", "category VARCHAR", "pattern VARCHAR", "cat_ord INTEGER"),
    "_sel": ("run_id INTEGER", "pass BIGINT"),
    "_stream_pick": ("run_id INTEGER", "seq BIGINT"),
    "_stream_runs": ("run_id INTEGER",),
    "_windows": ("run_id INTEGER", "pass BIGINT", "win_start BIGINT", "win_end BIGINT"),
}
# Made by some segmentations only: the proposal's candidates (none with a given --anchor), the module
# classes of a run with repeated nn.Module blocks or layer ranges. Every other table of SHAPES must be kept.
OPTIONAL = frozenset({"_cand_names", "_chosen", "_block_classes", "_range_classes"})
