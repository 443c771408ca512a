/* SPDX-License-Identifier: MIT */
/*
 * What a drive knows beyond its health log, in SQLite (migration 0016, issue
 * 27): log C0h samples, the power timeline, Persistent Event Log entries and
 * cursors, the C0h probe, namespace usage and risk verdicts. Named,
 * parameter-bound statements prepared once per handle. See store_drive.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "nvmond/store/store_drive.h"
#include "store_internal.h"

/* ---- log C0h ------------------------------------------------------------ */

/* The order bind_ocp() binds and read_ocp() reads, after id, device_id, ts_ms. */
#define OCP_COLS                                                                                   \
	"phys_written, phys_read, host_written_units, bad_user_blocks, bad_user_norm, "            \
	"bad_system_blocks, bad_system_norm, xor_recoveries, uncorrectable_reads, "                \
	"soft_ecc_errors, e2e_detected, e2e_corrected, system_data_used_pct, throttle_events, "    \
	"throttle_status, pcie_correctable, incomplete_shutdowns, free_blocks_pct, "               \
	"capacitor_health, log_version, spec_major, spec_minor, spec_point, spec_errata"

static const char sql_ocp_insert[] =
	"INSERT INTO ocp_samples (device_id, ts_ms, " OCP_COLS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
	"?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, "
	"?25, ?26)";
static const char sql_ocp_last[] =
	"SELECT id, device_id, ts_ms, " OCP_COLS " FROM ocp_samples WHERE device_id = :id AND "
	"ts_ms <= :to_ms ORDER BY ts_ms DESC, id DESC LIMIT 1";
static const char sql_ocp_first[] =
	"SELECT id, device_id, ts_ms, " OCP_COLS " FROM ocp_samples WHERE device_id = :id AND "
	"ts_ms >= :from_ms ORDER BY ts_ms, id LIMIT 1";
static const char sql_ocp_range[] =
	"SELECT id, device_id, ts_ms, " OCP_COLS " FROM ocp_samples WHERE device_id = :id AND "
	"ts_ms >= :from_ms AND ts_ms <= :to_ms ORDER BY ts_ms DESC, id DESC LIMIT :limit";

int store_ocp_insert(struct store *s, const struct store_ocp_row *row)
{
	const struct ocp_log *l = &row->l;
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_ocp_insert, &st);

	if (r == 0)
		r = store_bind(
			s, st, store_p_i64(NULL, row->device_id), store_p_i64(NULL, row->ts_ms),
			store_p_u128(NULL, l->phys_written_bytes),
			store_p_u128(NULL, l->phys_read_bytes),
			store_p_u128(NULL, row->host_written_units),
			store_p_u64(NULL, l->bad_user_blocks), store_p_i64(NULL, l->bad_user_norm),
			store_p_u64(NULL, l->bad_system_blocks),
			store_p_i64(NULL, l->bad_system_norm), store_p_u64(NULL, l->xor_recoveries),
			store_p_u64(NULL, l->uncorrectable_reads),
			store_p_u64(NULL, l->soft_ecc_errors), store_p_i64(NULL, l->e2e_detected),
			store_p_i64(NULL, l->e2e_corrected),
			store_p_i64(NULL, l->system_data_used_pct),
			store_p_i64(NULL, l->throttle_events),
			store_p_i64(NULL, l->throttle_status),
			store_p_u64(NULL, l->pcie_correctable),
			store_p_i64(NULL, l->incomplete_shutdowns),
			store_p_i64(NULL, l->free_blocks_pct),
			store_p_i64(NULL, l->capacitor_health), store_p_i64(NULL, l->version),
			store_p_i64(NULL, l->spec_major), store_p_i64(NULL, l->spec_minor),
			store_p_i64(NULL, l->spec_point), store_p_i64(NULL, l->spec_errata));
	return r < 0 ? r : store_run(s, st, true);
}

