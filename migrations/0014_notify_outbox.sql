-- nvmond schema, version 14: the notification outbox (issue 15 §6: "no alert
-- notification is lost, and none is sent twice across a restart").
--
-- Each notification of an alert is written here in the same transaction as the
-- alert row it reports: one row per sink whose filters let it through. A sink's
-- row goes once that sink delivered the notification or gave up on it. At start
-- the rows still here are queued again, each to its sink: a notification made
-- just before a crash is delivered after it. note is the notification as JSON
-- (the alert service's own); the row's id is the notification_id a receiver can
-- use to drop the rare duplicate (a crash between the receiver's answer and the
-- deletion of the row).
CREATE TABLE notify_outbox (
    id         INTEGER PRIMARY KEY,
    alert_id   INTEGER NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    sink       TEXT    NOT NULL,
    created_ms INTEGER NOT NULL,
    note       TEXT    NOT NULL
);

PRAGMA user_version = 14;
