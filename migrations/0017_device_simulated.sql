-- nvmond schema, version 17: whether a drive is simulated (issue 26: the demo
-- behind an interface). The poller sets it from the capability of the backend
-- that found the drive (DEV_CAP_SIMULATED: the demo drives), each time it
-- records the drive; the API's "demo" reads it. A drive recorded before this
-- version is marked at its next scan.
ALTER TABLE devices ADD COLUMN simulated INTEGER NOT NULL DEFAULT 0;
PRAGMA user_version = 17;
