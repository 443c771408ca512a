/* SPDX-License-Identifier: MIT */
/*
 * The risk verdict on the main loop: rules evaluated after each sample, the
 * verdict stored when it changes, into the fleet, and to the alert service.
 * See risk_mon.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/alert/risk_conf.h"
#include "nvmond/alert/risk_mon.h"
#include "nvmond/core/log.h"
#include "nvmond/monitor/risk_input.h"
#include "nvmond/store/store_drive.h"

/* One drive: its rules' state, its inputs, what they rest on. */
struct hdev {
	int64_t id;
	bool seeded;
	struct risk_state st;
	bool gathered;
	struct risk_gathered g;
	/* The history is read again when one of these moved. */
	u128 media;
	int64_t ocp_ms;
	uint64_t pel_stored;
	uint64_t errors[_ERRCLASS_MAX];
	/* Its level and name, for the other drives' neighbour rule. */
	uint8_t level;
	char label[96];
};

struct risk_mon {
	struct store *store;
	struct fleet *fleet;
	struct alert_svc *alerts;
	struct risk_cfg hcfg;
	struct hdev *devs;
	size_t n_devs;
};

int risk_reasons_json(const struct risk_verdict *v, char *buf, size_t len)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < v->n; i++) {
		const struct risk_rule_info *info = risk_rule_info(v->r[i].rule);
		json_array_append_new(a,
				      json_pack("{s:s, s:s, s:s, s:s}", "rule", info->name, "level",
						risk_level_name(v->r[i].level), "reason",
						v->r[i].reason, "source", info->source));
	}
	char *s = a ? json_dumps(a, JSON_COMPACT) : NULL;
	int r = !s ? -ENOMEM : strlen(s) >= len ? -ENOSPC : 0;
	if (r == 0)
		memcpy(buf, s, strlen(s) + 1);
	free(s);
	json_decref(a);
	return r;
}

/* A stored verdict back into its struct (the reasons' rules and words). */
static void verdict_from_row(const struct store_verdict_row *row, struct risk_verdict *ret)
{
	struct risk_verdict v = {.known = true, .since_ms = row->ts_ms};
	json_t *a = json_loads(row->reasons, 0, NULL);
	int l = risk_level_from_name(row->level);
	size_t i;
	json_t *x;

	v.level = l < 0 ? RISK_OK : (uint8_t)l;
	json_array_foreach(a, i, x)
	{
		int r = risk_rule_from_name(json_string_value(json_object_get(x, "rule")));
		const char *why = json_string_value(json_object_get(x, "reason"));
		if (r < 0 || v.n == _RISK_RULE_MAX)
			continue;
		v.r[v.n].rule = (uint8_t)r;
		v.r[v.n].level = (uint8_t)risk_rule_info(r)->level;
		snprintf(v.r[v.n].reason, sizeof(v.r[v.n].reason), "%s", why ? why : "");
		v.n++;
	}
	json_decref(a);
	*ret = v;
}

