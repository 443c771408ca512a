/* SPDX-License-Identifier: MIT */
/*
 * What a drive knows beyond its health log, in the API (issue 27): the
 * device object's fields, the power timeline, C0h over time, the health
 * verdict with its rules and history, and the event log's entries as events.
 * See drive_api.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/throttle.h"
#include "nvmond/api/api_params.h"
#include "nvmond/api/drive_api.h"
#include "nvmond/api/render.h"
#include "nvmond/core/log.h"
#include "nvmond/decode/pel.h"
#include "nvmond/util/timefmt.h"

#define DEFAULT_SPAN_MS (7 * 24 * 3600 * 1000LL)

static int obj_set(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : -1;
}

static json_t *time_or_null(int64_t ms)
{
	char buf[TIMEFMT_MAX];

	return ms ? json_string(timefmt_rfc3339(ms, buf)) : json_null();
}

/* Watts from microwatts, rounded to the milliwatt: what the descriptors can say. */
static json_t *watts(uint32_t uw)
{
	return uw ? json_real((double)((uw + 500) / 1000) / 1000.0) : json_null();
}

static json_t *kelvin_or_null(uint16_t k)
{
	return k ? json_integer(k) : json_null();
}

static json_t *celsius_or_null(uint16_t k)
{
	return k ? json_integer((json_int_t)k - 273) : json_null();
}

/* Write amplification from its hundredths: two decimals, null when unknown. */
static json_t *wa_json(int64_t x100)
{
	return x100 < 0 ? json_null() : json_real((double)x100 / 100.0);
}

static json_t *render_ocp(const struct fleet_ocp *o)
{
	const struct ocp_log *l = &o->log;
	char ver[OCP_VERSION_MAX];
	json_t *j;
	int r = 0;

	if (!o->probed)
		return json_null();
	if (!o->present)
		return json_pack("{s:b, s:s}", "present", 0, "why", o->why);
	j = json_pack("{s:b, s:o}", "present", 1, "read", time_or_null(o->have ? o->read_ms : 0));
	if (!j || !o->have)
		return j;
	r |= obj_set(j, "physical_written_bytes", render_u128(l->phys_written_bytes));
	r |= obj_set(j, "physical_read_bytes", render_u128(l->phys_read_bytes));
	r |= obj_set(j, "host_written_bytes", render_u128(smart_bytes(o->host_written_units)));
	r |= obj_set(j, "write_amplification", wa_json(o->wa_x100));
	r |= obj_set(j, "bad_user_blocks", json_integer((json_int_t)l->bad_user_blocks));
	r |= obj_set(j, "bad_user_blocks_normalized", json_integer(l->bad_user_norm));
	r |= obj_set(j, "bad_system_blocks", json_integer((json_int_t)l->bad_system_blocks));
	r |= obj_set(j, "bad_system_blocks_normalized", json_integer(l->bad_system_norm));
	r |= obj_set(j, "xor_recoveries", render_u128(l->xor_recoveries));
	r |= obj_set(j, "uncorrectable_reads", render_u128(l->uncorrectable_reads));
	r |= obj_set(j, "soft_ecc_errors", render_u128(l->soft_ecc_errors));
	r |= obj_set(j, "end_to_end_detected", json_integer(l->e2e_detected));
	r |= obj_set(j, "end_to_end_corrected", json_integer(l->e2e_corrected));
	r |= obj_set(j, "system_data_used_percent", json_integer(l->system_data_used_pct));
	r |= obj_set(j, "thermal_throttling_events", json_integer(l->throttle_events));
	r |= obj_set(j, "thermal_throttling_status", json_integer(l->throttle_status));
	r |= obj_set(j, "pcie_correctable_errors", render_u128(l->pcie_correctable));
	r |= obj_set(j, "incomplete_shutdowns", json_integer(l->incomplete_shutdowns));
	r |= obj_set(j, "free_blocks_percent", json_integer(l->free_blocks_pct));
	r |= obj_set(j, "capacitor_health", json_integer(l->capacitor_health));
	r |= obj_set(j, "log_version", json_integer(l->version));
	ocp_version_str(l, ver, sizeof(ver));
	r |= obj_set(j, "spec_version", ver[0] ? json_string(ver) : json_null());
	if (r)
		return json_decref(j), NULL;
	return j;
}

