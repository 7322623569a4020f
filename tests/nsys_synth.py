"""Small synthetic Nsight Systems SQLite exports, written with the tables and columns of the exporter's
documented schema (Nsight Systems "SQLite Export Schema Reference",
https://docs.nvidia.com/nsight-systems/2021.5/nsys-exporter/exported_data.html, and the schema an
nsys 2023.1.2 export declares): StringIds, CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET / _RUNTIME,
NVTX_EVENTS, TARGET_INFO_GPU, EXPORT_META_DATA, ENUM_NSYS_EVENT_TYPE, ENUM_CUDA_MEMCPY_OPER,
TARGET_INFO_SESSION_START_TIME.

`Export` collects rows and writes them; `variant="renamed"` writes the names other versions use
(META_DATA_EXPORT, TARGET_INFO_CUDA_DEVICE with cudaId, no ENUM tables), `drop` leaves columns out.
`profile(path)` writes the standard two-process, two-GPU profile the tests read; PROFILE_FACTS says what
tracedb must find in it."""
import os
import sqlite3

# serialized ids: bits 48+ a hardware id, then the pid (24 bits), then the tid (24 bits)
HW = 1 << 48


def gtid(pid: int, tid: int) -> int:
    return HW | (pid << 24) | tid


def gpid(pid: int) -> int:
    return HW | (pid << 24)


KERNEL_COLS = ("start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "demangledName",
               "shortName", "mangledName", "launchType", "cacheConfig", "registersPerThread", "gridX", "gridY",
               "gridZ", "blockX", "blockY", "blockZ", "staticSharedMemory", "dynamicSharedMemory",
               "localMemoryPerThread", "localMemoryTotal", "gridId", "sharedMemoryExecuted", "graphNodeId",
               "sharedMemoryLimitConfig")
MEMCPY_COLS = ("start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "bytes", "copyKind",
               "deprecatedSrcId", "srcKind", "dstKind", "srcDeviceId", "srcContextId", "dstDeviceId", "dstContextId",
               "migrationCause", "graphNodeId", "virtualAddress")
MEMSET_COLS = ("start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "value", "bytes",
               "graphNodeId", "memKind", "memoryOperationType", "underlyingMemKind")
RUNTIME_COLS = ("start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue", "callchainId")
NVTX_COLS = ("start", "end", "eventType", "rangeId", "category", "color", "text", "globalTid", "endGlobalTid",
             "textId", "domainId", "uint64Value", "int64Value", "doubleValue", "uint32Value", "int32Value",
             "floatValue", "jsonTextId", "jsonText")
EVENT_TYPES = {34: "NvtxMark", 59: "NvtxPushPopRange", 60: "NvtxStartEndRange", 70: "NvtxtPushPopRange",
               71: "NvtxtStartEndRange", 75: "NvtxDomainCreate"}
