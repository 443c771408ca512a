-- nvmond schema, version 9: repeated probe runs (issue 13).
--
-- A preset asked for with repeat = N runs N times with an idle cooldown in
-- between; each run is a normal probe run (its own row, gates, budget and
-- lock), and the runs of one series share series_id: the id of its first
-- run (so the first run's series_id is its own id). series_index is the run's
-- place in it (1 … series_of) and series_of the number of runs asked for.
-- A run asked for alone has all three NULL.
ALTER TABLE probe_runs ADD COLUMN series_id INTEGER;
ALTER TABLE probe_runs ADD COLUMN series_index INTEGER;
ALTER TABLE probe_runs ADD COLUMN series_of INTEGER;
CREATE INDEX probe_runs_series ON probe_runs (series_id, id) WHERE series_id IS NOT NULL;

PRAGMA user_version = 9;
