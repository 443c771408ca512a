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

static ssize_t samples_read(void *cls, char *buf, size_t max)
{
	return api_samples_stream_read(cls, buf, max);
}

static void samples_free(void *cls)
{
	api_samples_stream_free(cls);
}

static void samples_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	(void)ctx;
	struct api_samples_stream *st;
	struct api_samples_query q;
	char err[API_ERR_MAX];
	struct fleet_device d;
	struct sample *v = NULL;
	size_t n = 0;

	if (api_samples_query_parse(req->params, req->n_params, req->now_ms, &q, err) < 0)
		return api_reply_error(ret, 400, "%s", err);
	if (fleet_get(req->fleet, req->id, &d) < 0)
		return api_reply_error(ret, 404, "no such device");
	if (store_samples_range(req->store, req->id, q.from_ms, q.to_ms, q.limit, &v, &n) < 0) {
		log_warn("api: reading samples of device %" PRId64 ": %s", req->id,
			 store_strerror(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	if (api_samples_stream_new(req->id, q.from_ms, q.to_ms, v, n, &st) < 0) {
		free(v);
		return api_reply_error(ret, 500, "out of memory");
	}
	api_reply_stream(ret, samples_read, samples_free, st, "application/json");
}

static const struct api_endpoint endpoints[] = {
	{"GET", "/healthz", API_EP_OPEN, healthz_get, NULL},
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