static int read_ocp(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct store_ocp_row o = {0};
	struct ocp_log *l = &o.l;
	uint64_t v[21];
	static const uint64_t max[21] = {
		UINT64_MAX, 0xffff,	UINT64_MAX, 0xffff, UINT64_MAX, UINT64_MAX, UINT64_MAX,
		UINT32_MAX, UINT32_MAX, 0xff,	    0xff,   0xff,	UINT64_MAX, UINT32_MAX,
		0xff,	    0xffff,	0xffff,	    0xff,   0xffff,	0xffff,	    0xff};
	int r;

	o.id = sqlite3_column_int64(st, 0);
	o.device_id = sqlite3_column_int64(st, 1);
	o.ts_ms = sqlite3_column_int64(st, 2);
	if ((r = store_column_u128(s, st, 3, &l->phys_written_bytes)) < 0 ||
	    (r = store_column_u128(s, st, 4, &l->phys_read_bytes)) < 0 ||
	    (r = store_column_u128(s, st, 5, &o.host_written_units)) < 0)
		return r;
	for (int i = 0; i < 21; i++)
		if ((r = store_column_uint(s, st, 6 + i, max[i], &v[i])) < 0)
			return r;
	l->bad_user_blocks = v[0];
	l->bad_user_norm = (uint16_t)v[1];
	l->bad_system_blocks = v[2];
	l->bad_system_norm = (uint16_t)v[3];
	l->xor_recoveries = v[4];
	l->uncorrectable_reads = v[5];
	l->soft_ecc_errors = v[6];
	l->e2e_detected = (uint32_t)v[7];
	l->e2e_corrected = (uint32_t)v[8];
	l->system_data_used_pct = (uint8_t)v[9];
	l->throttle_events = (uint8_t)v[10];
	l->throttle_status = (uint8_t)v[11];
	l->pcie_correctable = v[12];
	l->incomplete_shutdowns = (uint32_t)v[13];
	l->free_blocks_pct = (uint8_t)v[14];
	l->capacitor_health = (uint16_t)v[15];
	l->version = (uint16_t)v[16];
	l->spec_major = (uint8_t)v[17];
	l->spec_minor = (uint16_t)v[18];
	l->spec_point = (uint16_t)v[19];
	l->spec_errata = (uint8_t)v[20];
	*(struct store_ocp_row *)ret = o;
	return 0;
}

int store_ocp_last(struct store *s, int64_t id, int64_t to_ms, struct store_ocp_row *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_ocp_last, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":to_ms", to_ms));
	return r < 0 ? r : store_collect_first(s, st, sizeof(*ret), read_ocp, ret);
}

int store_ocp_first_since(struct store *s, int64_t id, int64_t from_ms, struct store_ocp_row *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_ocp_first, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":from_ms", from_ms));
	return r < 0 ? r : store_collect_first(s, st, sizeof(*ret), read_ocp, ret);
}

/* Rows read newest first, handed out oldest first. */
static void reverse(void *v, size_t n, size_t size)
{
	char tmp[sizeof(struct store_pel_row) > sizeof(struct store_ocp_row)
			 ? sizeof(struct store_pel_row)
			 : sizeof(struct store_ocp_row)];

	for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
		memcpy(tmp, (char *)v + i * size, size);
		memcpy((char *)v + i * size, (char *)v + j * size, size);
		memcpy((char *)v + j * size, tmp, size);
	}
}

int store_ocp_range(struct store *s, int64_t id, int64_t from_ms, int64_t to_ms, size_t limit,
		    struct store_ocp_row **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_ocp_range, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":from_ms", from_ms),
			       store_p_i64(":to_ms", to_ms), store_p_u64(":limit", limit));
	if (r == 0)
		r = store_collect(s, st, sizeof(**ret), read_ocp, (void **)ret, ret_n);
	if (r == 0)
		reverse(*ret, *ret_n, sizeof(**ret));
	return r;
}

/* ---- the power timeline ------------------------------------------------- */

#define POWER_COLS                                                                                 \
	"id, device_id, ts_ms, ps, wh, max_uw, non_operational, apst_enabled, apst_idle_ms, "      \
	"tmt1_k, tmt2_k"

static const char sql_power_insert[] =
	"INSERT INTO power_history (device_id, ts_ms, ps, wh, max_uw, non_operational, "
	"apst_enabled, apst_idle_ms, tmt1_k, tmt2_k) VALUES (:device_id, :ts_ms, :ps, :wh, "
	"NULLIF(:max_uw, -1), NULLIF(:nops, -1), NULLIF(:apst, -1), NULLIF(:apst_idle_ms, -1), "
	"NULLIF(:tmt1, -1), NULLIF(:tmt2, -1))";
