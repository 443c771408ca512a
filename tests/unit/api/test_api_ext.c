/* SPDX-License-Identifier: MIT */
/*
 * Extension endpoints end to end: a real server on port 0, raw HTTP/1.0 over TCP,
 * a bearer token, request bodies, 405/413/401, and a handler that changes
 * main-loop state through mainq_call() while the loop runs in its own thread.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "nvmond/api/api.h"
#include "nvmond/api/api_devices.h"
#include "nvmond/api/api_params.h"
#include "nvmond/core/mainq.h"
#include "nvmond/store/store.h"

static char dir[PATH_MAX], db[PATH_MAX + 16];
static struct fleet *fleet;
static struct loop *loop;
static struct mainq *mq;
static pthread_t loop_thread;
static bool loop_joined;
static int counter;		/* main-loop state: touched only on the loop thread */
static pthread_t counter_owner; /* which thread touched it last */

static void *run_loop(void *arg)
{
	(void)arg;
	loop_run(loop);
	return NULL;
}

static int64_t stop_timer(struct loop *l, void *userdata)
{
	(void)userdata;
	loop_stop(l);
	return -1;
}

static void setup(void)
{
	char err[STORE_ERR_MAX];
	struct store *s;

	strcpy(dir, "/tmp/nvmond-test-api-ext-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/db", dir);
	cr_assert_eq(store_open(db, &s, err), 0, "%s", err);
	store_close(s);
	fleet = fleet_new();
	loop = loop_new();
	cr_assert_eq(mainq_new(loop, &mq), 0);
	cr_assert_eq(pthread_create(&loop_thread, NULL, run_loop, NULL), 0);
}

static void teardown(void)
{
	char path[PATH_MAX + 32];

	mainq_shutdown(mq);
	/* The loop thread stops itself through a timer: loops are single-threaded. */
	if (!loop_joined)
		pthread_join(loop_thread, NULL);
	mq = mainq_free(mq);
	loop = loop_free(loop);
	fleet = fleet_free(fleet);
	for (const char *n = "db-wal\0db-shm\0db\0"; *n; n += strlen(n) + 1) {
		snprintf(path, sizeof(path), "%s/%s", dir, n);
		unlink(path);
	}
	rmdir(dir);
}

static int bump(void *arg)
{
	counter += *(int *)arg;
	counter_owner = pthread_self();
	return counter;
}

static int arm_stop(void *arg)
{
	(void)arg;
	return (int)loop_add_timer(loop, 0, stop_timer, NULL);
}

/* POST /api/v1/things/{id}/bump: adds the JSON body's "by" on the main loop. */
static void h_bump(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	json_error_t jerr;
	json_t *body = json_loads(req->body, 0, &jerr);
	int by;

	if (!body || json_unpack(body, "{s:i}", "by", &by) < 0) {
		json_decref(body);
		api_reply_error(ret, 400, "body must be {\"by\": integer}");
		return;
	}
	json_decref(body);
	int r = mainq_call(ctx, bump, &by);
	ret->json = json_pack("{s:I, s:i}", "id", (json_int_t)req->id, "counter", r);
}

static void h_text(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	(void)ctx;
	const char *who = "nobody";
	const struct api_param params[] = {
		{.name = "who", .kind = API_PARAM_STRING, .dest.str = &who}};

	if (api_params_parse(req, params, 1, ret) < 0)
		return;
	ret->text = strdup(who);
	ret->text_len = strlen(ret->text);
	ret->content_type = "text/plain; version=0.0.4";
}

static const struct api_endpoint endpoints[] = {
	{"POST", "/api/v1/things/{id}/bump", API_EP_AUTH, h_bump, NULL},
	{"GET", "/metrics-like", API_EP_QUERY, h_text, NULL},
};

static struct api *start(const char *token)
{
	struct api_endpoint eps[2 + 8];
	size_t n_core;
	const struct api_endpoint *core = api_devices_endpoints(&n_core);

	cr_assert_leq(n_core, 8);
	memcpy(eps, endpoints, sizeof(endpoints));
	memcpy(eps + 2, core, n_core * sizeof(*core)); /* /healthz among them */
	eps[0].ctx = mq;
	struct api_config c = {
		.host = "127.0.0.1",
		.db_path = db,
		.threads = 2,
		.timeout_ms = 5000,
		.fleet = fleet,
		.endpoints = eps, /* copied by api_start: a stack array is fine */
		.n_endpoints = 2 + n_core,
		.token = token,
	};
	char err[API_ERR_MAX] = "";
	struct api *a = NULL;

	cr_assert_eq(api_start(&c, &a, err), 0, "%s", err);
	return a;
}

