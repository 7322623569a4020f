"""The device peaks a roofline is measured against: a table of datasheet figures (dense FLOP/s per dtype and
HBM bandwidth) per device, matched from the run's device name, or the user's --peak-tflops / --peak-tbs.

Every figure is the vendor's published dense (no structured sparsity) number; docs/roofline.md cites the
page each comes from. fp32 is the figure without tensor cores / matrix cores where the vendor gives both
(PyTorch runs fp32 matmuls in fp32 unless TF32 is allowed).
"""
import re

from tracedb import sql

ASCEND_910B = "Ascend 910B"
ASCEND_910_93 = "Ascend 910_93"
# Huawei publishes no per-variant datasheet of the 910B chips: their figures are the ones commonly reported
# (docs/roofline.md), and a run measured against them says so. Ascend 910_93 (Atlas A3, the Ascend 910C
# package of two dies; CANN names each die a device, Ascend910_9391 ... Ascend910_9362): ~376 TFLOP/s dense
# BF16/FP16 and 1.6 TB/s per die, 752 TFLOP/s and 3.2 TB/s per package: "Serving Large Language Models on
# Huawei CloudMatrix384", arXiv:2506.12708, https://arxiv.org/abs/2506.12708 (384 packages ~289 PFLOP/s;
# Huawei's rounded "300 PFLOPs" of dense BF16); 3.2 TB/s of eight HBM2E stacks per package:
# https://www.techpowerup.com/335749/ . Not a per-bin datasheet either: said so too.
UNVERIFIED = (ASCEND_910B, ASCEND_910_93)
# device names that name a family but not its bin: no peak, and a note saying why (msprof's NPU_INFO writes
# "Ascend910B" for every 910B bin)
FAMILY_ONLY = ((r"^\s*Ascend\s*910B\s*$", "names the Ascend 910B family but not its bin (910B1 to 910B4: 414 to 280 "
                "TFLOP/s fp16 as commonly reported, docs/roofline.md)"),)
# (device-name pattern, device, HBM TB/s, {dtype: dense TFLOP/s}); first match wins, so variants come first
PEAKS = (
    (r"A100.*(40\s*GB|PCIE-40)", "A100 40GB", 1.555, {"bf16": 312, "fp16": 312, "fp32": 19.5, "int8": 624}),
    (r"A100", "A100 80GB SXM", 2.039, {"bf16": 312, "fp16": 312, "fp32": 19.5, "int8": 624}),
    (r"H100.*(PCIe|PCIE)", "H100 PCIe", 2.0, {"bf16": 756, "fp16": 756, "fp32": 51, "fp8": 1513, "int8": 1513}),
    (r"H100.*NVL", "H100 NVL", 3.9, {"bf16": 835, "fp16": 835, "fp32": 60, "fp8": 1670, "int8": 1670}),
    (r"H100", "H100 SXM", 3.35, {"bf16": 989, "fp16": 989, "fp32": 67, "fp8": 1979, "int8": 1979}),
    (r"H800", "H800 SXM", 3.35, {"bf16": 989, "fp16": 989, "fp32": 67, "fp8": 1979, "int8": 1979}),
    (r"H200", "H200 SXM", 4.8, {"bf16": 989, "fp16": 989, "fp32": 67, "fp8": 1979, "int8": 1979}),
    (r"B200", "B200 (HGX)", 8.0, {"bf16": 2250, "fp16": 2250, "fp32": 75, "fp8": 4500, "int8": 4500}),
    (r"MI300X", "MI300X", 5.3, {"bf16": 1307.4, "fp16": 1307.4, "fp32": 163.4, "fp8": 2614.9, "int8": 2614.9}),
    (r"MI325X", "MI325X", 6.0, {"bf16": 1307.4, "fp16": 1307.4, "fp32": 163.4, "fp8": 2614.9, "int8": 2614.9}),
    (r"MI355X", "MI355X", 8.0, {"bf16": 2516.6, "fp16": 2516.6, "fp32": 157.3, "fp8": 5033.2, "int8": 5033.2}),
    (r"MI350X", "MI350X", 8.0, {"bf16": 2306.9, "fp16": 2306.9, "fp32": 144.2, "fp8": 4613.7, "int8": 4613.7}),
    (r"910B1", ASCEND_910B + "1", 1.6, {"bf16": 414, "fp16": 414}),
    (r"910B2", ASCEND_910B + "2", 1.6, {"bf16": 376, "fp16": 376}),
    (r"910B3", ASCEND_910B + "3", 1.6, {"bf16": 313, "fp16": 313}),
    (r"910B4", ASCEND_910B + "4", 0.8, {"bf16": 280, "fp16": 280}),
    (r"910_93", ASCEND_910_93 + " (per die)", 1.6, {"bf16": 376, "fp16": 376}),
)
# the device names Kineto writes (deviceProperties.name) and AMD's marketing names: AMD Instinct MI300X
# reports its gfx942 architecture name in some traces, which matches no single product and stays unknown.


