/* SPDX-License-Identifier: MIT */
/*
 * `nvmond selftest --device ID --short|--extended|--abort [--nsid N] [--wait]
 * [--json]`: asks the running daemon through its API (the daemon owns the
 * drives' self-test state, the gates and the history), then with --wait
 * follows the test to its result, with a progress bar on a terminal.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "nvmond/api/api_conf.h"
#include "nvmond/api/api_tls.h"
#include "nvmond/selftest/selftest_cli.h"
#include "nvmond/util/timefmt.h"

#define DEVICES		 "/api/v1/devices"
#define CLI_TIMEOUT_S	 10
#define WAIT_MIN_S	 (10 * 60) /* a short test takes at most 2 minutes (NVMe 2.0 5.22.2) */
#define WAIT_EDSTT_TIMES 3

struct buf {
	char *p;
	size_t n;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct buf *b = ctx;
	size_t len = size * nmemb;
	char *p = realloc(b->p, b->n + len + 1);

	if (!p)
		return 0;
	memcpy(p + b->n, data, len);
	b->p = p;
	b->n += len;
	b->p[b->n] = '\0';
	return len;
}

struct client {
	char base[300]; /* "http://127.0.0.1:9450" */
	char auth[CFG_TOKEN_MAX + 32];
	char pin[API_TLS_PIN_MAX]; /* HTTPS: the daemon's own public key; "" = HTTP */
};

/*
 * @method @path with @body (NULL: none) to the daemon. Return: the HTTP
 * status with *ret the JSON answer (NULL when it is none), or -1 when the
 * daemon cannot be reached (printed).
 */
