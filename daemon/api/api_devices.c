/* SPDX-License-Identifier: MIT */
/*
 * The core endpoints: liveness, the devices from the fleet, and a device's
 * samples from the store, streamed (api_stream.c) so that 100,000 of them never
 * sit in memory as one JSON tree.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/api_devices.h"
#include "nvmond/api/api_route.h"
#include "nvmond/api/errors_api.h"
#include "nvmond/api/render.h"
#include "nvmond/core/log.h"
#include "nvmond/store/store.h"

static void healthz_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	(void)req;
	(void)ctx;
	ret->json = json_pack("{s:s}", "status", "ok");
}

/*
 * Everything in the answer comes from the fleet, so it is rendered once per
 * generation of the fleet (each poll or change) and served as the same bytes,
 * with the same entity tag, until the next one.
 */
static void devices_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	(void)ctx;
	struct fleet_device *v = NULL;
	json_t *list, *o;
	uint64_t gen;
	size_t n = 0;
	char *text;

	ret->content_type = "application/json";
	if (fleet_memo_get(req->fleet, &ret->text, &ret->text_len) == 0)
		return;
	if (fleet_snapshot_gen(req->fleet, &v, &n, &gen) < 0)
		return api_reply_error(ret, 500, "out of memory");
	list = json_array();
	for (size_t i = 0; list && i < n; i++)
		if (json_array_append_new(list, render_fleet_device(&v[i])) < 0) {
			json_decref(list);
			list = NULL;
		}
	free(v);
	o = list ? json_pack("{s:o}", "devices", list) : NULL;
	text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!text)
		return api_reply_error(ret, 500, "out of memory");
	ret->text = text;
	ret->text_len = strlen(text);
	(void)fleet_memo_put(req->fleet, gen, text, ret->text_len); /* best effort */
}

static void device_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	(void)ctx;
	struct fleet_device d;

	if (fleet_get(req->fleet, req->id, &d) < 0)
		return api_reply_error(ret, 404, "no such device");
	ret->json = render_fleet_device(&d);
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory");
}

#define SAMPLES_FIRST_PAGE 1000 /* read by the handler: a database error is still a 500 */

/* A /samples body being sent: the stream, and where its next pages come from. */
struct samples_body {
	struct api_samples_stream *st;
	struct api *api;
	int64_t device_id, to_ms;
};

/* api_samples_page_fn: a pooled handle for each page, so no transaction stays open. */
static int samples_page(void *ctx, int64_t from_ms, size_t max, struct sample **ret, size_t *ret_n)
{
	struct samples_body *b = ctx;
	char err[STORE_ERR_MAX];
	struct store *s;
	int r;

	r = api_store_take(b->api, &s, err);
	if (r < 0) {
		log_warn("api: samples of device %" PRId64 ": %s", b->device_id, err);
		return r;
	}
	r = store_samples_range(s, b->device_id, from_ms, b->to_ms, max, ret, ret_n);
	if (r < 0)
		log_warn("api: reading samples of device %" PRId64 ": %s", b->device_id,
			 store_strerror(s));
	api_store_give(b->api, s, r < 0);
	return r;
}

static ssize_t samples_read(void *cls, char *buf, size_t max)
{
	struct samples_body *b = cls;

	return api_samples_stream_read(b->st, buf, max);
}

static void samples_free(void *cls)
{
	struct samples_body *b = cls;

	api_samples_stream_free(b->st);
	free(b);
}

static void samples_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	(void)ctx;
	struct samples_body *b;
	struct api_samples_query q;
	char err[API_ERR_MAX];
	struct fleet_device d;
	struct sample *v = NULL;
	size_t n = 0;

	if (api_samples_query_parse(req->params, req->n_params, req->now_ms, &q, err) < 0)
		return api_reply_error(ret, 400, "%s", err);
	if (fleet_get(req->fleet, req->id, &d) < 0)
		return api_reply_error(ret, 404, "no such device");
	size_t first = q.limit < SAMPLES_FIRST_PAGE ? q.limit : SAMPLES_FIRST_PAGE;
	if (store_samples_range(req->store, req->id, q.from_ms, q.to_ms, first, &v, &n) < 0) {
		log_warn("api: reading samples of device %" PRId64 ": %s", req->id,
			 store_strerror(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	b = calloc(1, sizeof(*b));
	if (!b || api_samples_stream_new(req->id, q.from_ms, q.to_ms, v, n, &b->st) < 0) {
		free(b);
		free(v);
		return api_reply_error(ret, 500, "out of memory");
	}
	*b = (struct samples_body){
		.st = b->st, .api = req->api, .device_id = req->id, .to_ms = q.to_ms};
	/* The rest a page at a time while it is sent: a slow client pins one page. */
	if (n == first)
		api_samples_stream_more(b->st, samples_page, b, q.limit);
	api_reply_stream(ret, samples_read, samples_free, b, "application/json");
}

static const struct api_endpoint endpoints[] = {
	{"GET", "/healthz", API_EP_OPEN | API_EP_HEALTH, healthz_get, NULL},
	{"GET", "/api/v1/devices", 0, devices_get, NULL},
	{"GET", "/api/v1/devices/{id}", 0, device_get, NULL},
	{"GET", "/api/v1/devices/{id}/samples", API_EP_STORE | API_EP_QUERY, samples_get, NULL},
	{"GET", "/api/v1/devices/{id}/errors", API_EP_STORE | API_EP_QUERY, errors_get, NULL},
};

const struct api_endpoint *api_devices_endpoints(size_t *ret_n)
{
	*ret_n = sizeof(endpoints) / sizeof(endpoints[0]);
	return endpoints;
}
