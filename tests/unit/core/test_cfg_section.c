/* SPDX-License-Identifier: MIT */
/*
 * A section a subsystem owns (core/cfg_section.h, issue 26 §6), with a section of
 * the test's own: registered, its defaults, its values read from a file with
 * FILE:LINE for every mistake, the owner's check, where a key was set, what waits
 * for a restart, the keys described for the docs, and a section not registered.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/cfg_section.h"
#include "nvmond/util/units.h"

struct probe_like {
	int64_t every_ms;
	uint32_t depth;
	int enabled;
	char name[16];
};

/* The owner's check of name: no "x" in it (any rule of its own). */
static int no_x(const char *value, char *err, size_t errsize)
{
	if (!strchr(value, 'x'))
		return 0;
	snprintf(err, errsize, "no 'x' in a name");
	return -EINVAL;
}

#define T struct probe_like
static const struct cfg_key test_keys[] = {
	CFG_KEY_DURATION(T, "tsect", "every", every_ms, MS_PER_SEC, MS_PER_DAY, "5m"),
	CFG_KEY_UINT32(T, "tsect", "depth", depth, 1, 32, "4", .restart = true),
	CFG_KEY_BOOL(T, "tsect", "enabled", enabled, "yes"),
	CFG_KEY_PATH(T, "tsect", "name", name, 1, "plain", .check = no_x),
};
static const struct cfg_section test_section = CFG_SECTION("tsect", test_keys, T);

static const struct cfg_key other_keys[] = {
	CFG_KEY_UINT32(T, "osect", "depth", depth, 0, 9, "0"),
};
static const struct cfg_section other_section = CFG_SECTION("osect", other_keys, T);

static char tmpdir[] = "/tmp/nvmond-test-cfgsect.XXXXXX";
static char path[128];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/n.conf", tmpdir);
	const struct cfg_section *v[] = {&test_section, &other_section};
	cr_assert_eq(cfg_sections_register(v, 2), 0);
}

static void teardown(void)
{
	unlink(path);
	rmdir(tmpdir);
}

TestSuite(cfg_section, .init = setup, .fini = teardown);

