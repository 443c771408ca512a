-- nvmond schema, version 1: devices and raw SMART samples.
--
-- 128-bit NVMe counters are stored in columns declared without a type (BLOB
-- affinity, so SQLite never converts them): an INTEGER while the value fits in a
-- signed 64-bit integer, and a decimal TEXT beyond that. They stay exact.
-- Temperatures are Kelvin as the drive reports them; 0 = not reported.
-- Times are unix milliseconds (UTC).

CREATE TABLE devices (
	id              INTEGER PRIMARY KEY,
	key             TEXT    NOT NULL UNIQUE, -- "model/serial": identity across boots
	model           TEXT    NOT NULL,
	serial          TEXT    NOT NULL,
	firmware        TEXT    NOT NULL,
	wctemp_k        INTEGER NOT NULL,
	cctemp_k        INTEGER NOT NULL,
	capacity_bytes,                          -- 128-bit (tnvmcap)
	name            TEXT    NOT NULL,        -- controller name when last seen ("nvme0")
	namespaces      TEXT    NOT NULL DEFAULT '[]', -- JSON array
	first_seen_ms   INTEGER NOT NULL,
	last_seen_ms    INTEGER NOT NULL,
	online          INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE samples (
	device_id                INTEGER NOT NULL REFERENCES devices(id),
	ts_ms                    INTEGER NOT NULL,
	critical_warning         INTEGER NOT NULL,
	temperature_k            INTEGER NOT NULL,
	avail_spare              INTEGER NOT NULL,
	spare_thresh             INTEGER NOT NULL,
	percent_used             INTEGER NOT NULL,
	endurance_grp_crit_warn  INTEGER NOT NULL,
	data_units_read          NOT NULL,
	data_units_written       NOT NULL,
	host_read_commands       NOT NULL,
	host_write_commands      NOT NULL,
	controller_busy_time     NOT NULL,
	power_cycles             NOT NULL,
	power_on_hours           NOT NULL,
	unsafe_shutdowns         NOT NULL,
	media_errors             NOT NULL,
	num_err_log_entries      NOT NULL,
	warning_temp_time        INTEGER NOT NULL, -- minutes
	critical_temp_time       INTEGER NOT NULL, -- minutes
	temp_sensor1_k           INTEGER NOT NULL,
	temp_sensor2_k           INTEGER NOT NULL,
	temp_sensor3_k           INTEGER NOT NULL,
	temp_sensor4_k           INTEGER NOT NULL,
	temp_sensor5_k           INTEGER NOT NULL,
	temp_sensor6_k           INTEGER NOT NULL,
	temp_sensor7_k           INTEGER NOT NULL,
	temp_sensor8_k           INTEGER NOT NULL,
	thm_temp1_trans_count    INTEGER NOT NULL,
	thm_temp2_trans_count    INTEGER NOT NULL,
	thm_temp1_total_time     INTEGER NOT NULL, -- seconds
	thm_temp2_total_time     INTEGER NOT NULL, -- seconds
	PRIMARY KEY (device_id, ts_ms)
) WITHOUT ROWID;

PRAGMA user_version = 1;