static const char sql_power_last[] = "SELECT " POWER_COLS " FROM power_history WHERE "
				     "device_id = :id ORDER BY ts_ms DESC, id DESC LIMIT 1";
/* The row in force at :from_ms, then the ones inside, newest first (reversed). */
static const char sql_power_range[] =
	"SELECT * FROM (SELECT " POWER_COLS " FROM power_history WHERE device_id = :id AND "
	"ts_ms >= :from_ms AND ts_ms <= :to_ms ORDER BY ts_ms DESC, id DESC LIMIT :limit) "
	"UNION ALL SELECT * FROM (SELECT " POWER_COLS " FROM power_history WHERE device_id = :id "
	"AND ts_ms < :from_ms ORDER BY ts_ms DESC, id DESC LIMIT 1)";

int store_power_insert(struct store *s, const struct store_power_row *row)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_power_insert, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", row->device_id),
			       store_p_i64(":ts_ms", row->ts_ms), store_p_i64(":ps", row->ps),
			       store_p_i64(":wh", row->wh), store_p_i64(":max_uw", row->max_uw),
			       store_p_i64(":nops", row->non_operational),
			       store_p_i64(":apst", row->apst_enabled),
			       store_p_i64(":apst_idle_ms", row->apst_idle_ms),
			       store_p_i64(":tmt1", row->tmt1_k),
			       store_p_i64(":tmt2", row->tmt2_k));
	return r < 0 ? r : store_run(s, st, true);
}

static int64_t col_or(sqlite3_stmt *st, int i, int64_t none)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? none : sqlite3_column_int64(st, i);
}

static int read_power(struct store *s, sqlite3_stmt *st, void *ret)
{
	(void)s;
	*(struct store_power_row *)ret = (struct store_power_row){
		.id = sqlite3_column_int64(st, 0),
		.device_id = sqlite3_column_int64(st, 1),
		.ts_ms = sqlite3_column_int64(st, 2),
		.ps = (int)sqlite3_column_int64(st, 3),
		.wh = (int)sqlite3_column_int64(st, 4),
		.max_uw = col_or(st, 5, -1),
		.non_operational = (int)col_or(st, 6, -1),
		.apst_enabled = (int)col_or(st, 7, -1),
		.apst_idle_ms = col_or(st, 8, -1),
		.tmt1_k = (int)col_or(st, 9, -1),
		.tmt2_k = (int)col_or(st, 10, -1),
	};
	return 0;
}

int store_power_last(struct store *s, int64_t id, struct store_power_row *ret)
{
	return store_first_by_id(s, sql_power_last, id, sizeof(*ret), read_power, ret);
}

static int power_cmp(const void *a, const void *b)
{
	const struct store_power_row *x = a, *y = b;

	return x->ts_ms < y->ts_ms   ? -1
	       : x->ts_ms > y->ts_ms ? 1
				     : (x->id > y->id) - (x->id < y->id);
}

int store_power_range(struct store *s, int64_t id, int64_t from_ms, int64_t to_ms, size_t limit,
		      struct store_power_row **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_power_range, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":from_ms", from_ms),
			       store_p_i64(":to_ms", to_ms), store_p_u64(":limit", limit));
	if (r == 0)
		r = store_collect(s, st, sizeof(**ret), read_power, (void **)ret, ret_n);
	if (r == 0 && *ret_n)
		qsort(*ret, *ret_n, sizeof(**ret), power_cmp);
	return r;
}

/* ---- the Persistent Event Log ------------------------------------------- */

#define PEL_COLS                                                                                   \
	"id, device_id, fingerprint, type, kind, ts_ms, time_known, read_ms, late, summary, "      \
	"detail"

static const char sql_pel_insert[] =
	"INSERT OR IGNORE INTO pel_events (device_id, fingerprint, type, kind, ts_ms, time_known, "
	"read_ms, late, summary, detail) VALUES (:device_id, :fp, :type, :kind, :ts_ms, :known, "
	":read_ms, :late, :summary, :detail)";
