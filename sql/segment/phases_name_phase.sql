-- The phase and gradient each kernel name says (kernel_phases.sql reads them); one row of NULLs when no name
-- says any.
-- Inputs: none (the lists given).
-- Parameters:
--   $names VARCHAR[]: the kernel names
--   $phases VARCHAR[]: the phase each says: forward | backward | optimizer, or NULL
--   $grads VARCHAR[]: the gradient each says: input | weight, or NULL
--   $weak BOOLEAN[]: optimizer work only inside a training step
-- Output: TEMP _name_phase, one row per name: name (the kernel name), phase (the phase it says), grad (the
--   gradient it says), weak (optimizer work only inside a training step); a list of NULLs only types its
--   column "NULL".
CREATE OR REPLACE TEMP TABLE _name_phase AS SELECT unnest($names) AS name, unnest($phases) AS phase,
    unnest($grads) AS grad, unnest($weak) AS weak;
