/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/*
 * A secret kept in a file the configuration names (a token, a password, a URL
 * with a key in it): its first line. Every reader of one (the metrics token, a
 * sink's or an export's secrets, the fleet view's token and password) reads it
 * here, so that each is judged as a secret (fperm.h: nobody but its owner may
 * read or write it), is never cut silently, and never reaches a message.
 */

/* secret_file_read() flags */
#define SECRET_TRIM_BLANKS 0x1 /* trailing spaces and tabs of the line are not part of it */

/**
 * secret_file_read() - The first line of @path, without its line end, into @buf
 * (@size bytes with the NUL), zeroed where it is not the secret.
 * @flags: SECRET_TRIM_BLANKS
 * @err: why, when it fails ("PATH: …"; never the secret)
 * Return: 0; -errno of open or read ("PATH: strerror"); fperm_check()'s error for
 * a file others may read or write (its message); -ENODATA, an empty first line;
 * -E2BIG, a first line of @size bytes or more. For the last two @err holds
 * "PATH" alone: the caller says what is missing or too long in its own words.
 */
int secret_file_read(const char *path, char *buf, size_t size, unsigned flags, char *err,
		     size_t errsize);
