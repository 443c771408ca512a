-- nvmond schema, version 3: throughput probes (issue 4).
-- Times are unix milliseconds (UTC); rates bytes per second; latencies ns.

-- One row per probe asked for: run, stopped, aborted, failed, or skipped (with
-- the reason). bytes_written counts every byte the probe wrote to the drive,
-- the probe file's layout included: budgets are summed from it, and it is what
-- the probes added to the drive's own data_units_written.
CREATE TABLE probe_runs (
	id             INTEGER PRIMARY KEY,
	device_id      INTEGER NOT NULL REFERENCES devices(id),
	preset         TEXT    NOT NULL,
	trigger        TEXT    NOT NULL, -- schedule, api, cli
	state          TEXT    NOT NULL, -- running, done, stopped, aborted, failed, skipped
	reason         TEXT    NOT NULL DEFAULT '',
	target         TEXT    NOT NULL DEFAULT '', -- the probe file, raw namespace, or demo:N
	engine         TEXT    NOT NULL DEFAULT '', -- io_uring, psync, demo
	started_ms     INTEGER NOT NULL,
	ended_ms       INTEGER,
	bytes_written  INTEGER NOT NULL DEFAULT 0,
	bytes_read     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX probe_runs_device_started ON probe_runs (device_id, started_ms);

-- The phases of a run (read, write; copy), each with its figures.
CREATE TABLE probe_phases (
	run_id       INTEGER NOT NULL REFERENCES probe_runs(id) ON DELETE CASCADE,
	phase        INTEGER NOT NULL,
	name         TEXT    NOT NULL,
	op           TEXT    NOT NULL, -- read, write, copy
	random       INTEGER NOT NULL,
	block_size   INTEGER NOT NULL,
	depth        INTEGER NOT NULL,
	stop         TEXT    NOT NULL, -- done, early, aborted
	elapsed_ms   INTEGER NOT NULL,
	offset_ms    INTEGER NOT NULL, -- phase start, since the run started
	interval_ms  INTEGER NOT NULL,
	rd_bytes     INTEGER NOT NULL,
	rd_ios       INTEGER NOT NULL,
	wr_bytes     INTEGER NOT NULL,
	wr_ios       INTEGER NOT NULL,
	rd_p50_ns    INTEGER NOT NULL,
	rd_p99_ns    INTEGER NOT NULL,
	rd_p999_ns   INTEGER NOT NULL,
	wr_p50_ns    INTEGER NOT NULL,
	wr_p99_ns    INTEGER NOT NULL,
	wr_p999_ns   INTEGER NOT NULL,
	cpu_user_us  INTEGER NOT NULL,
	cpu_sys_us   INTEGER NOT NULL,
	PRIMARY KEY (run_id, phase)
) WITHOUT ROWID;

-- Throughput in fixed intervals: bytes moved in the interval ending at t_ms
-- (since the phase started).
CREATE TABLE probe_series (
	run_id    INTEGER NOT NULL REFERENCES probe_runs(id) ON DELETE CASCADE,
	phase     INTEGER NOT NULL,
	t_ms      INTEGER NOT NULL,
	rd_bytes  INTEGER NOT NULL,
	wr_bytes  INTEGER NOT NULL,
	PRIMARY KEY (run_id, phase, t_ms)
) WITHOUT ROWID;

-- Dips and cliffs found in a phase's series.
CREATE TABLE probe_events (
	run_id        INTEGER NOT NULL REFERENCES probe_runs(id) ON DELETE CASCADE,
	phase         INTEGER NOT NULL,
	kind          TEXT    NOT NULL, -- dip, cliff
	cause         TEXT    NOT NULL, -- unknown, throttling
	start_ms      INTEGER NOT NULL,
	end_ms        INTEGER NOT NULL,
	bytes_before  INTEGER NOT NULL,
	rate_before   REAL    NOT NULL,
	rate_during   REAL    NOT NULL,
	rate_after    REAL    NOT NULL,
	PRIMARY KEY (run_id, phase, start_ms)
) WITHOUT ROWID;

-- SMART thermal figures sampled every second during a run.
CREATE TABLE probe_thermal (
	run_id       INTEGER NOT NULL REFERENCES probe_runs(id) ON DELETE CASCADE,
	t_ms         INTEGER NOT NULL, -- since the run started
	temp_k       INTEGER NOT NULL,
	t1_count     INTEGER NOT NULL,
	t2_count     INTEGER NOT NULL,
	t1_time_s    INTEGER NOT NULL,
	t2_time_s    INTEGER NOT NULL,
	warn_time_min INTEGER NOT NULL,
	PRIMARY KEY (run_id, t_ms)
) WITHOUT ROWID;

PRAGMA user_version = 3;
