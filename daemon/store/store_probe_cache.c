/* SPDX-License-Identifier: MIT */
/* A drive's measured write-cache sizes, from its sustained-write cliffs. See store_probe_cache.h. */
#include <errno.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_probe_cache.h"
#include "store_internal.h"

/* The first cliff of each run: SQLite takes the bare columns from the min() row. */
static const char sql_cache_sizes[] =
	"SELECT r.id, r.started_ms + p.offset_ms + min(e.start_ms), e.bytes_before, "
	"e.rate_before, e.rate_during FROM probe_events e "
	"JOIN probe_runs r ON r.id = e.run_id "
	"JOIN probe_phases p ON p.run_id = e.run_id AND p.phase = e.phase "
	"WHERE r.device_id = :device_id AND r.preset = 'sustained-write' AND e.kind = 'cliff' "
	"AND r.started_ms < :before GROUP BY r.id ORDER BY r.started_ms DESC, r.id DESC "
	"LIMIT :limit";

static int fill_cache(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	int64_t bytes = sqlite3_column_int64(st, 2);

	*(struct probe_cache_row *)p = (struct probe_cache_row){
		.run_id = sqlite3_column_int64(st, 0),
		.at_ms = sqlite3_column_int64(st, 1),
		.bytes = bytes > 0 ? (uint64_t)bytes : 0,
		.rate_before = sqlite3_column_double(st, 3),
		.rate_after = sqlite3_column_double(st, 4),
	};
	return 0;
}

static int cache_query(struct store *s, int64_t device_id, int64_t before_ms, size_t limit,
		       struct probe_cache_row **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_cache_sizes, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_i64(":before", before_ms),
			       store_p_i64(":limit", (int64_t)limit));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), fill_cache, (void **)ret, ret_n);
}

int store_probe_cache_sizes(struct store *s, int64_t device_id, size_t limit,
			    struct probe_cache_row **ret, size_t *ret_n)
{
	return cache_query(s, device_id, INT64_MAX, limit, ret, ret_n);
}

int store_probe_cache_latest(struct store *s, int64_t device_id, int64_t before_ms,
			     struct probe_cache_row *ret)
{
	struct probe_cache_row *v = NULL;
	size_t n = 0;
	int r = cache_query(s, device_id, before_ms, 1, &v, &n);

	if (r == 0 && n == 0)
		r = -ENOENT;
	if (r == 0)
		*ret = v[0];
	free(v);
	return r;
}
