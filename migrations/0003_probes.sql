-- Reserved for issue 4 (throughput probes); filled in by that work.
-- Each migration ends by setting its own version.
PRAGMA user_version = 3;
