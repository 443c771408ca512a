-- nvmond schema, version 6: placeholder in the facts branch only. The error
-- log's migration (issue 11, section 2) is written in its own branch under
-- this name; at the merge its file replaces this one.
PRAGMA user_version = 6;
