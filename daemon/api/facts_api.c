/* SPDX-License-Identifier: MIT */
/*
 * GET /api/v1/devices/{id}/facts: the firmware and PCIe link history of a
 * drive (store_facts.h), on an HTTP thread with its read-only store handle.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "nvmond/api/api_route.h"
#include "nvmond/api/facts_api.h"
#include "nvmond/api/render.h"
#include "nvmond/core/log.h"
#include "nvmond/store/store_facts.h"
#include "nvmond/util/timefmt.h"

static json_t *time_json(int64_t ms)
{
	char buf[TIMEFMT_MAX];

	return json_string(timefmt_rfc3339(ms, buf));
}

static json_t *fw_json(const struct store_fw_row *f)
{
	return json_pack("{s:o, s:I, s:s, s:o, s:s}", "ts", time_json(f->ts_ms), "ts_ms",
			 (json_int_t)f->ts_ms, "event",
			 f->old_rev[0] ? "firmware_changed" : "baseline", "old",
			 f->old_rev[0] ? json_string(f->old_rev) : json_null(), "new", f->new_rev);
}

static json_t *link_json(const struct store_link_row *l)
{
	return json_pack("{s:o, s:I, s:o}", "ts", time_json(l->ts_ms), "ts_ms",
			 (json_int_t)l->ts_ms, "link", render_link(&l->link));
}

static void facts_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct store_link_row *lv = NULL;
	struct store_fw_row *fv = NULL;
	struct fleet_device d;
	size_t nf = 0, nl = 0;
	int r;

	(void)ctx;
	if (fleet_get(req->fleet, req->id, &d) < 0)
		return api_reply_error(ret, 404, "no such device");
	r = store_fw_list(req->store, req->id, FACTS_API_LIMIT, &fv, &nf);
	if (r == 0)
		r = store_link_list(req->store, req->id, FACTS_API_LIMIT, &lv, &nl);
	if (r < 0) {
		free(fv);
		log_warn("api: reading the facts of device %" PRId64 ": %s", req->id,
			 store_strerror(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	json_t *fw = json_array(), *links = json_array();
	for (size_t i = 0; fw && i < nf; i++)
		json_array_append_new(fw, fw_json(&fv[i]));
	for (size_t i = 0; links && i < nl; i++)
		json_array_append_new(links, link_json(&lv[i]));
	free(fv);
	free(lv);
	ret->json = json_pack(
		"{s:I, s:s, s:s, s:o, s:o, s:o, s:o}", "device_id", (json_int_t)req->id, "state",
		fleet_device_state(&d), "source", d.facts.hwmon_only ? "hwmon" : "smart", "link",
		render_link(&d.facts.link), "firmware_pending",
		d.facts.firmware_pending[0] ? json_string(d.facts.firmware_pending) : json_null(),
		"firmware_history", fw, "link_history", links);
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory");
}

struct api_endpoint facts_endpoint(void)
{
	return (struct api_endpoint){
		.method = "GET",
		.pattern = "/api/v1/devices/{id}/facts",
		.flags = API_EP_STORE,
		.fn = facts_get,
		.ctx = NULL,
	};
}
