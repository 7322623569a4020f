"""Small rocprofv3 outputs built from their documented layouts, for the CSV and rocpd tests.

A capture is one process's records as plain dicts (`capture()` builds a small one; `from_json()` takes
them from a rocprofv3 JSON document); the writers lay it out as rocprofv3 does:

- `write_csv(folder, cap, ...)`: `<pid>_kernel_trace.csv` and, when the capture has them, the agent info,
  memory copy, HIP API and marker API CSVs beside it. Column sets and the Agent_Id spelling follow
  rocprofiler-sdk's CSV writer (source/lib/output/generateCSV.cpp of ROCm/rocprofiler-sdk):
  `version="rocm7"` writes the current set (Stream_Id, LDS_Block_Size, Scratch_Size, register counts,
  Agent_Id "Agent <logical node id>", or "GPU <index>" with `agent_index="type-relative"`);
  `version="rocm6"` the ROCm 6.2-6.3 set (Private_Segment_Size, Group_Segment_Size, Agent_Id the bare
  node id; source/lib/rocprofiler-sdk-tool/generateCSV.cpp and source/docs/data/kernel_trace.csv).
- `write_rocpd(path, cap, ...)`: a rocpd SQLite database with the tables of
  source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql (schema_version 3, the GUID-suffixed tables with
  unsuffixed views over them, as rocpd_views.sql makes them), in its two layouts: timestamps in the rows
  (`timestamps="inline"`) or in rocpd_timestamp (`timestamps="table"`). Only the columns the tests need
  are filled; the others are left NULL or at their defaults. As rocprofv3 writes them
  (source/lib/output/generateRocpd.cpp): agent ids are node ids, a record's event holds its internal
  correlation id as stack_id and the external one as correlation_id, the event category is the buffer
  tracing kind's name, and a ROCTx range is a region named after its operation (roctxRangePushA) with its
  message in the event's extdata; instants (start = end) go to rocpd_sample, which tracedb does not read,
  and are left out here.
"""
import csv
import json
import os
import sqlite3

T0 = 63857982592000              # monotonic ns, past 2^45 as in real captures
PID = 908
CPU_NAME, GPU_NAME, GFX = "AMD EPYC 9575F 64-Core Processor", "AMD Instinct MI350X", "gfx950"


def agents(gpus=8, cpus=2):
    """The node's agents as rocprofv3 lists them: CPUs first (node ids 0..cpus-1), then GPUs."""
    out = []
    for i in range(cpus + gpus):
        gpu = i >= cpus
        out.append({"node_id": i, "logical_node_id": i, "type": "GPU" if gpu else "CPU",
                    "type_index": i - cpus if gpu else i, "name": GFX if gpu else CPU_NAME,
                    "product_name": GPU_NAME if gpu else CPU_NAME, "handle": 37944 + i})
    return out


def gpu_node(cap, index):
    return next(a["node_id"] for a in cap["agents"] if a["type"] == "GPU" and a["type_index"] == index)