/* :kinds: a JSON array of kind names, or NULL for every kind. */
static const char sql_pel_range[] =
	"SELECT " PEL_COLS " FROM pel_events WHERE device_id = :id AND ts_ms >= :from_ms AND "
	"ts_ms <= :to_ms AND (:kinds IS NULL OR kind IN (SELECT value FROM json_each(:kinds))) "
	"ORDER BY ts_ms, id LIMIT :limit";
static const char sql_pel_count[] =
	"SELECT count(*) FROM pel_events WHERE device_id = :id AND (:type < 0 OR type = :type) "
	"AND ts_ms >= :from_ms AND ts_ms <= :to_ms";
static const char sql_pel_cursor_get[] =
	"SELECT tll, tnev, generation, anchor_off, anchor_size, anchor_fp, read_ms FROM "
	"pel_cursors WHERE device_id = :id";
static const char sql_pel_cursor_put[] =
	"INSERT INTO pel_cursors (device_id, tll, tnev, generation, anchor_off, anchor_size, "
	"anchor_fp, read_ms) VALUES (:id, :tll, :tnev, :gen, :off, :size, :fp, :read_ms) "
	"ON CONFLICT (device_id) DO UPDATE SET tll = excluded.tll, tnev = excluded.tnev, "
	"generation = excluded.generation, anchor_off = excluded.anchor_off, "
	"anchor_size = excluded.anchor_size, anchor_fp = excluded.anchor_fp, "
	"read_ms = excluded.read_ms";

struct pel_add {
	int64_t id;
	struct store_pel_row *v;
	size_t n, added;
};

static int pel_add_txn(struct store *s, void *ctx)
{
	struct pel_add *a = ctx;

	a->added = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct store_pel_row *e = &a->v[i];
		sqlite3_stmt *st;
		int r = store_stmt(s, sql_pel_insert, &st);

		if (r == 0)
			r = store_bind(s, st, store_p_i64(":device_id", a->id),
				       store_p_i64(":fp", (int64_t)e->fingerprint),
				       store_p_i64(":type", e->type),
				       store_p_textn(":kind", e->kind, sizeof(e->kind)),
				       store_p_i64(":ts_ms", e->ts_ms),
				       store_p_i64(":known", e->time_known),
				       store_p_i64(":read_ms", e->read_ms),
				       store_p_i64(":late", e->late),
				       store_p_textn(":summary", e->summary, sizeof(e->summary)),
				       store_p_textn(":detail", e->detail, sizeof(e->detail)));
		if (r == 0)
			r = store_run(s, st, true);
		if (r == -ENOENT) { /* stored before: the same fingerprint */
			e->id = 0;
			continue;
		}
		if (r < 0)
			return r;
		e->id = sqlite3_last_insert_rowid(store_db(s));
		e->device_id = a->id;
		a->added++;
	}
	return 0;
}

int store_pel_add(struct store *s, int64_t id, struct store_pel_row *v, size_t n, size_t *ret_added)
{
	struct pel_add a = {.id = id, .v = v, .n = n};
	int r = n ? store_transaction(s, "storing persistent event log entries", pel_add_txn, &a)
		  : 0;

	if (r == 0 && ret_added)
		*ret_added = a.added;
	return r;
}

static int read_pel(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct store_pel_row e = {0};
	int r;

	e.id = sqlite3_column_int64(st, 0);
	e.device_id = sqlite3_column_int64(st, 1);
	e.fingerprint = (uint64_t)sqlite3_column_int64(st, 2);
	e.type = (uint8_t)sqlite3_column_int64(st, 3);
	e.ts_ms = sqlite3_column_int64(st, 5);
	e.time_known = sqlite3_column_int64(st, 6) != 0;
	e.read_ms = sqlite3_column_int64(st, 7);
	e.late = sqlite3_column_int64(st, 8) != 0;
	if ((r = store_column_text(s, st, 4, e.kind, sizeof(e.kind))) < 0 ||
	    (r = store_column_text(s, st, 9, e.summary, sizeof(e.summary))) < 0 ||
	    (r = store_column_text(s, st, 10, e.detail, sizeof(e.detail))) < 0)
		return r;
	*(struct store_pel_row *)ret = e;
	return 0;
}

