-- nvmond schema, version 12: several drives probed at once (issue 13).
--
-- A group run starts one probe per drive together: each is a normal probe
-- run (its own row, gates, budget and lock); the members of one group share
-- group_id, the id of its first member's run. skew_us is the most that run's
-- phases started after the group's release at the barrier of each phase (its
-- part of the start skew); NULL until the run ended. A run probed alone has no
-- row here.
CREATE TABLE probe_group_members (
    run_id   INTEGER PRIMARY KEY REFERENCES probe_runs (id) ON DELETE CASCADE,
    group_id INTEGER NOT NULL,
    skew_us  INTEGER
);
CREATE INDEX probe_group_members_group ON probe_group_members (group_id, run_id);

PRAGMA user_version = 12;
