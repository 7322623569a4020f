-- Remove a run and every row keyed by it. Parameters: $name.
DELETE FROM kernels_raw WHERE run_id IN (SELECT run_id FROM runs WHERE name = $name);
DELETE FROM host_events WHERE run_id IN (SELECT run_id FROM runs WHERE name = $name);
DELETE FROM tracks WHERE run_id IN (SELECT run_id FROM runs WHERE name = $name);
DELETE FROM runs WHERE name = $name;
