"""The header of an Ascend kernel_details.csv or msprof op_summary_*.csv mapped to canonical columns.

Both are the same table under two sets of column names, with drift across versions (Block Dim|Num,
Step Id|ID, Device_id optional, Level0 vs Level1/2 column sets), mapped here in one place; every other
column is an extra. Which of the two formats a file is follows from its header."""
import re

from tracedb.errors import InputError

# normalised header text -> canonical column (first match wins when a file has both spellings)
COLUMNS = {
    "step id": "step_id",
    "device_id": "device_id",
    "device id": "device_id",
    "model id": "model_id",
    "task id": "task_id",
    "stream id": "stream_id",
    "name": "name",
    "op name": "name",
    "type": "op_type",
    "op type": "op_type",
    "op state": "op_state",
    "accelerator core": "core_type",
    "task type": "core_type",
    "start time(us)": "start_us",
    "task start time(us)": "start_us",
    "duration(us)": "dur_us",
    "task duration(us)": "dur_us",
    "wait time(us)": "wait_us",
    "task wait time(us)": "wait_us",
    "block dim": "block_dim",
    "block num": "block_dim",
    "mix block dim": "mix_block_dim",
    "mix block num": "mix_block_dim",
    "context id": "context_id",
    "input shapes": "input_shapes",
    "input data types": "input_dtypes",
    "input formats": "input_formats",
    "output shapes": "output_shapes",
    "output data types": "output_dtypes",
    "output formats": "output_formats",
}
CANONICAL = list(dict.fromkeys(COLUMNS.values()))
# The integer canonical columns and their width in bits (the others, and the times, are read as text; the
# times stay text until tracedb.ingest.ascend_csv_arrow turns them into integer ns exactly).
INT_BITS = {"device_id": 32, "block_dim": 32, "mix_block_dim": 32, "stream_id": 64, "task_id": 64, "step_id": 64,
            "model_id": 64, "context_id": 64}
SQL_TYPES = {c: "INTEGER" if bits == 32 else "BIGINT" for c, bits in INT_BITS.items()}
REQUIRED = {"name": "Name", "start_us": "Start Time(us)", "dur_us": "Duration(us)"}
# The time columns, whether a '-' is allowed (Wait Time is a gap the profiler computes) and whether a
# missing value ('' or N/A) is an error.
TIMES = (("start_us", False, True), ("dur_us", False, True), ("wait_us", True, False))


def normalise(header_cell: str) -> str:
    return re.sub(r"\s+", " ", header_cell.replace("\ufeff", "").strip().lower())


class Header:
    """Where each canonical column sits in one CSV header, and which columns are extras."""

    def __init__(self, path: str, cells: list[str]):
        self.path, self.cells = path, cells
        self.position: dict[str, int] = {}
        self.extras: list[tuple[str, int]] = []
        self._check_unique()
        for i, cell in enumerate(cells):
            canon = COLUMNS.get(normalise(cell))
            if canon and canon not in self.position:
                self.position[canon] = i
            else:
                self.extras.append((cell.replace("\ufeff", "").strip(), i))
        missing = [label for canon, label in REQUIRED.items() if canon not in self.position]
        if missing:
            raise InputError(f"{path}: line 1: not an Ascend kernel_details/op_summary header: missing "
                             f"{', '.join(missing)} (found: {', '.join(cells[:8])}{', ...' if len(cells) > 8 else ''})")

    def _check_unique(self):
        """A column named twice is refused: which of two `Name` columns is the name, and two metrics of one
        name would be one metric in kernel_metrics. No real header repeats one (19 real CSVs checked)."""
        seen: dict[str, int] = {}
        for i, cell in enumerate(self.cells):
            n = normalise(cell)
            if n and n in seen:
                raise InputError(f"{self.path}: line 1: column {cell.strip()!r} appears twice (columns "
                                 f"{seen[n] + 1} and {i + 1}); expected each column name once")
            seen.setdefault(n, i)

    def label(self, canon: str) -> str:
        """The header's own text for a canonical column (`Task Start Time(us)` in an op_summary)."""
        return self.cells[self.position[canon]].replace("\ufeff", "").strip()

    @property
    def format(self) -> str:
        names = {normalise(c) for c in self.cells}
        return "ascend-op-summary" if names & {"op name", "task start time(us)", "task duration(us)"} \
            else "ascend-kernel-details"
