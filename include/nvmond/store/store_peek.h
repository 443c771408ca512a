/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The schema version of a database file read from its bytes, without SQLite
 * opening it: a database from a newer nvmond is refused before anything could
 * write to it (opening read-write would set WAL mode, make -wal and -shm files and
 * checkpoint on close). Read as SQLite reads it (https://sqlite.org/fileformat.html):
 * PRAGMA user_version is the big-endian 32-bit word at offset 60 of the database
 * header, which is page 1; in WAL mode the newest committed image of page 1 may
 * still be in the -wal file, whose valid frames (salts and cumulative checksums
 * as SQLite's recovery checks them) count until the first invalid one.
 */

#define STORE_DB_HEADER	 100 /* the database header: the first bytes of page 1 */
#define STORE_WAL_HEADER 32
#define STORE_WAL_FRAME	 24 /* a frame's header; its page follows */

/**
 * store_peek_header() - PRAGMA user_version in a database file's first bytes.
 * @hdr: the first @n bytes of the file
 * @ret_version: written on success
 * Return: 0; -ENODATA for an empty file (SQLite makes a new database of it);
 * -EPROTO when it is not a SQLite 3 database (no magic, or shorter than a header).
 */
int store_peek_header(const uint8_t *hdr, size_t n, uint32_t *ret_version);

/* A scan of a -wal file's frames, as SQLite's recovery reads them. */
struct store_wal_scan {
	uint32_t page_size;
	uint32_t salt[2];
	uint32_t sum[2]; /* cumulative checksum up to the last valid frame */
	bool big_endian; /* how the checksummed words are read (the magic's low bit) */
	bool pending;	 /* the transaction being read wrote page 1 */
	uint32_t pending_version;
	bool found; /* a committed transaction wrote page 1: its user_version */
	uint32_t version;
};

/**
 * store_wal_begin() - Start a scan at the -wal file's header.
 * @hdr: its first STORE_WAL_HEADER bytes
 * Return: 0 and the page size in w->page_size (each frame is STORE_WAL_FRAME
 * plus that); -EPROTO when the header is not a valid one (magic, format
 * 3007000, a page size that is a power of two in 512..65536, its checksum):
 * SQLite ignores such a log, and so does the scan.
 */
int store_wal_begin(struct store_wal_scan *w, const uint8_t *hdr);

/**
 * store_wal_frame() - The next frame of the log.
 * @frame: STORE_WAL_FRAME + w->page_size bytes
 * A transaction counts once its commit frame (non-zero database size) is read:
 * a page 1 in it sets w->found and w->version.
 * Return: true for a valid frame (the scan goes on); false at the first invalid
 * one (another salt: left from before the log restarted; a wrong checksum: torn
 * or never finished; page 0): neither it nor any frame after it is part of the
 * database.
 */
bool store_wal_frame(struct store_wal_scan *w, const uint8_t *frame);

/**
 * store_peek_version() - The schema version of the database at @path.
 * Opens @path and "@path-wal" O_RDONLY and reads them with pread(): no lock, no
 * SQLite, nothing written or created.
 * Return: PRAGMA user_version as SQLite would read it (>= 0, the -wal file's
 * newest committed page 1 when it has one); -ENOENT when there is no file;
 * -ENODATA when it is empty; -EPROTO when it is not a SQLite database; another
 * negative errno when it cannot be read.
 */
int store_peek_version(const char *path);
