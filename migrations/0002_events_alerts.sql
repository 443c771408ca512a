-- nvmond schema, version 2: thermal throttling events and alerts (issue 3).
-- Times are unix milliseconds (UTC); temperatures Kelvin (0 = not reported).

CREATE TABLE throttle_events (
	id              INTEGER PRIMARY KEY,
	device_id       INTEGER NOT NULL REFERENCES devices(id),
	kind            TEXT    NOT NULL, -- light, heavy, warning_temp_time, …
	start_ms        INTEGER NOT NULL,
	end_ms          INTEGER,          -- NULL while the episode lasts
	last_rise_ms    INTEGER NOT NULL,
	duration_s      INTEGER NOT NULL, -- from the drive's counters where it has them
	transitions     INTEGER NOT NULL,
	peak_k          INTEGER NOT NULL,
	late            INTEGER NOT NULL, -- happened (partly) while nobody was watching
	counter_reset   INTEGER NOT NULL
);
CREATE INDEX throttle_events_device_start ON throttle_events (device_id, start_ms);
CREATE INDEX throttle_events_open ON throttle_events (device_id) WHERE end_ms IS NULL;

CREATE TABLE alerts (
	id              INTEGER PRIMARY KEY,
	device_id       INTEGER NOT NULL REFERENCES devices(id),
	rule            TEXT    NOT NULL,
	severity        TEXT    NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
	state           TEXT    NOT NULL CHECK (state IN ('firing', 'resolved')),
	message         TEXT    NOT NULL,
	started_ms      INTEGER NOT NULL,
	updated_ms      INTEGER NOT NULL,
	resolved_ms     INTEGER,
	acked_ms        INTEGER,
	notified_ms     INTEGER  -- last notification sent for it; NULL = none (cooldown)
);
CREATE INDEX alerts_device_rule ON alerts (device_id, rule, id);
CREATE INDEX alerts_firing ON alerts (id) WHERE state = 'firing';

PRAGMA user_version = 2;
