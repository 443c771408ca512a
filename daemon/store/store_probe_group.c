/* SPDX-License-Identifier: MIT */
/* Group runs: the members of each, their start skew. See store_probe_group.h. */
#include <errno.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_probe_group.h"
#include "store_internal.h"

static const char sql_group_add[] =
	"INSERT INTO probe_group_members (run_id, group_id) VALUES (:run_id, :group_id)";
static const char sql_group_skew[] =
	"UPDATE probe_group_members SET skew_us = :skew_us WHERE run_id = :run_id";
static const char sql_group_of[] =
	"SELECT run_id, group_id, coalesce(skew_us, -1) FROM probe_group_members "
	"WHERE run_id = :run_id";
static const char sql_group_members[] =
	"SELECT run_id, group_id, coalesce(skew_us, -1) FROM probe_group_members "
	"WHERE group_id = :group_id ORDER BY run_id";
static const char sql_solo_latest[] =
	"SELECT id FROM probe_runs WHERE device_id = :device_id AND preset = :preset "
	"AND target = :target AND id < :before AND state IN ('done', 'stopped') "
	"AND id NOT IN (SELECT run_id FROM probe_group_members) ORDER BY id DESC LIMIT 1";

int store_probe_group_add(struct store *s, int64_t group_id, int64_t run_id)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_group_add, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":run_id", run_id),
			       store_p_i64(":group_id", group_id));
	return r < 0 ? r : store_run(s, st, true);
}

int store_probe_group_skew(struct store *s, int64_t run_id, int64_t skew_us)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_group_skew, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":run_id", run_id),
			       store_p_i64(":skew_us", skew_us));
	return r < 0 ? r : store_run(s, st, true);
}

static int fill_member(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	*(struct probe_group_member *)p = (struct probe_group_member){
		.run_id = sqlite3_column_int64(st, 0),
		.group_id = sqlite3_column_int64(st, 1),
		.skew_us = sqlite3_column_int64(st, 2),
	};
	return 0;
}

int store_probe_group_of(struct store *s, int64_t run_id, int64_t *ret_group_id)
{
	struct probe_group_member m;
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_group_of, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":run_id", run_id));
	if (r == 0)
		r = store_collect_first(s, st, sizeof(m), fill_member, &m);
	if (r == 0)
		*ret_group_id = m.group_id;
	return r;
}

int store_probe_group_members(struct store *s, int64_t group_id, struct probe_group_member **ret,
			      size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_group_members, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":group_id", group_id));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), fill_member, (void **)ret, ret_n);
}

static int fill_id(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	*(int64_t *)p = sqlite3_column_int64(st, 0);
	return 0;
}

int store_probe_solo_latest(struct store *s, int64_t device_id, const char *preset,
			    const char *target, int64_t before_id, int64_t *ret_id)
{
	sqlite3_stmt *st;
	int64_t id;
	int r = store_stmt(s, sql_solo_latest, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_text(":preset", preset), store_p_text(":target", target),
			       store_p_i64(":before", before_id));
	if (r == 0)
		r = store_collect_first(s, st, sizeof(id), fill_id, &id);
	if (r == 0)
		*ret_id = id;
	return r;
}
