/* SPDX-License-Identifier: MIT */
/*
 * The SQLite store's handle: opening, pragmas, schema migrations, closing and
 * the error message of a handle. The statement cache, binding, transactions and
 * column readers are in store_sql.c; devices in store_device.c, samples in
 * store_sample.c.
 *
 * Every statement is a named, parameter-bound statement, prepared once per
 * handle (SQLITE_PREPARE_PERSISTENT) and kept in the handle. The only SQL text
 * executed as a whole is a compiled-in migration file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <pthread.h>
#include <sqlite3.h>

#include "nvmond/store/migrations.h"
#include "nvmond/config.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_peek.h"
#include "nvmond/util/u128.h"
#include "store_internal.h"

#define STORE_BUSY_TIMEOUT_MS 2000
/*
 * Page caches, in KiB (SQLite's default is 2000 per handle). Each fills up to
 * its cap and stays full, so the caps are most of what the daemon's memory
 * grows by after the start. The main loop's handle writes at the end of the
 * samples and rollups and reads recent rows: the paths to those pages stay in
 * 1 MiB. The HTTP threads hold a read-only handle each; closed rollup buckets
 * are served from the API's own cache, so these read a few recent pages per
 * request, and the kernel's page cache holds the file anyway. At the default,
 * 4 of them could hold 8 MiB.
 */
#define STORE_RW_CACHE_KIB "1024"
#define STORE_RO_CACHE_KIB "256"

static const char sql_user_version[] = "PRAGMA user_version";

/* Valid on an empty database: prepared before migrating. */
static const char *const base_sql[] = {store_sql_begin, store_sql_commit, store_sql_rollback,
				       sql_user_version};

/* Need the schema: prepared after migrating, so a foreign schema is refused at open. */
static const char *const schema_sql[] = {
	store_sql_device_upsert, store_sql_device_set_online, store_sql_devices_list,
	store_sql_device_get,	 store_sql_sample_insert,     store_sql_samples_range,
	store_sql_sample_latest,
};

/* ---- errors ------------------------------------------------------------- */

/* Map a SQLite result code to a negative errno. */
static int errno_from_sqlite(sqlite3 *db, int rc)
{
	int sys;

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_IOERR:
		sys = db ? sqlite3_system_errno(db) : 0;
		if (sys == ENOSPC || sys == EDQUOT)
			return -ENOSPC;
		return -EIO;
	case SQLITE_SCHEMA:
		return -EPROTO;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_CANTOPEN:
		sys = db ? sqlite3_system_errno(db) : 0;
		return sys > 0 ? -sys : -EIO;
	default:
		return -EIO;
	}
}

int store_fail(struct store *s, int rc, const char *what)
{
	snprintf(s->err, sizeof(s->err), "%s: %s (SQLite error %d)", what, sqlite3_errmsg(s->db),
		 rc);
	return errno_from_sqlite(s->db, rc);
}

int store_failf(struct store *s, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return r;
}

int store_errno(struct store *s, int rc)
{
	return store_fail(s, rc, "database");
}

/* Messages are cut at STORE_ERR_MAX on purpose. */
static void err_printf(char buf[STORE_ERR_MAX], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void err_printf(char buf[STORE_ERR_MAX], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, STORE_ERR_MAX, fmt, ap);
	va_end(ap);
}

int store_fail_prefix(struct store *s, const char *what, int r)
{
	char why[STORE_ERR_MAX];

	if (!what)
		return r;
	memcpy(why, s->err, sizeof(why));
	err_printf(s->err, "%s: %s", what, why);
	return r;
}

const char *store_strerror(const struct store *s)
{
	if (!s)
		return "no store";
	return s->err;
}

/* ---- opening and migrating ---------------------------------------------- */

int store_latest_version(void)
{
	return migrations_count ? migrations[migrations_count - 1].version : 0;
}

int store_schema_version(struct store *s)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_user_version, &st), rc;

	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		r = sqlite3_column_int(st, 0);
	else
		r = store_fail(s, rc, "reading PRAGMA user_version");
	sqlite3_reset(st);
	return r;
}

/* Refuse a schema from a newer nvmond. */
static int store_check_not_newer(struct store *s, int version)
{
	if (version > store_latest_version())
		return store_failf(s, -EPROTO,
				   "database schema version %d is newer than this nvmond (knows up "
				   "to %d); upgrade nvmond or use another database",
				   version, store_latest_version());
	return 0;
}

/* Pragmas that take a value cannot be bound: these are fixed strings. */
static int store_pragma(struct store *s, const char *sql, const char *expect)
{
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, sql);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		r = store_fail(s, rc, sql);
	else if (expect) {
		const char *got =
			rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
		if (!got || strcasecmp(got, expect) != 0)
			r = store_failf(s, -EIO, "%s: got \"%s\", need \"%s\"", sql, got ? got : "",
					expect);
	}
	sqlite3_finalize(st);
	return r;
}