static long call(const struct client *c, const char *method, const char *path, const char *body,
		 json_t **ret)
{
	struct curl_slist *h = NULL;
	struct buf b = {NULL, 0};
	char url[512];
	long status = -1;
	CURL *cu = curl_easy_init();

	*ret = NULL;
	if (!cu) {
		fprintf(stderr, "nvmond: out of memory\n");
		return -1;
	}
	snprintf(url, sizeof(url), "%s%s", c->base, path);
	if (c->auth[0])
		h = curl_slist_append(h, c->auth);
	if (body)
		h = curl_slist_append(h, "Content-Type: application/json");
	curl_easy_setopt(cu, CURLOPT_URL, url);
	curl_easy_setopt(cu, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(cu, CURLOPT_TIMEOUT, (long)CLI_TIMEOUT_S);
	curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, &b);
	if (c->pin[0]) {
		/* The daemon's own key, pinned: the names in its certificate do not matter. */
		curl_easy_setopt(cu, CURLOPT_PINNEDPUBLICKEY, c->pin);
		curl_easy_setopt(cu, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(cu, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (body)
		curl_easy_setopt(cu, CURLOPT_POSTFIELDS, body);
	CURLcode cr = curl_easy_perform(cu);
	if (cr != CURLE_OK) {
		fprintf(stderr,
			"nvmond: cannot reach the daemon at %s: %s (self-tests are started by "
			"the running daemon: start it, e.g. systemctl start nvmond)\n",
			c->base, curl_easy_strerror(cr));
	} else {
		curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &status);
		if (b.p)
			*ret = json_loads(b.p, 0, NULL);
	}
	free(b.p);
	curl_slist_free_all(h);
	curl_easy_cleanup(cu);
	return status;
}

static void print_json(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;

	printf("%s\n", s ? s : "{}");
	free(s);
}

static const char *error_of(json_t *j)
{
	return json_string_value(json_object_get(j, "error")) ?: "no answer";
}

/* @want: an id, a serial, a controller or namespace name ("nvme0", "nvme0n1"). */
static bool device_match(json_t *d, const char *want)
{
	char idbuf[32];
	json_t *ns;
	size_t i;

	snprintf(idbuf, sizeof(idbuf), "%" JSON_INTEGER_FORMAT,
		 json_integer_value(json_object_get(d, "id")));
	if (strcmp(idbuf, want) == 0)
		return true;
	const char *keys[] = {"serial", "name"};
	for (i = 0; i < 2; i++) {
		const char *v = json_string_value(json_object_get(d, keys[i]));
		if (v && strcmp(v, want) == 0)
			return true;
	}
	json_array_foreach(json_object_get(d, "namespaces"), i, ns)
	{
		const char *v = json_string_value(json_object_get(ns, "name"));
		if (v && strcmp(v, want) == 0)
			return true;
	}
	return false;
}

/* The daemon's id of @want. Return: the id, or -1 (printed). */
static json_int_t find_device(const struct client *c, const char *want, char *ret_name, size_t len)
{
	json_t *j, *d;
	size_t i;
	long st = call(c, "GET", DEVICES, NULL, &j);
	json_int_t id = -1;

	if (st < 0)
		return -1;
	if (st != 200) {
		fprintf(stderr, "nvmond: GET /api/v1/devices: HTTP %ld: %s\n", st, error_of(j));
		json_decref(j);
		return -1;
	}
	json_array_foreach(json_object_get(j, "devices"), i, d)
	{
		if (device_match(d, want)) {
			id = json_integer_value(json_object_get(d, "id"));
			snprintf(ret_name, len, "%s (%s, serial %s)",
				 json_string_value(json_object_get(d, "name")) ?: "?",
				 json_string_value(json_object_get(d, "model")) ?: "?",
				 json_string_value(json_object_get(d, "serial")) ?: "?");
			break;
		}
	}
	json_decref(j);
	if (id < 0)
		fprintf(stderr,
			"nvmond: the daemon knows no device '%s' (an id, serial, controller or "
			"namespace name of GET /api/v1/devices)\n",
			want);
	return id;
}

static json_t *get_selftests(const struct client *c, json_int_t id)
{
	char path[96];
	json_t *j;

	snprintf(path, sizeof(path), "%s/%" JSON_INTEGER_FORMAT "/selftests?limit=1", DEVICES, id);
	long st = call(c, "GET", path, NULL, &j);
	if (st != 200) {
		if (st > 0)
			fprintf(stderr, "nvmond: GET %s: HTTP %ld: %s\n", path, st, error_of(j));
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_int_t newest_id(json_t *st)
{
	json_t *h = json_array_get(json_object_get(st, "history"), 0);

	return h ? json_integer_value(json_object_get(h, "id")) : 0;
}

static void print_result(json_t *r, const char *name)
{
	const char *type = json_string_value(json_object_get(r, "type")) ?: "?";
	const char *res = json_string_value(json_object_get(r, "result")) ?: "?";
	json_t *seg = json_object_get(r, "segment"), *lba = json_object_get(r, "lba");

	printf("%s self-test on %s: %s", type, name, res);
	if (json_is_integer(seg))
		printf(", segment %" JSON_INTEGER_FORMAT, json_integer_value(seg));
	if (json_is_integer(lba))
		printf(", first failing LBA %" JSON_INTEGER_FORMAT, json_integer_value(lba));
	if (json_is_integer(json_object_get(r, "poh")))
		printf(" (at %" JSON_INTEGER_FORMAT " power-on hours)",
		       json_integer_value(json_object_get(r, "poh")));
	printf("\n");
}

static volatile sig_atomic_t interrupted;

static void on_int(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Follow the running test until a result newer than @prev_id shows. */
static int wait_result(const struct client *c, json_int_t id, const char *name, json_int_t prev_id,
		       bool json, bool tty)
{
	struct sigaction sa = {.sa_handler = on_int};
	int64_t start = timefmt_mono_ms(); /* a wait: immune to steps of the wall clock */
	int limit_s = WAIT_MIN_S;
	bool drew = false;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (;;) {
		json_t *st = get_selftests(c, id);
		if (!st)
			return 1;
		json_t *run = json_object_get(st, "running");
		json_int_t edstt = json_integer_value(json_object_get(st, "edstt_min"));
		if (edstt > 0 && edstt * 60 * WAIT_EDSTT_TIMES > limit_s)
			limit_s = (int)(edstt * 60 * WAIT_EDSTT_TIMES);
		if (json_is_object(run)) {
			if (tty) {
				json_int_t pct =
					json_integer_value(json_object_get(run, "percent"));
				char bar[31];
				for (int i = 0; i < 30; i++)
					bar[i] = i < pct * 30 / 100 ? '#' : '.';
				bar[30] = '\0';
				fprintf(stderr,
					"\r%-8s self-test [%s] %3" JSON_INTEGER_FORMAT " %% ",
					json_string_value(json_object_get(run, "type")) ?: "?", bar,
					pct);
				fflush(stderr);
				drew = true;
			}
		} else if (newest_id(st) > prev_id) {
			json_t *r = json_array_get(json_object_get(st, "history"), 0);
			bool passed = json_is_true(json_object_get(r, "passed"));
			if (drew)
				fprintf(stderr, "\n");
			if (json)
				print_json(r);
			else
				print_result(r, name);
			json_decref(st);
			return passed ? 0 : 1;
		}
		json_decref(st);
		if (interrupted || timefmt_mono_ms() - start > (int64_t)limit_s * 1000) {
			if (drew)
				fprintf(stderr, "\n");
			fprintf(stderr,
				"nvmond: %s: the test goes on in the drive; nvmond stores its "
				"result "
				"(GET /api/v1/devices/%" JSON_INTEGER_FORMAT "/selftests)\n",
				interrupted ? "interrupted" : "no result in time", id);
			return 1;
		}
		sleep(1);
	}
}

static int client_init(const struct cfg *cfg, struct client *c)
{
	const char *host = cfg->listen_host;
	const char *scheme = http_conf(cfg)->tls_cert[0] ? "https" : "http";
	char err[API_ERR_MAX];

	/* A wildcard address is reached through the loopback. */
	if (strcmp(host, "0.0.0.0") == 0 || host[0] == '\0')
		host = "127.0.0.1";
	else if (strcmp(host, "::") == 0)
		host = "::1";
	snprintf(c->base, sizeof(c->base), strchr(host, ':') ? "%s://[%s]:%u" : "%s://%s:%u",
		 scheme, host, cfg->listen_port);
	c->auth[0] = '\0';
	if (http_conf(cfg)->token[0])
		snprintf(c->auth, sizeof(c->auth), "Authorization: Bearer %s",
			 http_conf(cfg)->token);
	c->pin[0] = '\0';
	if (http_conf(cfg)->tls_cert[0] && api_tls_pin(http_conf(cfg)->tls_cert, c->pin, err) < 0) {
		fprintf(stderr, "nvmond: %s\n", err);
		return -EINVAL;
	}
	return 0;
}

int selftest_cli(const struct cfg *cfg, const char *device, uint8_t stc, uint32_t nsid, bool wait,
		 bool json)
{
	struct client c;
	char name[256], path[128], body[128];
	json_t *j = NULL, *st;
	int status = 1;

	if (client_init(cfg, &c) < 0)
		return 1;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	json_int_t id = find_device(&c, device, name, sizeof(name));
	if (id < 0)
		goto out;
	st = get_selftests(&c, id);
	if (!st)
		goto out;
	json_int_t prev = newest_id(st);
	bool running = json_is_object(json_object_get(st, "running"));
	json_decref(st);
	if (stc) {
		const char *what = stc == SELFTEST_CODE_ABORT ? "abort" : "";
		snprintf(path, sizeof(path), "%s/%" JSON_INTEGER_FORMAT "/selftests%s%s", DEVICES,
			 id, what[0] ? "/" : "", what);
		if (stc == SELFTEST_CODE_ABORT)
			snprintf(body, sizeof(body), "{\"origin\": \"cli\"}");
		else if (nsid != DEV_SELFTEST_NSID_ALL)
			snprintf(body, sizeof(body),
				 "{\"type\": \"%s\", \"nsid\": %" PRIu32 ", \"origin\": \"cli\"}",
				 selftest_code_name(stc), nsid);
		else
			snprintf(body, sizeof(body), "{\"type\": \"%s\", \"origin\": \"cli\"}",
				 selftest_code_name(stc));
		long hs = call(&c, "POST", path, body, &j);
		if (hs < 0)
			goto out;
		if (hs != 200 && hs != 202) {
			fprintf(stderr, "nvmond: %s: %s\n", name, error_of(j));
			if (json)
				print_json(j);
			goto out;
		}
		if (stc == SELFTEST_CODE_ABORT || !wait) {
			if (json)
				print_json(j);
			else if (stc == SELFTEST_CODE_ABORT)
				printf("self-test on %s aborted\n", name);
			else
				printf("%s self-test started on %s; follow it with: nvmond "
				       "selftest "
				       "--device %s --wait\n",
				       selftest_code_name(stc), name, device);
			status = 0;
			goto out;
		}
	} else if (!running) {
		fprintf(stderr, "nvmond: no self-test is running on %s\n", name);
		goto out;
	}
	status = wait_result(&c, id, name, prev, json, isatty(2));
out:
	json_decref(j);
	curl_global_cleanup();
	return status;
}
