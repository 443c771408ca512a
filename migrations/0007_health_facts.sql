-- nvmond schema, version 7: firmware revisions and PCIe links as they change
-- (issue 11). Times are unix milliseconds (UTC).

-- Every firmware revision a drive was seen running: the first row of a drive
-- is its baseline (old_rev NULL, not an event); each later row is a
-- firmware_changed event from old_rev to new_rev, seen at ts_ms.
CREATE TABLE firmware_history (
	id              INTEGER PRIMARY KEY,
	device_id       INTEGER NOT NULL REFERENCES devices(id),
	ts_ms           INTEGER NOT NULL,
	old_rev         TEXT,             -- NULL: the baseline
	new_rev         TEXT    NOT NULL
);
CREATE INDEX firmware_history_device ON firmware_history (device_id, ts_ms);

-- The PCIe link of a drive's PCI function each time it differs from the row
-- before: speeds in tenths of GT/s (80 = 8.0 GT/s), widths in lanes, 0 unknown.
CREATE TABLE link_history (
	id              INTEGER PRIMARY KEY,
	device_id       INTEGER NOT NULL REFERENCES devices(id),
	ts_ms           INTEGER NOT NULL,
	cur_speed_dgts  INTEGER NOT NULL,
	cur_width       INTEGER NOT NULL,
	max_speed_dgts  INTEGER NOT NULL,
	max_width       INTEGER NOT NULL
);
CREATE INDEX link_history_device ON link_history (device_id, ts_ms);

PRAGMA user_version = 7;
