/* SPDX-License-Identifier: MIT */
/*
 * A drive's Error Information log entries as stored (store_errlog.c), served
 * at GET /api/v1/devices/{id}/errors, each with its status named and its class.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "nvmond/api/api_params.h"
#include "nvmond/api/errors_api.h"
#include "nvmond/api/render.h"
#include "nvmond/core/log.h"
#include "nvmond/store/store.h"
#include "nvmond/util/timefmt.h"

static json_t *u64_json(uint64_t v)
{
	return render_u128((u128)v);
}

json_t *render_error_counts(const uint64_t c[_ERRCLASS_MAX])
{
	json_t *o = json_object();
	uint64_t total = 0;

	if (!o)
		return NULL;
	for (int k = 0; k < _ERRCLASS_MAX; k++) {
		total += c[k];
		if (json_object_set_new(o, errclass_name(k), u64_json(c[k])) < 0)
			return json_decref(o), NULL;
	}
	if (json_object_set_new(o, "total", u64_json(total)) < 0)
		return json_decref(o), NULL;
	return o;
}

/* A 16-bit field whose FFFFh means "not specific to a command": null then. */
static json_t *na16_json(uint16_t v)
{
	return v == ERRLOG_NA16 ? json_null() : json_integer(v);
}

json_t *render_errlog_row(const struct errlog_row *r)
{
	const struct errlog_entry *e = &r->e;
	const char *name = errlog_status_name(e->sct, e->sc);
	char seen[TIMEFMT_MAX];
	bool pel = e->param_err_loc != ERRLOG_NA16;

	return json_pack(
		"{s:o, s:s, s:b, s:b, s:s, s:I, s:o, s:o, s:I, s:I, s:I, s:s, s:o, s:b, s:b, s:I, "
		"s:o, s:I, s:o, s:o, s:o, s:o}",
		"error_count", u64_json(e->error_count), "class", errclass_name(r->cls), "alerts",
		errclass_alerts(r->cls) && !r->before_watch, "before_watch", r->before_watch,
		"seen", timefmt_rfc3339(r->seen_ms, seen), "seen_ms", (json_int_t)r->seen_ms,
		"sqid", na16_json(e->sqid), "cid", na16_json(e->cid), "status",
		(json_int_t)e->status_raw, "sct", (json_int_t)e->sct, "sc", (json_int_t)e->sc,
		"sct_name", errlog_sct_name(e->sct), "status_name",
		name ? json_string(name) : json_null(), "dnr", e->dnr, "more", e->more, "crd",
		(json_int_t)e->crd, "lba", u64_json(e->lba), "nsid", (json_int_t)e->nsid,
		"param_loc", na16_json(e->param_err_loc), "param_byte",
		pel ? json_integer(e->pel_byte) : json_null(), "param_bit",
		pel ? json_integer(e->pel_bit) : json_null(), "cmd_specific",
		u64_json(e->cmd_specific));
}

void errors_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	(void)ctx;
	int64_t from_ms = 0, to_ms = req->now_ms, limit = ERRORS_LIMIT_DEFAULT;
	const struct api_param params[] = {
		{.name = "from", .kind = API_PARAM_TIME, .dest.i64 = &from_ms},
		{.name = "to", .kind = API_PARAM_TIME, .dest.i64 = &to_ms},
		{.name = "limit",
		 .kind = API_PARAM_INT,
		 .min = 1,
		 .max = ERRORS_LIMIT_MAX,
		 .dest.i64 = &limit},
	};
	struct errlog_row *v = NULL;
	uint64_t counts[_ERRCLASS_MAX];
	struct fleet_device fd;
	char from[TIMEFMT_MAX], to[TIMEFMT_MAX];
	size_t n = 0;
	int r;

	if (api_params_parse(req, params, sizeof(params) / sizeof(params[0]), ret) < 0)
		return;
	if (from_ms > to_ms)
		return api_reply_error(ret, 400, "parameter 'from' is after 'to'");
	if (fleet_get(req->fleet, req->id, &fd) < 0)
		return api_reply_error(ret, 404, "no such device");
	r = store_errors_count(req->store, req->id, from_ms, to_ms, counts);
	if (r == 0)
		r = store_errors_range(req->store, req->id, from_ms, to_ms, (size_t)limit, &v, &n);
	if (r < 0) {
		log_warn("api: reading the error log entries of device %" PRId64 ": %s", req->id,
			 store_strerror(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < n; i++)
		if (json_array_append_new(arr, render_errlog_row(&v[i])) < 0) {
			json_decref(arr);
			arr = NULL;
		}
	free(v);
	ret->json = arr ? json_pack("{s:I, s:s, s:s, s:b, s:o, s:o}", "device_id",
				    (json_int_t)req->id, "from", timefmt_rfc3339(from_ms, from),
				    "to", timefmt_rfc3339(to_ms, to), "read", fd.errors_read,
				    "counts", render_error_counts(counts), "entries", arr)
			: NULL;
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory");
}