/* The body of the transaction of store_migrate_one(). */
static int store_migrate_body(struct store *s, void *ctx)
{
	const struct migration *m = *(const struct migration **)ctx;
	char *msg = NULL;
	int r, rc;

	r = store_schema_version(s);
	if (r < 0)
		return r;
	if (r >= m->version)
		return 0; /* migrated meanwhile by another connection */

	rc = sqlite3_exec(s->db, m->sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		snprintf(s->err, sizeof(s->err), "migration %s: %s", m->name,
			 msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return errno_from_sqlite(s->db, rc);
	}

	/* Each migration file records its own number, so it stays usable with sqlite3(1). */
	r = store_schema_version(s);
	if (r < 0)
		return r;
	if (r != m->version)
		return store_failf(s, -EPROTO,
				   "migration %s: leaves user_version at %d; it must end with "
				   "\"PRAGMA user_version = %d;\"",
				   m->name, r, m->version);
	return 0;
}

/* Apply @m unless another process already did: one transaction, all or nothing. */
static int store_migrate_one(struct store *s, const struct migration *m)
{
	char what[STORE_ERR_MAX];

	snprintf(what, sizeof(what), "migration %s", m->name);
	return store_transaction(s, what, store_migrate_body, &m);
}

static int store_migrate(struct store *s)
{
	int version, r;

	version = store_schema_version(s);
	if (version < 0)
		return version;
	r = store_check_not_newer(s, version);
	if (r < 0)
		return r;

	for (size_t i = 0; i < migrations_count; i++) {
		const struct migration *m = &migrations[i];

		if (m->version <= version)
			continue;
		r = store_migrate_one(s, m);
		if (r < 0)
			return r;
	}

	version = store_schema_version(s);
	if (version < 0)
		return version;
	return store_check_not_newer(s, version);
}

/* A read-only handle needs a database this nvmond migrated to its latest version. */
static int store_check_readonly_version(struct store *s)
{
	int version = store_schema_version(s);
	int r;

	if (version < 0)
		return version;
	r = store_check_not_newer(s, version);
	if (r < 0)
		return r;
	if (version < store_latest_version())
		return store_failf(s, -EPROTO,
				   "database schema version %d is older than this nvmond "
				   "(needs %d); let nvmond open it read-write once to migrate it",
				   version, store_latest_version());
	return 0;
}

/* Prepare @sql[0 .. n) now. */
static int store_prepare_all(struct store *s, const char *const *sql, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sqlite3_stmt *st;
		int r = store_stmt(s, sql[i], &st);

		/* A statement that does not fit the schema: it is not ours. */
		if (r < 0)
			return r == -EIO && (sqlite3_errcode(s->db) & 0xff) == SQLITE_ERROR
				       ? -EPROTO
				       : r;
		sqlite3_reset(st);
	}
	return 0;
}
/* Whether the file system that holds (or would hold) @path is mounted read-only. */
static bool read_only_fs(const char *path)
{
	char dir[PATH_MAX];
	struct statvfs v;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return statvfs(dir, &v) == 0 && (v.f_flag & ST_RDONLY);
}

/*
 * The connections this process holds, by path. SQLite locks its files with
 * POSIX record locks, which belong to the process: closing any descriptor of
 * a file drops every lock the process holds on it, SQLite's included. So the
 * peek below, which opens and closes the files, runs only while this process
 * has no connection to them; the first open checked the file, and the check
 * after opening stays. (It ran before every read-only open of the API's
 * threads, and a writer then lost its locks: "disk I/O error" on the readers,
 * probe runs and rollups broken under load.)
 */
#define STORE_OPEN_PATHS 16
static struct {
	char *path;
	unsigned n;
} open_paths[STORE_OPEN_PATHS];
static pthread_mutex_t open_paths_lock = PTHREAD_MUTEX_INITIALIZER;

/* Count one more connection to @path. Return: how many there were before, or -ENOMEM. */
static int open_paths_get(const char *path)
{
	size_t free_slot = STORE_OPEN_PATHS;
	int before = -ENOMEM;

	for (size_t i = 0; i < STORE_OPEN_PATHS; i++) {
		if (open_paths[i].path && strcmp(open_paths[i].path, path) == 0)
			return (int)open_paths[i].n++;
		if (!open_paths[i].path && free_slot == STORE_OPEN_PATHS)
			free_slot = i;
	}
	if (free_slot < STORE_OPEN_PATHS && (open_paths[free_slot].path = strdup(path))) {
		open_paths[free_slot].n = 1;
		before = 0;
	}
	return before;
}

static void open_paths_put(const char *path)
{
	pthread_mutex_lock(&open_paths_lock);
	for (size_t i = 0; i < STORE_OPEN_PATHS; i++)
		if (open_paths[i].path && strcmp(open_paths[i].path, path) == 0) {
			if (--open_paths[i].n == 0) {
				free(open_paths[i].path);
				open_paths[i].path = NULL;
			}
			break;
		}
	pthread_mutex_unlock(&open_paths_lock);
}