static const char *write_conf(const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	cr_assert_eq(fputs(text, f) >= 0, true);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static const struct probe_like *of(const struct cfg *c)
{
	return cfg_section_get(c, &test_section);
}

/* cfg_section.h: "Return: … -EINVAL for a section name core or another section has,
 * or a key table naming another section; -ENOSPC when they do not fit struct cfg." */
Test(cfg_section, register_refuses_what_cannot_be)
{
	static const struct cfg_key daemon_keys[] = {
		CFG_KEY_UINT32(T, "daemon", "depth", depth, 0, 9, "0"),
	};
	static const struct cfg_section daemon = CFG_SECTION("daemon", daemon_keys, T);
	static const struct cfg_key wrong_keys[] = {
		CFG_KEY_UINT32(T, "tsect", "depth", depth, 0, 9, "0"),
	};
	static const struct cfg_section wrong = CFG_SECTION("wsect", wrong_keys, T);
	struct huge {
		char b[CFG_SECT_MEM];
	};
	static const struct cfg_section huge = {
		.name = "hsect", .size = sizeof(struct huge), .align = 1};
	const struct cfg_section *twice[] = {&test_section, &test_section};
	const struct cfg_section *core[] = {&daemon};
	const struct cfg_section *naming_other[] = {&wrong};
	const struct cfg_section *too_big[] = {&test_section, &huge};

	cr_expect_eq(cfg_sections_register(twice, 2), -EINVAL);
	cr_expect_eq(cfg_sections_register(core, 1), -EINVAL);
	cr_expect_eq(cfg_sections_register(naming_other, 1), -EINVAL);
	cr_expect_eq(cfg_sections_register(too_big, 2), -ENOSPC);
	/* A refused list changes nothing: the setup's sections stay. */
	struct cfg c;
	cfg_defaults(&c);
	cr_expect_eq(of(&c)->depth, 4);
}

/* The table's defaults, in every struct cfg made after registration. */
Test(cfg_section, defaults_from_the_table)
{
	struct cfg c;

	cfg_defaults(&c);
	cr_expect_eq(of(&c)->every_ms, 5 * MS_PER_MIN);
	cr_expect_eq(of(&c)->depth, 4);
	cr_expect_eq(of(&c)->enabled, 1);
	cr_expect_str_eq(of(&c)->name, "plain");
	/* Two sections of one struct type live apart. */
	const struct probe_like *o = cfg_section_get(&c, &other_section);
	cr_expect_eq(o->depth, 0);
	cr_expect_neq((const void *)o, (const void *)of(&c));
}

/* A value from the file lands in the owner's struct; the last line of a key wins
 * (docs/configuration.md: "a key set twice: the last one wins"). */
Test(cfg_section, values_from_the_file)
{
	char err[CFG_ERR_MAX] = "", where[CFG_PATH_MAX + 16];
	struct cfg c;

	cfg_defaults(&c);
	cr_assert_eq(cfg_load(&c,
			      write_conf("[tsect]\nevery = 1h\ndepth = 9\nenabled = no\n"
					 "depth = 8\nname = bay\n[osect]\ndepth = 7\n"),
			      err),
		     0, "%s", err);
	cr_expect_eq(of(&c)->every_ms, MS_PER_HOUR);
	cr_expect_eq(of(&c)->depth, 8);
	cr_expect_eq(of(&c)->enabled, 0);
	cr_expect_str_eq(of(&c)->name, "bay");
	cr_expect_eq(((const struct probe_like *)cfg_section_get(&c, &other_section))->depth, 7);
	/* cfg_key_where(): the line that set it, for messages found later. */
	snprintf(err, sizeof(err), "%s:5", path);
	cr_expect_str_eq(cfg_key_where(&c, "tsect", "depth", where, sizeof(where)), err);
	cr_expect_eq(cfg_key_line(&c, "tsect", "every"), 2);
	cr_expect_eq(cfg_key_line(&c, "osect", "depth"), 8);
	/* cfg_set() reaches a section's key as it reaches core's. */
	cr_expect_eq(cfg_set(&c, "tsect", "depth", "3", err), 0, "%s", err);
	cr_expect_eq(of(&c)->depth, 3);
	cr_expect_eq(cfg_set(&c, "tsect", "depth", "33", err), -EINVAL);
	cr_expect_str_eq(err, "depth: 33 is out of range (1 .. 32)");
}

/* A mistake in an owned section is FILE:LINE like any other, and loses nothing:
 * the values before the load stay (README: "a bad reload keeps the old set"). */
Test(cfg_section, mistakes_name_file_and_line)
{
	static const struct {
		const char *text, *msg; /* msg after "PATH:" */
	} cases[] = {
		{"[tsect]\ndepth = 0\n", "2: depth: 0 is out of range (1 .. 32)"},
		{"[tsect]\n\nevery = soon\n",
		 "3: every: invalid duration 'soon' (use e.g. 500ms, 10s, 5m)"},
		{"[tsect]\nwidth = 2\n", "2: unknown key 'width' in section [tsect]"},
		{"[tsect]\nname = \n", "2: name: must not be empty"},
		/* The owner's check, run as the value is read. */
		{"[tsect]\nname = xy\n", "2: [tsect] name: no 'x' in a name"},
		{"[zsect]\ndepth = 1\n", "1: unknown section [zsect]"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[CFG_ERR_MAX] = "", want[CFG_ERR_MAX];
		struct cfg c;

		cfg_defaults(&c);
		cr_assert_eq(cfg_set(&c, "tsect", "depth", "6", err), 0);
		cr_expect_eq(cfg_load(&c, write_conf(cases[i].text), err), -EINVAL, "%s",
			     cases[i].text);
		snprintf(want, sizeof(want), "%s:%s", path, cases[i].msg);
		cr_expect_str_eq(err, want, "for:\n%s", cases[i].text);
		cr_expect_eq(of(&c)->depth, 6, "a failed load changed the section");
		cr_expect_str_eq(of(&c)->name, "plain");
	}
	/* A bad line set again correctly later is no mistake (the last one wins). */
	struct cfg c;
	char err[CFG_ERR_MAX] = "";
	cfg_defaults(&c);
	cr_expect_eq(cfg_load(&c, write_conf("[tsect]\nname = x\nname = ok\n"), err), 0, "%s", err);
	cr_expect_str_eq(of(&c)->name, "ok");
}

/* A key the table marks restart is listed when a reload changes it; others are not. */
Test(cfg_section, restart_changes)
{
	char err[CFG_ERR_MAX], buf[128];
	struct cfg a, b;

	cfg_defaults(&a);
	b = a;
	cr_assert_eq(cfg_set(&b, "tsect", "every", "1m", err), 0);
	cr_expect_eq(cfg_restart_changes(&a, &b, buf, sizeof(buf)), 0, "%s", buf);
	cr_assert_eq(cfg_set(&b, "tsect", "depth", "5", err), 0);
	cr_assert_eq(cfg_set(&b, "daemon", "demo_drives", "4", err), 0);
	cr_expect_eq(cfg_restart_changes(&a, &b, buf, sizeof(buf)), 2);
	cr_expect_str_eq(buf, "[daemon] demo_drives, [tsect] depth");
}

/* The docs' check reads every key: core's, [device]'s, then each section's. */
Test(cfg_section, keys_described_for_the_docs)
{
	struct cfg_key_desc d;
	size_t n = cfg_key_count(), found = 0;

	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(cfg_key_describe(i, &d), 0);
		if (strcmp(d.section, "tsect") == 0 && strcmp(d.key, "depth") == 0) {
			cr_expect_str_eq(d.type, "integer");
			cr_expect_str_eq(d.range, "1 … 32");
			cr_expect_str_eq(d.def, "4");
			cr_expect(d.restart);
			found++;
		}
		if (strcmp(d.section, "tsect") == 0 && strcmp(d.key, "enabled") == 0) {
			cr_expect_str_eq(d.type, "bool");
			cr_expect_not(d.restart);
			found++;
		}
	}
	cr_expect_eq(found, 2);
	cr_expect_eq(cfg_key_describe(n, &d), -ENOENT);
}

/* cfg_section.h: "A section not registered (a unit test that did not ask for it)
 * gives its defaults", and its name is no section of the file. */
Test(cfg_section, not_registered)
{
	char err[CFG_ERR_MAX] = "";
	struct cfg c;

	cr_assert_eq(cfg_sections_register(NULL, 0), 0);
	cfg_defaults(&c);
	cr_expect_eq(of(&c)->depth, 4);
	cr_expect_str_eq(of(&c)->name, "plain");
	cr_expect_eq(of(&c), of(&c), "one copy of the defaults");
	cr_expect_eq(cfg_load(&c, write_conf("[tsect]\ndepth = 2\n"), err), -EINVAL);
	cr_expect(strstr(err, "unknown section [tsect]"), "%s", err);
}