static struct hdev *hdev_get(struct risk_mon *m, int64_t id)
{
	for (size_t i = 0; i < m->n_devs; i++)
		if (m->devs[i].id == id)
			return &m->devs[i];
	struct hdev *v = realloc(m->devs, (m->n_devs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	m->devs = v;
	memset(&v[m->n_devs], 0, sizeof(v[0]));
	v[m->n_devs].id = id;
	return &v[m->n_devs++];
}

/* The alert of a verdict: active above ok, its severity by level, the reasons. */
static void feed_alert(struct risk_mon *m, const struct device_row *dev,
		       const struct risk_verdict *v, int64_t now)
{
	struct alert_cond conds[_ALERT_RULE_MAX] = {0};
	struct alert_cond *c = &conds[ALERT_RISK];
	size_t k;

	c->known = true;
	c->active = v->level > RISK_OK;
	c->severity = v->level == RISK_FAILED	      ? ALERT_SEV_CRITICAL
		      : v->level == RISK_REPLACE_SOON ? ALERT_SEV_WARNING
						      : ALERT_SEV_INFO;
	if (c->active) {
		k = (size_t)snprintf(c->message, sizeof(c->message),
				     "risk verdict %s:", risk_level_name(v->level));
		for (size_t i = 0; i < v->n && k < sizeof(c->message); i++)
			k += (size_t)snprintf(c->message + k, sizeof(c->message) - k, "%s %s",
					      i ? ";" : "", v->r[i].reason);
	}
	(void)alert_svc_feed(m->alerts, dev, conds, now);
}

static void verdict_changed(struct risk_mon *m, const struct device_row *dev,
			    const struct risk_verdict *v, int64_t now)
{
	struct store_verdict_row row = {.device_id = dev->id, .ts_ms = now};

	snprintf(row.level, sizeof(row.level), "%s", risk_level_name(v->level));
	if (risk_reasons_json(v, row.reasons, sizeof(row.reasons)) < 0)
		snprintf(row.reasons, sizeof(row.reasons), "[]");
	if (store_verdict_insert(m->store, &row) < 0)
		log_warn("%s: storing its risk verdict failed: %s", dev->name,
			 store_strerror(m->store));
	log_event(v->level > RISK_OK ? LOG_LVL_WARNING : LOG_LVL_INFO, dev->name, dev->serial,
		  "risk", "device %s (%s): risk verdict %s%s%s", dev->key, dev->name,
		  risk_level_name(v->level), v->n ? ": " : "", v->n ? v->r[0].reason : "");
}

/* Other drives of this host at replace_soon or failed; one named into @name. */
static unsigned neighbours_bad(const struct risk_mon *m, int64_t id, char *name, size_t len)
{
	unsigned n = 0;

	name[0] = '\0';
	for (size_t i = 0; i < m->n_devs; i++)
		if (m->devs[i].id != id && m->devs[i].level >= RISK_REPLACE_SOON && !n++)
			snprintf(name, len, "%s", m->devs[i].label);
	return n;
}

static void on_sample(void *ctx, const struct device_row *dev, const struct sample *s)
{
	struct risk_mon *m = ctx;
	struct risk_cond conds[_RISK_RULE_MAX];
	struct risk_verdict v;
	struct fleet_device *fd;
	struct hdev *h;
	char nb[96];

	if (s->source != SAMPLE_SOURCE_SMART || !(h = hdev_get(m, dev->id)))
		return;
	fd = malloc(sizeof(*fd));
	if (!fd || fleet_get(m->fleet, dev->id, fd) < 0)
		goto out;
	snprintf(h->label, sizeof(h->label), "%s (%s)", dev->name, dev->serial);
	if (!h->seeded) {
		struct store_verdict_row row;
		h->seeded = true;
		if (store_verdict_last(m->store, dev->id, &row) == 0) {
			verdict_from_row(&row, &v);
			risk_state_seed(&h->st, &v);
			h->level = v.level;
			(void)fleet_put_risk(m->fleet, dev->id, &v);
		}
	}
	unsigned nbad = neighbours_bad(m, dev->id, nb, sizeof(nb));
	/* The history again hourly, or when what it rests on moved. */
	bool moved = !h->gathered || s->smart.media_errors != h->media ||
		     fd->drive.ocp.read_ms != h->ocp_ms || fd->drive.pel.stored != h->pel_stored ||
		     memcmp(fd->errors, h->errors, sizeof(h->errors)) != 0;
	if (moved || s->ts_ms - h->g.in.history_ms >= RISK_MON_HISTORY_MS) {
		int r = risk_gather(m->store, fd, nbad, nb, s->ts_ms, &h->g);
		if (r < 0) {
			log_warn("%s: reading the history of its risk verdict failed: %s",
				 dev->name, store_strerror(m->store));
			goto out;
		}
		h->gathered = true;
		h->media = s->smart.media_errors;
		h->ocp_ms = fd->drive.ocp.read_ms;
		h->pel_stored = fd->drive.pel.stored;
		memcpy(h->errors, fd->errors, sizeof(h->errors));
	} else {
		risk_refresh_now(&h->g, fd, nbad, nb, s->ts_ms);
	}
	risk_conditions(&m->hcfg, &h->g.in, conds);
	if (risk_step(&h->st, conds, s->ts_ms, &v))
		verdict_changed(m, dev, &v, s->ts_ms);
	h->level = v.level;
	/* Fed every time: a resolution needs the condition gone for resolve_after. */
	feed_alert(m, dev, &v, s->ts_ms);
	bool same = fd->risk.known && fd->risk.level == v.level && fd->risk.n == v.n &&
		    fd->risk.since_ms == v.since_ms;
	for (size_t i = 0; same && i < v.n; i++)
		same = fd->risk.r[i].rule == v.r[i].rule &&
		       strcmp(fd->risk.r[i].reason, v.r[i].reason) == 0;
	if (!same)
		(void)fleet_put_risk(m->fleet, dev->id, &v);
out:
	free(fd);
}

int risk_mon_new(const struct cfg *c, struct store *s, struct fleet *f, struct alert_svc *a,
		 struct risk_mon **ret, char ret_err[RISK_MON_ERR_MAX])
{
	struct risk_mon *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	*m = (struct risk_mon){.store = s, .fleet = f, .alerts = a};
	if (risk_rules_parse(risk_conf(c)->disable, &m->hcfg, ret_err, RISK_MON_ERR_MAX) < 0) {
		free(m);
		return -EINVAL;
	}
	*ret = m;
	return 0;
}

int risk_mon_attach(struct risk_mon *m, struct poller *p)
{
	struct poller_listener l = {.on_sample = on_sample, .ctx = m};

	return poller_add_listener(p, &l);
}

int risk_mon_reconfigure(struct risk_mon *m, const struct cfg *c, char ret_err[RISK_MON_ERR_MAX])
{
	struct risk_cfg hc;
	int r = risk_rules_parse(risk_conf(c)->disable, &hc, ret_err, RISK_MON_ERR_MAX);

	if (r == 0)
		m->hcfg = hc;
	return r;
}

struct risk_mon *risk_mon_free(struct risk_mon *m)
{
	if (m) {
		free(m->devs);
		free(m);
	}
	return NULL;
}
