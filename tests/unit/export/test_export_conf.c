/* SPDX-License-Identifier: MIT */
/*
 * [export "NAME"] sections (issue 24 §2): "a bad url or an unreadable token file
 * exits 2 with FILE:LINE at start": every mistake names the file and the line of
 * the key at fault, as the configuration's other errors do.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmond/core/cfg.h"
#include "nvmond/export/export_svc.h"
#include "../../../daemon/export/export_internal.h"

static char dir[] = "/tmp/nvmond-test-export-XXXXXX";
static char conf[256], token[256];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/n.conf", dir);
	snprintf(token, sizeof(token), "%s/token", dir);
	FILE *f = fopen(token, "w");
	fputs("s3cret\n", f);
	fclose(f);
	chmod(token, 0600);
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(export_conf, .init = setup, .fini = teardown);

/* Load @text, where each %s stands for the token file's path. */
static int load(const char *text, struct export_conf **ret, size_t *ret_n, char *err)
{
	char cerr[CFG_ERR_MAX];
	struct cfg *c = malloc(sizeof(*c));
	FILE *f = fopen(conf, "w");

	for (const char *p = text; *p; p++)
		if (p[0] == '%' && p[1] == 's') {
			fputs(token, f);
			p++;
		} else {
			fputc(*p, f);
		}
	fclose(f);
	cfg_defaults(c);
	cr_assert_eq(cfg_load(c, conf, cerr), 0, "%s", cerr);
	int r = export_confs_load(c, ret, ret_n, err, EXPORT_ERR_MAX);
	cr_expect_eq(export_check(c, cerr, sizeof(cerr)), r, "export_check() agrees");
	free(c);
	return r;
}

Test(export_conf, defaults_and_external_labels)
{
	struct export_conf *v;
	size_t n;
	char err[EXPORT_ERR_MAX];

	cr_assert_eq(load("[daemon]\npoll_interval = 15s\nhost_name = db7\nhost_labels = "
			  "site=fra1, rack=r12\n"
			  "[export \"vm\"]\ntype = remote_write\n"
			  "url = http://user:pw@vm.example:8428/api/v1/write?x=1\n"
			  "bearer_token_file = %s\n",
			  &v, &n, err),
		     0, "%s", err);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].name, "vm");
	cr_expect_eq(v[0].interval_ms, 15000, "interval: the poll interval");
	cr_expect_eq(v[0].timeout_ms, 30000);
	cr_expect_str_eq(v[0].bearer, "s3cret");
	/* What logs and the API show: no user, password or query. */
	cr_expect_str_eq(v[0].url_public, "http://vm.example:8428/api/v1/write");
	static const char *const want[][2] = {{"job", "nvmond"},
					      {"instance", "db7"},
					      {"host", "db7"},
					      {"site", "fra1"},
					      {"rack", "r12"}};
	cr_assert_eq(v[0].n_ext, 5);
	for (size_t i = 0; i < 5; i++) {
		cr_expect_str_eq(v[0].ext_v[i].name, want[i][0]);
		cr_expect_str_eq(v[0].ext_v[i].value, want[i][1]);
	}
	export_conf_wipe(&v[0]);
	free(v);

	cr_assert_eq(load("[export \"a\"]\ntype = remote_write\nurl = https://m/push\n"
			  "interval = 5s\ntimeout = 2s\njob = disks\ninstance = db7:9470\n"
			  "basic_auth_user = u\nbasic_auth_password_file = %s\n"
			  "[export \"b\"]\ntype = remote_write\nurl = http://n/\n",
			  &v, &n, err),
		     0, "%s", err);
	cr_assert_eq(n, 2, "several exports at once");
	cr_expect_eq(v[0].interval_ms, 5000);
	cr_expect_eq(v[0].timeout_ms, 2000);
	cr_expect_str_eq(v[0].ext_v[0].value, "disks");
	cr_expect_str_eq(v[0].ext_v[1].value, "db7:9470");
	cr_expect_str_eq(v[0].basic_user, "u");
	cr_expect_str_eq(v[0].basic_password, "s3cret");
	for (size_t i = 0; i < n; i++)
		export_conf_wipe(&v[i]);
	free(v);
}

