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
