-- nvmond schema, version 5: probes that cannot escape their budget or their
-- target (issue 7).
--
-- bytes_charged is what the write budget counts: while a run is "running" it
-- holds the run's whole reservation (charged up front), at its end every byte
-- that may have reached the drive (written, or handed to the kernel and
-- failed; the layout of the probe file included). bytes_lease is recorded
-- before any write passes it (about a second ahead): when a run's process
-- dies, the next one that takes the drive's lock charges the dead run its
-- lease. nsid is the namespace the run read or wrote (for a probe file, the
-- one holding its filesystem; NULL when unknown).
ALTER TABLE probe_runs ADD COLUMN bytes_charged INTEGER NOT NULL DEFAULT 0;
ALTER TABLE probe_runs ADD COLUMN bytes_lease INTEGER NOT NULL DEFAULT 0;
ALTER TABLE probe_runs ADD COLUMN nsid INTEGER;
UPDATE probe_runs SET bytes_charged = bytes_written;

-- The probe files nvmond made: a file in probe_dir is opened only when it is
-- the inode recorded here (its number, and its generation or birth time,
-- which no one can set), so a name swapped for another file's is refused.
CREATE TABLE probe_files (
	device_id  INTEGER NOT NULL REFERENCES devices(id),
	dir        TEXT    NOT NULL, -- probe_dir as configured
	ino        INTEGER NOT NULL,
	gen        INTEGER,          -- inode generation, NULL when the filesystem has none
	btime_ns   INTEGER,          -- birth time, NULL when the filesystem has none
	size       INTEGER NOT NULL,
	made_ms    INTEGER NOT NULL,
	PRIMARY KEY (device_id, dir)
) WITHOUT ROWID;

PRAGMA user_version = 5;