Test(export_conf, mistakes_name_file_and_line)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"[export \"x\"]\ntype = remote_write\nurl = ftp://h/\n",
		 ":3: url: not an http:// or https:// URL"},
		{"[export \"x\"]\ntype = remote_write\nurl = http://\n", ":3: url: "},
		{"[export \"x\"]\ntype = remote_write\nurl = not a url\n", ":3: url: "},
		{"[export \"x\"]\ntype = remote_write\nurl = http://h/\n"
		 "bearer_token_file = /nonexistent/token\n",
		 ":4: bearer_token_file: /nonexistent/token: No such file or directory"},
		{"[export \"x\"]\ntype = remote_write\nurl = http://h/\n"
		 "basic_auth_user = u\nbasic_auth_password_file = /nonexistent/pw\n",
		 ":5: basic_auth_password_file: /nonexistent/pw: No such file or directory"},
		{"[export \"x\"]\ntype = remote_write\nurl = http://h/\nbasic_auth_user = u\n",
		 ":4: [export \"x\"]: basic_auth_user and basic_auth_password_file go together"},
		{"[export \"x\"]\ntype = remote_write\nurl = http://h/\nbearer_token_file = %s\n"
		 "basic_auth_user = u\nbasic_auth_password_file = %s\n",
		 ":4: [export \"x\"]: bearer_token_file or basic auth, not both"},
		{"[export \"x\"]\ntype = remote_write\nurl = http://h/\ntls_ca_file = /no/ca.pem\n",
		 ":4: tls_ca_file: /no/ca.pem: No such file or directory"},
		{"[export \"x\"]\ntype = remote_write\nurl = http://h/\ninterval = 500ms\n",
		 ":4: interval: '500ms' is not a duration in 1s .. 1h"},
		{"[export \"x\"]\ntype = remote_write\nurl = http://h/\ntimeout = 10m\n",
		 ":4: timeout: '10m' is not a duration in 1s .. 5m"},
		{"[export \"x\"]\ntype = remote_write\nurl = http://h/\nqueue = 5\n",
		 ":4: unknown key 'queue' in section [export \"x\"]"},
		{"[export \"x\"]\ntype = kafka\nurl = http://h/\n",
		 ":2: type: 'kafka' is not remote_write"},
		{"[export \"x\"]\nurl = http://h/\n", ":2: [export \"x\"]: type is missing"},
		{"[export \"x\"]\ntype = remote_write\n", ":2: [export \"x\"]: url is missing"},
	};
	struct export_conf *v;
	size_t n;
	char err[EXPORT_ERR_MAX], want[600];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		cr_expect_eq(load(cases[i].text, &v, &n, err), -EINVAL, "%s", cases[i].text);
		snprintf(want, sizeof(want), "%s%s", conf, cases[i].want);
		cr_expect(strncmp(err, want, strlen(want)) == 0, "got '%s', want '%s'", err, want);
	}
	/* docs/security.md#files-nvmond-trusts: a secret others can read is refused, as a
	 * sink's is. */
	chmod(token, 0644);
	cr_expect_eq(load("[export \"x\"]\ntype = remote_write\nurl = http://h/\n"
			  "bearer_token_file = %s\n",
			  &v, &n, err),
		     -EINVAL);
	snprintf(want, sizeof(want), "%s:4: bearer_token_file: %s", conf, token);
	cr_expect(strncmp(err, want, strlen(want)) == 0, "got '%s'", err);
	cr_expect(strstr(err, "anyone can read it (mode 0644)"), "%s", err);
	chmod(token, 0600);
	/* An empty token file is a mistake too. */
	FILE *f = fopen(token, "w");
	fclose(f);
	cr_expect_eq(load("[export \"x\"]\ntype = remote_write\nurl = http://h/\n"
			  "bearer_token_file = %s\n",
			  &v, &n, err),
		     -EINVAL);
	cr_expect(strstr(err, ":4: bearer_token_file: ") && strstr(err, ": empty"), "%s", err);
	/* An unreadable one (not as root: root reads anything). */
	if (geteuid() != 0) {
		f = fopen(token, "w");
		fputs("x\n", f);
		fclose(f);
		chmod(token, 0);
		cr_expect_eq(load("[export \"x\"]\ntype = remote_write\nurl = http://h/\n"
				  "bearer_token_file = %s\n",
				  &v, &n, err),
			     -EINVAL);
		cr_expect(strstr(err, "Permission denied"), "%s", err);
	}
}
