-- nvmond schema, version 15: remote-write exports (issue 24 §2: "Nothing lost in
-- an outage").
--
-- The samples table is the exports' write-ahead log: each [export "NAME"] keeps,
-- per drive, the time of the newest sample it is done with (the engine took it,
-- or refused it for good), and after an outage or a restart sends what follows,
-- oldest first, within the raw retention. An export's first start is its
-- created_ms: history from before it is not sent. Cursors are written on the
-- main loop's handle (the export thread asks through mainq), read from the
-- export's own read-only handle.
CREATE TABLE exports (
    name       TEXT    PRIMARY KEY,
    created_ms INTEGER NOT NULL
);

CREATE TABLE export_cursors (
    export    TEXT    NOT NULL REFERENCES exports (name) ON DELETE CASCADE,
    device_id INTEGER NOT NULL REFERENCES devices (id),
    sent_ms   INTEGER NOT NULL,
    PRIMARY KEY (export, device_id)
) WITHOUT ROWID;

PRAGMA user_version = 15;