def match(device_name: str | None):
    """(device, TB/s, {dtype: TFLOP/s}) of the first table row whose pattern the name contains; None."""
    for pattern, device, tbs, tflops in PEAKS:
        if device_name and re.search(pattern, device_name, re.IGNORECASE):
            return device, tbs, tflops
    return None


def load(con, run_ids, peak_tflops=None, peak_tbs=None) -> list[str]:
    """TEMP _peaks (run_id INTEGER, device VARCHAR, dtype VARCHAR, flops_s DOUBLE, bytes_s DOUBLE): one row per
    run and dtype (dtype NULL: every dtype, for a --peak-tflops override). Returns notes: which peak each run
    is measured against, or that it has none."""
    sql.run(con, "peaks_table")
    notes, rows = [], []
    # the device the trace names, else the chip the profiler folder's metadata names (ingest/ascend_info.py)
    found_runs = sql.run(con, "peaks_devices", {"run_ids": list(run_ids)}).fetchall()
    names = {rid: name for rid, name, _ in found_runs}
    devices = {rid: device for rid, _, device in found_runs}
    for rid in run_ids:
        found = match(devices.get(rid))
        device, tbs, table = found if found else (devices.get(rid) or "unknown device", None, {})
        if peak_tbs is not None:
            tbs = peak_tbs
        if peak_tflops is not None:
            table = {None: peak_tflops}
        for dtype, tf in (table or {None: None}).items():
            rows.append((rid, device, dtype, tf * 1e12 if tf is not None else None,
                         tbs * 1e12 if tbs is not None else None))
        flops_text = (f"{peak_tflops:g} TFLOP/s dense for every dtype (--peak-tflops)" if peak_tflops is not None
                      else ", ".join(f"{d} {v:g}" for d, v in table.items()) + " TFLOP/s dense (datasheet)"
                      if table else "no FLOP/s peak")
        bw_text = (f"{tbs:g} TB/s HBM" + (" (--peak-tbs)" if peak_tbs is not None else " (datasheet)")
                   if tbs is not None else "no bandwidth peak")
        if found or peak_tflops is not None or peak_tbs is not None:
            caveat = ("; these figures are commonly reported, not from a vendor datasheet: check them, or give "
                      "--peak-tflops and --peak-tbs" if device.startswith(UNVERIFIED) and peak_tflops is None else "")
            notes.append(f"run '{names[rid]}': peaks of {device}: {flops_text}; {bw_text} (docs/roofline.md){caveat}")
        else:
            family = next((why for pattern, why in FAMILY_ONLY if re.search(pattern, device, re.IGNORECASE)), None)
            notes.append(f"run '{names[rid]}': device {device!r} " + (family + ": pct_peak is empty" if family else
                         "is not in the peak table: pct_peak is empty") + "; give --peak-tflops and --peak-tbs")
    con.executemany(sql.load("peaks_add"), [dict(zip(("run_id", "device", "dtype", "flops_s", "bytes_s"), r))
                                            for r in rows])
    return notes