/* The kinds as a JSON array of names ([a-z_]+ only): -EINVAL for any other. */
static int kinds_json(const char *const *kinds, char *buf, size_t len)
{
	size_t k = 0;

	buf[k++] = '[';
	for (size_t i = 0; kinds[i]; i++) {
		size_t n = strlen(kinds[i]);
		if (!n || strspn(kinds[i], "abcdefghijklmnopqrstuvwxyz_") != n || k + n + 4 >= len)
			return -EINVAL;
		if (i)
			buf[k++] = ',';
		buf[k++] = '"';
		memcpy(buf + k, kinds[i], n);
		k += n;
		buf[k++] = '"';
	}
	buf[k++] = ']';
	buf[k] = '\0';
	return 0;
}

int store_pel_range(struct store *s, int64_t id, int64_t from_ms, int64_t to_ms,
		    const char *const *kinds, size_t limit, struct store_pel_row **ret,
		    size_t *ret_n)
{
	char kj[1024];
	sqlite3_stmt *st;
	int r = kinds ? kinds_json(kinds, kj, sizeof(kj)) : 0;

	if (r < 0)
		return store_failf(s, r,
				   "reading persistent event log entries: a kind that is not one");
	r = store_stmt(s, sql_pel_range, &st);
	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":from_ms", from_ms),
			       store_p_i64(":to_ms", to_ms),
			       kinds ? store_p_text(":kinds", kj) : store_p_null(":kinds"),
			       store_p_u64(":limit", limit));
	if (r == 0)
		r = store_collect(s, st, sizeof(**ret), read_pel, (void **)ret, ret_n);
	return r;
}

static int read_count(struct store *s, sqlite3_stmt *st, void *ret)
{
	return store_column_uint(s, st, 0, UINT64_MAX, ret);
}

int store_pel_count(struct store *s, int64_t id, int type, int64_t from_ms, int64_t to_ms,
		    uint64_t *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_pel_count, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":type", type),
			       store_p_i64(":from_ms", from_ms), store_p_i64(":to_ms", to_ms));
	return r < 0 ? r : store_collect_first(s, st, sizeof(*ret), read_count, ret);
}

static int read_cursor(struct store *s, sqlite3_stmt *st, void *ret)
{
	(void)s;
	*(struct store_pel_cursor *)ret = (struct store_pel_cursor){
		.tll = (uint64_t)sqlite3_column_int64(st, 0),
		.tnev = (uint32_t)sqlite3_column_int64(st, 1),
		.generation = (uint16_t)sqlite3_column_int64(st, 2),
		.anchor_off = (uint64_t)sqlite3_column_int64(st, 3),
		.anchor_size = (uint32_t)sqlite3_column_int64(st, 4),
		.anchor_fp = (uint64_t)sqlite3_column_int64(st, 5),
		.read_ms = sqlite3_column_int64(st, 6),
	};
	return 0;
}

int store_pel_cursor_get(struct store *s, int64_t id, struct store_pel_cursor *ret)
{
	return store_first_by_id(s, sql_pel_cursor_get, id, sizeof(*ret), read_cursor, ret);
}

int store_pel_cursor_put(struct store *s, int64_t id, const struct store_pel_cursor *c)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_pel_cursor_put, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_u64(":tll", c->tll),
			       store_p_i64(":tnev", c->tnev), store_p_i64(":gen", c->generation),
			       store_p_u64(":off", c->anchor_off),
			       store_p_i64(":size", c->anchor_size),
			       store_p_i64(":fp", (int64_t)c->anchor_fp),
			       store_p_i64(":read_ms", c->read_ms));
	return r < 0 ? r : store_run(s, st, false);
}

/* ---- the C0h probe, namespace usage, verdicts --------------------------- */

static const char sql_probe_get[] =
	"SELECT firmware, ocp, why, ts_ms FROM ocp_probes WHERE device_id = :id";
static const char sql_probe_put[] =
	"INSERT INTO ocp_probes (device_id, firmware, ocp, why, ts_ms) VALUES (:id, :fw, :ocp, "
	":why, :ts_ms) ON CONFLICT (device_id) DO UPDATE SET firmware = excluded.firmware, "
	"ocp = excluded.ocp, why = excluded.why, ts_ms = excluded.ts_ms";
