/* SPDX-License-Identifier: MIT */
/*
 * `nvmond status`: what a drive knows beyond its health log (issue 27), read
 * once, and the risk verdict with its reasons. See status_drive.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/analysis/risk.h"
#include "nvmond/monitor/risk_input.h"
#include "nvmond/store/store_drive.h"
#include "status_drive.h"

/* The stored row of the drive @key, or NULL. */
static const struct device_row *row_of(const struct device_row *rows, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].key, key) == 0)
			return &rows[i];
	return NULL;
}

static void read_power(struct dev_backend *b, const struct dev_info *info,
		       const struct dev_ident *who, int64_t now_ms, struct fleet_power *f)
{
	const struct idctl *id = &info->id;
	uint8_t which = DEV_POWER_PM | (id->apsta & IDCTL_APSTA_SUPPORTED ? DEV_POWER_APST : 0) |
			(id->hctma & IDCTL_HCTMA_SUPPORTED ? DEV_POWER_HCTM : 0);
	struct dev_power p;
	struct apst a;

	f->n_ps = (uint8_t)((id->npss < POWER_STATES_MAX ? id->npss : POWER_STATES_MAX - 1) + 1);
	for (unsigned i = 0; i < f->n_ps; i++)
		f->psd[i] = (struct fleet_psd){.max_uw = id->ps[i].max_uw,
					       .non_operational = id->ps[i].non_operational,
					       .enlat_us = id->ps[i].enlat_us,
					       .exlat_us = id->ps[i].exlat_us};
	f->apst_supported = id->apsta & IDCTL_APSTA_SUPPORTED;
	f->hctm_supported = id->hctma & IDCTL_HCTMA_SUPPORTED;
	f->mntmt_k = id->mntmt;
	f->mxtmt_k = id->mxtmt;
	if (dev_read_power(b, info->name, who, now_ms, which, &p) < 0)
		return;
	f->have = true;
	f->read_ms = f->since_ms = now_ms;
	f->ps = power_mgmt_decode(p.pm_dw0).ps;
	f->wh = power_mgmt_decode(p.pm_dw0).wh;
	if ((f->apst_known = p.got & DEV_POWER_APST)) {
		apst_decode(p.apst_dw0, p.apst_table, &a);
		f->apst_enabled = a.enabled;
		f->apst_idle = apst_first_idle(&a, id->ps, f->n_ps - 1u, f->ps);
	}
	if ((f->hctm_known = p.got & DEV_POWER_HCTM)) {
		struct hctm h = hctm_decode(p.hctm_dw0);
		f->tmt1_k = h.tmt1_k;
		f->tmt2_k = h.tmt2_k;
	}
}

void status_drive_collect(struct dev_backend *b, struct store *s, const struct device_row *rows,
			  size_t n_rows, const struct dev_info *info, int64_t now_ms,
			  struct fleet_device *fd, bool *ret_one_read)
{
	const struct device_row *row = row_of(rows, n_rows, fd->row.key);
	struct fleet_drive *x = &fd->drive;
	struct dev_ident who = {.model = info->id.model, .serial = info->id.serial};
	bool awake = !info->asleep && info->access == DEV_ACCESS_ADMIN;

	*ret_one_read = false;
	x->ocp.wa_x100 = -1;
	x->n_ns = info->n_ns < FLEET_NS_MAX ? info->n_ns : FLEET_NS_MAX;
	for (size_t i = 0; i < x->n_ns; i++) {
		const struct dev_ns *n = &info->ns[i];
		x->ns[i] = (struct fleet_ns){.nsid = n->nsid,
					     .has_usage = n->has_usage,
					     .nsze = n->nsze,
					     .ncap = n->ncap,
					     .nuse = n->nuse,
					     .lba_size = n->lba_size};
		snprintf(x->ns[i].name, sizeof(x->ns[i].name), "%s", n->name);
		snprintf(x->ns[i].ana_state, sizeof(x->ns[i].ana_state), "%s", n->ana_state);
	}
	x->pel.supported = awake && (info->id.lpa & IDCTL_LPA_PEL);
	if (awake)
		read_power(b, info, &who, now_ms, &x->power);
	struct store_ocp_probe pr;
	if (awake && s && row && store_ocp_probe_get(s, row->id, &pr) == 0) {
		uint8_t page[OCP_LOG_SIZE];
		x->ocp.probed = true;
		x->ocp.present = pr.ocp;
		snprintf(x->ocp.why, sizeof(x->ocp.why), "%.63s", pr.why);
		if (pr.ocp && dev_read_ocp(b, info->name, &who, now_ms, page) == 0 &&
		    ocp_decode(page, &x->ocp.log) == 0) {
			x->ocp.have = true;
			x->ocp.read_ms = now_ms;
			x->ocp.host_written_units = fd->last.smart.data_units_written;
			x->ocp.wa_x100 = ocp_write_amp_x100(x->ocp.log.phys_written_bytes,
							    fd->last.smart.data_units_written);
		}
	}
	if (!s || !row)
		return;
	uint64_t n = 0;
	if (store_pel_count(s, row->id, -1, INT64_MIN, INT64_MAX, &n) == 0) {
		x->pel.stored = n;
		x->pel.read = n > 0;
	}
	/* The daemon's verdict, confirmed over its reads; else this read alone. */
	struct store_verdict_row v;
	if (store_verdict_last(s, row->id, &v) == 0) {
		json_t *a = json_loads(v.reasons, 0, NULL), *r;
		size_t i;
		int l = risk_level_from_name(v.level);
		fd->risk = (struct risk_verdict){
			.known = true, .level = l < 0 ? RISK_OK : (uint8_t)l, .since_ms = v.ts_ms};
		json_array_foreach(a, i, r)
		{
			int rule = risk_rule_from_name(json_string_value(json_object_get(r, "rule"))
							       ?: "");
			if (rule < 0 || fd->risk.n == _RISK_RULE_MAX)
				continue;
			struct risk_reason *h = &fd->risk.r[fd->risk.n++];
			h->rule = (uint8_t)rule;
			h->level = (uint8_t)risk_rule_info(rule)->level;
			snprintf(h->reason, sizeof(h->reason), "%s",
				 json_string_value(json_object_get(r, "reason")) ?: "");
		}
		json_decref(a);
		return;
	}
	struct fleet_device copy = *fd;
	struct risk_gathered *g = malloc(sizeof(*g));
	struct risk_cfg c;
	char err[64];
	copy.row.id = row->id;
	if (g && fd->has_sample && risk_rules_parse("", &c, err, sizeof(err)) == 0 &&
	    risk_gather(s, &copy, 0, NULL, now_ms, g) == 0) {
		struct risk_cond conds[_RISK_RULE_MAX];
		struct risk_state st = {0};
		risk_conditions(&c, &g->in, conds);
		/* One read: count it as confirmed, and say so. */
		for (int r = 0; r < _RISK_RULE_MAX; r++)
			st.held[r] = RISK_CONFIRM - 1;
		risk_step(&st, conds, now_ms, &fd->risk);
		*ret_one_read = true;
	}
	free(g);
}

