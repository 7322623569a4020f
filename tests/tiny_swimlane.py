"""A tiny on-device per-core trace (runtime swimlane layout) for `report cores`, numbers derived here.

Process 1 "AICore View": AIC_0, AIC_1, AIV_0 and "AIV 1" (both spellings). Process 2 "AICPU View" has a
thread named AIC_0 too: it records dispatch and completion, so it is not a core. Process 3 "AICPU
Scheduler" has Sched_0 with scheduler phases. Tasks, in µs:

  AIC_0  mm(r1t0) [0, 10)  mm(r1t1) [5, 15)  mm(r1t2) [20, 30)   union [0, 15) + [20, 30) = 25 busy
  AIC_1  attn(r1t3) [10, 40)                                      30 busy
  AIV_0  attn(r1t4) [0, 5)                                        5 busy
  AIV 1  attn(r1t5) [35, 40)                                      5 busy
  (AICPU View) AIC_0 [0, 40)                                      not a core

Window: first task start 0 to last task end 40 = 40 µs.
AIC: 2 cores, 4 tasks, busy 55, idle 2 x 40 - 55 = 25; the class union covers [0, 40): exposed 0,
  hidden 25. Idle gaps: AIC_0 [15, 20) and [30, 40), AIC_1 [0, 10): 5, 10, 10 -> p50 10, max 10.
AIV: 2 cores, 2 tasks, busy 10, idle 70; union [0, 5) + [35, 40) = 10: exposed 40 - 10 = 30,
  hidden 70 - 2 x 30 = 10. Gaps: 35 and 35.
--match attn: AIC has one core with attn (AIC_1): busy 30, idle 10; AIV unchanged.
Top 2 gaps: AIC_1 [0, 10) and AIC_0 [30, 40) (10 µs, ties by start; none exposed since the class is busy
throughout); AIV 1 [0, 35) and AIV_0 [5, 40), each exposed 30 µs (the class is idle on [5, 35)).

`lanes` writes other swimlanes of the same layout from (process, thread name, tasks) lanes: lane k of the
file runs its tasks one after another, task i on [10 i, 10 i + 5) µs, so each lane is busy 5 µs per task.
`full_core` is such a file for a whole chip named as some swimlane writers do: AIC_0 .. AIC_23 (10 tasks
each) and AIV0 (core24) .. AIV47 (core71) (5 tasks each): 480 tasks, half on each class; an AICPU View
thread named AIV0 (core24) holds a dispatch record, which is no task.
"""
import json

TASKS = [("AIC_0", "mm(r1t0)", 0, 10), ("AIC_0", "mm(r1t1)", 5, 10), ("AIC_0", "mm(r1t2)", 20, 10),
         ("AIC_1", "attn(r1t3)", 10, 30), ("AIV_0", "attn(r1t4)", 0, 5), ("AIV 1", "attn(r1t5)", 35, 5)]
THREADS = {"AIC_0": 1000, "AIC_1": 1001, "AIV_0": 1002, "AIV 1": 1003}


def events():
    ev = [{"ph": "M", "name": "process_name", "pid": p, "tid": 0, "cat": "__metadata", "args": {"name": n}}
          for p, n in ((1, "AICore View"), (2, "AICPU View"), (3, "AICPU Scheduler"))]
    ev += [{"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "cat": "__metadata", "args": {"name": name}}
           for name, tid in THREADS.items()]
    ev += [{"ph": "M", "name": "thread_name", "pid": 2, "tid": 1000, "cat": "__metadata", "args": {"name": "AIC_0"}},
           {"ph": "M", "name": "thread_name", "pid": 3, "tid": 3000, "cat": "__metadata", "args": {"name": "Sched_0"}}]
    ev += [{"ph": "X", "cat": "event", "name": name, "pid": 1, "tid": THREADS[core], "ts": ts, "dur": dur,
            "args": {"taskId": i}} for i, (core, name, ts, dur) in enumerate(TASKS)]
    ev += [{"ph": "X", "cat": "event", "name": "dispatch(r1t0)", "pid": 2, "tid": 1000, "ts": 0, "dur": 40, "args": {}},
           {"ph": "X", "cat": "scheduler", "name": "idle(0)", "pid": 3, "tid": 3000, "ts": 0, "dur": 2, "args": {}}]
    return ev


def write(path) -> str:
    with open(path, "w") as f:
        json.dump({"traceEvents": events()}, f)
    return str(path)


def lanes(path, spec, extra=()) -> str:
    """A swimlane of `spec`, (process, thread name or None for a thread without a name, tasks) per lane, each
    lane a thread of its own (tid 100 + its index); processes get pids 1, 2, ... in order of appearance.
    `extra`: events appended as they are."""
    pids: dict = {}
    ev = []
    for k, (proc, name, n) in enumerate(spec):
        if proc not in pids:
            pids[proc] = len(pids) + 1
            ev.append({"ph": "M", "name": "process_name", "pid": pids[proc], "tid": 0, "cat": "__metadata",
                       "args": {"name": proc}})
        if name is not None:
            ev.append({"ph": "M", "name": "thread_name", "pid": pids[proc], "tid": 100 + k, "cat": "__metadata",
                       "args": {"name": name}})
        ev += [{"ph": "X", "cat": "event", "name": f"task(r{k}t{i})", "pid": pids[proc], "tid": 100 + k,
                "ts": 10 * i, "dur": 5, "args": {"taskId": 1000 * k + i}} for i in range(n)]
    with open(path, "w") as f:
        json.dump({"traceEvents": ev + list(extra)}, f)
    return str(path)


FULL_CORE = ([("AICore View", f"AIC_{i}", 10) for i in range(24)]
             + [("AICore View", f"AIV{j} (core{24 + j})", 5) for j in range(48)])


def full_core(path) -> str:
    dispatch = [{"ph": "M", "name": "process_name", "pid": 9, "tid": 0, "args": {"name": "AICPU View"}},
                {"ph": "M", "name": "thread_name", "pid": 9, "tid": 1, "args": {"name": "AIV0 (core24)"}},
                {"ph": "X", "cat": "event", "name": "task(r24t0)", "pid": 9, "tid": 1, "ts": 0, "dur": 6, "args": {}}]
    return lanes(path, FULL_CORE, dispatch)
