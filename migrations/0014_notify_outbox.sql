-- nvmond schema, version 14: the notification outbox (issue 15 §6: "no alert
-- notification is lost, and none is sent twice across a restart").
--
-- Each notification of an alert is written here in the same transaction as the
-- alert row it reports, with one bit per sink that still has to deliver it
-- (1 = exec hook, 2 = webhook). A sink clears its bit once it delivered the
-- notification or gave up on it; the row goes when no bit is left. At start the
-- rows still pending are queued again: a notification made just before a crash
-- is delivered after it. note is the notification as JSON (the sinks' own
-- format); its id is the notification_id a receiver can use to drop the rare
-- duplicate (a crash between the receiver's answer and the clearing of the bit).
CREATE TABLE notify_outbox (
    id         INTEGER PRIMARY KEY,
    alert_id   INTEGER NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    pending    INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    note       TEXT    NOT NULL
);

PRAGMA user_version = 14;