COPY_KINDS = {1: "Host-to-Device", 2: "Device-to-Host", 8: "Device-to-Device"}
TEXT_COLS = {"text", "jsonText", "value", "name", "label"}
SYNC_COLS = ("start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "syncType", "eventId")
# CUPTI_ACTIVITY_KIND_CUDA_EVENT as newer exports write it (the device timestamp 0: not collected)
EVENT_COLS = ("timestamp", "deviceId", "contextId", "greenContextId", "streamId", "correlationId", "globalPid",
              "eventId", "eventSyncId")
# ENUM_CUPTI_SYNC_TYPE as nsys 2023.1 writes it
SYNC_TYPES = {0: "UNKNOWN", 1: "EVENT_SYNCHRONIZE", 2: "STREAM_WAIT_EVENT", 3: "STREAM_SYNCHRONIZE",
              4: "CONTEXT_SYNCHRONIZE"}


class Export:
    def __init__(self):
        self.strings: dict[str, int] = {}
        self.kernels, self.memcpy, self.memset, self.runtime, self.nvtx, self.syncs = [], [], [], [], [], []
        self.events = []
        self.gpus = {}           # device id -> name
        self.corr = 1000

    def sid(self, s: str) -> int:
        return self.strings.setdefault(s, len(self.strings) + 1)

    def next_corr(self) -> int:
        self.corr += 1
        return self.corr

    def gpu(self, device: int, name: str):
        self.gpus[device] = name

    def api(self, start, end, pid, tid, name, corr=None):
        """A CUDA runtime call; returns its correlation id."""
        corr = self.next_corr() if corr is None else corr
        self.runtime.append({"start": start, "end": end, "eventClass": 0, "globalTid": gtid(pid, tid),
                             "correlationId": corr, "nameId": self.sid(name), "returnValue": 0})
        return corr

    def kernel(self, start, end, name, device=0, stream=7, pid=100, corr=None, short=None, graph_node=None,
               grid=(1, 1, 1), block=(128, 1, 1), registers=32, static_smem=0, dynamic_smem=0):
        self.kernels.append({
            "start": start, "end": end, "deviceId": device, "contextId": 1, "streamId": stream, "correlationId": corr,
            "globalPid": gpid(pid), "demangledName": self.sid(name), "shortName": self.sid(short or name.split("<")[0]),
            "mangledName": self.sid("_Z" + (short or name)[:8]), "launchType": 0, "cacheConfig": 0,
            "registersPerThread": registers, "gridX": grid[0], "gridY": grid[1], "gridZ": grid[2],
            "blockX": block[0], "blockY": block[1], "blockZ": block[2], "staticSharedMemory": static_smem,
            "dynamicSharedMemory": dynamic_smem, "localMemoryPerThread": 0, "localMemoryTotal": 0,
            "gridId": len(self.kernels) + 1, "sharedMemoryExecuted": 0, "graphNodeId": graph_node,
            "sharedMemoryLimitConfig": 0})

    def copy(self, start, end, copy_kind, nbytes, device=0, stream=7, pid=100, corr=None, graph_node=None):
        self.memcpy.append({"start": start, "end": end, "deviceId": device, "contextId": 1, "streamId": stream,
                            "correlationId": corr, "globalPid": gpid(pid), "bytes": nbytes, "copyKind": copy_kind,
                            "srcKind": 0, "dstKind": 2, "graphNodeId": graph_node})

    def fill(self, start, end, nbytes, device=0, stream=7, pid=100, corr=None):
        self.memset.append({"start": start, "end": end, "deviceId": device, "contextId": 1, "streamId": stream,
                            "correlationId": corr, "globalPid": gpid(pid), "value": 0, "bytes": nbytes,
                            "memKind": 2})

    def sync(self, start, end, sync_type, corr, stream=None, event=None, device=0, pid=100, sync_id=None):
        """A CUPTI synchronization record (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) of the API call `corr`:
        sync_type 2 a cudaStreamWaitEvent on `stream` for `event`, 3 a cudaStreamSynchronize of `stream`; the
        invalid value 0xffffffff where a field does not apply, as CUPTI writes it."""
        invalid = 0xFFFFFFFF
        self.syncs.append({"start": start, "end": end, "deviceId": device, "contextId": 1,
                           "streamId": invalid if stream is None else stream, "correlationId": corr,
                           "globalPid": gpid(pid), "syncType": sync_type,
                           "eventId": invalid if event is None else event, "eventSyncId": sync_id})

    def cuda_event(self, corr, stream, event, device=0, pid=100, sync_id=None):
        """A CUPTI event record (CUPTI_ACTIVITY_KIND_CUDA_EVENT) of the cudaEventRecord call `corr`: `event`
        recorded on `stream`."""
        self.events.append({"timestamp": 0, "deviceId": device, "contextId": 1, "streamId": stream,
                            "correlationId": corr, "globalPid": gpid(pid), "eventId": event, "eventSyncId": sync_id})

    def push(self, start, end, pid, tid, text, domain=None, registered=False):
        """An NVTX push/pop range (end None: never popped); `registered`: its text through StringIds."""
        self.nvtx.append({"start": start, "end": end, "eventType": 59, "globalTid": gtid(pid, tid),
                          "domainId": domain, **({"textId": self.sid(text)} if registered else {"text": text})})

    def start_end(self, start, end, pid, tid, text, end_tid=None, domain=None):
        self.nvtx.append({"start": start, "end": end, "eventType": 60, "globalTid": gtid(pid, tid),
                          "endGlobalTid": gtid(pid, end_tid if end_tid is not None else tid), "text": text,
                          "domainId": domain, "rangeId": len(self.nvtx) + 1})

    def domain(self, domain_id, pid, tid, name):
        self.nvtx.append({"start": 0, "end": None, "eventType": 75, "globalTid": gtid(pid, tid), "text": name,
                          "domainId": domain_id})

    def mark(self, t, pid, tid, text):
        self.nvtx.append({"start": t, "end": None, "eventType": 34, "globalTid": gtid(pid, tid), "text": text})

    def write(self, path, variant="documented", drop=None, schema_version="3.1.2", product="2023.1.2.43",
              tables=None) -> str:
        """The export at `path`. `drop`: {table: [columns]} left out; `tables`: only these tables."""
        drop = drop or {}
        if os.path.exists(path):
            os.remove(path)
        con = sqlite3.connect(str(path))
        renamed = variant == "renamed"
        meta = "META_DATA_EXPORT" if renamed else "EXPORT_META_DATA"
        gpu_table, gpu_id = ("TARGET_INFO_CUDA_DEVICE", "cudaId") if renamed else ("TARGET_INFO_GPU", "id")
        specs = [
            ("StringIds", ("id", "value"), [{"id": i, "value": s} for s, i in self.strings.items()]),
            (meta, ("name", "value"), [{"name": k, "value": v} for k, v in (
                ("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"), ("EXPORT_PRODUCT_VERSION", product),
                ("EXPORT_SCHEMA_VERSION", schema_version))]),
            ("TARGET_INFO_SESSION_START_TIME", ("utcEpochNs", "utcTime", "localTime"),
             [{"utcEpochNs": 1700000000123456789, "utcTime": "2023-11-14T22:13:20",
               "localTime": "2023-11-14T22:13:20"}]),
            (gpu_table, ("vmId", gpu_id, "name", "busLocation"),
             [{"vmId": HW, gpu_id: d, "name": n, "busLocation": f"0000:{d:02x}:00.0"} for d, n in self.gpus.items()]),
            ("CUPTI_ACTIVITY_KIND_KERNEL", KERNEL_COLS, self.kernels),
            ("CUPTI_ACTIVITY_KIND_MEMCPY", MEMCPY_COLS, self.memcpy),
            ("CUPTI_ACTIVITY_KIND_MEMSET", MEMSET_COLS, self.memset),
            ("CUPTI_ACTIVITY_KIND_RUNTIME", RUNTIME_COLS, self.runtime),
            ("NVTX_EVENTS", NVTX_COLS, self.nvtx),
        ]
        if self.syncs:
            # eventSyncId (newer exports) only when some row carries one
            cols = SYNC_COLS + (("eventSyncId",) if any(r["eventSyncId"] is not None for r in self.syncs) else ())
            specs.append(("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", cols, self.syncs))
        if self.events:
            specs.append(("CUPTI_ACTIVITY_KIND_CUDA_EVENT", EVENT_COLS, self.events))
        if not renamed:
            specs += [("ENUM_NSYS_EVENT_TYPE", ("id", "name", "label"),
                       [{"id": i, "name": n, "label": n} for i, n in EVENT_TYPES.items()]),
                      ("ENUM_CUDA_MEMCPY_OPER", ("id", "name", "label"),
                       [{"id": i, "name": "CUDA_MEMCPY_KIND_" + n.upper(), "label": n} for i, n in COPY_KINDS.items()]),
                      ("ENUM_CUPTI_SYNC_TYPE", ("id", "name", "label"),
                       [{"id": i, "name": "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_" + n, "label": n.title()}
                        for i, n in SYNC_TYPES.items()])]
        for table, cols, rows in specs:
            if tables is not None and table not in tables:
                continue
            cols = [c for c in cols if c not in drop.get(table, ())]
            decl = ", ".join(f'"{c}" {"TEXT" if c in TEXT_COLS else "INTEGER"}' for c in cols)
            con.execute(f'CREATE TABLE "{table}" ({decl})')
            con.executemany(f'INSERT INTO "{table}" VALUES ({", ".join("?" * len(cols))})',
                            [tuple(r.get(c) for c in cols) for r in rows])
        con.commit()
        con.close()
        return str(path)


ATTN = "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4>, true>(Flash_fwd_params)"
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel"
NORM = ("void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16 *, const c10::BFloat16 *, const c10::BFloat16 *, "
        "float, int, int)")
NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm *, unsigned long, ncclWork *)"


