/* SPDX-License-Identifier: MIT */
/*
 * A database's schema version read from its bytes (store_peek.h): the header
 * and -wal parsers are pure; store_peek_version() only adds open() and pread().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/store/store_peek.h"

#define WAL_MAGIC	   0x377f0682u /* low bit: the checksums' words are big-endian */
#define WAL_FORMAT	   3007000u
#define DB_USER_VERSION_AT 60

static const char db_magic[16] = "SQLite format 3"; /* with its NUL: 16 bytes */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

int store_peek_header(const uint8_t *hdr, size_t n, uint32_t *ret_version)
{
	if (n == 0)
		return -ENODATA;
	if (n < STORE_DB_HEADER || memcmp(hdr, db_magic, sizeof(db_magic)) != 0)
		return -EPROTO;
	*ret_version = be32(hdr + DB_USER_VERSION_AT);
	return 0;
}

/* SQLite's WAL checksum of @n bytes (a multiple of 8), continuing @sum. */
static void wal_checksum(bool big_endian, const uint8_t *p, size_t n, uint32_t sum[2])
{
	uint32_t s0 = sum[0], s1 = sum[1];

	for (size_t i = 0; i + 8 <= n; i += 8) {
		s0 += (big_endian ? be32(p + i) : le32(p + i)) + s1;
		s1 += (big_endian ? be32(p + i + 4) : le32(p + i + 4)) + s0;
	}
	sum[0] = s0;
	sum[1] = s1;
}

int store_wal_begin(struct store_wal_scan *w, const uint8_t *hdr)
{
	uint32_t magic = be32(hdr), page = be32(hdr + 8);

	memset(w, 0, sizeof(*w));
	if ((magic & ~1u) != WAL_MAGIC || be32(hdr + 4) != WAL_FORMAT)
		return -EPROTO;
	if (page < 512 || page > 65536 || (page & (page - 1)) != 0)
		return -EPROTO;
	w->big_endian = magic & 1;
	wal_checksum(w->big_endian, hdr, 24, w->sum);
	if (w->sum[0] != be32(hdr + 24) || w->sum[1] != be32(hdr + 28))
		return -EPROTO;
	w->page_size = page;
	w->salt[0] = be32(hdr + 16);
	w->salt[1] = be32(hdr + 20);
	return 0;
}

bool store_wal_frame(struct store_wal_scan *w, const uint8_t *frame)
{
	uint32_t pgno = be32(frame), sum[2] = {w->sum[0], w->sum[1]};
	const uint8_t *page = frame + STORE_WAL_FRAME;

	if (pgno == 0 || be32(frame + 8) != w->salt[0] || be32(frame + 12) != w->salt[1])
		return false;
	wal_checksum(w->big_endian, frame, 8, sum);
	wal_checksum(w->big_endian, page, w->page_size, sum);
	if (sum[0] != be32(frame + 16) || sum[1] != be32(frame + 20))
		return false;
	w->sum[0] = sum[0];
	w->sum[1] = sum[1];
	if (pgno == 1) {
		w->pending = true;
		w->pending_version = be32(page + DB_USER_VERSION_AT);
	}
	if (be32(frame + 4) != 0) { /* a commit frame */
		if (w->pending) {
			w->found = true;
			w->version = w->pending_version;
		}
		w->pending = false;
	}
	return true;
}

/* Read @len bytes at @off; -ENODATA when the file ends first. */
static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		done += (size_t)n;
	}
	return 0;
}

/* The version in the -wal file beside the database, if one of its transactions set it. */
static int peek_wal(const char *path, struct store_wal_scan *w)
{
	char wal[PATH_MAX];
	uint8_t hdr[STORE_WAL_HEADER], *frame = NULL;
	off_t off = STORE_WAL_HEADER;
	int fd, r;

	memset(w, 0, sizeof(*w));
	if (snprintf(wal, sizeof(wal), "%s-wal", path) >= (int)sizeof(wal))
		return -ENAMETOOLONG;
	fd = open(wal, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = pread_all(fd, hdr, sizeof(hdr), 0);
	if (r == -ENODATA || (r == 0 && store_wal_begin(w, hdr) < 0)) {
		r = 0; /* empty, or a header SQLite would ignore: no frames */
		goto out;
	}
	if (r < 0)
		goto out;
	frame = malloc(STORE_WAL_FRAME + w->page_size);
	if (!frame) {
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		r = pread_all(fd, frame, STORE_WAL_FRAME + w->page_size, off);
		if (r == -ENODATA) {
			r = 0; /* a partial last frame is not part of the log */
			break;
		}
		if (r < 0 || !store_wal_frame(w, frame))
			break;
		off += STORE_WAL_FRAME + w->page_size;
	}
out:
	free(frame);
	close(fd);
	return r;
}

int store_peek_version(const char *path)
{
	uint8_t hdr[STORE_DB_HEADER];
	struct store_wal_scan w;
	uint32_t version = 0;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = pread_all(fd, hdr, sizeof(hdr), 0);
	if (r == -ENODATA) {
		/* Shorter than a header: empty (a new database) or not one. */
		off_t size = lseek(fd, 0, SEEK_END);

		r = size == 0 ? -ENODATA : -EPROTO;
	} else if (r == 0) {
		r = store_peek_header(hdr, sizeof(hdr), &version);
	}
	close(fd);
	if (r < 0)
		return r;
	r = peek_wal(path, &w);
	if (r < 0)
		return r;
	if (w.found)
		version = w.version;
	/* SQLite's user_version is signed: a negative one is no nvmond's. */
	return version > INT_MAX ? -EPROTO : (int)version;
}
