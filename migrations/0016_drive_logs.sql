-- nvmond schema, version 16: what a drive knows beyond its health log (issue
-- 27): the OCP SMART / Health Information Extended log (C0h), the Persistent
-- Event Log (0Dh), power states, host thermal management, namespace usage,
-- and the risk verdict. Times are unix milliseconds (UTC); temperatures
-- Kelvin. 128-bit counters as in samples: INTEGER while they fit in int64,
-- decimal TEXT beyond.

-- Log C0h: a row when a field other than the media counters changed, and at
-- least once an hour while the drive answers it. host_written_units is the
-- health log's Data Units Written read in the same poll (write amplification
-- = phys_written / (host_written_units × 512,000)).
CREATE TABLE ocp_samples (
	id                   INTEGER PRIMARY KEY,
	device_id            INTEGER NOT NULL REFERENCES devices(id),
	ts_ms                INTEGER NOT NULL,
	phys_written         NOT NULL, -- bytes, 128-bit
	phys_read            NOT NULL, -- bytes, 128-bit
	host_written_units   NOT NULL, -- 128-bit
	bad_user_blocks      INTEGER NOT NULL,
	bad_user_norm        INTEGER NOT NULL,
	bad_system_blocks    INTEGER NOT NULL,
	bad_system_norm      INTEGER NOT NULL,
	xor_recoveries       INTEGER NOT NULL,
	uncorrectable_reads  INTEGER NOT NULL,
	soft_ecc_errors      INTEGER NOT NULL,
	e2e_detected         INTEGER NOT NULL,
	e2e_corrected        INTEGER NOT NULL,
	system_data_used_pct INTEGER NOT NULL,
	throttle_events      INTEGER NOT NULL,
	throttle_status      INTEGER NOT NULL,
	pcie_correctable     INTEGER NOT NULL,
	incomplete_shutdowns INTEGER NOT NULL,
	free_blocks_pct      INTEGER NOT NULL,
	capacitor_health     INTEGER NOT NULL,
	log_version          INTEGER NOT NULL,
	spec_major           INTEGER NOT NULL,
	spec_minor           INTEGER NOT NULL,
	spec_point           INTEGER NOT NULL,
	spec_errata          INTEGER NOT NULL
);
CREATE INDEX ocp_samples_device_ts ON ocp_samples (device_id, ts_ms);

-- The power state each time it (or APST's enable, or the HCTM thresholds)
-- differs from the row before: the timeline. NULL = not known.
CREATE TABLE power_history (
	id              INTEGER PRIMARY KEY,
	device_id       INTEGER NOT NULL REFERENCES devices(id),
	ts_ms           INTEGER NOT NULL,
	ps              INTEGER NOT NULL, -- Get Features 02h bits 4:0
	wh              INTEGER NOT NULL, -- bits 7:5
	max_uw          INTEGER,          -- the state's descriptor: maximum power, microwatts
	non_operational INTEGER,          -- and NOPS
	apst_enabled    INTEGER,          -- Get Features 0Ch bit 0
	apst_idle_ms    INTEGER,          -- idle time before APST reaches a non-operational state
	tmt1_k          INTEGER,          -- Get Features 10h; 0 = off
	tmt2_k          INTEGER
);
CREATE INDEX power_history_device_ts ON power_history (device_id, ts_ms);

-- Persistent Event Log entries, each once (its fingerprint: FNV-1a 64 of the
-- entry's bytes, as a signed integer), on the drive's timeline at the drive's
-- timestamp, or at read_ms when the drive's clock counted from a reset. late:
-- it happened while nvmond was not watching the drive.
CREATE TABLE pel_events (
	id          INTEGER PRIMARY KEY,
	device_id   INTEGER NOT NULL REFERENCES devices(id),
	fingerprint INTEGER NOT NULL,
	type        INTEGER NOT NULL,
	kind        TEXT    NOT NULL,
	ts_ms       INTEGER NOT NULL,
	time_known  INTEGER NOT NULL,
	read_ms     INTEGER NOT NULL,
	late        INTEGER NOT NULL,
	summary     TEXT    NOT NULL,
	detail      TEXT    NOT NULL, -- JSON: the decoded fields
	UNIQUE (device_id, fingerprint)
);
CREATE INDEX pel_events_device_ts ON pel_events (device_id, ts_ms);

-- Where each drive's Persistent Event Log was last read to (pel.h, struct
-- pel_cursor), so that a restart reads only what is new.
CREATE TABLE pel_cursors (
	device_id   INTEGER PRIMARY KEY REFERENCES devices(id),
	tll         INTEGER NOT NULL,
	tnev        INTEGER NOT NULL,
	generation  INTEGER NOT NULL,
	anchor_off  INTEGER NOT NULL,
	anchor_size INTEGER NOT NULL,
	anchor_fp   INTEGER NOT NULL,
	read_ms     INTEGER NOT NULL
);

-- What a drive answered to log C0h, asked once per firmware revision: 1 the
-- OCP page, 0 something else (another vendor's page, or refused).
CREATE TABLE ocp_probes (
	device_id   INTEGER PRIMARY KEY REFERENCES devices(id),
	firmware    TEXT    NOT NULL,
	ocp         INTEGER NOT NULL,
	why         TEXT    NOT NULL,
	ts_ms       INTEGER NOT NULL
);

-- Each namespace's size, capacity and utilization (logical blocks) when they
-- differ from its row before, and its ANA state ('' none), read at scans.
CREATE TABLE ns_usage (
	id          INTEGER PRIMARY KEY,
	device_id   INTEGER NOT NULL REFERENCES devices(id),
	ts_ms       INTEGER NOT NULL,
	nsid        INTEGER NOT NULL,
	nsze        INTEGER NOT NULL,
	ncap        INTEGER NOT NULL,
	nuse        INTEGER NOT NULL,
	lba_size    INTEGER NOT NULL,
	ana_state   TEXT    NOT NULL
);
CREATE INDEX ns_usage_device ON ns_usage (device_id, nsid, ts_ms);

-- The risk verdict (docs/health.md) each time it changes: its level and
-- the rules that fired, as JSON [{rule, level, reason, source}].
CREATE TABLE health_verdicts (
	id          INTEGER PRIMARY KEY,
	device_id   INTEGER NOT NULL REFERENCES devices(id),
	ts_ms       INTEGER NOT NULL,
	level       TEXT    NOT NULL CHECK (level IN ('ok', 'watch', 'replace_soon', 'failed')),
	reasons     TEXT    NOT NULL
);
CREATE INDEX health_verdicts_device ON health_verdicts (device_id, ts_ms);

PRAGMA user_version = 16;