def capture(busy=(0, 1), pid=PID):
    """Two passes of three kernels on the first busy GPU, two kernels on each other one; one host-to-device
    copy to the first GPU; a HIP launch for each of the first three dispatches; ROCTx ranges 'layer0' and
    'layer1' around the launches of the first pass (in the HIP thread), and one instant marker."""
    cap = {"pid": pid, "agents": agents(), "dispatches": [], "copies": [], "hip": [], "markers": []}
    names = {1: "attn_fwd(void*)", 2: "Cijk_Ailk_Bljk_BBS_BH_MT64x32x256",
             3: "void at::native::vectorized_elementwise_kernel<4, float>(int, float*)"}
    n, t = 0, T0
    first = gpu_node(cap, busy[0])
    for _ in range(2):
        for kid, dur in ((1, 1501), (2, 2003), (3, 307)):
            n += 1
            cap["dispatches"].append(_dispatch(n, first, kid, names[kid], t, t + dur, queue=1))
            t += dur + 113
        t += 50_000
    for g in busy[1:]:
        for kid, dur in ((2, 999), (3, 17)):
            n += 1
            cap["dispatches"].append(_dispatch(n, gpu_node(cap, g), kid, names[kid], T0 + 7 * n, T0 + 7 * n + dur,
                                               queue=2 + g))
    cap["copies"].append({"direction": "MEMORY_COPY_HOST_TO_DEVICE", "src": 0, "dst": first, "corr": 99,
                          "start": T0 - 5000, "end": T0 - 1234, "bytes": 1 << 20})
    for d in cap["dispatches"][:3]:
        cap["hip"].append({"function": "hipLaunchKernel", "tid": pid + 1, "corr": d["corr"],
                           "start": d["start"] - 3000, "end": d["start"] - 1800})
    launches = cap["hip"]
    cap["markers"] += [
        {"function": "layer0", "tid": pid + 1, "corr": 201, "start": launches[0]["start"] - 10,
         "end": launches[1]["end"] + 5},
        {"function": "layer1", "tid": pid + 1, "corr": 202, "start": launches[2]["start"] - 10,
         "end": launches[2]["end"] + 5},
        {"function": "checkpoint", "tid": pid + 1, "corr": 203, "start": T0 + 10**6, "end": T0 + 10**6}]
    return cap


def _dispatch(n, node, kernel_id, name, start, end, queue):
    return {"node": node, "queue": queue, "stream": 0, "tid": PID, "dispatch_id": n, "kernel_id": kernel_id,
            "name": name, "corr": n, "start": start, "end": end, "lds": 1024, "scratch": 0,
            "wg": (256, 1, 1), "grid": (4096, 2, 1)}


def from_json(doc):
    """The capture of a rocprofv3 JSON document's first tool entry (kernel names: formatted_kernel_name,
    else kernel_name, as tracedb reads them; a copy's direction: its operation's name in `strings`)."""
    tool = doc["rocprofiler-sdk-tool"][0]
    node = {a["id"]["handle"]: a["node_id"] for a in tool["agents"]}
    cap = {"pid": tool["metadata"]["pid"], "dispatches": [], "copies": [], "hip": [], "markers": [],
           "agents": [{"node_id": a["node_id"], "logical_node_id": a["logical_node_id"],
                       "type": "GPU" if a["type"] == 2 else "CPU", "type_index": a["logical_node_type_id"],
                       "name": a["name"], "product_name": a["product_name"], "handle": a["id"]["handle"]}
                      for a in tool["agents"]]}
    names = {}
    for s in tool["kernel_symbols"]:
        names.setdefault(s["kernel_id"], s.get("formatted_kernel_name") or s["kernel_name"])
    for r in tool["buffer_records"]["kernel_dispatch"]:
        i = r["dispatch_info"]
        cap["dispatches"].append({
            "node": node[i["agent_id"]["handle"]], "queue": i["queue_id"]["handle"],
            "stream": r.get("stream_id", {}).get("handle", 0), "tid": r["thread_id"], "dispatch_id": i["dispatch_id"],
            "kernel_id": i["kernel_id"], "name": names[i["kernel_id"]], "corr": r["correlation_id"]["internal"],
            "start": r["start_timestamp"], "end": r["end_timestamp"], "lds": i["group_segment_size"],
            "scratch": i["private_segment_size"], "wg": tuple(i["workgroup_size"][k] for k in "xyz"),
            "grid": tuple(i["grid_size"][k] for k in "xyz")})
    kinds = tool.get("strings", {}).get("buffer_records", [])
    ops = next((k["operations"] for k in kinds if k["kind"] == "MEMORY_COPY"), [])
    for r in tool["buffer_records"].get("memory_copy", []):
        cap["copies"].append({"direction": ops[r["operation"]], "src": node[r["src_agent_id"]["handle"]],
                              "dst": node[r["dst_agent_id"]["handle"]], "corr": r["correlation_id"]["internal"],
                              "start": r["start_timestamp"], "end": r["end_timestamp"], "bytes": r["bytes"]})
    for r in tool["buffer_records"].get("hip_api", []):
        cap["hip"].append({"function": kinds[r["kind"]]["operations"][r["operation"]], "tid": r["thread_id"],
                           "corr": r["correlation_id"]["internal"], "start": r["start_timestamp"],
                           "end": r["end_timestamp"]})
    return cap


