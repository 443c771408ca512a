/* SPDX-License-Identifier: MIT */
/*
 * store_peek: a database's schema version read from its bytes, as SQLite reads
 * it (https://sqlite.org/fileformat.html, "1.3 The Database Header" and "4. The
 * Write-Ahead Log"). Logs that SQLite itself wrote check the parser against the
 * real format; logs built here (with the checksum of section 4.1 written out
 * again) check each rule of the recovery: a frame with another salt or a wrong
 * checksum ends the log, a transaction counts from its commit frame on.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "nvmond/store/store_peek.h"

static char dir[] = "/tmp/nvmond-test-peek-XXXXXX";
static char db_path[400], wal_path[420];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db_path, sizeof(db_path), "%s/nvmond.db", dir);
	snprintf(wal_path, sizeof(wal_path), "%s-wal", db_path);
}

static void teardown(void)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(peek, .init = setup, .fini = teardown);

/* ---- helpers ------------------------------------------------------------- */

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void write_file(const char *path, const void *buf, size_t n)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(buf, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

static uint8_t *read_file(const char *path, size_t *ret_n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*ret_n = (size_t)n;
	return buf;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql,
		     msg ? msg : "");
}

/*
 * A WAL-mode database whose later transactions stay in the -wal file: no
 * automatic checkpoint, none at close. Returns what SQLite itself reads.
 */
static int make_wal_db(const char *const *sql, size_t n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int v;

	cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
	raw_exec(db, "PRAGMA journal_mode = WAL");
	raw_exec(db, "PRAGMA wal_autocheckpoint = 0");
	cr_assert_eq(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL), SQLITE_OK);
	for (size_t i = 0; i < n; i++)
		raw_exec(db, sql[i]);
	cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	cr_assert_eq(sqlite3_close(db), SQLITE_OK);
	return v;
}

/* The main file's own header, without its -wal file. */
static uint32_t header_version(void)
{
	size_t n;
	uint8_t *buf = read_file(db_path, &n);
	uint32_t v = 0;

	cr_assert_eq(store_peek_header(buf, n, &v), 0);
	free(buf);
	return v;
}