void status_print_drive(FILE *out, const json_t *d, bool color)
{
	json_t *h = json_object_get(d, "risk"), *p = json_object_get(d, "power"),
	       *o = json_object_get(d, "ocp"), *t = json_object_get(d, "thermal_management"),
	       *ns = json_object_get(d, "namespace_usage"), *x;
	size_t i;

	if (json_is_object(h)) {
		const char *v = json_string_value(json_object_get(h, "verdict"));
		const char *on = "", *off = "";
		json_t *reasons = json_object_get(h, "reasons");
		if (color && v && strcmp(v, "ok") != 0) {
			on = strcmp(v, "watch") == 0 ? "\033[33m" : "\033[1;31m";
			off = "\033[0m";
		}
		fprintf(out, "%-8s risk: %s%s%s%s\n", "", on, v ? v : "?", off,
			json_is_true(json_object_get(h, "one_read"))
				? " (from this one read; the daemon confirms each rule over two)"
				: "");
		json_array_foreach(reasons, i, x) fprintf(
			out, "%-8s   %s: %s\n", "", json_string_value(json_object_get(x, "rule")),
			json_string_value(json_object_get(x, "reason")));
	}
	if (json_is_object(p) && json_is_integer(json_object_get(p, "state"))) {
		json_t *a = json_object_get(p, "apst"), *w = json_object_get(p, "max_watts");
		char apst[64] = "no APST";
		if (json_is_true(json_object_get(a, "supported")))
			snprintf(apst, sizeof(apst), "APST %s",
				 json_is_true(json_object_get(a, "enabled"))	? "on"
				 : json_is_false(json_object_get(a, "enabled")) ? "off"
										: "unknown");
		fprintf(out, "%-8s power: PS%lld", "",
			(long long)json_integer_value(json_object_get(p, "state")));
		if (json_is_number(w))
			fprintf(out, " (max %.2f W)", json_number_value(w));
		fprintf(out, ", %s", apst);
		if (json_is_object(t) && json_is_true(json_object_get(t, "known"))) {
			json_t *t1 = json_object_get(t, "tmt1_c"),
			       *t2 = json_object_get(t, "tmt2_c");
			fprintf(out, ", host thermal management ");
			if (!json_is_integer(t1) && !json_is_integer(t2))
				fprintf(out, "off");
			if (json_is_integer(t1))
				fprintf(out, "TMT1 %lld °C", (long long)json_integer_value(t1));
			if (json_is_integer(t2))
				fprintf(out, "%sTMT2 %lld °C", json_is_integer(t1) ? ", " : "",
					(long long)json_integer_value(t2));
		}
		fprintf(out, "\n");
	}
	if (json_is_object(o) && json_is_true(json_object_get(o, "present")) &&
	    json_object_get(o, "bad_user_blocks")) {
		json_t *wa = json_object_get(o, "write_amplification");
		fprintf(out, "%-8s OCP log: write amplification ", "");
		if (json_is_number(wa))
			fprintf(out, "%.2f", json_number_value(wa));
		else
			fprintf(out, "-");
		fprintf(out, ", bad blocks %lld user + %lld system, %lld uncorrectable reads\n",
			(long long)json_integer_value(json_object_get(o, "bad_user_blocks")),
			(long long)json_integer_value(json_object_get(o, "bad_system_blocks")),
			(long long)json_integer_value(json_object_get(o, "uncorrectable_reads")));
	}
	json_array_foreach(ns, i, x)
	{
		json_t *pct = json_object_get(x, "used_percent"),
		       *ana = json_object_get(x, "ana_state");
		if (!json_is_integer(pct) && !json_is_string(ana))
			continue;
		fprintf(out, "%-8s %s:", "", json_string_value(json_object_get(x, "name")));
		if (json_is_integer(pct))
			fprintf(out, " %lld %% in use", (long long)json_integer_value(pct));
		if (json_is_string(ana))
			fprintf(out, " (ANA %s)", json_string_value(ana));
		fprintf(out, "\n");
	}
}
