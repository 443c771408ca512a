/* SPDX-License-Identifier: MIT */
/*
 * A temporary directory with a database path in it (db_path, no file yet),
 * removed with what the test left there: include it once, then
 * TestSuite(name, .init = store_fixture_dir_setup, .fini = store_fixture_dir_teardown).
 * store_fixture.h opens a database there.
 */
#pragma once

#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

static char dir[] = "/tmp/nvmond-test-store-XXXXXX";
static char db_path[400];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void store_fixture_dir_setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db_path, sizeof(db_path), "%s/nvmond.db", dir);
}

static inline void store_fixture_dir_teardown(void)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
