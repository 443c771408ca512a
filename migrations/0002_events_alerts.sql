-- Reserved for issue 3 (throttle events, alert state); filled in by that work.
-- Each migration ends by setting its own version.
PRAGMA user_version = 2;