# --- CSV --------------------------------------------------------------------------------------------

def _agent_id(cap, node, version, agent_index):
    a = next(a for a in cap["agents"] if a["node_id"] == node)
    if version == "rocm6":
        return node
    if agent_index == "type-relative":
        return f"{a['type']} {a['type_index']}"
    if agent_index == "absolute":
        return f"Agent {a['node_id']}"
    return f"Agent {a['logical_node_id']}"


def _write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    return path


KERNEL_HEADER = {
    "rocm6": ["Kind", "Agent_Id", "Queue_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
              "Correlation_Id", "Start_Timestamp", "End_Timestamp", "Private_Segment_Size", "Group_Segment_Size",
              "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y",
              "Grid_Size_Z"],
    "rocm7": ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
              "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
              "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
              "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"],
}
AGENT_HEADER = ["Node_Id", "Logical_Node_Id", "Agent_Type", "Cpu_Cores_Count", "Simd_Count", "Cpu_Core_Id_Base",
                "Simd_Id_Base", "Max_Waves_Per_Simd", "Lds_Size_In_Kb", "Gds_Size_In_Kb", "Num_Gws",
                "Wave_Front_Size", "Num_Xcc", "Cu_Count", "Array_Count", "Num_Shader_Banks", "Simd_Arrays_Per_Engine",
                "Cu_Per_Simd_Array", "Simd_Per_Cu", "Max_Slots_Scratch_Cu", "Gfx_Target_Version", "Vendor_Id",
                "Device_Id", "Location_Id", "Domain", "Drm_Render_Minor", "Num_Sdma_Engines", "Num_Sdma_Xgmi_Engines",
                "Num_Sdma_Queues_Per_Engine", "Num_Cp_Queues", "Max_Engine_Clk_Ccompute", "Max_Engine_Clk_Fcompute",
                "Sdma_Fw_Version", "Fw_Version", "Capability", "Cu_Per_Engine", "Max_Waves_Per_Cu", "Family_Id",
                "Workgroup_Max_Size", "Grid_Max_Size", "Local_Mem_Size", "Hive_Id", "Gpu_Id", "Workgroup_Max_Dim_X",
                "Workgroup_Max_Dim_Y", "Workgroup_Max_Dim_Z", "Grid_Max_Dim_X", "Grid_Max_Dim_Y", "Grid_Max_Dim_Z",
                "Name", "Vendor_Name", "Product_Name", "Model_Name"]
API_HEADER = ["Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id", "Start_Timestamp", "End_Timestamp"]


def kernel_rows(cap, version="rocm7", agent_index="relative"):
    rows = []
    for d in cap["dispatches"]:
        agent = _agent_id(cap, d["node"], version, agent_index)
        head = ["KERNEL_DISPATCH", agent, d["queue"]] + ([d["stream"]] if version == "rocm7" else [])
        mid = [d["tid"], d["dispatch_id"], d["kernel_id"], d["name"], d["corr"], d["start"], d["end"]]
        sizes = [d["scratch"], d["lds"]] if version == "rocm6" else [d["lds"], d["scratch"], 8, 0, 32]
        rows.append(head + mid + sizes + list(d["wg"]) + list(d["grid"]))
    return rows


