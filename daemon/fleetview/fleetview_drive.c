/* SPDX-License-Identifier: MIT */
/*
 * The fleet view's hosts and drives, one at a time (fleetview.c merges the engine's
 * answers into them): a drive's values taken from one sample of a part, its alerts,
 * its verdict, the host's info labels, copies, frees and the orders of the view.
 */
#define _GNU_SOURCE /* strverscmp, open_memstream, qsort_r */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/fleetview/fleetview.h"
#include "fleetview_internal.h"

/* The labels of nvmond_host_info that are not host labels (nor any reserved "__" one). */
static bool host_label_excluded(const char *name)
{
	static const char *const not_host[] = {"job", "instance", "host", "host_id", "public_url"};

	if (strncmp(name, "__", 2) == 0)
		return true;
	for (size_t i = 0; i < sizeof(not_host) / sizeof(not_host[0]); i++)
		if (strcmp(name, not_host[i]) == 0)
			return true;
	return false;
}

/* ---- building ------------------------------------------------------------- */

char *fv_dup(const char *s)
{
	return strdup(s ? s : "");
}

void fv_drive_free(struct fv_drive *d)
{
	free(d->device);
	free(d->serial);
	free(d->model);
	free(d->firmware);
	free(d->label);
	free(d->location);
	for (size_t i = 0; i < d->n_alerts; i++) {
		free(d->alerts[i].rule);
		free(d->alerts[i].severity);
	}
	free(d->alerts);
}

void fv_host_free(struct fv_host *h)
{
	free(h->job);
	free(h->instance);
	free(h->host);
	free(h->host_id);
	free(h->public_url);
	for (size_t i = 0; i < h->n_labels; i++) {
		free(h->label_names[i]);
		free(h->label_values[i]);
	}
	free(h->label_names);
	free(h->label_values);
	for (size_t i = 0; i < h->n_drives; i++)
		fv_drive_free(&h->drives[i]);
	free(h->drives);
}

void fleetview_view_free(struct fv_view *v)
{
	for (size_t i = 0; i < v->n_hosts; i++)
		fv_host_free(&v->hosts[i]);
	free(v->hosts);
	free(v->by_key);
	*v = (struct fv_view){0};
}

static int label_ptr_cmp(const void *a, const void *b)
{
	const struct promq_label *x = *(const struct promq_label *const *)a;
	const struct promq_label *y = *(const struct promq_label *const *)b;
	return strcmp(x->name, y->name);
}

/* The identity and host labels of @h from nvmond_host_info sample @s. */
int fv_host_take_info(struct fv_host *h, const struct promq_sample *s)
{
	const struct promq_label *pick[PROMQ_LABELS_MAX];
	size_t n = 0;

	free(h->host);
	free(h->host_id);
	free(h->public_url);
	h->host = fv_dup(promq_get(s, "host"));
	h->host_id = fv_dup(promq_get(s, "host_id"));
	h->public_url = fv_dup(promq_get(s, "public_url"));
	if (!h->host || !h->host_id || !h->public_url)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_labels && n < PROMQ_LABELS_MAX; i++)
		if (!host_label_excluded(s->labels[i].name))
			pick[n++] = &s->labels[i];
	qsort(pick, n, sizeof(pick[0]), label_ptr_cmp);
	h->label_names = calloc(n ? n : 1, sizeof(char *));
	h->label_values = calloc(n ? n : 1, sizeof(char *));
	if (!h->label_names || !h->label_values)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		h->label_names[i] = strdup(pick[i]->name);
		h->label_values[i] = strdup(pick[i]->value);
		h->n_labels = i + 1;
		if (!h->label_names[i] || !h->label_values[i])
			return -ENOMEM;
	}
	return 0;
}