static const char sql_ns_insert[] =
	"INSERT INTO ns_usage (device_id, ts_ms, nsid, nsze, ncap, nuse, lba_size, ana_state) "
	"VALUES (:id, :ts_ms, :nsid, :nsze, :ncap, :nuse, :lba_size, :ana)";
static const char sql_ns_last[] =
	"SELECT id, device_id, ts_ms, nsid, nsze, ncap, nuse, lba_size, ana_state FROM ns_usage "
	"WHERE device_id = :id AND nsid = :nsid ORDER BY ts_ms DESC, id DESC LIMIT 1";
static const char sql_verdict_insert[] =
	"INSERT INTO health_verdicts (device_id, ts_ms, level, reasons) VALUES (:id, :ts_ms, "
	":level, :reasons)";
static const char sql_verdict_list[] =
	"SELECT id, device_id, ts_ms, level, reasons FROM health_verdicts WHERE device_id = :id "
	"ORDER BY ts_ms DESC, id DESC LIMIT :limit";

static int read_probe(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct store_ocp_probe p = {0};
	int r;

	if ((r = store_column_text(s, st, 0, p.firmware, sizeof(p.firmware))) < 0 ||
	    (r = store_column_text(s, st, 2, p.why, sizeof(p.why))) < 0)
		return r;
	p.ocp = sqlite3_column_int64(st, 1) != 0;
	p.ts_ms = sqlite3_column_int64(st, 3);
	*(struct store_ocp_probe *)ret = p;
	return 0;
}

int store_ocp_probe_get(struct store *s, int64_t id, struct store_ocp_probe *ret)
{
	return store_first_by_id(s, sql_probe_get, id, sizeof(*ret), read_probe, ret);
}

int store_ocp_probe_put(struct store *s, int64_t id, const struct store_ocp_probe *p)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_probe_put, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id),
			       store_p_textn(":fw", p->firmware, sizeof(p->firmware)),
			       store_p_i64(":ocp", p->ocp),
			       store_p_textn(":why", p->why, sizeof(p->why)),
			       store_p_i64(":ts_ms", p->ts_ms));
	return r < 0 ? r : store_run(s, st, false);
}

int store_ns_insert(struct store *s, const struct store_ns_row *row)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_ns_insert, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", row->device_id),
			       store_p_i64(":ts_ms", row->ts_ms), store_p_i64(":nsid", row->nsid),
			       store_p_u64(":nsze", row->nsze), store_p_u64(":ncap", row->ncap),
			       store_p_u64(":nuse", row->nuse),
			       store_p_i64(":lba_size", row->lba_size),
			       store_p_textn(":ana", row->ana_state, sizeof(row->ana_state)));
	return r < 0 ? r : store_run(s, st, true);
}

static int read_ns(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct store_ns_row n = {0};
	uint64_t v[5];
	int r;

	n.id = sqlite3_column_int64(st, 0);
	n.device_id = sqlite3_column_int64(st, 1);
	n.ts_ms = sqlite3_column_int64(st, 2);
	for (int i = 0; i < 5; i++)
		if ((r = store_column_uint(s, st, 3 + i, i == 0 || i == 4 ? UINT32_MAX : UINT64_MAX,
					   &v[i])) < 0)
			return r;
	n.nsid = (uint32_t)v[0];
	n.nsze = v[1];
	n.ncap = v[2];
	n.nuse = v[3];
	n.lba_size = (uint32_t)v[4];
	if ((r = store_column_text(s, st, 8, n.ana_state, sizeof(n.ana_state))) < 0)
		return r;
	*(struct store_ns_row *)ret = n;
	return 0;
}

int store_ns_last(struct store *s, int64_t id, uint32_t nsid, struct store_ns_row *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_ns_last, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":nsid", nsid));
	return r < 0 ? r : store_collect_first(s, st, sizeof(*ret), read_ns, ret);
}