/* Why a drive does (not) rest in a non-operational state, in words. */
static json_t *apst_note(const struct fleet_power *p)
{
	char buf[240];

	if (!p->apst_supported)
		return json_string("the drive has no autonomous power state transitions (APSTA "
				   "bit 0 clear): it stays in the state the host sets");
	if (!p->apst_known)
		return json_null();
	if (!p->apst_enabled)
		return json_string("APST is off: the drive does not enter a non-operational "
				   "power state by itself (the kernel turns it off for drives "
				   "it distrusts, or nvme_core.default_ps_max_latency_us=0)");
	if (!p->apst_idle.reaches) {
		snprintf(buf, sizeof(buf),
			 "APST is on, but its table has no path from PS%u to a non-operational "
			 "state",
			 p->ps);
		return json_string(buf);
	}
	if (p->polls_keep_awake)
		snprintf(buf, sizeof(buf),
			 "APST takes the drive from PS%u to PS%u after %" PRIu32 " ms idle, but "
			 "nvmond reads it more often than that: its own polls keep it awake",
			 p->apst_idle.from_ps, p->apst_idle.to_ps, p->apst_idle.idle_ms);
	else
		snprintf(buf, sizeof(buf),
			 "APST takes the drive from PS%u to PS%u after %" PRIu32 " ms idle (each "
			 "command, nvmond's included, wakes it)",
			 p->apst_idle.from_ps, p->apst_idle.to_ps, p->apst_idle.idle_ms);
	return json_string(buf);
}

static json_t *render_power(const struct fleet_power *p)
{
	json_t *j, *states;
	int r = 0;

	if (!p->have && !p->n_ps)
		return json_null();
	states = json_array();
	for (unsigned i = 0; states && i < p->n_ps; i++)
		json_array_append_new(states,
				      json_pack("{s:i, s:o, s:b, s:I, s:I}", "state", i,
						"max_watts", watts(p->psd[i].max_uw),
						"non_operational", p->psd[i].non_operational,
						"entry_latency_us", (json_int_t)p->psd[i].enlat_us,
						"exit_latency_us", (json_int_t)p->psd[i].exlat_us));
	j = json_object();
	if (!j)
		return json_decref(states), NULL;
	r |= obj_set(j, "state", p->have ? json_integer(p->ps) : json_null());
	r |= obj_set(j, "workload_hint", p->have ? json_integer(p->wh) : json_null());
	r |= obj_set(j, "read", time_or_null(p->have ? p->read_ms : 0));
	r |= obj_set(j, "since", time_or_null(p->have ? p->since_ms : 0));
	r |= obj_set(j, "max_watts",
		     p->have && p->ps < p->n_ps ? watts(p->psd[p->ps].max_uw) : json_null());
	r |= obj_set(j, "non_operational",
		     p->have && p->ps < p->n_ps ? json_boolean(p->psd[p->ps].non_operational)
						: json_null());
	r |= obj_set(j, "states", states);
	r |= obj_set(
		j, "apst",
		json_pack("{s:b, s:o, s:o, s:o, s:o}", "supported", p->apst_supported, "enabled",
			  p->apst_known ? json_boolean(p->apst_enabled) : json_null(),
			  "idle_before_non_operational_ms",
			  p->apst_known && p->apst_idle.reaches ? json_integer(p->apst_idle.idle_ms)
								: json_null(),
			  "to_state",
			  p->apst_known && p->apst_idle.reaches ? json_integer(p->apst_idle.to_ps)
								: json_null(),
			  "note", apst_note(p)));
	if (r)
		return json_decref(j), NULL;
	return j;
}

static json_t *render_hctm(const struct fleet_power *p)
{
	if (!p->hctm_supported)
		return json_null();
	return json_pack("{s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o}", "supported", 1, "known",
			 p->hctm_known, "tmt1_k",
			 p->hctm_known ? kelvin_or_null(p->tmt1_k) : json_null(), "tmt1_c",
			 p->hctm_known ? celsius_or_null(p->tmt1_k) : json_null(), "tmt2_k",
			 p->hctm_known ? kelvin_or_null(p->tmt2_k) : json_null(), "tmt2_c",
			 p->hctm_known ? celsius_or_null(p->tmt2_k) : json_null(), "min_k",
			 kelvin_or_null(p->mntmt_k), "max_k", kelvin_or_null(p->mxtmt_k));
}