/* SQLite's WAL checksum (fileformat.html 4.1), written out again for the built logs. */
static void checksum(int big_endian, const uint8_t *p, size_t n, uint32_t s[2])
{
	for (size_t i = 0; i < n; i += 8) {
		uint32_t x[2];

		for (int k = 0; k < 2; k++) {
			const uint8_t *q = p + i + 4 * k;
			x[k] = big_endian ? (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
						    (uint32_t)q[2] << 8 | q[3]
					  : (uint32_t)q[3] << 24 | (uint32_t)q[2] << 16 |
						    (uint32_t)q[1] << 8 | q[0];
		}
		s[0] += x[0] + s[1];
		s[1] += x[1] + s[0];
	}
}

#define PAGE 512

/* A log built frame by frame. */
struct wal {
	uint8_t buf[STORE_WAL_HEADER + 8 * (STORE_WAL_FRAME + PAGE)];
	size_t n;
	int big_endian;
	uint32_t sum[2];
};

static void wal_init(struct wal *w, int big_endian)
{
	memset(w, 0, sizeof(*w));
	w->big_endian = big_endian;
	put_be32(w->buf, 0x377f0682u | (uint32_t)big_endian);
	put_be32(w->buf + 4, 3007000);
	put_be32(w->buf + 8, PAGE);
	put_be32(w->buf + 12, 0);
	put_be32(w->buf + 16, 0x11223344);
	put_be32(w->buf + 20, 0x55667788);
	checksum(big_endian, w->buf, 24, w->sum);
	put_be32(w->buf + 24, w->sum[0]);
	put_be32(w->buf + 28, w->sum[1]);
	w->n = STORE_WAL_HEADER;
}

/* Append page @pgno (a page 1 with user_version @version); @commit: the database's size. */
static uint8_t *wal_add(struct wal *w, uint32_t pgno, uint32_t version, uint32_t commit)
{
	uint8_t *f = w->buf + w->n, *page = f + STORE_WAL_FRAME;

	cr_assert_leq(w->n + STORE_WAL_FRAME + PAGE, sizeof(w->buf));
	memset(f, 0, STORE_WAL_FRAME + PAGE);
	put_be32(f, pgno);
	put_be32(f + 4, commit);
	memcpy(f + 8, w->buf + 16, 8); /* the header's salts */
	if (pgno == 1) {
		memcpy(page, "SQLite format 3", 16);
		put_be32(page + 60, version);
	} else {
		memset(page, 0xa5, PAGE);
	}
	checksum(w->big_endian, f, 8, w->sum);
	checksum(w->big_endian, page, PAGE, w->sum);
	put_be32(f + 16, w->sum[0]);
	put_be32(f + 20, w->sum[1]);
	w->n += STORE_WAL_FRAME + PAGE;
	return f;
}

/* Scan @n bytes of a log as store_peek_version() does: -1 when it finds no page 1. */
static int64_t scan(const uint8_t *buf, size_t n)
{
	struct store_wal_scan s;

	if (n < STORE_WAL_HEADER || store_wal_begin(&s, buf) < 0)
		return -1;
	for (size_t off = STORE_WAL_HEADER; off + STORE_WAL_FRAME + s.page_size <= n;
	     off += STORE_WAL_FRAME + s.page_size)
		if (!store_wal_frame(&s, buf + off))
			break;
	return s.found ? (int64_t)s.version : -1;
}

/* A database file of one header page with user_version @v. */
static void write_db_header(uint32_t v)
{
	uint8_t page[PAGE] = "SQLite format 3";

	put_be32(page + 60, v);
	write_file(db_path, page, sizeof(page));
}

/* ---- the database header (1.3) ------------------------------------------- */

Test(peek, header_table)
{
	static const struct {
		const char *rule;
		size_t n;
		const char *magic;
		uint32_t version;
		int want;
	} t[] = {
		{"an empty file is a new database", 0, "", 0, -ENODATA},
		{"a header is 100 bytes", 99, "SQLite format 3", 7, -EPROTO},
		{"the magic is \"SQLite format 3\\0\"", 100, "SQLite format 4", 7, -EPROTO},
		{"user_version: big-endian at offset 60", 100, "SQLite format 3", 0x0102030e, 0},
		{"user_version 14", 100, "SQLite format 3", 14, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t hdr[STORE_DB_HEADER] = {0};
		uint32_t v = 0xdeadbeef;

		memcpy(hdr, t[i].magic, strlen(t[i].magic) + 1);
		put_be32(hdr + 60, t[i].version);
		hdr[56] = 0xff; /* text encoding, beside it: not part of the version */
		hdr[64] = 0xff; /* incremental vacuum, after it */
		cr_assert_eq(store_peek_header(hdr, t[i].n, &v), t[i].want, "%s", t[i].rule);
		if (t[i].want == 0)
			cr_assert_eq(v, t[i].version, "%s: %#x", t[i].rule, v);
		else
			cr_assert_eq(v, 0xdeadbeef, "%s: written only on success", t[i].rule);
	}
}

Test(peek, files_as_sqlite_reads_them)
{
	uint8_t junk[200];

	cr_assert_eq(store_peek_version(db_path), -ENOENT, "no file");
	write_file(db_path, "", 0);
	cr_assert_eq(store_peek_version(db_path), -ENODATA, "an empty file");
	write_file(db_path, "SQLite format 3", 16);
	cr_assert_eq(store_peek_version(db_path), -EPROTO, "shorter than a header");
	memset(junk, 'x', sizeof(junk));
	write_file(db_path, junk, sizeof(junk));
	cr_assert_eq(store_peek_version(db_path), -EPROTO, "not a database");
	write_db_header(0x80000000u);
	cr_assert_eq(store_peek_version(db_path), -EPROTO, "a negative user_version is not ours");
	write_db_header(14);
	cr_assert_eq(store_peek_version(db_path), 14, "the header alone");
}

/* ---- logs SQLite wrote --------------------------------------------------- */

Test(peek, sqlite_wal_holds_the_newest_version)
{
	static const char *const sql[] = {
		"CREATE TABLE t (x)",
		"PRAGMA user_version = 5",
		"INSERT INTO t VALUES (randomblob(20000))", /* frames of other pages */
		"PRAGMA user_version = 9",
		"INSERT INTO t VALUES (1)",
	};
	struct stat st;

	cr_assert_eq(make_wal_db(sql, sizeof(sql) / sizeof(sql[0])), 9);
	cr_assert_eq(stat(wal_path, &st), 0, "the transactions stayed in the -wal file");
	cr_assert_eq(header_version(), 0, "the main file still says 0");
	cr_assert_eq(store_peek_version(db_path), 9);
}

Test(peek, sqlite_wal_each_prefix_is_the_last_commit_in_it)
{
	static const char *const sql[] = {
		"PRAGMA user_version = 3",
		"PRAGMA user_version = 4",
		"PRAGMA user_version = 5",
	};
	size_t n, frame;
	uint8_t *buf;
	struct store_wal_scan s;

	cr_assert_eq(make_wal_db(sql, 3), 5);
	buf = read_file(wal_path, &n);
	cr_assert_eq(store_wal_begin(&s, buf), 0);
	frame = STORE_WAL_FRAME + s.page_size;
	/* One frame (page 1, committed) per transaction. */
	cr_assert_eq(n, STORE_WAL_HEADER + 3 * frame, "%zu bytes", n);
	cr_assert_eq(scan(buf, n), 5);
	cr_assert_eq(scan(buf, n - 1), 4, "a torn last frame is not part of the log");
	cr_assert_eq(scan(buf, STORE_WAL_HEADER + frame), 3);
	cr_assert_eq(scan(buf, STORE_WAL_HEADER), -1, "a log without frames");
	buf[STORE_WAL_HEADER + 2 * frame + STORE_WAL_FRAME + 100] ^= 1;
	cr_assert_eq(scan(buf, n), 4, "a wrong checksum ends the log");
	write_file(wal_path, buf, n);
	cr_assert_eq(store_peek_version(db_path), 4);
	buf[STORE_WAL_HEADER + frame + 9] ^= 1; /* the second frame's salt-1 */
	cr_assert_eq(scan(buf, n), 3, "another salt ends the log");
	buf[30] ^= 1;
	cr_assert_eq(scan(buf, n), -1, "a log whose header checksum is wrong is ignored");
	write_file(wal_path, buf, n);
	cr_assert_eq(store_peek_version(db_path), 0, "then the main file's header counts");
	free(buf);
}

/* ---- logs built here (4.1-4.4) ------------------------------------------- */

Test(peek, built_logs_table)
{
	for (int be = 0; be <= 1; be++) {
		struct wal w;
		uint8_t *f;

		wal_init(&w, be);
		cr_assert_eq(scan(w.buf, w.n), -1);
		wal_add(&w, 1, 20, 1);
		cr_assert_eq(scan(w.buf, w.n), 20, "be %d: a committed page 1", be);
		wal_add(&w, 2, 0, 0);
		wal_add(&w, 1, 21, 0);
		cr_assert_eq(scan(w.buf, w.n), 20, "be %d: a page 1 not yet committed", be);
		wal_add(&w, 3, 0, 3);
		cr_assert_eq(scan(w.buf, w.n), 21, "be %d: committed by a later frame", be);
		wal_add(&w, 2, 0, 3);
		cr_assert_eq(scan(w.buf, w.n), 21, "be %d: a commit without page 1", be);
		wal_add(&w, 1, 22, 3);
		cr_assert_eq(scan(w.buf, w.n), 22, "be %d: the newest commit", be);

		/* The same log read with the other byte order's checksums is no log. */
		w.buf[3] ^= 1;
		cr_assert_eq(scan(w.buf, w.n), -1, "be %d: the magic picks the byte order", be);
		w.buf[3] ^= 1;

		/* A frame of page 0, even with a right checksum, ends the log. */
		wal_init(&w, be);
		wal_add(&w, 1, 30, 1);
		wal_add(&w, 0, 0, 0);
		wal_add(&w, 1, 31, 1);
		cr_assert_eq(scan(w.buf, w.n), 30, "be %d: page 0", be);

		/* Commits that never wrote page 1: the log holds no version. */
		wal_init(&w, be);
		wal_add(&w, 2, 0, 2);
		wal_add(&w, 3, 0, 3);
		cr_assert_eq(scan(w.buf, w.n), -1, "be %d: no page 1 committed", be);

		/* A checksum of the frame header's first 8 bytes: the commit size counts. */
		wal_init(&w, be);
		wal_add(&w, 1, 40, 1);
		f = wal_add(&w, 1, 41, 1);
		f[7] ^= 2;
		cr_assert_eq(scan(w.buf, w.n), 40, "be %d: commit size outside the checksum", be);

		/* Salt-2 as well as salt-1. */
		wal_init(&w, be);
		wal_add(&w, 1, 50, 1);
		f = wal_add(&w, 1, 51, 1);
		f[15] ^= 1;
		cr_assert_eq(scan(w.buf, w.n), 50, "be %d: another salt-2", be);
	}
}

Test(peek, wal_header_table)
{
	static const struct {
		const char *rule;
		int at;
		uint32_t value;
	} t[] = {
		{"magic 0x377f0682 or 0x377f0683", 0, 0x377f0684u},
		{"file format 3007000", 4, 3007001},
		{"page size a power of two", 8, 768},
		{"page size at least 512", 8, 256},
		{"page size at most 65536", 8, 131072},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct store_wal_scan s;
		struct wal w;

		wal_init(&w, 0);
		put_be32(w.buf + t[i].at, t[i].value);
		/* A right checksum over the wrong field: only the rule can refuse it. */
		w.sum[0] = w.sum[1] = 0;
		checksum(0, w.buf, 24, w.sum);
		put_be32(w.buf + 24, w.sum[0]);
		put_be32(w.buf + 28, w.sum[1]);
		cr_assert_eq(store_wal_begin(&s, w.buf), -EPROTO, "%s", t[i].rule);
	}
	for (uint32_t page = 512; page <= 65536; page *= 2) {
		struct store_wal_scan s;
		struct wal w;

		wal_init(&w, 0);
		put_be32(w.buf + 8, page);
		w.sum[0] = w.sum[1] = 0;
		checksum(0, w.buf, 24, w.sum);
		put_be32(w.buf + 24, w.sum[0]);
		put_be32(w.buf + 28, w.sum[1]);
		cr_assert_eq(store_wal_begin(&s, w.buf), 0, "page size %u", page);
		cr_assert_eq(s.page_size, page);
	}
}

Test(peek, version_from_the_files)
{
	struct wal w;

	write_db_header(14);
	wal_init(&w, 0);
	wal_add(&w, 1, 15, 1);
	write_file(wal_path, w.buf, w.n);
	cr_assert_eq(store_peek_version(db_path), 15, "the log's commit wins over the header");
	write_file(wal_path, w.buf, w.n - 1);
	cr_assert_eq(store_peek_version(db_path), 14, "a partial frame is no frame");
	write_file(wal_path, w.buf, 10);
	cr_assert_eq(store_peek_version(db_path), 14, "a partial header: no log");
	write_file(wal_path, "", 0);
	cr_assert_eq(store_peek_version(db_path), 14,
		     "an empty log (after a truncating checkpoint)");
}

Test(peek, reads_without_writing)
{
	static const char *const sql[] = {"CREATE TABLE t (x)", "PRAGMA user_version = 77"};
	size_t n1, n2, w1, w2;
	uint8_t *db1, *db2, *wal1, *wal2;
	struct stat st;
	char shm[440];

	make_wal_db(sql, 2);
	snprintf(shm, sizeof(shm), "%s-shm", db_path);
	unlink(shm);
	db1 = read_file(db_path, &n1);
	wal1 = read_file(wal_path, &w1);
	cr_assert_eq(chmod(db_path, 0444), 0);
	cr_assert_eq(chmod(wal_path, 0444), 0);
	cr_assert_eq(store_peek_version(db_path), 77);
	db2 = read_file(db_path, &n2);
	wal2 = read_file(wal_path, &w2);
	cr_assert(n1 == n2 && memcmp(db1, db2, n1) == 0, "the database's bytes changed");
	cr_assert(w1 == w2 && memcmp(wal1, wal2, w1) == 0, "the log's bytes changed");
	cr_assert_eq(stat(shm, &st), -1, "an -shm file was made");
	free(db1);
	free(db2);
	free(wal1);
	free(wal2);
}
