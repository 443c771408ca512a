-- nvmond schema, version 6: the Error Information log (log page 01h, issue 11).
--
-- One row per error count and device: the controller numbers its errors
-- 1, 2, 3, … for life, so a count read twice (a later poll, a restart) is
-- the same row. error_count, lba and cmd_specific are 64-bit fields of the
-- entry: columns without a type, INTEGER while the value fits in int64 and
-- decimal TEXT beyond (an LBA of FFFFFFFFFFFFFFFFh, "not applicable").
-- status is bytes 13:12 as the controller reported them (bit 0 the phase
-- tag); sct, sc, dnr and more are its Status Field decoded. class is
-- nvmond's reading of it (errclass.h). before_watch marks the entries the log
-- already held when nvmond first read it: shown and counted, never alerted.
-- seen_ms is when nvmond read the entry (the log has no time of its own).
CREATE TABLE errors (
	device_id     INTEGER NOT NULL REFERENCES devices(id),
	error_count,
	sqid          INTEGER NOT NULL, -- 0 admin queue, 65535 not specific to a command
	cid           INTEGER NOT NULL,
	status        INTEGER NOT NULL,
	sct           INTEGER NOT NULL,
	sc            INTEGER NOT NULL,
	dnr           INTEGER NOT NULL,
	more          INTEGER NOT NULL,
	lba,
	nsid          INTEGER NOT NULL,
	param_loc     INTEGER NOT NULL, -- parameter error location, 65535 = none
	cmd_specific,
	class         TEXT    NOT NULL CHECK (class IN ('benign', 'media', 'io', 'other')),
	before_watch  INTEGER NOT NULL,
	seen_ms       INTEGER NOT NULL,
	PRIMARY KEY (device_id, error_count)
) WITHOUT ROWID;
CREATE INDEX errors_device_seen ON errors (device_id, seen_ms);

-- Where each drive's log was last read: num_err_log_entries then. The log is
-- read again only when the count differs; a drive without a row here has
-- never been read (its first read is the baseline). lost counts the errors
-- the log no longer held when nvmond read it (more errors than it keeps).
CREATE TABLE errlog_state (
	device_id   INTEGER PRIMARY KEY REFERENCES devices(id),
	read_count,
	read_ms     INTEGER NOT NULL,
	lost        INTEGER NOT NULL DEFAULT 0
);

PRAGMA user_version = 6;