static json_t *render_ns_usage(const struct fleet_drive *d)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < d->n_ns; i++) {
		const struct fleet_ns *n = &d->ns[i];
		json_t *o = json_pack("{s:I, s:s, s:o}", "nsid", (json_int_t)n->nsid, "name",
				      n->name, "ana_state",
				      n->ana_state[0] ? json_string(n->ana_state) : json_null());
		if (o && n->has_usage && n->lba_size) {
			u128 bs = n->lba_size;
			json_object_set_new(o, "size_bytes", render_u128(bs * n->nsze));
			json_object_set_new(o, "capacity_bytes", render_u128(bs * n->ncap));
			json_object_set_new(o, "used_bytes", render_u128(bs * n->nuse));
			/* Whole percent: the drive counts blocks, not bytes of data. */
			json_object_set_new(
				o, "used_percent",
				n->nsze ? json_integer((json_int_t)(n->nuse * 100 / n->nsze))
					: json_null());
		}
		json_array_append_new(a, o);
	}
	return a;
}

json_t *render_risk(const struct risk_verdict *v)
{
	json_t *a;

	if (!v->known)
		return json_null();
	a = json_array();
	for (size_t i = 0; a && i < v->n; i++) {
		const struct risk_rule_info *info = risk_rule_info(v->r[i].rule);
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s}", "rule", info->name,
						   "level", risk_level_name(v->r[i].level),
						   "reason", v->r[i].reason, "source", info->source,
						   "needs", info->needs));
	}
	return json_pack("{s:s, s:o, s:o}", "verdict", risk_level_name(v->level), "since",
			 time_or_null(v->since_ms), "reasons", a);
}

int render_drive_fields_add(json_t *o, const struct fleet_device *d)
{
	const struct fleet_drive *x = &d->drive;
	int r = 0;

	r |= obj_set(o, "ocp", render_ocp(&x->ocp));
	r |= obj_set(o, "power", render_power(&x->power));
	r |= obj_set(o, "thermal_management", render_hctm(&x->power));
	r |= obj_set(o, "namespace_usage", render_ns_usage(x));
	r |= obj_set(o, "event_log",
		     json_pack("{s:b, s:o, s:I, s:I}", "supported", x->pel.supported, "read",
			       time_or_null(x->pel.read ? x->pel.read_ms : 0), "events_stored",
			       (json_int_t)x->pel.stored, "drive_events", (json_int_t)x->pel.tnev));
	r |= obj_set(o, "risk", render_risk(&d->risk));
	return r ? -ENOMEM : 0;
}

json_t *render_pel_event(const struct store_pel_row *e)
{
	json_t *detail = json_loads(e->detail, 0, NULL);

	return json_pack("{s:I, s:s, s:s, s:o, s:n, s:b, s:I, s:b, s:b, s:o, s:s, s:o}", "id",
			 (json_int_t)e->id, "source", "pel", "kind", e->kind, "start",
			 time_or_null(e->ts_ms), "end", "ongoing", 0, "duration_s", (json_int_t)0,
			 "late", e->late, "time_known", e->time_known, "read",
			 time_or_null(e->read_ms), "summary", e->summary, "detail",
			 detail ? detail : json_object());
}

int drive_kinds_parse(const char *list, struct drive_kinds *ret, char *ret_err, size_t err_len)
{
	struct drive_kinds k = {0};
	const char *p = list;

	if (!list) {
		k.all = true;
		*ret = k;
		return 0;
	}
	while (*p) {
		char word[32];
		size_t n = strcspn(p, ",");
		int t;

		snprintf(word, sizeof(word), "%.*s", (int)(n < 31 ? n : 31), p);
		if (n && n < 32 && (t = throttle_kind_from_name(word)) >= 0 && t < 8) {
			k.throttle[t] = true;
		} else if (n && n < 32 && (t = pel_type_from_name(word)) >= 0) {
			if (k.n_pel < DRIVE_KINDS_MAX)
				k.pel[k.n_pel++] = pel_type_name((uint8_t)t);
		} else if (n && strcmp(word, "unknown") == 0) {
			if (k.n_pel < DRIVE_KINDS_MAX)
				k.pel[k.n_pel++] = "unknown";
		} else {
			snprintf(ret_err, err_len,
				 "unknown event kind '%s' (known: the throttle kinds light, heavy, "
				 "warning_temp_time, …, and the event log's thermal_excursion, "
				 "firmware_commit, power_on_reset, …; docs/api.md)",
				 word);
			return -EINVAL;
		}
		p += n + (p[n] == ',');
	}
	k.pel[k.n_pel] = NULL;
	*ret = k;
	return 0;
}

