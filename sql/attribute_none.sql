-- No module attribution (report compare by layer, category or kernel): an empty _attr with the columns
-- attribute_modules.sql gives, so later stages read one shape. Output: TEMP _attr (empty).
CREATE OR REPLACE TEMP TABLE _attr (run_id INTEGER, seq BIGINT, launch_ns BIGINT, cpu_op VARCHAR, annotation VARCHAR,
    nn_module VARCHAR, python_frame VARCHAR, module VARCHAR, module_path VARCHAR);