def write_csv(folder, cap, version="rocm7", agent_index="relative", agent_info=True, siblings=True):
    """The CSV files of the capture in `folder`; returns the kernel trace's path."""
    os.makedirs(folder, exist_ok=True)
    prefix = os.path.join(str(folder), f"{cap['pid']}_")
    path = _write(prefix + "kernel_trace.csv", KERNEL_HEADER[version], kernel_rows(cap, version, agent_index))
    if agent_info:
        rows = []
        for a in cap["agents"]:
            row = [0] * len(AGENT_HEADER)
            row[0], row[1], row[2] = a["node_id"], a["logical_node_id"], a["type"]
            row[-4:] = [a["name"], "AMD" if a["type"] == "GPU" else "CPU", a["product_name"], ""]
            rows.append(row)
        _write(prefix + "agent_info.csv", AGENT_HEADER, rows)
    if not siblings:
        return path
    if cap["copies"]:
        header = ["Kind", "Direction"] + (["Stream_Id"] if version == "rocm7" else []) + [
            "Source_Agent_Id", "Destination_Agent_Id", "Correlation_Id", "Start_Timestamp", "End_Timestamp"]
        _write(prefix + "memory_copy_trace.csv", header, [
            ["MEMORY_COPY", c["direction"]] + ([0] if version == "rocm7" else [])
            + [_agent_id(cap, c["src"], version, agent_index), _agent_id(cap, c["dst"], version, agent_index),
               c["corr"], c["start"], c["end"]] for c in cap["copies"]])
    if cap["hip"]:
        _write(prefix + "hip_api_trace.csv", API_HEADER, [
            ["HIP_RUNTIME_API", h["function"], cap["pid"], h["tid"], h["corr"], h["start"], h["end"]]
            for h in cap["hip"]])
    if cap["markers"]:
        _write(prefix + "marker_api_trace.csv", API_HEADER, [
            ["MARKER_CORE_API", m["function"], cap["pid"], m["tid"], m["corr"], m["start"], m["end"]]
            for m in cap["markers"]])
    return path


# --- rocpd ------------------------------------------------------------------------------------------

_TABLES = {
    "rocpd_metadata": '"id" INTEGER PRIMARY KEY, "tag" TEXT NOT NULL, "value" TEXT NOT NULL',
    "rocpd_string": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "string" TEXT NOT NULL UNIQUE',
    "rocpd_info_node": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "hash" BIGINT, "machine_id" TEXT, '
                       '"hostname" TEXT',
    "rocpd_info_process": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, "ppid" INTEGER, '
                          '"pid" INTEGER NOT NULL, "command" TEXT',
    "rocpd_info_thread": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, "ppid" INTEGER, '
                         '"pid" INTEGER NOT NULL, "tid" INTEGER NOT NULL',
    "rocpd_info_agent": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, "pid" INTEGER, '
                        '"type" TEXT, "absolute_index" INTEGER, "logical_index" INTEGER, "type_index" INTEGER, '
                        '"uuid" INTEGER, "name" TEXT, "generic_name" TEXT, "model_name" TEXT, "vendor_name" TEXT, '
                        '"product_name" TEXT, "extdata" JSONB DEFAULT \'{}\' NOT NULL',
    "rocpd_info_queue": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, "pid" INTEGER, "name" TEXT',
    "rocpd_info_stream": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, "pid" INTEGER, "name" TEXT',
    "rocpd_info_kernel_symbol": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, "pid" INTEGER, '
                                '"code_object_id" INTEGER, "kernel_name" TEXT, "display_name" TEXT, '
                                '"group_segment_size" INTEGER, "private_segment_size" INTEGER, '
                                '"extdata" JSONB DEFAULT \'{}\' NOT NULL',
    "rocpd_event": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "category_id" INTEGER, "stack_id" INTEGER, '
                   '"parent_stack_id" INTEGER, "correlation_id" INTEGER, "extdata" JSONB DEFAULT \'{}\' NOT NULL',
}
_INLINE = {
    "rocpd_region": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, "pid" INTEGER, "tid" INTEGER, '
                    '"start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "name_id" INTEGER NOT NULL, "event_id" INTEGER',
    "rocpd_kernel_dispatch": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, "pid" INTEGER, '
                             '"tid" INTEGER, "agent_id" INTEGER NOT NULL, "kernel_id" INTEGER NOT NULL, '
                             '"dispatch_id" INTEGER NOT NULL, "queue_id" INTEGER, "stream_id" INTEGER, '
                             '"start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "private_segment_size" INTEGER, '
                             '"group_segment_size" INTEGER, "workgroup_size_x" INTEGER, "workgroup_size_y" INTEGER, '
                             '"workgroup_size_z" INTEGER, "grid_size_x" INTEGER, "grid_size_y" INTEGER, '
                             '"grid_size_z" INTEGER, "region_name_id" INTEGER, "event_id" INTEGER',
    "rocpd_memory_copy": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, "pid" INTEGER, '
                         '"tid" INTEGER, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "name_id" INTEGER NOT NULL, '
                         '"dst_agent_id" INTEGER, "src_agent_id" INTEGER, "size" INTEGER, "queue_id" INTEGER, '
                         '"stream_id" INTEGER, "region_name_id" INTEGER, "event_id" INTEGER',
}
_TRACKED = {
    "rocpd_track": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "nid" INTEGER, "ppid" INTEGER, "pid" INTEGER, '
                   '"tid" INTEGER, "agent_id" INTEGER, "queue_id" INTEGER, "stream_id" INTEGER, "name_id" INTEGER',
    "rocpd_timestamp": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "value" BIGINT NOT NULL, "phase" INTEGER, '
                       '"track_id" INTEGER',
    "rocpd_region": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "track_id" INTEGER NOT NULL, '
                    '"name_id" INTEGER NOT NULL, "start_id" INTEGER NOT NULL, "end_id" INTEGER NOT NULL, '
                    '"event_id" INTEGER',
    "rocpd_kernel_dispatch": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "track_id" INTEGER NOT NULL, '
                             '"kernel_id" INTEGER NOT NULL, "dispatch_id" INTEGER NOT NULL, '
                             '"start_id" INTEGER NOT NULL, "end_id" INTEGER NOT NULL, "private_segment_size" INTEGER, '
                             '"group_segment_size" INTEGER, "workgroup_size_x" INTEGER, "workgroup_size_y" INTEGER, '
                             '"workgroup_size_z" INTEGER, "grid_size_x" INTEGER, "grid_size_y" INTEGER, '
                             '"grid_size_z" INTEGER, "region_name_id" INTEGER, "event_id" INTEGER',
    "rocpd_memory_copy": '"id" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "track_id" INTEGER NOT NULL, '
                         '"start_id" INTEGER NOT NULL, "end_id" INTEGER NOT NULL, "name_id" INTEGER NOT NULL, '
                         '"dst_agent_id" INTEGER, "src_agent_id" INTEGER, "size" INTEGER, "region_name_id" INTEGER, '
                         '"event_id" INTEGER',
}
UUID = "_0000a1b2_c3d4_e5f6_0718_293a4b5c6d7e"
GUID = "0000a1b2-c3d4-e5f6-0718-293a4b5c6d7e"