/* One request; returns the status, the whole response in *ret (malloc()ed). */
static int http(uint16_t port, const char *method, const char *path, const char *headers,
		const char *body, char **ret)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int fd, status = -1;
	ssize_t k;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	dprintf(fd, "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n%sContent-Length: %zu\r\n\r\n", method,
		path, headers, body ? strlen(body) : 0);
	if (body) {
		size_t off = 0, n = strlen(body);
		while (off < n) {
			k = write(fd, body + off, n - off);
			if (k <= 0)
				break; /* the server may refuse a large body early */
			off += (size_t)k;
		}
	}
	while ((k = read(fd, buf + len, cap - len - 1)) > 0)
		len += (size_t)k;
	close(fd);
	buf[len] = '\0';
	sscanf(buf, "HTTP/1.%*d %d", &status);
	*ret = buf;
	return status;
}

TestSuite(api_ext, .init = setup, .fini = teardown);

Test(api_ext, token_body_and_main_loop)
{
	struct api *a = start("s3cret");
	uint16_t port = api_port(a);
	char *resp;

	cr_expect_eq(http(port, "POST", "/api/v1/things/7/bump", "", "{\"by\":2}", &resp), 401);
	cr_expect(strstr(resp, "bearer token"), "%s", resp);
	free(resp);
	cr_expect_eq(http(port, "POST", "/api/v1/things/7/bump", "Authorization: Bearer wrong\r\n",
			  "{\"by\":2}", &resp),
		     401);
	free(resp);
	cr_expect_eq(http(port, "POST", "/api/v1/things/7/bump", "Authorization: Bearer s3cre\r\n",
			  "{\"by\":2}", &resp),
		     401, "a prefix of the token is not the token");
	free(resp);
	cr_expect_eq(counter, 0, "nothing ran without the token");

	for (int i = 1; i <= 3; i++) {
		cr_expect_eq(http(port, "POST", "/api/v1/things/7/bump",
				  "Authorization: Bearer s3cret\r\n", "{\"by\":5}", &resp),
			     200, "%s", resp);
		json_t *j = json_loads(strstr(resp, "\r\n\r\n") + 4, 0, NULL);
		cr_assert_not_null(j, "%s", resp);
		cr_expect_eq(json_integer_value(json_object_get(j, "id")), 7);
		cr_expect_eq(json_integer_value(json_object_get(j, "counter")), 5 * i);
		json_decref(j);
		free(resp);
	}
	cr_expect(pthread_equal(counter_owner, loop_thread), "ran on the loop thread");

	cr_expect_eq(http(port, "POST", "/api/v1/things/7/bump", "Authorization: Bearer s3cret\r\n",
			  "not json", &resp),
		     400);
	free(resp);
	cr_expect_eq(http(port, "POST", "/api/v1/things/x/bump", "", "{}", &resp), 400);
	free(resp);
	cr_expect_eq(http(port, "GET", "/api/v1/things/7/bump", "", NULL, &resp), 405);
	cr_expect(strstr(resp, "Allow: POST"), "%s", resp);
	free(resp);

	char *big = malloc(API_BODY_MAX + 100);
	memset(big, 'x', API_BODY_MAX + 99);
	big[API_BODY_MAX + 99] = '\0';
	cr_expect_eq(http(port, "POST", "/api/v1/things/7/bump", "Authorization: Bearer s3cret\r\n",
			  big, &resp),
		     413);
	free(resp);
	free(big);
	cr_expect_eq(counter, 15, "refused requests changed nothing");

	cr_expect_eq(http(port, "GET", "/metrics-like?who=me", "", NULL, &resp), 200);
	cr_expect(strstr(resp, "Content-Type: text/plain; version=0.0.4"), "%s", resp);
	cr_expect(strstr(resp, "\r\n\r\nme"), "%s", resp);
	free(resp);
	cr_expect_eq(http(port, "DELETE", "/healthz", "", NULL, &resp), 405);
	free(resp);
	cr_expect_eq(http(port, "POST", "/api/v1/nothing", "", "{}", &resp), 404);
	free(resp);

	a = api_stop(a);
	mainq_call(mq, arm_stop, NULL);
}

Test(api_ext, no_token_configured_refuses_mutations)
{
	struct api *a = start(NULL);
	char *resp;

	cr_expect_eq(http(api_port(a), "POST", "/api/v1/things/1/bump",
			  "Authorization: Bearer \r\n", "{\"by\":1}", &resp),
		     401);
	cr_expect(strstr(resp, "[http] token"), "%s", resp);
	free(resp);
	cr_expect_eq(counter, 0);
	a = api_stop(a);
	mainq_call(mq, arm_stop, NULL);
}

/* A caller waiting while the loop goes away is released, never stuck. */
Test(api_ext, shutdown_releases_callers)
{
	int one = 1;

	mainq_call(mq, arm_stop, NULL);
	pthread_join(loop_thread, NULL);
	mainq_shutdown(mq);
	loop_joined = true;
	cr_expect_eq(mainq_call(mq, bump, &one), -ECANCELED);
	cr_expect_eq(counter, 0);
}
