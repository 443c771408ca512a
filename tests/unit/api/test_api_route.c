/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmond/api/api_devices.h"
#include "nvmond/api/api_route.h"

/* ---- unescape ------------------------------------------------------------ */

Test(api_unescape, table)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"/plain", "/plain"},
		{"/%2e%2e/%2E%2E/etc", "/../../etc"},
		{"/..%2f..%2fetc/passwd", "/../../etc/passwd"},
		{"/a%20b", "/a b"},
		{"/index.html%00.png", "/index.html\x01.png"},
		{"/bad%zz%4", "/bad%zz%4"},
		{"%", "%"},
		{"%41%42C", "ABC"},
		/* RFC 3986 2.1: hex digits in either case, "F" included. */
		{"/a%2Fb%3f%3F", "/a/b??"},
		{"", ""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		size_t n;

		strcpy(buf, cases[i].in);
		n = api_unescape(buf);
		cr_expect_str_eq(buf, cases[i].out, "case %zu", i);
		cr_expect_eq(n, strlen(cases[i].out), "case %zu", i);
	}
}

/* ---- routes -------------------------------------------------------------- */

static void h_none(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	(void)ctx;
	(void)req;
	(void)ret;
}

/* The core endpoints, as main registers them, and a path with GET and POST. */
static size_t route_table(struct api_endpoint *v, size_t cap)
{
	size_t n;
	const struct api_endpoint *core = api_devices_endpoints(&n);

	cr_assert_leq(n + 2, cap);
	memcpy(v, core, n * sizeof(*v));
	v[n++] = (struct api_endpoint){"GET", "/api/v1/devices/{id}/probes", 0, h_none, NULL};
	v[n++] = (struct api_endpoint){"POST", "/api/v1/devices/{id}/probes", 0, h_none, NULL};
	return n;
}

/*
 * Every route is an endpoint. Each case: the request, what api_route_find()
 * answers (1 endpoint, 0 static file, -ENOENT 404, -EINVAL 400, -EPERM 405),
 * and for 1 the pattern and {id}, for -EPERM the Allow header.
 */