/* from/to/limit of a history query. Return: 0, or -EINVAL with @ret set. */
static int range_params(const struct api_request *req, int64_t *from, int64_t *to, int64_t *limit,
			int64_t limit_default, struct api_reply *ret)
{
	bool has_from = false;
	const struct api_param t[] = {
		{.name = "from", .kind = API_PARAM_TIME, .dest.i64 = from, .given = &has_from},
		{.name = "to", .kind = API_PARAM_TIME, .dest.i64 = to},
		{.name = "limit",
		 .kind = API_PARAM_INT,
		 .min = 1,
		 .max = DRIVE_API_LIMIT_MAX,
		 .dest.i64 = limit},
	};

	*to = req->now_ms;
	*limit = limit_default;
	if (api_params_parse(req, t, sizeof(t) / sizeof(t[0]), ret) < 0)
		return -EINVAL;
	if (!has_from)
		*from = *to - DEFAULT_SPAN_MS;
	if (*from > *to) {
		api_reply_error(ret, 400, "parameter 'from' is after 'to'");
		return -EINVAL;
	}
	return 0;
}

/*
 * from/to/limit of a drive's timeline query (range_params(), limit at most
 * 10000) and the drive, from the fleet. Return: 0; -EINVAL (400) or -ENOENT
 * (404) with @ret set.
 */
static int timeline_params(const struct api_request *req, int64_t *from, int64_t *to,
			   int64_t *limit, struct fleet_device *d, struct api_reply *ret)
{
	if (range_params(req, from, to, limit, 10000, ret) < 0)
		return -EINVAL;
	if (fleet_get(req->fleet, req->id, d) < 0) {
		api_reply_error(ret, 404, "no such device");
		return -ENOENT;
	}
	return 0;
}

