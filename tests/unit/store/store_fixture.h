/* SPDX-License-Identifier: MIT */
/*
 * A fresh database in a temporary directory with two devices (dev_a "A1",
 * dev_b "B2"), for the store's table tests: include it once, then
 * TestSuite(name, .init = store_fixture_setup, .fini = store_fixture_teardown).
 */
#pragma once

#include "store_fixture_dir.h" /* first: it defines _GNU_SOURCE */

#include <stdint.h>

#include "nvmond/store/store.h"

static struct store *s;
static int64_t dev_a, dev_b;

static int64_t add_device(const char *serial)
{
	struct device_row d = {.wctemp_k = 343, .cctemp_k = 353, .online = 1};
	int64_t id;

	snprintf(d.model, sizeof(d.model), "ACME NVMe 2TB");
	snprintf(d.serial, sizeof(d.serial), "%s", serial);
	snprintf(d.key, sizeof(d.key), "%s/%s", d.model, d.serial);
	snprintf(d.name, sizeof(d.name), "nvme0");
	snprintf(d.namespaces, sizeof(d.namespaces), "[]");
	cr_assert_eq(store_device_upsert(s, &d, &id), 0, "%s", store_strerror(s));
	return id;
}

static void store_fixture_setup(void)
{
	char err[STORE_ERR_MAX];

	store_fixture_dir_setup();
	cr_assert_eq(store_open(db_path, &s, err), 0, "%s", err);
	dev_a = add_device("A1");
	dev_b = add_device("B2");
}

static void store_fixture_teardown(void)
{
	s = store_close(s);
	store_fixture_dir_teardown();
}