Test(api_route, table)
{
	static const struct {
		const char *method, *url;
		int r;
		const char *pattern; /* 1: the endpoint; -EPERM: Allow */
		int64_t id;
	} cases[] = {
		{"GET", "/healthz", 1, "/healthz", 0},
		{"GET", "/api/v1/devices", 1, "/api/v1/devices", 0},
		{"GET", "/api/v1/devices/1", 1, "/api/v1/devices/{id}", 1},
		{"GET", "/api/v1/devices/42/samples", 1, "/api/v1/devices/{id}/samples", 42},
		{"HEAD", "/api/v1/devices/42/samples", 1, "/api/v1/devices/{id}/samples", 42},
		{"GET", "/api/v1/devices/9223372036854775807", 1, "/api/v1/devices/{id}",
		 INT64_MAX},
		/* ids are positive integers, on the core routes as on every other */
		{"GET", "/api/v1/devices/-3", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/0", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/9223372036854775808", -EINVAL, NULL, 0},
		/* outside int64 is malformed (a 400), never wrapped to another id */
		{"GET", "/api/v1/devices/9223372036854775809", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/18446744073709551617", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/-9223372036854775809", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/-9223372036854775808", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/99999999999999999999", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/abc", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/1.5", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/1x/samples", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/-", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/+1", -EINVAL, NULL, 0},
		{"GET", "/api/v1/devices/1\x01", -EINVAL, NULL, 0},
		/* a path under /api/ that no endpoint has: 404, never a file */
		{"GET", "/api/v1/devices/", -ENOENT, NULL, 0},
		{"GET", "/api/v1/devices/1/", -ENOENT, NULL, 0},
		{"GET", "/api/v1/devices/1/samples/", -ENOENT, NULL, 0},
		{"GET", "/api/v1/devices/1/other", -ENOENT, NULL, 0},
		{"GET", "/api/v1/devicesx", -ENOENT, NULL, 0},
		{"GET", "/api/v2/devices", -ENOENT, NULL, 0},
		{"GET", "/api", -ENOENT, NULL, 0},
		{"GET", "/api/", -ENOENT, NULL, 0},
		{"GET", "/metrics", -ENOENT, NULL, 0}, /* the daemon's own path, not served here */
		{"POST", "/api/v1/nothing", -ENOENT, NULL, 0},
		/* anything else is a static file */
		{"GET", "/", 0, NULL, 0},
		{"GET", "/index.html", 0, NULL, 0},
		{"GET", "/apix", 0, NULL, 0},
		{"GET", "/healthz/", 0, NULL, 0},
		{"PUT", "/index.html", 0, NULL, 0},
		/* a known path with another method: 405 with every method it has */
		{"POST", "/api/v1/devices", -EPERM, "GET, HEAD", 0},
		{"DELETE", "/healthz", -EPERM, "GET, HEAD", 0},
		{"get", "/healthz", -EPERM, "GET, HEAD", 0},
		{"DELETE", "/api/v1/devices/3/probes", -EPERM, "GET, HEAD, POST", 0},
		{"POST", "/api/v1/devices/3/probes", 1, "/api/v1/devices/{id}/probes", 3},
		{"HEAD", "/api/v1/devices/3/probes", 1, "/api/v1/devices/{id}/probes", 3},
	};
	struct api_endpoint v[16];
	size_t n = route_table(v, 16);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct api_endpoint *ep = NULL;
		char err[API_ERR_MAX] = "", allow[API_ALLOW_MAX] = "";
		int64_t id = 777;
		int got = api_route_find(v, n, cases[i].method, cases[i].url, &ep, &id, err, allow);

		cr_expect_eq(got, cases[i].r, "%s %s: got %d", cases[i].method, cases[i].url, got);
		if (got == 1) {
			cr_assert_not_null(ep);
			cr_expect_str_eq(ep->pattern, cases[i].pattern, "%s", cases[i].url);
			cr_expect(strcmp(ep->method, cases[i].method) == 0 ||
					  strcmp(cases[i].method, "HEAD") == 0,
				  "%s %s: went to %s", cases[i].method, cases[i].url, ep->method);
			cr_expect_eq(id, cases[i].id, "%s", cases[i].url);
			continue;
		}
		cr_expect_null(ep, "%s: ret written on failure", cases[i].url);
		cr_expect_eq(id, 777, "%s: ret written on failure", cases[i].url);
		if (got == -EPERM)
			cr_expect_str_eq(allow, cases[i].pattern, "%s %s", cases[i].method,
					 cases[i].url);
		if (got == -EINVAL || got == -ENOENT)
			cr_expect_neq(err[0], '\0', "%s: no message", cases[i].url);
	}
}

Test(api_route, methods)
{
	cr_expect(api_method_is_read("GET"));
	cr_expect(api_method_is_read("HEAD"));
	cr_expect_not(api_method_is_read("POST"));
	cr_expect_not(api_method_is_read("get"));
	cr_expect_not(api_method_is_read("DELETE"));
	cr_expect_not(api_method_is_read(NULL));
}

/* ---- samples query ------------------------------------------------------- */

#define NOW 1764469160000 /* 2025-11-30T02:19:20Z */

static int parse(const struct api_query_param *v, size_t n, struct api_samples_query *q, char *err)
{
	return api_samples_query_parse(v, n, NOW, q, err);
}

Test(api_query, defaults)
{
	struct api_samples_query q;
	char err[API_ERR_MAX];

	cr_assert_eq(parse(NULL, 0, &q, err), 0);
	cr_expect_eq(q.to_ms, NOW);
	cr_expect_eq(q.from_ms, NOW - 3600 * 1000);
	cr_expect_eq(q.limit, 10000);
}

