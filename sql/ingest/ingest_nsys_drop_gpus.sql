-- The GPUs copied from an Nsight Systems export dropped once the run's device name is read.
-- Inputs: TEMP _nsys_gpus.
-- Parameters: none.
-- Output: TEMP _nsys_gpus dropped.
DROP TABLE _nsys_gpus;