static void power_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct store_power_row *v = NULL;
	struct fleet_device d;
	int64_t from, to, limit;
	size_t n = 0;

	(void)ctx;
	if (timeline_params(req, &from, &to, &limit, &d, ret) < 0)
		return;
	if (store_power_range(req->store, req->id, from, to, (size_t)limit, &v, &n) < 0) {
		log_warn("api: reading the power states of device %" PRId64 ": %s", req->id,
			 store_strerror(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	json_t *tl = json_array();
	for (size_t i = 0; tl && i < n; i++)
		json_array_append_new(
			tl, json_pack("{s:o, s:I, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "ts",
				      time_or_null(v[i].ts_ms), "ts_ms", (json_int_t)v[i].ts_ms,
				      "state", v[i].ps, "workload_hint", v[i].wh, "max_watts",
				      v[i].max_uw < 0 ? json_null() : watts((uint32_t)v[i].max_uw),
				      "non_operational",
				      v[i].non_operational < 0 ? json_null()
							       : json_boolean(v[i].non_operational),
				      "apst_enabled",
				      v[i].apst_enabled < 0 ? json_null()
							    : json_boolean(v[i].apst_enabled),
				      "apst_idle_ms",
				      v[i].apst_idle_ms < 0 ? json_null()
							    : json_integer(v[i].apst_idle_ms),
				      "tmt1_k",
				      v[i].tmt1_k <= 0 ? json_null() : json_integer(v[i].tmt1_k),
				      "tmt2_k",
				      v[i].tmt2_k <= 0 ? json_null() : json_integer(v[i].tmt2_k)));
	free(v);
	ret->json = json_pack("{s:I, s:o, s:o, s:o, s:o}", "device_id", (json_int_t)req->id, "from",
			      time_or_null(from), "to", time_or_null(to), "power",
			      render_power(&d.drive.power), "timeline", tl);
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory");
}

static json_t *ocp_row_json(const struct store_ocp_row *o)
{
	const struct ocp_log *l = &o->l;

	return json_pack("{s:o, s:I, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:o, s:I, s:I, s:I}", "ts",
			 time_or_null(o->ts_ms), "ts_ms", (json_int_t)o->ts_ms,
			 "physical_written_bytes", render_u128(l->phys_written_bytes),
			 "physical_read_bytes", render_u128(l->phys_read_bytes),
			 "host_written_bytes", render_u128(smart_bytes(o->host_written_units)),
			 "write_amplification",
			 wa_json(ocp_write_amp_x100(l->phys_written_bytes, o->host_written_units)),
			 "bad_user_blocks", (json_int_t)l->bad_user_blocks, "bad_system_blocks",
			 (json_int_t)l->bad_system_blocks, "uncorrectable_reads",
			 render_u128(l->uncorrectable_reads), "xor_recoveries",
			 render_u128(l->xor_recoveries), "thermal_throttling_events",
			 (json_int_t)l->throttle_events, "pcie_correctable_errors",
			 (json_int_t)l->pcie_correctable, "incomplete_shutdowns",
			 (json_int_t)l->incomplete_shutdowns);
}

static void ocp_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct store_ocp_row *v = NULL;
	struct fleet_device d;
	int64_t from, to, limit;
	size_t n = 0;

	(void)ctx;
	if (timeline_params(req, &from, &to, &limit, &d, ret) < 0)
		return;
	if (store_ocp_range(req->store, req->id, from, to, (size_t)limit, &v, &n) < 0) {
		log_warn("api: reading the C0h log of device %" PRId64 ": %s", req->id,
			 store_strerror(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, ocp_row_json(&v[i]));
	free(v);
	ret->json = json_pack("{s:I, s:o, s:o, s:o, s:o}", "device_id", (json_int_t)req->id, "from",
			      time_or_null(from), "to", time_or_null(to), "ocp",
			      render_ocp(&d.drive.ocp), "history", a);
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory");
}

static void risk_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct store_verdict_row *v = NULL;
	struct fleet_device d;
	size_t n = 0;

	(void)ctx;
	if (fleet_get(req->fleet, req->id, &d) < 0)
		return api_reply_error(ret, 404, "no such device");
	if (store_verdict_list(req->store, req->id, 100, &v, &n) < 0) {
		log_warn("api: reading the risk verdicts of device %" PRId64 ": %s", req->id,
			 store_strerror(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	json_t *rules = json_array(), *hist = json_array();
	for (int r = 0; rules && r < _RISK_RULE_MAX; r++) {
		const struct risk_rule_info *i = risk_rule_info(r);
		bool fired = false;
		for (size_t k = 0; k < d.risk.n; k++)
			fired |= d.risk.r[k].rule == r;
		json_array_append_new(
			rules, json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:b}", "rule", i->name,
					 "level", risk_level_name(i->level), "threshold",
					 i->threshold, "needs", i->needs, "source", i->source,
					 "fired", fired, "enabled", !(d.risk.off & (1u << r))));
	}
	for (size_t i = 0; hist && i < n; i++)
		json_array_append_new(hist,
				      json_pack("{s:o, s:s, s:o}", "ts", time_or_null(v[i].ts_ms),
						"verdict", v[i].level, "reasons",
						json_loads(v[i].reasons, 0, NULL) ?: json_array()));
	free(v);
	ret->json = json_pack("{s:I, s:o, s:o, s:o}", "device_id", (json_int_t)req->id, "risk",
			      render_risk(&d.risk), "rules", rules, "history", hist);
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory");
}

struct api_endpoint drive_power_endpoint(void)
{
	return (struct api_endpoint){.method = "GET",
				     .pattern = "/api/v1/devices/{id}/power",
				     .flags = API_EP_STORE | API_EP_QUERY,
				     .fn = power_get};
}

struct api_endpoint drive_ocp_endpoint(void)
{
	return (struct api_endpoint){.method = "GET",
				     .pattern = "/api/v1/devices/{id}/ocp",
				     .flags = API_EP_STORE | API_EP_QUERY,
				     .fn = ocp_get};
}

struct api_endpoint drive_risk_endpoint(void)
{
	return (struct api_endpoint){.method = "GET",
				     .pattern = "/api/v1/devices/{id}/risk",
				     .flags = API_EP_STORE,
				     .fn = risk_get};
}
