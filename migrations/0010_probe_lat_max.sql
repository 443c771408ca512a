-- nvmond schema, version 10: the slowest I/O of each probe phase (issue 13:
-- the sweep shows p50, p99, p99.9 and the maximum of every point). Phases
-- stored before this have none (NULL).
ALTER TABLE probe_phases ADD COLUMN rd_max_ns INTEGER;
ALTER TABLE probe_phases ADD COLUMN wr_max_ns INTEGER;
PRAGMA user_version = 10;
