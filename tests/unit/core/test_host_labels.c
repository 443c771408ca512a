/* SPDX-License-Identifier: MIT */
/*
 * Who is who (issue 24 §1): [daemon] host_name, host_labels, public_url,
 * [device] label and location, [export "NAME"] sections kept as written, and the
 * host id derived from the machine id.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-id128.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/host_id.h"

static char tmpdir[] = "/tmp/nvmond-test-labels-XXXXXX";
static char path[CFG_PATH_MAX];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/n.conf", tmpdir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(tmpdir);
}

TestSuite(labels, .init = setup, .fini = teardown);

static int load(const char *text, struct cfg *c, char err[CFG_ERR_MAX])
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	cfg_defaults(c);
	return cfg_load(c, path, err);
}

/* Prometheus data model: "Label names may contain ASCII letters, numbers, as well
 * as underscores. They must match the regex [a-zA-Z_][a-zA-Z0-9_]*. Label names
 * beginning with __ are reserved for internal use." */
Test(labels, label_names_as_prometheus_requires)
{
	const char *ok[] = {"site", "_x", "Rack_12", "a1", "_"};
	const char *bad[] = {"", "1rack", "__name__", "__x", "ra-ck", "r.k", "räck", "a b"};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_expect(cfg_label_name_ok(ok[i]), "%s", ok[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect(!cfg_label_name_ok(bad[i]), "%s", bad[i]);
}

Test(labels, host_labels_parse)
{
	struct cfg_labels v;
	char err[256];

	cr_assert_eq(cfg_parse_labels("site=fra1, rack=r12, role=db", &v, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(v.n, 3);
	cr_expect_str_eq(v.v[0].name, "site");
	cr_expect_str_eq(v.v[0].value, "fra1");
	cr_expect_str_eq(v.v[1].name, "rack");
	cr_expect_str_eq(v.v[1].value, "r12");
	cr_expect_str_eq(v.v[2].name, "role");
	cr_expect_str_eq(v.v[2].value, "db");
	/* A quoted value may hold a comma; UTF-8 values are label values too. */
	cr_assert_eq(cfg_parse_labels(" room = \"Süd, 2. OG\" ,team=ops ", &v, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(v.n, 2);
	cr_expect_str_eq(v.v[0].name, "room");
	cr_expect_str_eq(v.v[0].value, "Süd, 2. OG");
	cr_expect_str_eq(v.v[1].value, "ops");
	cr_assert_eq(cfg_parse_labels("", &v, err, sizeof(err)), 0);
	cr_expect_eq(v.n, 0);
}

Test(labels, host_labels_refused)
{
	static const struct {
		const char *in, *why;
	} bad[] = {
		{"site", "'site' is not name=value"},
		{"1site=a", "'1site' is not a label name"},
		{"__name__=x", "'__name__' is not a label name"},
		{"si-te=a", "'si-te' is not a label name"},
		{"site=a, site=b", "label 'site' is given twice"},
		{"site=", "site: empty value"},
		{"site=a,", "a trailing comma"},
		{"site=\"a", "site: no closing quote"},
		{"site=\"a\"b", "site: text after the closing quote"},
		{"site=\xff", "site: the value is not UTF-8 text"},
		{"site=\xc0\xaf", "site: the value is not UTF-8 text"}, /* overlong '/' */
		{"site=a\tb", "site: the value is not UTF-8 text"},
		/* nvmond's own labels: a pushed series or nvmond_host_info would carry two */
		{"instance=x", "'instance' is a label nvmond sets itself"},
		{"job=x", "'job' is a label nvmond sets itself"},
		{"host=x", "'host' is a label nvmond sets itself"},
		{"device=x", "'device' is a label nvmond sets itself"},
	};
	struct cfg_labels v;
	char err[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		cr_expect_eq(cfg_parse_labels(bad[i].in, &v, err, sizeof(err)), -EINVAL, "%s",
			     bad[i].in);
		cr_expect(strncmp(err, bad[i].why, strlen(bad[i].why)) == 0, "%s: got '%s'",
			  bad[i].in, err);
	}
	/* 16 is the most. */
	char many[1024] = "";
	for (int i = 0; i < 17; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%sl%d=v", i ? "," : "",
			 i);
	cr_expect_eq(cfg_parse_labels(many, &v, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "more than 16 labels");
}

/* "A bad one exits 2 with FILE:LINE, and a reload keeps the old set": cfg_load
 * fails with the line and leaves the configuration as it was. */
Test(labels, bad_host_labels_name_file_and_line)
{
	struct cfg c;
	char err[CFG_ERR_MAX], want[CFG_ERR_MAX + CFG_PATH_MAX];

	cr_assert_eq(load("[daemon]\nhost_labels = site=fra1\n", &c, err), 0, "%s", err);
	cr_expect_eq(c.host_labels.n, 1);
	struct cfg before = c;
	FILE *f = fopen(path, "w");
	fputs("[daemon]\n# comment\nhost_labels = site=fra1, 9rack=r12\n", f);
	fclose(f);
	cr_expect_eq(cfg_load(&c, path, err), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:3: host_labels: '9rack' is not a label name (letters, digits and _, not "
		 "first a digit, not __ first)",
		 path);
	cr_expect_str_eq(err, want);
	cr_expect_eq(memcmp(&c.host_labels, &before.host_labels, sizeof(c.host_labels)), 0);
}

Test(labels, host_name_default_and_text)
{
	struct cfg c;
	char err[CFG_ERR_MAX], host[256] = "";

	cfg_defaults(&c);
	gethostname(host, sizeof(host) - 1);
	cr_expect_str_eq(c.host_name, host, "default: the hostname");
	cr_assert_eq(
		load("[daemon]\nhost_name = db-fra1-07\npublic_url = https://db7:9470/\n", &c, err),
		0, "%s", err);
	cr_expect_str_eq(c.host_name, "db-fra1-07");
	cr_expect_str_eq(c.public_url, "https://db7:9470/");
	cr_expect_eq(load("[daemon]\nhost_name =\n", &c, err), -EINVAL);
	cr_expect(strstr(err, ":2: host_name: must not be empty"), "%s", err);
	cr_expect_eq(load("[daemon]\npublic_url = ftp://x/\n", &c, err), -EINVAL);
	cr_expect(strstr(err, ":2: public_url: 'ftp://x/' is not an http:// or https:// URL"), "%s",
		  err);
	cr_expect_eq(load("[daemon]\npublic_url = http://\n", &c, err), -EINVAL);
}

/* The issue's own example: quotes around the value go, the en dash stays. */
Test(labels, device_label_and_location)
{
	struct cfg c;
	struct cfg_device d;
	char err[CFG_ERR_MAX];

	cr_assert_eq(load("[device \"S1\"]\nlabel = \"bay 3 – scratch\"\n"
			  "location = rack 12 U4 slot 3\n"
			  "[device \"Model X\"]\nlabel = every X\nlocation = lab\n",
			  &c, err),
		     0, "%s", err);
	cfg_device_for(&c, "Model X", "S1", &d);
	cr_expect_str_eq(d.label, "bay 3 – scratch");
	cr_expect_str_eq(d.location, "rack 12 U4 slot 3");
	cfg_device_for(&c, "Model X", "S2", &d);
	cr_expect_str_eq(d.label, "every X");
	cr_expect_str_eq(d.location, "lab");
	cfg_device_for(&c, "Other", "S3", &d);
	cr_expect_str_eq(d.label, "");
	cr_expect_eq(load("[device \"S1\"]\nlabel = a\x01z\n", &c, err), -EINVAL);
	cr_expect(strstr(err, ":2: label: not UTF-8 text"), "%s", err);
}

Test(labels, export_sections_kept_with_lines)
{
	struct cfg c;
	char err[CFG_ERR_MAX];

	cr_assert_eq(load("[export \"vm\"]\ntype = remote_write\nurl = http://x/api/v1/write\n"
			  "[export \"prom\"]\ntype = remote_write\n",
			  &c, err),
		     0, "%s", err);
	cr_assert_eq(c.n_exports, 2);
	int line = 0;
	cr_expect_str_eq(c.exports[0].name, "vm");
	cr_expect_str_eq(cfg_sink_get(&c.exports[0], "url", &line), "http://x/api/v1/write");
	cr_expect_eq(line, 3);
	cr_expect_str_eq(c.exports_file, path);
	cr_expect_eq(c.n_sinks, 0);
	cr_expect_eq(load("[export \"a b\"]\ntype = remote_write\n", &c, err), -EINVAL);
	cr_expect(strstr(err, ":1: unknown section [export \"a b\"]"), "%s", err);
}

/* machine-id(5): 32 lowercase hexadecimal characters and a newline. */
Test(labels, host_id_fixed_vector)
{
	static const uint8_t app[16] = HOST_ID_APP;
	uint8_t m[16];
	char id[HOST_ID_LEN + 1];

	cr_assert_eq(host_id_parse_machine_id("0123456789abcdef0123456789abcdef\n", 33, m), 0);
	cr_assert_eq(host_id_derive(m, app, id), 0);
	/* python3: hmac.new(machine_id, app_id, sha256).digest()[:16], v4 bits set */
	cr_expect_str_eq(id, "e1bad763ccec40fb86cf965290b5ea9e");
	cr_expect_eq(host_id_parse_machine_id("uninitialized\n", 14, m), -EINVAL);
	cr_expect_eq(host_id_parse_machine_id("0123456789abcdef0123456789abcdeg", 32, m), -EINVAL);
}

/* The same id as systemd's own sd_id128_get_machine_app_specific() on this machine. */
Test(labels, host_id_as_systemd_derives_it)
{
	sd_id128_t app = {.bytes = HOST_ID_APP}, want;
	char id[HOST_ID_LEN + 1], want_s[SD_ID128_STRING_MAX];

	if (access(HOST_ID_MACHINE_ID_PATH, R_OK) < 0 ||
	    sd_id128_get_machine_app_specific(app, &want) < 0) {
		cr_skip_test("no readable machine id here");
		return;
	}
	cr_assert_eq(host_id_read(HOST_ID_MACHINE_ID_PATH, id), 0);
	cr_expect_str_eq(id, sd_id128_to_string(want, want_s));
}