static int store_open_full(const char *path, bool readonly, struct store **ret,
			   char ret_err[STORE_ERR_MAX])
{
	struct store *s;
	int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
	int rc, r, before;

	/*
	 * A database from a newer nvmond (a package downgraded) is refused before
	 * SQLite opens it: a read-write open would set WAL mode, make -wal and -shm
	 * files and checkpoint at close. Anything else the peek cannot read is left
	 * to SQLite, and the check after opening stays for a file replaced meanwhile.
	 * Only while no connection of this process has the file open (above).
	 */
	pthread_mutex_lock(&open_paths_lock);
	before = open_paths_get(path);
	r = before == 0 ? store_peek_version(path) : 0;
	pthread_mutex_unlock(&open_paths_lock);
	if (r > store_latest_version()) {
		err_printf(ret_err,
			   "%s: database schema version %d is newer than this nvmond (%s knows up "
			   "to %d); upgrade nvmond or use another database (the file was not "
			   "opened: it is as it was)",
			   path, r, NVMOND_VERSION, store_latest_version());
		open_paths_put(path);
		return -EPROTO;
	}
	if (before < 0) {
		err_printf(ret_err, "%s: out of memory", path);
		return -ENOMEM;
	}

	s = calloc(1, sizeof(*s));
	if (!s) {
		err_printf(ret_err, "%s: out of memory", path);
		open_paths_put(path);
		return -ENOMEM;
	}
	s->counted = strdup(path);
	if (!s->counted) {
		free(s);
		err_printf(ret_err, "%s: out of memory", path);
		open_paths_put(path);
		return -ENOMEM;
	}
	s->readonly = readonly;
	flags |= readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	rc = sqlite3_open_v2(path, &s->db, flags, NULL);
	if (rc != SQLITE_OK) {
		r = store_fail(s, rc, "opening the database");
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);

	r = store_prepare_all(s, base_sql, sizeof(base_sql) / sizeof(base_sql[0]));
	if (r < 0)
		goto fail;

	if (!readonly) {
		r = store_pragma(s, "PRAGMA journal_mode = WAL", "wal");
		if (r < 0)
			goto fail;
		r = store_pragma(s, "PRAGMA synchronous = NORMAL", NULL);
		if (r < 0)
			goto fail;
	}
	r = store_pragma(s, "PRAGMA foreign_keys = ON", NULL);
	if (r < 0)
		goto fail;
	r = store_pragma(s,
			 readonly ? "PRAGMA cache_size = -" STORE_RO_CACHE_KIB
				  : "PRAGMA cache_size = -" STORE_RW_CACHE_KIB,
			 NULL);
	if (r < 0)
		goto fail;

	r = readonly ? store_check_readonly_version(s) : store_migrate(s);
	if (r < 0)
		goto fail;

	r = store_prepare_all(s, schema_sql, sizeof(schema_sql) / sizeof(schema_sql[0]));
	if (r < 0)
		goto fail;

	struct stat st;
	if (stat(path, &st) == 0) {
		s->file_dev = st.st_dev;
		s->file_ino = st.st_ino;
	}
	s->path = strdup(path);
	if (!s->path) {
		r = store_failf(s, -ENOMEM, "out of memory");
		goto fail;
	}
	s->err[0] = '\0';
	*ret = s;
	return 0;

fail:
	if (!readonly && read_only_fs(path)) {
		char was[STORE_ERR_MAX];
		snprintf(was, sizeof(was), "%s", s->err);
		r = store_failf(s, -EROFS, "the file system is read-only (%.200s)", was);
	}
	err_printf(ret_err, "%s: %s", path, s->err);
	store_close(s);
	return r;
}

int store_file_check(struct store *s)
{
	struct stat st;

	if (!s->path || !s->file_ino)
		return 0;
	if (stat(s->path, &st) < 0)
		return errno == ENOENT ? -ENOENT : 0; /* another error proves nothing */
	return st.st_dev == s->file_dev && st.st_ino == s->file_ino ? 0 : -ESTALE;
}

int store_open(const char *path, struct store **ret, char ret_err[STORE_ERR_MAX])
{
	return store_open_full(path, false, ret, ret_err);
}

int store_open_readonly(const char *path, struct store **ret, char ret_err[STORE_ERR_MAX])
{
	return store_open_full(path, true, ret, ret_err);
}

struct store *store_close(struct store *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n_cache; i++)
		sqlite3_finalize(s->cache[i].st);
	sqlite3_close(s->db);
	if (s->counted) /* after the close: its descriptors are gone */
		open_paths_put(s->counted);
	free(s->counted);
	free(s->path);
	free(s);
	return NULL;
}

sqlite3 *store_db(struct store *s)
{
	return s->db;
}

int store_set_busy_timeout(struct store *s, int ms)
{
	return sqlite3_busy_timeout(s->db, ms) == SQLITE_OK ? 0 : -EINVAL;
}

int store_checkpoint(struct store *s)
{
	int rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);

	if (rc != SQLITE_OK)
		return store_fail(s, rc, "checkpointing the WAL");
	return 0;
}
