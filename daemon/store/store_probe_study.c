/* SPDX-License-Identifier: MIT */
/* The cache-recovery study's bursts: net idle and pauses. See store_probe_study.h. */
#include <errno.h>
#include <stdint.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_probe_study.h"
#include "store_internal.h"

static const char sql_burst_put[] =
	"INSERT OR REPLACE INTO probe_study_bursts (run_id, idle_ms, paused_ms) "
	"VALUES (:run_id, :idle_ms, :paused_ms)";
static const char sql_burst_get[] =
	"SELECT idle_ms, paused_ms FROM probe_study_bursts WHERE run_id = :run_id";

int store_probe_study_burst_put(struct store *s, int64_t run_id, int64_t idle_ms, int64_t paused_ms)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_burst_put, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":run_id", run_id),
			       store_p_i64(":idle_ms", idle_ms),
			       store_p_i64(":paused_ms", paused_ms));
	return r < 0 ? r : store_run(s, st, true);
}

struct burst {
	int64_t idle_ms, paused_ms;
};

static int fill_burst(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	*(struct burst *)p =
		(struct burst){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
	return 0;
}

int store_probe_study_burst_get(struct store *s, int64_t run_id, int64_t *ret_idle_ms,
				int64_t *ret_paused_ms)
{
	struct burst b;
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_burst_get, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":run_id", run_id));
	if (r == 0)
		r = store_collect_first(s, st, sizeof(b), fill_burst, &b);
	if (r == 0) {
		*ret_idle_ms = b.idle_ms;
		*ret_paused_ms = b.paused_ms;
	}
	return r;
}