int fv_drive_copy(struct fv_drive *to, const struct fv_drive *from)
{
	*to = *from;
	to->device = fv_dup(from->device);
	to->serial = fv_dup(from->serial);
	to->model = fv_dup(from->model);
	to->firmware = fv_dup(from->firmware);
	to->label = fv_dup(from->label);
	to->location = fv_dup(from->location);
	to->alerts = from->n_alerts ? calloc(from->n_alerts, sizeof(*to->alerts)) : NULL;
	to->n_alerts = 0;
	if (!to->device || !to->serial || !to->model || !to->firmware || !to->label ||
	    !to->location || (from->n_alerts && !to->alerts))
		return -ENOMEM;
	for (size_t i = 0; i < from->n_alerts; i++) {
		to->alerts[i].rule = fv_dup(from->alerts[i].rule);
		to->alerts[i].severity = fv_dup(from->alerts[i].severity);
		to->n_alerts = i + 1;
		if (!to->alerts[i].rule || !to->alerts[i].severity)
			return -ENOMEM;
	}
	return 0;
}

void fv_drive_init(struct fv_drive *d)
{
	*d = (struct fv_drive){.temperature_c = NAN,
			       .wctemp_c = NAN,
			       .cctemp_c = NAN,
			       .used_ratio = NAN,
			       .tbw_ratio = NAN,
			       .last_sample = NAN,
			       .up = -1,
			       .verdict = FV_UNKNOWN};
}

int fv_host_key_cmp(const struct fv_host *x, const char *job, const char *instance)
{
	int c = strcmp(x->job, job);
	return c ? c : strcmp(x->instance, instance);
}

