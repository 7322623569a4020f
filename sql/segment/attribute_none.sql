-- No module attribution (report compare by layer, category or kernel): an empty _attr with the columns
-- attribute_modules.sql gives, so later stages read one shape.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _attr, empty:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   launch_ns BIGINT: start of its launch
--   cpu_op VARCHAR: innermost cpu_op frame around the launch
--   annotation VARCHAR: innermost user annotation
--   nn_module VARCHAR: innermost nn.Module frame
--   python_frame VARCHAR: innermost python function frame
--   module VARCHAR: its module role
--   module_path VARCHAR: its module instance path
--   module_calls BIGINT[]: the start of each nn.Module frame on its path
CREATE OR REPLACE TEMP TABLE _attr (run_id INTEGER, seq BIGINT, launch_ns BIGINT, cpu_op VARCHAR, annotation VARCHAR,
    nn_module VARCHAR, python_frame VARCHAR, module VARCHAR, module_path VARCHAR,
    module_calls BIGINT[]);
