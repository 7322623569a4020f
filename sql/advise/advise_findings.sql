-- Advise: every rule's findings in one list, ranked by the time at stake, with their severity and what to try.
-- Severity: at_stake_pct (the time at stake over the step time of the runs it is counted on) >= 20 critical,
-- >= 10 high, >= 5 medium, >= 3 low, else info.
-- What to try: per rule, in the vocabulary of the run's vendor (_adv_runs.vendor: CUDA on NVIDIA, HIP and
-- ROCm on AMD, CANN, aclgraph and HCCL on Ascend).
-- Inputs: _adv_findings (every rule's rows, advise_*.sql), _adv_runs (advise_runs.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order for equal time at stake
-- Output: rows, one per finding, the largest time at stake first:
--   rule VARCHAR: idle-gap | exposed-comm | slow-rank | roofline-gap | host-bound | sync-in-step | slow-link |
--     small-collectives | pipeline-bubble | pageable-copy | moe-imbalance | regression | launch-bound | fusion |
--     low-utilisation
--   severity VARCHAR: info | low | medium | high | critical
--   run VARCHAR: the run's name
--   rank INTEGER: its rank; NULL when unknown
--   step BIGINT: the step the finding is about (idle-gap: of every gap; exposed-comm: the worst); NULL: every step
--   layer BIGINT: NULL (no rule of this set is per layer)
--   kernel VARCHAR: the kernel's short name (roofline-gap), the collective (slow-link, small-collectives), the copy
--     (pageable-copy), the expert GEMM (moe-imbalance), the kernel that grew most (regression), the
--     most frequent kernel of the longest stretch (launch-bound), the first kernel of the top sequence
--     (fusion), else NULL
--   at_stake_us DECIMAL(23,3): the time at stake
--   at_stake_pct DECIMAL(7,1): as % of the step time (of the run's span without steps)
--   finding VARCHAR: one line
--   evidence VARCHAR: the rows that show it and the `tracedb report ...` command that prints them; for
--     exposed-comm and small-collectives on one run, that the two count the same exposed time
--   try VARCHAR: what to try
WITH p AS (
    SELECT f.*, 100.0 * f.at_stake_ns / nullif(f.base_ns, 0) AS pct FROM _adv_findings f
)
SELECT p.rule,
    CASE WHEN p.pct >= 20 THEN 'critical' WHEN p.pct >= 10 THEN 'high' WHEN p.pct >= 5 THEN 'medium'
         WHEN p.pct >= 3 THEN 'low' ELSE 'info' END AS severity,
    r.run, r.rank, p.step, p.layer, p.kernel, us(p.at_stake_ns)::DECIMAL(23, 3) AS at_stake_us,
    round(p.pct, 1)::DECIMAL(7, 1) AS at_stake_pct, p.finding,
    p.evidence || CASE WHEN p.rule IN ('exposed-comm', 'small-collectives') AND EXISTS (
            SELECT 1 FROM _adv_findings o WHERE o.run_id = p.run_id
               AND o.rule = CASE p.rule WHEN 'exposed-comm' THEN 'small-collectives' ELSE 'exposed-comm' END)
        THEN '; rule ' || CASE p.rule WHEN 'exposed-comm' THEN 'small-collectives' ELSE 'exposed-comm' END
             || ' names this run too: the small collectives'' exposed time is in both findings, two remedies '
             || '(batch the messages, overlap them) for one time; do not add the two'
        ELSE '' END AS evidence,
    CASE p.rule
    WHEN 'idle-gap' THEN
        'find what the host did in the gap (the host event named, or the trace around it in Perfetto: tracedb export '
        || 'perfetto); move synchronisations (.item(), .cpu(), ' || CASE r.vendor WHEN 'amd' THEN 'hipStreamSynchronize'
        WHEN 'ascend' THEN 'aclrtSynchronizeStream' ELSE 'cudaStreamSynchronize' END
        || '), checkpointing and data loading out of the step or onto another thread; if the host is launch-bound, '
        || CASE r.vendor WHEN 'amd' THEN 'capture the step in a HIP graph (torch.cuda.graphs on ROCm, torch.compile '
             || 'mode="reduce-overhead")'
        WHEN 'ascend' THEN 'capture the step with aclgraph (torch_npu.npu.NPUGraph, torchair), and keep '
             || 'TASK_QUEUE_ENABLE=2 on'
        ELSE 'capture the step in a CUDA graph (torch.cuda.CUDAGraph, torch.compile mode="reduce-overhead")' END
    WHEN 'exposed-comm' THEN
        CASE r.vendor WHEN 'ascend' THEN 'overlap HCCL with computing: issue the collectives on their own stream early '
             || '(bucketed gradients, FSDP prefetch, Megatron --overlap-grad-reduce / --overlap-param-gather), check '
             || 'HCCL_BUFFSIZE and the link (HCCS, RoCE) bandwidth in the profiler''s communication analysis'
        WHEN 'amd' THEN 'overlap RCCL with computing: run the collectives on their own HIP stream early (DDP buckets, '
             || 'FSDP prefetch, Megatron --overlap-grad-reduce), check RCCL tuning (NCCL_MIN_NCHANNELS, the xGMI '
             || 'topology) and the collective''s bandwidth (report collectives)'
        ELSE 'overlap NCCL with computing: run the collectives on their own CUDA stream early (DDP bucket_cap_mb, FSDP '
             || 'prefetch, Megatron --overlap-grad-reduce), check NCCL_ALGO / NCCL_PROTO and the achieved bandwidth '
             || '(report collectives)' END
    WHEN 'slow-rank' THEN
        'compare the rank''s kernels with a fast rank''s (report blame names the kernels), then its device: clocks, '
        || 'power and thermal throttling, ECC errors (' || CASE r.vendor WHEN 'amd' THEN 'rocm-smi / amd-smi'
        WHEN 'ascend' THEN 'npu-smi info' ELSE 'nvidia-smi -q -d PERFORMANCE,CLOCK' END
        || '); its data shard (sequence lengths) and its host (CPU load, NUMA binding)'
    WHEN 'host-bound' THEN
        'take the host off the path: capture the step in a '
        || CASE r.vendor WHEN 'amd' THEN 'HIP graph (torch.cuda.graphs on ROCm, torch.compile mode="reduce-overhead")'
        WHEN 'ascend' THEN 'graph with aclgraph (torch_npu.npu.NPUGraph, torchair), keep TASK_QUEUE_ENABLE=2 on'
        ELSE 'CUDA graph (torch.cuda.CUDAGraph, torch.compile mode="reduce-overhead")' END
        || '; fuse small kernels so fewer are launched (torch.compile); move Python work, logging and data '
        || 'preparation out of the step; a larger batch gives the device more work per launch'
    WHEN 'sync-in-step' THEN
        'find what asks for the value (a loss or metric read with .item(), .cpu() or print, a tensor used as a '
        || 'Python bool or index, '
        || CASE r.vendor WHEN 'amd' THEN 'torch.cuda.synchronize() on ROCm, a blocking hipMemcpy'
        WHEN 'ascend' THEN 'torch.npu.synchronize(), a blocking copy to the host (aclrtMemcpy)'
        ELSE 'torch.cuda.synchronize(), a blocking cudaMemcpy' END
        || '): read it once per step or every N steps, copy with non_blocking=True into pinned memory, keep '
        || 'masks and counts on the device; torch.'
        || CASE r.vendor WHEN 'ascend' THEN 'npu' ELSE 'cuda' END || '.set_sync_debug_mode("warn") names each one'
    WHEN 'slow-link' THEN
        'find the link under the slow instances (their process group''s ranks: report collectives --per-rank): '
        || CASE r.vendor WHEN 'ascend' THEN 'HCCS and RoCE ports (hccn_tool link and error counters), the profiler''s '
             || 'communication_matrix.json bandwidth per link, HCCL_ALGO'
        WHEN 'amd' THEN 'xGMI and NIC links (rocm-smi --showtopo, rdma statistics), RCCL''s own tests '
             || '(rccl-tests) on that group, NCCL_ALGO'
        ELSE 'NVLink and NIC links (nvidia-smi nvlink -e, ibstat and port counters), nccl-tests on that group, '
             || 'NCCL_DEBUG=INFO for the ring or tree it took, NCCL_ALGO / NCCL_PROTO' END
        || '; a link shared with another job''s traffic shows as slow only at times'
    WHEN 'small-collectives' THEN
        'bucket them: fewer, larger collectives ('
        || CASE r.vendor WHEN 'ascend' THEN 'Megatron --overlap-grad-reduce with its bucket size, FSDP / DDP '
             || 'bucket_cap_mb, torch_npu''s HCCL coalescing; HCCL_BUFFSIZE for the staging buffer'
        ELSE 'DDP bucket_cap_mb, FSDP''s flat parameters, torch.distributed coalescing manager or '
             || 'all_reduce_coalesced; Megatron''s gradient buffer with --overlap-grad-reduce' END
        || '); move per-tensor metrics (norms, counts) into one tensor reduced once a step'
    WHEN 'pipeline-bubble' THEN
        'find what held the stage (report pipeline: the micro-batch with the longest wait, and the stage before or '
        || 'after it that ran late): balance the layers over the stages (the first and last stages carry the '
        || 'embedding and the loss), raise the micro-batches per step (the ideal bubble falls as (p - 1) / m), an '
        || 'interleaved schedule (Megatron --num-layers-per-virtual-pipeline-stage); overlap the pipeline sends and '
        || 'receives ('
        || CASE r.vendor WHEN 'ascend' THEN 'HCCL batchSendRecv on its own stream' ELSE 'P2P on its own stream' END
        || ')'
    WHEN 'pageable-copy' THEN
        'pin the host buffers and copy without blocking: DataLoader(pin_memory=True), tensor.pin_memory(), then '
        || '.to(device, non_blocking=True) on a side stream ahead of use (torch.'
        || CASE r.vendor WHEN 'ascend' THEN 'npu' ELSE 'cuda' END || '.Stream); keep results on the device '
        || 'instead of copying them back each step'
    WHEN 'fusion' THEN
        'fuse each sequence into one kernel: torch.compile (Inductor fuses elementwise chains), '
        || CASE r.vendor WHEN 'ascend' THEN 'torchair / the fused aclnn operators (npu_add_rms_norm, npu_swiglu, '
             || 'npu_rotary_mul)'
        WHEN 'amd' THEN 'Triton or aiter''s fused kernels (fused add + norm, fused activation)'
        ELSE 'Triton, or a library''s fused kernels (fused add + RMSNorm, SwiGLU, rotary)' END
        || '; the intermediate tensors then never leave the registers'
    WHEN 'launch-bound' THEN
        'launch the stretch at once: capture it in a '
        || CASE r.vendor WHEN 'amd' THEN 'HIP graph (torch.cuda.graphs on ROCm, torch.compile mode="reduce-overhead")'
        WHEN 'ascend' THEN 'graph with aclgraph (torch_npu.npu.NPUGraph, torchair)'
        ELSE 'CUDA graph (torch.cuda.CUDAGraph, torch.compile mode="reduce-overhead", vLLM/SGLang''s graph capture '
             || 'for decode)' END
        || '; fuse its small kernels (torch.compile, fused norm / rotary / activation kernels) so that fewer are '
        || 'launched; a larger batch gives each kernel more work per launch'
    WHEN 'low-utilisation' THEN
        'see what the device waited for in the stretches (report critical-path --by category: host_gap is the '
        || 'launching thread outside any op: data loading, Python, the GIL; device_gap a stream waiting on another '
        || 'or an event; sync_wait a synchronisation): then overlap data loading (DataLoader workers, pin_memory), '
        || 'move Python work off the launching thread, give the device larger pieces of work, or capture the '
        || 'stretch in a '
        || CASE r.vendor WHEN 'amd' THEN 'HIP graph' WHEN 'ascend' THEN 'graph with aclgraph (torch_npu.npu.NPUGraph)'
        ELSE 'CUDA graph' END
    WHEN 'regression' THEN
        'find what changed between the two runs: report compare names the layers and kernels that grew; a kernel that '
        || 'grew with the same shapes points at its library or compiler version, its algorithm choice ('
        || CASE r.vendor WHEN 'ascend' THEN 'CANN and aclnn versions, AOE tuning'
        WHEN 'amd' THEN 'hipBLASLt and MIOpen heuristics, the ROCm version'
        ELSE 'cuBLAS and cuDNN heuristics, the CUDA version' END
        || ') or the device''s clocks, a new kernel at a code change; keep the baseline''s figures as a golden and '
        || 'gate on them with tracedb check'
    WHEN 'moe-imbalance' THEN
        'balance the routing: the router''s load-balancing loss or an auxiliary-loss-free bias (DeepSeek-V3), a '
        || 'capacity factor for the hot experts, expert placement that replicates hot experts on the least-loaded '
        || 'ranks ('
        || CASE r.vendor WHEN 'ascend' THEN 'vLLM-Ascend''s and MindSpeed''s expert load balancing'
        ELSE 'EPLB: vLLM --enable-eplb, SGLang --enable-eplb, Megatron --moe-router-load-balancing-type' END
        || '); count the tokens each expert gets per step to see which experts are hot and whether it lasts'
    WHEN 'roofline-gap' THEN
        'profile the kernel alone (' || CASE r.vendor WHEN 'amd' THEN 'rocprof-compute (Omniperf)'
        WHEN 'ascend' THEN 'msprof op, AOE tuning' ELSE 'Nsight Compute' END
        || '): a memory-bound kernel far below its bandwidth wants fusion with its neighbours (torch.compile, '
        || CASE r.vendor WHEN 'ascend' THEN 'fused aclnn operators' WHEN 'amd' THEN 'Triton or CK kernels'
        ELSE 'Triton or CUTLASS kernels' END || ') or better access patterns; a compute-bound one a tuned library '
        || 'kernel, a better tile shape or a shape the matrix units like (multiples of 64/128)'
    END AS try
FROM p JOIN _adv_runs r USING (run_id)
ORDER BY p.at_stake_ns DESC, list_position($run_ids, p.run_id), p.rule, p.kernel;
