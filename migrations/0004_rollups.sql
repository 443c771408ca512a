-- nvmond schema, version 4: rollups for long history (issue 5).
--
-- Raw samples are kept for [store] keep_raw (default 7 days); 1-minute rollups
-- for 90 days; 1-hour rollups for ever. A rollup row summarises one bucket
-- [ts_ms, ts_ms + res_s * 1000) of one device: sample count, min/avg/max of the
-- composite temperature and of each sensor (Kelvin, NULL when not reported in
-- the bucket), and the counters of the last sample in the bucket. 1-minute rows
-- come from raw samples, 1-hour rows from 1-minute rows. 128-bit counters are
-- stored as in samples: INTEGER while they fit in int64, decimal TEXT beyond.

CREATE TABLE rollups (
	device_id               INTEGER NOT NULL REFERENCES devices(id),
	res_s                   INTEGER NOT NULL, -- 60 or 3600
	ts_ms                   INTEGER NOT NULL, -- bucket start, a multiple of res_s * 1000
	n                       INTEGER NOT NULL, -- raw samples summarised
	last_ts_ms              INTEGER NOT NULL, -- time of the last sample
	temp_min_k              INTEGER,
	temp_avg_k              REAL,
	temp_max_k              INTEGER,
	s1_min_k INTEGER, s1_avg_k REAL, s1_max_k INTEGER,
	s2_min_k INTEGER, s2_avg_k REAL, s2_max_k INTEGER,
	s3_min_k INTEGER, s3_avg_k REAL, s3_max_k INTEGER,
	s4_min_k INTEGER, s4_avg_k REAL, s4_max_k INTEGER,
	s5_min_k INTEGER, s5_avg_k REAL, s5_max_k INTEGER,
	s6_min_k INTEGER, s6_avg_k REAL, s6_max_k INTEGER,
	s7_min_k INTEGER, s7_avg_k REAL, s7_max_k INTEGER,
	s8_min_k INTEGER, s8_avg_k REAL, s8_max_k INTEGER,
	critical_warning        INTEGER NOT NULL, -- OR of every sample in the bucket
	avail_spare             INTEGER NOT NULL, -- last
	percent_used            INTEGER NOT NULL, -- last
	data_units_read         NOT NULL,         -- last (128-bit)
	data_units_written      NOT NULL,         -- last (128-bit)
	media_errors            NOT NULL,         -- last (128-bit)
	power_on_hours          NOT NULL,         -- last (128-bit)
	warning_temp_time       INTEGER NOT NULL, -- last, minutes
	critical_temp_time      INTEGER NOT NULL, -- last, minutes
	thm_temp1_trans_count   INTEGER NOT NULL, -- last
	thm_temp2_trans_count   INTEGER NOT NULL, -- last
	thm_temp1_total_time    INTEGER NOT NULL, -- last, seconds
	thm_temp2_total_time    INTEGER NOT NULL, -- last, seconds
	PRIMARY KEY (device_id, res_s, ts_ms)
) WITHOUT ROWID;

-- Progress of the incremental builder: every bucket that starts before
-- done_ms is built (res_s 60 and 3600), and data before pruned_ms is gone
-- (res_s 0 = raw samples, 60 = 1-minute rollups).
CREATE TABLE rollup_state (
	res_s     INTEGER PRIMARY KEY,
	done_ms   INTEGER NOT NULL DEFAULT 0,
	pruned_ms INTEGER NOT NULL DEFAULT 0
);

PRAGMA user_version = 4;