def write_rocpd(path, cap, timestamps="inline", suffix=UUID):
    """A rocpd database of the capture: tables named `<table><suffix>`, and when `suffix` is not empty
    the unsuffixed views over them."""
    tracked = timestamps == "table"
    con = sqlite3.connect(str(path))
    tables = {**_TABLES, **(_TRACKED if tracked else _INLINE)}
    for name, cols in tables.items():
        con.execute(f'CREATE TABLE "{name}{suffix}" ({cols})')
        if suffix:
            con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "{name}{suffix}"')
    ins = _Inserter(con, suffix)
    ins.row("rocpd_metadata", tag="schema_version", value="3")
    ins.row("rocpd_info_node", id=1, guid=GUID, hash=1, machine_id="m", hostname="node0")
    ins.row("rocpd_info_process", id=1, guid=GUID, nid=1, pid=cap["pid"], command="python3 x.py")
    tids = sorted({d["tid"] for d in cap["dispatches"]} | {h["tid"] for h in cap["hip"] + cap["markers"]})
    thread = {t: i + 1 for i, t in enumerate(tids)}
    for t, i in thread.items():
        ins.row("rocpd_info_thread", id=i, guid=GUID, nid=1, pid=1, tid=t)
    agent_row = {}
    for i, a in enumerate(cap["agents"]):
        agent_row[a["node_id"]] = i + 1
        ins.row("rocpd_info_agent", id=i + 1, guid=GUID, nid=1, pid=1, type=a["type"], absolute_index=a["node_id"],
                logical_index=a["logical_node_id"], type_index=a["type_index"], name=a["name"],
                product_name=a["product_name"])
    strings = {}

    def string(s):
        if s not in strings:
            strings[s] = len(strings) + 1
            ins.row("rocpd_string", id=strings[s], guid=GUID, string=s)
        return strings[s]
    symbols = {}
    for d in cap["dispatches"]:
        if d["kernel_id"] not in symbols:
            symbols[d["kernel_id"]] = len(symbols) + 1
            ins.row("rocpd_info_kernel_symbol", id=symbols[d["kernel_id"]], guid=GUID, nid=1, pid=1,
                    code_object_id=1, kernel_name=d["name"] + ".kd", display_name=d["name"],
                    extdata='{"kernel_id": %d, "formatted_kernel_name": "%s"}' % (d["kernel_id"], d["name"]))
    queues = {}
    tracks = {}
    stamps = [0]

    def track(**key):
        k = tuple(sorted(key.items()))
        if k not in tracks:
            tracks[k] = len(tracks) + 1
            ins.row("rocpd_track", id=tracks[k], guid=GUID, nid=1, pid=1, **key)
        return tracks[k]

    def when(value, phase, track_id):
        stamps[0] += 1
        ins.row("rocpd_timestamp", id=stamps[0], guid=GUID, value=value, phase=phase, track_id=track_id)
        return stamps[0]

    events = [0]

    def event(category, corr, extdata="{}"):
        events[0] += 1
        ins.row("rocpd_event", id=events[0], guid=GUID, category_id=string(category), stack_id=corr,
                parent_stack_id=corr, correlation_id=0, extdata=extdata)
        return events[0]
    for d in cap["dispatches"]:
        if d["queue"] not in queues:
            queues[d["queue"]] = len(queues) + 1
            ins.row("rocpd_info_queue", id=queues[d["queue"]], guid=GUID, nid=1, pid=1, name=f"Queue {d['queue']}")
        q = queues[d["queue"]]
        fields = dict(guid=GUID, kernel_id=symbols[d["kernel_id"]], dispatch_id=d["dispatch_id"],
                      private_segment_size=d["scratch"], group_segment_size=d["lds"],
                      workgroup_size_x=d["wg"][0], workgroup_size_y=d["wg"][1], workgroup_size_z=d["wg"][2],
                      grid_size_x=d["grid"][0], grid_size_y=d["grid"][1], grid_size_z=d["grid"][2],
                      region_name_id=string(d["name"]), event_id=event("KERNEL_DISPATCH", d["corr"]))
        if tracked:
            t = track(tid=thread[d["tid"]], agent_id=agent_row[d["node"]], queue_id=q)
            ins.row("rocpd_kernel_dispatch", track_id=t, start_id=when(d["start"], 1, t), end_id=when(d["end"], 2, t),
                    **fields)
        else:
            ins.row("rocpd_kernel_dispatch", nid=1, pid=1, tid=thread[d["tid"]], agent_id=agent_row[d["node"]],
                    queue_id=q, stream_id=None, start=d["start"], end=d["end"], **fields)
    for c in cap["copies"]:
        fields = dict(guid=GUID, name_id=string(c["direction"]), dst_agent_id=agent_row[c["dst"]],
                      src_agent_id=agent_row[c["src"]], size=c["bytes"], event_id=event("MEMORY_COPY", c["corr"]))
        if tracked:
            t = track(tid=thread[cap["dispatches"][0]["tid"]])
            ins.row("rocpd_memory_copy", track_id=t, start_id=when(c["start"], 1, t), end_id=when(c["end"], 2, t),
                    **fields)
        else:
            ins.row("rocpd_memory_copy", nid=1, pid=1, tid=thread[cap["dispatches"][0]["tid"]], start=c["start"],
                    end=c["end"], **fields)
    regions = [("HIP_RUNTIME_API_EXT", h["function"], "{}", h) for h in cap["hip"]]
    for m in cap["markers"]:
        if m["end"] > m["start"]:
            regions.append(("MARKER_CORE_RANGE_API", "roctxRangePushA", json.dumps({"message": m["function"]}), m))
            pop = dict(m, start=m["end"], end=m["end"] + 50, corr=m["corr"] + 1000)
            regions.append(("MARKER_CORE_RANGE_API", "roctxRangePop", "{}", pop))
    for category, name, extdata, r in regions:
        fields = dict(guid=GUID, name_id=string(name), event_id=event(category, r["corr"], extdata))
        if tracked:
            t = track(tid=thread[r["tid"]])
            ins.row("rocpd_region", track_id=t, start_id=when(r["start"], 1, t), end_id=when(r["end"], 2, t),
                    **fields)
        else:
            ins.row("rocpd_region", nid=1, pid=1, tid=thread[r["tid"]], start=r["start"], end=r["end"], **fields)
    con.commit()
    con.close()
    return path


