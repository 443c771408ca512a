-- nvmond schema, version 13: the cache-recovery study's idle time net of busy
-- periods (issue 13: "recovery needs real idle time").
--
-- A burst of a study runs once the drive has been idle, by the probes' busy
-- rule, for its interval in total since the cliff: idle_ms is that idle time
-- when the burst started (busy periods left out), paused_ms how long the study
-- had paused for a busy drive by then. A run of a study that did not wait (its
-- fill, one of `nvmond probe`, or one before this version) has no row here.
CREATE TABLE probe_study_bursts (
    run_id    INTEGER PRIMARY KEY REFERENCES probe_runs (id) ON DELETE CASCADE,
    idle_ms   INTEGER NOT NULL,
    paused_ms INTEGER NOT NULL
);

PRAGMA user_version = 13;