int store_verdict_insert(struct store *s, const struct store_verdict_row *row)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_verdict_insert, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", row->device_id),
			       store_p_i64(":ts_ms", row->ts_ms),
			       store_p_textn(":level", row->level, sizeof(row->level)),
			       store_p_textn(":reasons", row->reasons, sizeof(row->reasons)));
	return r < 0 ? r : store_run(s, st, true);
}

static int read_verdict(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct store_verdict_row *v = ret;
	int r;

	v->id = sqlite3_column_int64(st, 0);
	v->device_id = sqlite3_column_int64(st, 1);
	v->ts_ms = sqlite3_column_int64(st, 2);
	if ((r = store_column_text(s, st, 3, v->level, sizeof(v->level))) < 0)
		return r;
	return store_column_text(s, st, 4, v->reasons, sizeof(v->reasons));
}

int store_verdict_list(struct store *s, int64_t id, size_t limit, struct store_verdict_row **ret,
		       size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_verdict_list, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_u64(":limit", limit));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_verdict, (void **)ret, ret_n);
}

int store_verdict_last(struct store *s, int64_t id, struct store_verdict_row *ret)
{
	struct store_verdict_row *v = NULL;
	size_t n = 0;
	int r = store_verdict_list(s, id, 1, &v, &n);

	if (r == 0 && n == 0)
		r = -ENOENT;
	if (r == 0)
		*ret = v[0];
	free(v);
	return r;
}

/* ---- coverage and counters in the history -------------------------------- */

/* A raw sample within the gap, or a 1-minute or 1-hour bucket with samples around it. */
static const char sql_watched[] =
	"SELECT EXISTS (SELECT 1 FROM samples WHERE device_id = :id AND ts_ms >= :a AND "
	"ts_ms <= :b) OR EXISTS (SELECT 1 FROM rollups WHERE device_id = :id AND n > 0 AND "
	"((res_s = 60 AND ts_ms >= :a - 60000 AND ts_ms <= :b) OR (res_s = 3600 AND "
	"ts_ms >= :a - 3600000 AND ts_ms <= :b)))";
static const char sql_media_since[] =
	"SELECT media_errors, ts_ms FROM (SELECT media_errors, ts_ms FROM samples WHERE "
	"device_id = :id AND ts_ms >= :from_ms ORDER BY ts_ms LIMIT 1) UNION ALL SELECT * FROM "
	"(SELECT media_errors, ts_ms FROM rollups WHERE device_id = :id AND res_s = 3600 AND "
	"ts_ms >= :from_ms ORDER BY ts_ms LIMIT 1) ORDER BY 2 LIMIT 1";

int store_watched_at(struct store *s, int64_t id, int64_t ts_ms, int64_t gap_ms)
{
	sqlite3_stmt *st;
	uint64_t v = 0;
	int r = store_stmt(s, sql_watched, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":a", ts_ms - gap_ms),
			       store_p_i64(":b", ts_ms + gap_ms));
	if (r == 0)
		r = store_collect_first(s, st, sizeof(v), read_count, &v);
	return r < 0 ? r : v != 0;
}

struct media_at {
	u128 v;
	int64_t ts;
};

static int read_media(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct media_at *m = ret;

	m->ts = sqlite3_column_int64(st, 1);
	return store_column_u128(s, st, 0, &m->v);
}

int store_media_errors_since(struct store *s, int64_t id, int64_t from_ms, u128 *ret,
			     int64_t *ret_ts_ms)
{
	struct media_at m;
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_media_since, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":from_ms", from_ms));
	if (r == 0)
		r = store_collect_first(s, st, sizeof(m), read_media, &m);
	if (r == 0) {
		*ret = m.v;
		*ret_ts_ms = m.ts;
	}
	return r;
}

static const char sql_io_errors[] =
	"SELECT count(*) FROM errors WHERE device_id = :id AND class IN ('media', 'io') AND "
	"NOT before_watch AND seen_ms >= :from_ms AND seen_ms <= :to_ms";

int store_io_errors_count(struct store *s, int64_t id, int64_t from_ms, int64_t to_ms,
			  uint64_t *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_io_errors, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":from_ms", from_ms),
			       store_p_i64(":to_ms", to_ms));
	return r < 0 ? r : store_collect_first(s, st, sizeof(*ret), read_count, ret);
}