class _Inserter:
    def __init__(self, con, suffix):
        self.con, self.suffix = con, suffix

    def row(self, table, **values):
        cols = ", ".join(f'"{c}"' for c in values)
        marks = ", ".join("?" for _ in values)
        self.con.execute(f'INSERT INTO "{table}{self.suffix}" ({cols}) VALUES ({marks})', list(values.values()))


def expected(cap):
    """Independently of tracedb: {GPU index: (rows, sum of end - start)} of the dispatches and copies (a copy
    on its destination GPU, else its source)."""
    index = {a["node_id"]: a["type_index"] for a in cap["agents"] if a["type"] == "GPU"}
    out = {}
    for d in cap["dispatches"]:
        c = out.setdefault(index[d["node"]], [0, 0])
        c[0] += 1
        c[1] += d["end"] - d["start"]
    for cp in cap["copies"]:
        g = index.get(cp["dst"], index.get(cp["src"]))
        c = out.setdefault(g, [0, 0])
        c[0] += 1
        c[1] += cp["end"] - cp["start"]
    return {k: tuple(v) for k, v in sorted(out.items())}


# ---------------------------------------------------------------- what the tests compare

def per_run(db):
    """(name, rank, device name, format, kernels, sum of dur_ns) per run of the store at `db`."""
    import tracedb
    con = tracedb.connect(db, read_only=True)
    try:
        return con.execute("SELECT r.name, r.rank, r.device_name, r.format, count(*), sum(k.dur_ns)::BIGINT "
                           "FROM kernels k JOIN runs r USING (run_id) GROUP BY ALL ORDER BY 1").fetchall()
    finally:
        con.close()