/* @h's host in the previous view: a binary search of its key index. */
const struct fv_host *fv_prev_host(const struct fv_view *prev, const struct fv_host *h)
{
	size_t lo = 0, hi = prev ? prev->n_hosts : 0;

	while (prev && prev->by_key && lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct fv_host *x = &prev->hosts[prev->by_key[mid]];
		int c = fv_host_key_cmp(x, h->job, h->instance);
		if (c == 0)
			return x;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int alert_add(struct fv_drive *d, const char *rule, const char *severity)
{
	struct fv_alert *v;

	for (size_t i = 0; i < d->n_alerts; i++)
		if (strcmp(d->alerts[i].rule, rule) == 0)
			return 0; /* one per rule, even if two severities overlap in the lookback */
	v = realloc(d->alerts, (d->n_alerts + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	d->alerts = v;
	v[d->n_alerts].rule = strdup(rule);
	v[d->n_alerts].severity = strdup(severity);
	d->n_alerts++;
	if (!v[d->n_alerts - 1].rule || !v[d->n_alerts - 1].severity)
		return -ENOMEM;
	return 0;
}

/*
 * A state of nvmond_device_health (the fleet contract: ok, warning, critical, offline,
 * unknown). "unknown" is a state the daemon reports (no sample of the drive yet), not
 * the absence of one: it is taken, never derived into ok from the drive's other series.
 * Return: the verdict, or -EINVAL for a name that is no state (the verdict is derived).
 */
static int verdict_parse(const char *state)
{
	static const struct {
		const char *name;
		enum fv_verdict v;
	} states[] = {{"ok", FV_OK},
		      {"warning", FV_WARNING},
		      {"critical", FV_CRITICAL},
		      {"offline", FV_OFFLINE},
		      {"unknown", FV_UNKNOWN}};

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (strcmp(state, states[i].name) == 0)
			return (int)states[i].v;
	return -EINVAL;
}

/*
 * The verdict of a drive whose nvmond exports no nvmond_device_health (older
 * versions): the card's rule (docs/metrics.md), from what the view has: offline when
 * the drive is down, else critical when a critical alert fires, else warning when a
 * warning alert fires, ok otherwise; unknown without any figure.
 */
enum fv_verdict fv_verdict_derived(const struct fv_drive *d, bool has_data)
{
	bool crit = false, warn = false;

	for (size_t i = 0; i < d->n_alerts; i++) {
		crit |= strcmp(d->alerts[i].severity, "critical") == 0;
		warn |= strcmp(d->alerts[i].severity, "warning") == 0;
	}
	if (d->up == 0)
		return FV_OFFLINE;
	if (crit)
		return FV_CRITICAL;
	if (warn)
		return FV_WARNING;
	return has_data ? FV_OK : FV_UNKNOWN;
}

/* One value part of the instant query onto its drive. */
int fv_drive_apply(struct fv_drive *d, enum fv_part p, const struct promq_sample *s)
{
	switch (p) {
	case FV_P_INFO:
		free(d->model);
		free(d->firmware);
		free(d->label);
		free(d->location);
		d->model = fv_dup(promq_get(s, "model"));
		d->firmware = fv_dup(promq_get(s, "firmware"));
		d->label = fv_dup(promq_get(s, "label"));
		d->location = fv_dup(promq_get(s, "location"));
		return d->model && d->firmware && d->label && d->location ? 0 : -ENOMEM;
	case FV_P_HEALTH: {
		int v = verdict_parse(fv_label_or(s, "state", ""));
		/* Two states within the lookback (it changed): the worse one. */
		if (v >= 0 && (!d->verdict_reported || v > (int)d->verdict)) {
			d->verdict = (enum fv_verdict)v;
			d->verdict_reported = true;
		}
		return 0;
	}
	case FV_P_ALERT:
		return alert_add(d, fv_label_or(s, "rule", "?"),
				 fv_label_or(s, "severity", "info"));
	case FV_P_TEMP:
		d->temperature_c = isfinite(s->value) ? s->value : NAN;
		return 0;
	case FV_P_WCTEMP:
		d->wctemp_c = isfinite(s->value) && s->value > 0 ? s->value : NAN;
		return 0;
	case FV_P_CCTEMP:
		d->cctemp_c = isfinite(s->value) && s->value > 0 ? s->value : NAN;
		return 0;
	case FV_P_USED:
		d->used_ratio = isfinite(s->value) && s->value >= 0 ? s->value : NAN;
		return 0;
	case FV_P_TBW:
		d->tbw_ratio = isfinite(s->value) && s->value >= 0 ? s->value : NAN;
		return 0;
	case FV_P_SEEN:
		d->last_sample = isfinite(s->value) && s->value > 0 ? s->value : NAN;
		return 0;
	case FV_P_UP:
		d->up = s->value == 1 ? 1 : s->value == 0 ? 0 : -1;
		return 0;
	case FV_P_HOST:
	case FV_PARTS:
		break;
	}
	return 0;
}

int fv_alert_cmp(const void *a, const void *b)
{
	const struct fv_alert *x = a, *y = b;
	return strcmp(x->rule, y->rule);
}

int fv_drive_cmp(const void *a, const void *b)
{
	const struct fv_drive *x = a, *y = b;
	int c;

	if (x->verdict != y->verdict)
		return x->verdict > y->verdict ? -1 : 1;
	c = strverscmp(x->device, y->device); /* nvme2 before nvme10 */
	return c ? c : strcmp(x->serial, y->serial);
}

int fv_host_cmp(const void *a, const void *b)
{
	const struct fv_host *x = a, *y = b;
	int rx = fleetview_host_rank(x), ry = fleetview_host_rank(y), c;

	if (rx != ry)
		return rx > ry ? -1 : 1;
	c = strverscmp(x->host[0] ? x->host : x->instance, y->host[0] ? y->host : y->instance);
	if (c)
		return c;
	c = strcmp(x->instance, y->instance);
	return c ? c : strcmp(x->job, y->job);
}

const char *fleetview_verdict_name(enum fv_verdict v)
{
	static const char *const names[] = {"ok", "unknown", "offline", "warning", "critical"};
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "unknown";
}

bool fleetview_drive_problem(const struct fv_drive *d)
{
	return d->verdict != FV_OK || d->n_alerts > 0;
}

int fleetview_host_rank(const struct fv_host *h)
{
	static const int rank[] = {[FV_OK] = 0,
				   [FV_UNKNOWN] = 2,
				   [FV_OFFLINE] = 4,
				   [FV_WARNING] = 6,
				   [FV_CRITICAL] = 8};
	int r = rank[h->worst];

	if (!h->reporting && r < 7)
		r = 7; /* a host not reporting: below critical drives, above warnings */
	return r;
}
