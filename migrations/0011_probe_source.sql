-- nvmond schema, version 11: drive-to-drive copies (issue 13, copy-to).
--
-- A copy-to run reads one drive (the source) while writing another. The run
-- belongs to the drive it writes (device_id), so its budget and every budget
-- query stay as they were; source_device_id is the drive read and
-- source_target what was read on it (its probe file or raw namespace, as
-- target is for the written drive). Both are NULL for every other run.
ALTER TABLE probe_runs ADD COLUMN source_device_id INTEGER REFERENCES devices(id);
ALTER TABLE probe_runs ADD COLUMN source_target TEXT;
CREATE INDEX probe_runs_source ON probe_runs (source_device_id, id)
	WHERE source_device_id IS NOT NULL;

PRAGMA user_version = 11;
