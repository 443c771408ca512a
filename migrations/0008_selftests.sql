-- nvmond schema, version 8: device self-tests (issue 12). Times are unix
-- milliseconds (UTC).

-- Every result a drive's Device Self-test log (log page 06h) showed, once:
-- the log keeps the last 20 and no sequence number, so nvmond adds the ones
-- newer than the newest row here (decode/selftest.h, selftest_new_results()),
-- oldest first, and id orders them as they ran. code is the test that ran
-- (1 short, 2 extended, Eh vendor specific), result the Self-test Result
-- (0 no error … 9 aborted by sanitize), segment the first failed segment
-- (result 7, else 0), valid the Valid Diagnostic Information bits (1 nsid,
-- 2 lba, 4 sct, 8 sc): nsid, lba, sct and sc mean something only when their
-- bit is set. poh and lba are 64-bit fields of the entry: columns without a
-- type, INTEGER while the value fits in int64 and decimal TEXT beyond (as
-- 0006's). origin is who started the test ("schedule", "catch-up", "api",
-- "cli", "demo"), NULL when it was not nvmond (nvme-cli, smartd, the drive's
-- own). seen_ms is when nvmond first read it in the log.
CREATE TABLE selftest_results (
	id          INTEGER PRIMARY KEY,
	device_id   INTEGER NOT NULL REFERENCES devices(id),
	seen_ms     INTEGER NOT NULL,
	code        INTEGER NOT NULL,
	result      INTEGER NOT NULL,
	segment     INTEGER NOT NULL,
	valid       INTEGER NOT NULL,
	poh         NOT NULL,
	nsid        INTEGER NOT NULL,
	lba         NOT NULL,
	sct         INTEGER NOT NULL,
	sc          INTEGER NOT NULL,
	vendor      INTEGER NOT NULL, -- bytes 27:26 of the entry, vendor specific
	origin      TEXT               -- NULL: not started by nvmond
);
CREATE INDEX selftest_results_device ON selftest_results (device_id, id);

-- What nvmond did: each Device Self-test command it sent (start: code 1
-- short or 2 extended; abort: code Fh) and each scheduled test it did not
-- start (skip: the code it would have run, and the reason: a probe runs, the
-- drive is busy or asleep, another test runs). nsid is the
-- command's target, 4294967295 (FFFFFFFFh) the controller. origin as above,
-- never NULL here; reason "" but for skips. The newest start or skip of
-- origin 'schedule' or 'catch-up' per code is what the catch-up after a
-- restart counts from.
CREATE TABLE selftest_actions (
	id          INTEGER PRIMARY KEY,
	device_id   INTEGER NOT NULL REFERENCES devices(id),
	ts_ms       INTEGER NOT NULL,
	kind        TEXT    NOT NULL CHECK (kind IN ('start', 'abort', 'skip')),
	code        INTEGER NOT NULL,
	nsid        INTEGER NOT NULL,
	origin      TEXT    NOT NULL,
	reason      TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX selftest_actions_device ON selftest_actions (device_id, ts_ms);

PRAGMA user_version = 8;