def build(devices=(0, 1)) -> Export:
    """Per device d (process 100 + 100*d, thread 1; times offset by d * 10 ms): an NVTX start/end range
    'step' around everything but the last launch; push ranges 'forward' > 'layer.0' around two runtime
    launches (GEMM, then ATTN); a registered-string push range 'norm' in domain 5 ('app' in process 100,
    'lib' in process 200) around a launch of NORM; a cudaGraphLaunch inside push range 'decode_graph' whose
    graph runs three kernels (nodes 11-13, one correlation id); a cudaMemcpyAsync (Host-to-Device) and a
    cudaMemsetAsync inside 'forward'; an NCCL kernel launched inside 'step' only; a kernel without a
    correlation id; a launch after 'step' has ended; an NVTX mark. A runtime call and a range of another
    process (pid 999, no device activity) reuse a correlation id and overlap the first launch."""
    x = Export()
    for d in devices:
        pid, tid, o = 100 + 100 * d, 1, d * 10_000_000
        x.corr = 1000            # CUPTI numbers each process's calls on its own
        x.gpu(d, "NVIDIA H100 80GB HBM3")
        x.domain(5, pid, tid, ("app", "lib")[d % 2])         # each process numbers its own domains
        x.start_end(o + 0, o + 900_000, pid, tid, "step", end_tid=2)
        x.push(o + 1_000, o + 500_000, pid, tid, "forward")
        x.push(o + 2_000, o + 100_000, pid, tid, "layer.0")
        c1 = x.api(o + 3_000, o + 4_000, pid, tid, "cudaLaunchKernel_v7000")
        c2 = x.api(o + 5_000, o + 6_000, pid, tid, "cudaLaunchKernel_v7000")
        x.kernel(o + 10_000, o + 30_000, GEMM, device=d, pid=pid, corr=c1, grid=(132, 1, 1), block=(384, 1, 1),
                 registers=168, static_smem=1024, dynamic_smem=227_000)
        x.kernel(o + 31_000, o + 61_001, ATTN, device=d, pid=pid, corr=c2, grid=(4, 32, 16), block=(128, 1, 1))
        x.push(o + 110_000, o + 150_000, pid, tid, "norm", domain=5, registered=True)
        c3 = x.api(o + 111_000, o + 112_000, pid, tid, "cudaLaunchKernel_v7000")
        x.kernel(o + 120_000, o + 125_000, NORM, device=d, pid=pid, corr=c3)
        x.push(o + 200_000, o + 300_000, pid, tid, "decode_graph")
        cg = x.api(o + 201_000, o + 215_000, pid, tid, "cudaGraphLaunch_v10000")
        for i, (name, s) in enumerate(((GEMM, 220_000), (ATTN, 240_000), (NORM, 260_000))):
            x.kernel(o + s, o + s + 15_000 + i, name, device=d, pid=pid, corr=cg, graph_node=11 + i)
        cm = x.api(o + 310_000, o + 311_000, pid, tid, "cudaMemcpyAsync_v3020")
        x.copy(o + 312_000, o + 322_000, 1, 1 << 20, device=d, pid=pid, corr=cm)
        cs = x.api(o + 330_000, o + 331_000, pid, tid, "cudaMemsetAsync_v3020")
        x.fill(o + 332_000, o + 334_000, 4096, device=d, pid=pid, corr=cs)
        cn = x.api(o + 600_000, o + 601_000, pid, tid, "cudaLaunchKernel_v7000")
        x.kernel(o + 610_000, o + 650_000, NCCL, device=d, pid=pid, corr=cn, stream=13)
        x.kernel(o + 700_000, o + 700_500, "void at::native::fill_kernel<float>(float)", device=d, pid=pid, corr=None)
        x.mark(o + 701_000, pid, tid, "a mark")
        cc = x.api(o + 950_000, o + 951_000, pid, tid, "cudaLaunchKernel_v7000")
        x.kernel(o + 960_000, o + 962_000, "void at::native::copy_kernel<float>(float)", device=d, pid=pid, corr=cc)
        x.api(o + 3_000, o + 3_500, 999, 1, "cudaStreamSynchronize_v3020", corr=c1)   # another process, same id
        x.push(o + 2_500, o + 3_900, 999, 1, "other process")
    return x


# What tracedb must find per device of build(): module -> (device rows, device ns)
PROFILE_MODULES = {
    "layer.0": (2, 20_000 + 30_001),
    "norm": (1, 5_000),
    "decode_graph": (3, 15_000 + 15_001 + 15_002),
    "forward": (2, 10_000 + 2_000),
    "(no host frame)": (1, 2_000),
    "step": (1, 40_000),
    "(no host launch)": (1, 500),
}
PROFILE_DEVICE_NS = sum(ns for _, ns in PROFILE_MODULES.values())
PROFILE_ROWS = sum(n for n, _ in PROFILE_MODULES.values())


def profile(path, devices=(0, 1), **write) -> str:
    return build(devices).write(path, **write)