def names_per_gpu(db):
    """(rank, kind, name, count, sum) of the device rows and every host event, per GPU (run rank)."""
    import tracedb
    con = tracedb.connect(db, read_only=True)
    try:
        return con.execute("SELECT r.rank, k.kind, k.name, count(*), sum(k.dur_ns)::BIGINT FROM kernels k "
                           "JOIN runs r USING (run_id) GROUP BY ALL ORDER BY ALL").fetchall() + con.execute(
            "SELECT r.rank, h.cat, h.name, h.pid, h.tid, h.start_ns, h.dur_ns, h.correlation_id FROM host_events h "
            "JOIN runs r USING (run_id) ORDER BY ALL").fetchall()
    finally:
        con.close()


def json_and_other_agree(tmp_path, doc, write_other):
    """Ingest a rocprofv3 JSON document and the same capture written by `write_other(folder, capture)` (a CSV
    kernel trace, a rocpd database); returns ([names_per_gpu] of both stores, [(rank, count, sum)] of both)."""
    from helpers import cli
    jp = tmp_path / "908_results.json"
    jp.write_text(json.dumps(doc))
    other = write_other(tmp_path, from_json(doc))
    dbs = [str(tmp_path / "j.duckdb"), str(tmp_path / "o.duckdb")]
    cli("ingest", jp, "--db", dbs[0])
    cli("ingest", other, "--db", dbs[1])
    return [names_per_gpu(d) for d in dbs], [[(rk, c, sm) for _, rk, _, _, c, sm in per_run(d)] for d in dbs]
