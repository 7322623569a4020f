-- The phase of every kernel of a training run: forward, backward (input or weight gradient) or optimizer,
-- from the best evidence the trace has, in this order:
-- 1. annotation: the innermost phase annotation open on the launching thread at the launch (the runtime
--    call with the kernel's correlation id): a user annotation ending in (F), (B) or (W) (DeepSeek's
--    DualPipe: attn(F), mlp(B), mlp(W); B is the input gradient, W the weight gradient), or named
--    forward / backward (forward_step, backward-compute: Megatron and NeMo NVTX ranges), or optimizer
--    (optimizer, optimizer_step, or PyTorch's own Optimizer.step#SGD.step and Optimizer.zero_grad#... ranges).
-- 2. autograd: a cpu_op of the autograd engine open around the launch (autograd::engine::evaluate_function,
--    or an op named *Backward0): backward.
-- 3. name: the kernel's name says backward (Grad, Bwd, backward, dgrad, wgrad) or optimizer (Adam,
--    multi_tensor_apply, ...: _name_phase); a forward attention kernel (category attention, not backward), an
--    embedding lookup or a sampler (_name_phase: the next micro-batch's embedding follows the last backward
--    kernels with no idle gap), or a name with fwd / forward says forward.
-- 4. order: the kernels with none of these take the phase of the evidence around them: between two
--    kernels of one phase, that phase; after the last forward evidence and before the first backward
--    evidence, forward (a forward pass ends where its backward starts: the last layer's MLP, lm_head and
--    the loss are forward); before forward or optimizer evidence that follows other work, the stretch is
--    split at its largest idle gap (each kernel's start minus the latest end before it), the kernels
--    after it taking the later phase; between optimizer and backward evidence, the same split, the kernels
--    after it forward (the next step's forward pass: a ResNet-50 step's 1,400 forward kernels have no
--    evidence of their own between Optimizer.step# and the autograd engine's frames); before the first
--    evidence, its phase (forward before backward evidence: a step starts with its forward pass); after
--    the last, the last one's.
-- Only runs with backward or optimizer evidence get rows: every kernel of another run is forward. A weak
-- optimizer name alone (multi_tensor_apply: SGLang's decode input preparation launches one) is no such
-- evidence; in a run that has some, those kernels are optimizer work.
-- Inputs: kernels, host_events (first_launches and enclosing: launch_macros.sql), _cats (categories.sql: the category
--   of every name of the runs), TEMP _name_phase(name VARCHAR, phase VARCHAR, grad VARCHAR, weak BOOLEAN): the names
--   that say backward, optimizer or forward (embedding and sampling), the gradient wgrad / dgrad names say, and whether
--   the name is optimizer work only inside a training step (a foreach kernel, multi_tensor_apply, also runs in serving)
--   (tracedb.engine.segmentation.segment: a bound pattern would be compiled again for every name, ~1.7 ms each).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _phase, one row per kernel of a training run:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   phase VARCHAR: forward | backward | optimizer
--   grad VARCHAR: input | weight where the trace says which gradient ((B) / (W) annotations, dgrad / wgrad
--     names); NULL otherwise
--   evidence VARCHAR: annotation | autograd | name | order: what decided the phase
--   start_ns BIGINT: the kernel's start
--   dur_ns BIGINT: its duration
-- TEMP _phase_frames and _phase_launches are scratch, dropped at the end.
CREATE OR REPLACE TEMP TABLE _phase_frames AS
SELECT run_id, pid, tid, start_ns, start_ns + greatest(dur_ns, 1) AS end_ns,
    CASE WHEN cat = 'cpu_op' THEN 'autograd' ELSE 'annotation' END AS source,
    CASE WHEN cat = 'cpu_op' THEN 'backward'
         WHEN regexp_matches(name, '\((F)\)$') THEN 'forward'
         WHEN regexp_matches(name, '\([BW]\)$') THEN 'backward'
         WHEN regexp_matches(name, '(?i)^(forward|fwd)([-_ ](step|compute|pass))?$') THEN 'forward'
         WHEN regexp_matches(name, '(?i)^(backward|bwd)([-_ ](step|compute|pass))?$') THEN 'backward'
         ELSE 'optimizer' END AS phase,
    CASE WHEN regexp_matches(name, '\(B\)$') THEN 'input' WHEN regexp_matches(name, '\(W\)$') THEN 'weight' END AS grad
FROM host_events
WHERE run_id IN (SELECT unnest($run_ids)) AND (
    (cat = 'user_annotation' AND (regexp_matches(name, '\([FBW]\)$')
        OR regexp_matches(name, '(?i)^(forward|fwd|backward|bwd)([-_ ](step|compute|pass))?$')
        OR regexp_matches(name, '(?i)^optimizer([-_ ]step)?$|^Optimizer\.(step|zero_grad)#')))
    OR (cat = 'cpu_op' AND (starts_with(name, 'autograd::engine::evaluate_function')
        OR regexp_matches(name, 'Backward\d*$'))));

CREATE OR REPLACE TEMP TABLE _phase_launches AS
SELECT run_id, seq, run_id AS host_run_id, pid, tid, call_ns AS t FROM first_launches($run_ids)
WHERE EXISTS (SELECT 1 FROM _phase_frames);

CREATE OR REPLACE TEMP TABLE _phase AS
WITH named AS (
    -- evidence from the kernel's own name, once per distinct name
    SELECT c.name, c.op_type,
        coalesce(n.phase, CASE WHEN c.category = 'attention' OR regexp_matches(coalesce(c.name, ''), '(?i)fwd|forward')
                               THEN 'forward' END) AS phase,
        n.grad, coalesce(n.weak, false) AS weak
    FROM _cats c LEFT JOIN _name_phase n ON n.name = c.name
), framed AS (
    -- the innermost frame of each source around the launch: the latest to start
    SELECT launch_run AS run_id, launch_seq AS seq, source, arg_max(phase, start_ns) AS phase,
        arg_max(grad, start_ns) AS grad
    FROM enclosing('_phase_launches', '_phase_frames')
    GROUP BY ALL
), evidence AS (
    SELECT k.run_id, k.seq, k.start_ns, k.start_ns + k.dur_ns AS end_ns, k.dur_ns,
        coalesce(fa.phase, fg.phase, n.phase) AS ev,
        CASE WHEN fa.phase IS NOT NULL THEN 'annotation' WHEN fg.phase IS NOT NULL THEN 'autograd'
             WHEN n.phase IS NOT NULL THEN 'name' END AS evidence,
        CASE WHEN fa.phase IS NOT NULL THEN fa.grad ELSE n.grad END AS grad,
        fa.phase IS NULL AND fg.phase IS NULL AND n.weak AS weak
    FROM kernels k
    JOIN named n ON n.name IS NOT DISTINCT FROM k.name AND n.op_type IS NOT DISTINCT FROM k.op_type
    LEFT JOIN framed fa ON fa.run_id = k.run_id AND fa.seq = k.seq AND fa.source = 'annotation'
    LEFT JOIN framed fg ON fg.run_id = k.run_id AND fg.seq = k.seq AND fg.source = 'autograd'
    WHERE k.run_id IN (SELECT unnest($run_ids))
), training AS (
    SELECT run_id FROM evidence GROUP BY run_id HAVING count(*) FILTER (WHERE ev IN ('backward', 'optimizer') AND NOT weak) > 0
), ordered AS (
    SELECT e.*,
        last_value(ev IGNORE NULLS) OVER (PARTITION BY run_id ORDER BY start_ns, seq
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_ev,
        first_value(ev IGNORE NULLS) OVER (PARTITION BY run_id ORDER BY start_ns, seq
            ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS next_ev,
        -- the stretch of kernels since the last evidence, closed by the next evidence kernel
        count(ev) OVER (PARTITION BY run_id ORDER BY start_ns, seq
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS stretch,
        start_ns - max(end_ns) OVER (PARTITION BY run_id ORDER BY start_ns, seq
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS gap_ns
    FROM evidence e SEMI JOIN training t USING (run_id)
), splits AS (
    -- a stretch of unknown kernels before forward or optimizer evidence that follows another phase:
    -- the largest idle gap splits it (the earliest on ties); the evidence kernel that closes it counts
    SELECT run_id, stretch, arg_max(start_ns, (coalesce(gap_ns, 0), -start_ns)) AS split_ns
    FROM (SELECT *, lag(ev IS NULL, 1, false) OVER (PARTITION BY run_id ORDER BY start_ns, seq) AS after_unknown
          FROM ordered)
    WHERE ev IS NULL OR after_unknown
    GROUP BY ALL
)
SELECT o.run_id, o.seq,
    coalesce(o.ev,
        CASE WHEN o.prev_ev IS NULL THEN CASE WHEN o.next_ev = 'backward' THEN 'forward' ELSE o.next_ev END
             WHEN o.prev_ev = 'optimizer' AND o.next_ev = 'backward'
             THEN CASE WHEN o.start_ns >= s.split_ns THEN 'forward' ELSE 'optimizer' END
             WHEN o.next_ev IS NULL OR o.next_ev = o.prev_ev OR o.next_ev = 'backward' THEN o.prev_ev
             WHEN o.start_ns >= s.split_ns THEN o.next_ev
             ELSE o.prev_ev END) AS phase,
    o.grad, coalesce(o.evidence, 'order') AS evidence, o.start_ns, o.dur_ns
FROM ordered o LEFT JOIN splits s ON s.run_id = o.run_id AND s.stretch = o.stretch AND o.ev IS NULL;
DROP TABLE _phase_frames;
DROP TABLE _phase_launches;