Test(api_query, valid)
{
	static const struct {
		struct api_query_param v[3];
		size_t n;
		int64_t from, to;
		size_t limit;
	} cases[] = {
		{{{"from", "2025-11-30T00:00:00Z"}, {"to", "2025-11-30T01:00:00.5+01:00"}},
		 2,
		 1764460800000,
		 1764460800500,
		 10000},
		{{{"from", "1000"}, {"to", "2000"}, {"limit", "5"}}, 3, 1000, 2000, 5},
		{{{"from", "2000"}, {"to", "2000"}}, 2, 2000, 2000, 10000},
		{{{"to", "7200000"}}, 1, 3600000, 7200000, 10000},
		{{{"from", "1764469100000"}}, 1, 1764469100000, NOW, 10000},
		{{{"limit", "100000"}}, 1, NOW - 3600000, NOW, 100000},
		{{{"limit", "1"}}, 1, NOW - 3600000, NOW, 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct api_samples_query q;
		char err[API_ERR_MAX] = "";

		cr_expect_eq(parse(cases[i].v, cases[i].n, &q, err), 0, "case %zu: %s", i, err);
		cr_expect_eq(q.from_ms, cases[i].from, "case %zu", i);
		cr_expect_eq(q.to_ms, cases[i].to, "case %zu", i);
		cr_expect_eq(q.limit, cases[i].limit, "case %zu", i);
	}
}

Test(api_query, invalid_names_the_parameter)
{
	static const struct {
		struct api_query_param v[3];
		size_t n;
		const char *needle;
	} cases[] = {
		{{{"from", "yesterday"}}, 1, "'from'"},
		{{{"to", "2025-13-01T00:00:00Z"}}, 1, "'to'"},
		{{{"from", "3000"}, {"to", "2000"}}, 2, "'from'"},
		{{{"limit", "0"}}, 1, "'limit'"},
		{{{"limit", "100001"}}, 1, "'limit'"},
		{{{"limit", "-1"}}, 1, "'limit'"},
		{{{"limit", "ten"}}, 1, "'limit'"},
		{{{"limit", "99999999999999999999999"}}, 1, "'limit'"},
		{{{"limit", ""}}, 1, "'limit'"},
		{{{"from", NULL}}, 1, "'from'"},
		{{{"from", "1000\x01"}}, 1, "'from'"},
		{{{"to", "1"}, {"to", "2"}}, 2, "'to'"},
		{{{"bogus", "1"}}, 1, "'bogus'"},
		{{{"From", "1"}}, 1, "'From'"},
		{{{"x\x01y", "1"}}, 1, "unknown query parameter"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct api_samples_query q = {.limit = 4242};
		char err[API_ERR_MAX] = "";

		cr_expect_eq(parse(cases[i].v, cases[i].n, &q, err), -EINVAL, "case %zu", i);
		cr_expect(strstr(err, cases[i].needle), "case %zu: '%s' lacks %s", i, err,
			  cases[i].needle);
		cr_expect_null(strchr(err, '\x01'), "case %zu echoes a control byte", i);
		cr_expect_eq(q.limit, 4242, "case %zu: ret written on failure", i);
	}
}

/* ---- static files -------------------------------------------------------- */

Test(api_static, relpath)
{
	static const struct {
		const char *url;
		int r;
		const char *rel;
	} cases[] = {
		{"/", 0, ""},
		{"/index.html", 0, "index.html"},
		{"//a///b/", 0, "a/b"},
		{"/./a/./b", 0, "a/b"},
		{"/.hidden", 0, ".hidden"},
		{"/a..b/..c", 0, "a..b/..c"},
		{"/...", 0, "..."},
		{"/../etc/passwd", -ENOENT, NULL},
		{"/..", -ENOENT, NULL},
		{"/a/../../x", -ENOENT, NULL},
		{"/a/..", -ENOENT, NULL},
		{"/a/../b", -ENOENT, NULL}, /* harmless, but ".." is never needed */
		{"/index.html\x01.png", -ENOENT, NULL},
		{"/a\tb", -ENOENT, NULL},
		/* api_static.c: "no control byte": 0x01-0x1f and DEL (0x7f). */
		{"/a\037b", -ENOENT, NULL},
		{"/a\177b", -ENOENT, NULL},
		{"/a~b", 0, "a~b"}, /* 0x7e is printable */
		{"relative", -ENOENT, NULL},
		{"", -ENOENT, NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64] = "untouched";
		int r = api_static_relpath(cases[i].url, buf);

		cr_expect_eq(r, cases[i].r, "%s: got %d", cases[i].url, r);
		if (r == 0)
			cr_expect_str_eq(buf, cases[i].rel, "%s", cases[i].url);
	}
}

/* api_static.c: "the root's own files and those of vendor/, of the types a page loads,
 * not hidden". */
Test(api_static, allowlist)
{
	static const struct {
		const char *rel;
		bool ok;
	} cases[] = {
		{"", true},
		{"index.html", true},
		{"app.js", true},
		{"style.CSS", true},
		{"vendor/uPlot.iife.min.js", true},
		{"vendor/uPlot.min.css", true},
		{"favicon.ico", true},
		{"package.json", false},
		{"package-lock.json", false},
		{"node_modules/uplot/dist/uPlot.iife.min.js", false},
		{"vendor/uPlot.LICENSE", false},
		{"vendor/sub/x.js", false},
		{"vendorx/x.js", false},
		{"sub/index.html", false},
		{".hidden.js", false},
		{"vendor/.x.js", false},
		{"README", false},
		{"notes.txt", false},
		{"app.js.map", false},
		{"vendor", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(api_static_allowed(cases[i].rel), cases[i].ok, "%s", cases[i].rel);
}

/* The realpath() fallback's rule (kernels without openat2): a resolved path is inside the
 * web root only as the root itself or below it, never a sibling sharing its prefix. */
Test(api_static, path_inside_table)
{
	static const struct {
		const char *root, *path;
		bool inside;
	} t[] = {
		{"/srv/web", "/srv/web", true},
		{"/srv/web", "/srv/web/index.html", true},
		{"/srv/web", "/srv/web/vendor/u.js", true},
		{"/srv/web", "/srv/web-private", false},
		{"/srv/web", "/srv/web-private/key.pem", false},
		{"/srv/web", "/srv/we", false},
		{"/srv/web", "/etc/passwd", false},
		{"/", "/etc/passwd", true},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(api_static_path_inside(t[i].root, t[i].path), t[i].inside, "%s in %s",
			     t[i].path, t[i].root);
}

Test(api_static, content_types)
{
	static const struct {
		const char *path, *type;
	} cases[] = {
		{"index.html", "text/html; charset=utf-8"},
		{"a/app.js", "text/javascript; charset=utf-8"},
		{"style.CSS", "text/css; charset=utf-8"},
		{"logo.svg", "image/svg+xml"},
		{"x.png", "image/png"},
		{"d.json", "application/json"},
		{"app.js.map", "application/json"},
		{"favicon.ico", "image/x-icon"},
		{"f.woff2", "font/woff2"},
		{"robots.txt", "text/plain; charset=utf-8"},
		{"README", "application/octet-stream"},
		{".html", "application/octet-stream"}, /* a dotfile, not an extension */
		{"a.html/file", "application/octet-stream"},
		{"archive.tar.gz", "application/octet-stream"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_str_eq(api_content_type(cases[i].path), cases[i].type, "%s",
				 cases[i].path);
}

/* A temp tree: root/ with files, a subdir with and without index.html, and links. */
static char tmp[PATH_MAX], root[PATH_MAX];

static void write_file(const char *dir, const char *name, const char *text)
{
	char p[PATH_MAX * 2];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	cr_assert_not_null(f, "%s", p);
	fputs(text, f);
	fclose(f);
}

static void in_root(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", root, name);
}

static void tree_setup(void)
{
	char p[PATH_MAX * 2], q[PATH_MAX * 2];
	char *real;

	strcpy(tmp, "/tmp/nvmond-test-static-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
	real = realpath(tmp, NULL);
	cr_assert_not_null(real);
	snprintf(root, sizeof(root), "%s/web", real);
	free(real);
	cr_assert_eq(mkdir(root, 0755), 0);
	write_file(tmp, "secret.txt", "SECRET");
	write_file(root, "index.html", "<!doctype html>");
	write_file(root, "app.js", "console.log(1)");
	write_file(root, ".hidden", "dot");
	in_root(p, sizeof(p), "sub");
	cr_assert_eq(mkdir(p, 0755), 0);
	write_file(p, "index.html", "sub index");
	in_root(p, sizeof(p), "empty");
	cr_assert_eq(mkdir(p, 0755), 0);
	/* links: one out of the root, one inside, one to a directory outside */
	snprintf(q, sizeof(q), "%s/secret.txt", tmp);
	in_root(p, sizeof(p), "out.txt");
	cr_assert_eq(symlink(q, p), 0);
	in_root(p, sizeof(p), "in.js");
	cr_assert_eq(symlink("app.js", p), 0);
	in_root(p, sizeof(p), "outdir");
	cr_assert_eq(symlink(tmp, p), 0);
	in_root(p, sizeof(p), "etc");
	cr_assert_eq(symlink("/etc", p), 0);
	/* a sibling whose name starts with the root's: <tmp>/web-private */
	snprintf(p, sizeof(p), "%s-private", root);
	cr_assert_eq(mkdir(p, 0755), 0);
	write_file(p, "key.txt", "KEY");
	write_file(p, "key.js", "KEY");
	in_root(p, sizeof(p), "sibling");
	cr_assert_eq(symlink("../web-private", p), 0);
	/* a link in the middle of a served path, leading out: vendor/ -> ../web-private */
	in_root(p, sizeof(p), "vendor");
	cr_assert_eq(symlink("../web-private", p), 0);
	write_file(root, "package.json", "{}");
}

static void tree_teardown(void)
{
	static const char *const names[] = {
		"web/index.html",   "web/app.js", "web/.hidden",	 "web/sub/index.html",
		"web/out.txt",	    "web/in.js",  "web/outdir",		 "web/etc",
		"web/sub",	    "web/empty",  "web/sibling",	 "web/vendor",
		"web/package.json", "web",	  "web-private/key.txt", "web-private/key.js",
		"web-private",	    "secret.txt",
	};
	char p[PATH_MAX * 2];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmp, names[i]);
		if (unlink(p) < 0)
			rmdir(p);
	}
	rmdir(tmp);
}

static char *read_fd(int fd)
{
	static char buf[256];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	cr_assert_geq(n, 0);
	buf[n] = '\0';
	return buf;
}

Test(api_static, open_table, .init = tree_setup, .fini = tree_teardown)
{
	static const struct {
		const char *url;
		int r;
		const char *body, *type;
	} cases[] = {
		{"/", 0, "<!doctype html>", "text/html; charset=utf-8"},
		{"/index.html", 0, "<!doctype html>", "text/html; charset=utf-8"},
		{"/app.js", 0, "console.log(1)", "text/javascript; charset=utf-8"},
		/* api_static.c: only the dashboard's files (the allowlist) */
		{"/.hidden", -ENOENT, NULL, NULL},
		{"/sub", -ENOENT, NULL, NULL},
		{"/sub/", -ENOENT, NULL, NULL},
		{"/sub/index.html", -ENOENT, NULL, NULL},
		{"/package.json", -ENOENT, NULL, NULL},
		/* "no component of it may lead outside": a link in the middle */
		{"/vendor/key.js", -ENOENT, NULL, NULL},
		{"/in.js", 0, "console.log(1)", "text/javascript; charset=utf-8"},
		{"/empty/", -ENOENT, NULL, NULL},
		{"/missing.html", -ENOENT, NULL, NULL},
		{"/../secret.txt", -ENOENT, NULL, NULL},
		{"/sub/../../secret.txt", -ENOENT, NULL, NULL},
		{"/out.txt", -ENOENT, NULL, NULL},
		{"/outdir/secret.txt", -ENOENT, NULL, NULL},
		{"/outdir/", -ENOENT, NULL, NULL},
		{"/etc/passwd", -ENOENT, NULL, NULL},
		/* README Static files: nothing outside web_root, not a sibling sharing its prefix */
		{"/sibling/key.txt", -ENOENT, NULL, NULL},
		{"/index.html\x01.txt", -ENOENT, NULL, NULL},
		{"/index.html/", -ENOENT, NULL, NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *type = "unset";
		uint64_t size = 12345;
		int fd = -7;
		int r = api_static_open(root, cases[i].url, &fd, &size, &type);

		cr_expect_eq(r, cases[i].r, "%s: got %d", cases[i].url, r);
		if (r < 0) {
			cr_expect_eq(fd, -7, "%s: fd written on failure", cases[i].url);
			continue;
		}
		if (!cases[i].body) { /* served what must be refused: reported above */
			close(fd);
			continue;
		}
		cr_expect_eq(size, strlen(cases[i].body), "%s", cases[i].url);
		cr_expect_str_eq(type, cases[i].type, "%s", cases[i].url);
		cr_expect_str_eq(read_fd(fd), cases[i].body, "%s", cases[i].url);
		close(fd);
	}
}

Test(api_static, encoded_traversal_after_unescape, .init = tree_setup, .fini = tree_teardown)
{
	static const char *const urls[] = {
		"/%2e%2e/secret.txt",
		"/%2E%2E%2Fsecret.txt",
		"/sub/..%2f..%2fsecret.txt",
		"/index.html%00.txt",
	};

	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		char buf[128];
		const char *type;
		uint64_t size;
		int fd;

		strcpy(buf, urls[i]);
		api_unescape(buf);
		cr_expect_eq(api_static_open(root, buf, &fd, &size, &type), -ENOENT, "%s", urls[i]);
	}
}

Test(api_route, pattern_match)
{
	const struct {
		const char *pattern, *path;
		int want;
		int64_t id;
	} cases[] = {
		{"/api/v1/alerts", "/api/v1/alerts", 1, 0},
		{"/api/v1/alerts", "/api/v1/alerts/", 0, 0},
		{"/api/v1/alerts", "/api/v1/alert", 0, 0},
		{"/api/v1/alerts/{id}/ack", "/api/v1/alerts/42/ack", 1, 42},
		{"/api/v1/alerts/{id}/ack", "/api/v1/alerts/42/ack/", 0, 0},
		{"/api/v1/alerts/{id}/ack", "/api/v1/alerts//ack", 0, 0},
		{"/api/v1/alerts/{id}/ack", "/api/v1/alerts/4x/ack", -EINVAL, 0},
		{"/api/v1/alerts/{id}/ack", "/api/v1/alerts/0/ack", -EINVAL, 0},
		{"/api/v1/alerts/{id}/ack", "/api/v1/alerts/-3/ack", -EINVAL, 0},
		{"/api/v1/alerts/{id}/ack", "/api/v1/alerts/42/nack", 0, 0},
		{"/api/v1/devices/{id}/events", "/api/v1/devices/9223372036854775807/events", 1,
		 INT64_MAX},
		{"/api/v1/devices/{id}/events", "/api/v1/devices/9223372036854775808/events",
		 -EINVAL, 0},
		{"/api/v1/probes/{id}", "/api/v1/probes/3", 1, 3},
		{"/metrics", "/metrics", 1, 0},
		{"/metrics", "/metricsx", 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[API_ERR_MAX];
		int64_t id = -7;
		int r = api_pattern_match(cases[i].pattern, cases[i].path, &id, err);
		cr_expect_eq(r, cases[i].want, "%s vs %s: %d", cases[i].pattern, cases[i].path, r);
		if (r == 1)
			cr_expect_eq(id, cases[i].id, "%s", cases[i].path);
		else
			cr_expect_eq(id, -7, "untouched when not matched: %s", cases[i].path);
	}
}
