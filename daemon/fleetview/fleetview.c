/* SPDX-License-Identifier: MIT */
/*
 * The fleet view, pure (see fleetview.h): the instant query's parts joined into
 * hosts and drives by (job, instance) and (job, instance, device, serial), with
 * sorted key tables rather than a search per sample, so that 8,000 drives merge in
 * a few milliseconds.
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

/* K: a drive's key. Every part carries it, and nothing else it does not need. */
#define K "job, instance, device, serial"

static const struct {
	const char *name, *query;
} parts[FV_PARTS] = {
	[FV_P_HOST] = {"host", "timestamp(nvmond_host_info)"},
	[FV_P_INFO] = {"info",
		       "max by (" K ", model, firmware, label, location) (nvmond_device_info)"},
	/* ok is what is left: the four other states touch 4 of the 5 series of each drive. */
	[FV_P_HEALTH] = {"health",
			 "max by (" K ", state) (nvmond_device_health{state!=\"ok\"} == 1)"},
	[FV_P_ALERT] = {"alert", "max by (" K ", rule, severity) (nvmond_alert_firing)"},
	[FV_P_TEMP] = {"temp", "max by (" K ") (nvmond_temperature_celsius{sensor=\"composite\"})"},
	[FV_P_WCTEMP] = {"wctemp", "max by (" K ") (nvmond_temperature_warning_threshold_celsius)"},
	[FV_P_CCTEMP] = {"cctemp",
			 "max by (" K ") (nvmond_temperature_critical_threshold_celsius)"},
	[FV_P_USED] = {"used", "max by (" K ") (nvmond_endurance_used_ratio)"},
	[FV_P_TBW] = {"tbw", "max by (" K ") (nvmond_data_written_bytes_total) / max by (" K
			     ") (nvmond_rated_endurance_bytes)"},
	[FV_P_SEEN] = {"seen", "max by (" K ") (nvmond_last_sample_timestamp_seconds)"},
	[FV_P_UP] = {"up", "max by (" K ") (nvmond_device_up)"},
};

const char *fleetview_query_part(enum fv_part p)
{
	return (unsigned)p < FV_PARTS ? parts[p].query : NULL;
}

const char *fleetview_part_name(enum fv_part p)
{
	return (unsigned)p < FV_PARTS ? parts[p].name : "?";
}

const char *fv_label_or(const struct promq_sample *s, const char *name, const char *def)
{
	const char *v = promq_get(s, name);
	return v ? v : def;
}

/* ---- keys ----------------------------------------------------------------- */

struct hkey {
	const char *job, *instance;
};

static int hkey_cmp(const void *a, const void *b)
{
	const struct hkey *x = a, *y = b;
	int c = strcmp(x->job, y->job);
	return c ? c : strcmp(x->instance, y->instance);
}

/* A sample's host key; false when it lacks job or instance (not nvmond's shape). */
static bool hkey_of(const struct promq_sample *s, struct hkey *ret)
{
	ret->job = promq_get(s, "job");
	ret->instance = promq_get(s, "instance");
	if (!ret->instance)
		return false;
	if (!ret->job)
		ret->job = "";
	return true;
}

struct dkey {
	size_t host; /* index in the host table */
	const char *device, *serial;
};

static int dkey_cmp(const void *a, const void *b)
{
	const struct dkey *x = a, *y = b;
	int c;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	c = strcmp(x->device, y->device);
	return c ? c : strcmp(x->serial, y->serial);
}

/* Sort and drop duplicates. Return: the count left. */
static size_t sort_unique(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *v = base;
	size_t k = 0;

	if (!n)
		return 0;
	qsort(v, n, size, cmp);
	for (size_t i = 1; i < n; i++)
		if (cmp(v + k * size, v + i * size) != 0) {
			k++;
			if (k != i)
				memcpy(v + k * size, v + i * size, size);
		}
	return k + 1;
}

static ssize_t hkey_find(const struct hkey *v, size_t n, const struct hkey *k)
{
	const struct hkey *p = bsearch(k, v, n, sizeof(*v), hkey_cmp);
	return p ? p - v : -1;
}

/* ---- the gone hosts ------------------------------------------------------- */

/* How many samples the parts of the instant query hold. */
static size_t now_count(const struct fv_answer *a)
{
	size_t n = 0;

	for (int p = 0; p < FV_PARTS; p++)
		n += a->now[p] ? a->now[p]->n : 0;
	return n;
}

size_t fleetview_gone_hosts(const struct fv_answer *a, const char **ret_jobs,
			    const char **ret_instances, size_t max)
{
	struct hkey *now_keys = NULL;
	size_t n_now = 0, n = 0, total = now_count(a);

	if (!a->known || !a->known->n || !max)
		return 0;
	now_keys = malloc((total ? total : 1) * sizeof(*now_keys));
	if (!now_keys)
		return 0;
	for (int p = 0; p < FV_PARTS; p++)
		for (size_t i = 0; a->now[p] && i < a->now[p]->n; i++)
			if (hkey_of(&a->now[p]->v[i], &now_keys[n_now]))
				n_now++;
	n_now = sort_unique(now_keys, n_now, sizeof(*now_keys), hkey_cmp);
	for (size_t i = 0; i < a->known->n && n < max; i++) {
		struct hkey k;
		struct fv_host probe;
		const struct fv_host *p;
		bool dup_seen = false;

		if (!hkey_of(&a->known->v[i], &k) || hkey_find(now_keys, n_now, &k) >= 0)
			continue;
		probe.job = (char *)k.job;
		probe.instance = (char *)k.instance;
		p = fv_prev_host(a->prev, &probe);
		if (p && isfinite(p->last_seen))
			continue;
		for (size_t j = 0; j < n && !dup_seen; j++)
			dup_seen = strcmp(ret_jobs[j], k.job) == 0 &&
				   strcmp(ret_instances[j], k.instance) == 0;
		if (dup_seen)
			continue;
		ret_jobs[n] = k.job;
		ret_instances[n] = k.instance;
		n++;
	}
	free(now_keys);
	return n;
}

char *fleetview_query_gone(const char *const *jobs, const char *const *instances, size_t n,
			   long long window_s)
{
	const char **uj = NULL;
	char *rj = NULL, *ri = NULL, *out = NULL;
	size_t nj = 0, len;
	FILE *f;

	if (!n)
		return NULL;
	uj = malloc(n * sizeof(*uj));
	if (!uj)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t j = 0; j < nj && !seen; j++)
			seen = strcmp(uj[j], jobs[i]) == 0;
		if (!seen)
			uj[nj++] = jobs[i];
	}
	rj = promq_regex_alternatives(uj, nj);
	ri = promq_regex_alternatives(instances, n);
	if (!rj || !ri)
		goto out;
	f = open_memstream(&out, &len);
	if (!f)
		goto out;
	fprintf(f,
		"max by (job, instance, device, model, serial) (last_over_time("
		"nvmond_last_sample_timestamp_seconds{job=~%s, instance=~%s}[%llds]))",
		rj, ri, window_s);
	if (fclose(f) != 0) {
		free(out);
		out = NULL;
	}
out:
	free(uj);
	free(rj);
	free(ri);
	return out;
}

/* ---- merging -------------------------------------------------------------- */

struct merge {
	const struct fv_answer *a;
	struct hkey *keys; /* sorted: hosts[i] belongs to keys[i] */
	struct fv_host *hosts;
	struct hwork *work;
	size_t n_hosts;
	struct dkey *dkeys; /* sorted */
	struct fv_drive *drives;
	size_t n_dkeys;
};

/* Every (job, instance) of the answer: the instant query's, the known ones'. */
static int collect_hosts(struct merge *m)
{
	const struct fv_answer *a = m->a;
	size_t cap =
		now_count(a) + (a->known ? a->known->n : 0) + (a->prev ? a->prev->n_hosts : 0) + 1;
	size_t n = 0;

	m->keys = malloc(cap * sizeof(*m->keys));
	if (!m->keys)
		return -ENOMEM;
	for (int p = 0; p < FV_PARTS; p++)
		for (size_t i = 0; a->now[p] && i < a->now[p]->n; i++)
			if (hkey_of(&a->now[p]->v[i], &m->keys[n]))
				n++;
	for (size_t i = 0; a->known && i < a->known->n; i++)
		if (hkey_of(&a->known->v[i], &m->keys[n]))
			n++;
	/* Without the known hosts (their query failed), the previous view's stay. */
	for (size_t i = 0; !a->known && a->prev && i < a->prev->n_hosts; i++)
		m->keys[n++] = (struct hkey){a->prev->hosts[i].job, a->prev->hosts[i].instance};
	m->n_hosts = sort_unique(m->keys, n, sizeof(*m->keys), hkey_cmp);
	m->hosts = calloc(m->n_hosts ? m->n_hosts : 1, sizeof(*m->hosts));
	m->work = calloc(m->n_hosts ? m->n_hosts : 1, sizeof(*m->work));
	if (!m->hosts || !m->work)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_hosts; i++) {
		m->hosts[i].job = fv_dup(m->keys[i].job);
		m->hosts[i].instance = fv_dup(m->keys[i].instance);
		m->hosts[i].last_seen = NAN;
		m->work[i].gone_seen = NAN;
		if (!m->hosts[i].job || !m->hosts[i].instance)
			return -ENOMEM;
	}
	return 0;
}

/* Which host each sample is of; the newest nvmond_host_info of each. */
static void mark_hosts(struct merge *m)
{
	const struct fv_answer *a = m->a;
	struct hkey k;
	ssize_t h;

	for (int p = 0; p < FV_PARTS; p++)
		for (size_t i = 0; a->now[p] && i < a->now[p]->n; i++) {
			const struct promq_sample *s = &a->now[p]->v[i];
			if (!hkey_of(s, &k) || (h = hkey_find(m->keys, m->n_hosts, &k)) < 0)
				continue;
			m->work[h].in_now = true;
			if (p != FV_P_HOST || !isfinite(s->value))
				continue;
			if (!m->work[h].info_now || s->value > m->hosts[h].last_seen) {
				m->work[h].info = s;
				m->work[h].info_now = true;
				m->hosts[h].last_seen = s->value;
			}
		}
	for (size_t i = 0; a->known && i < a->known->n; i++) {
		const struct promq_sample *s = &a->known->v[i];
		if (!hkey_of(s, &k) || (h = hkey_find(m->keys, m->n_hosts, &k)) < 0)
			continue;
		if (!m->work[h].info)
			m->work[h].info = s;
	}
}

static int collect_drives(struct merge *m)
{
	const struct fv_answer *a = m->a;
	size_t n = 0;
	struct hkey k;
	ssize_t h;

	m->dkeys = malloc((now_count(a) ? now_count(a) : 1) * sizeof(*m->dkeys));
	if (!m->dkeys)
		return -ENOMEM;
	for (int p = FV_P_HOST + 1; p < FV_PARTS; p++)
		for (size_t i = 0; a->now[p] && i < a->now[p]->n; i++) {
			const struct promq_sample *s = &a->now[p]->v[i];
			const char *device = promq_get(s, "device");
			if (!device || !hkey_of(s, &k) ||
			    (h = hkey_find(m->keys, m->n_hosts, &k)) < 0)
				continue;
			m->dkeys[n++] =
				(struct dkey){(size_t)h, device, fv_label_or(s, "serial", "")};
		}
	m->n_dkeys = sort_unique(m->dkeys, n, sizeof(*m->dkeys), dkey_cmp);
	m->drives = calloc(m->n_dkeys ? m->n_dkeys : 1, sizeof(*m->drives));
	if (!m->drives)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_dkeys; i++) {
		fv_drive_init(&m->drives[i]);
		m->drives[i].device = fv_dup(m->dkeys[i].device);
		m->drives[i].serial = fv_dup(m->dkeys[i].serial);
		m->drives[i].model = fv_dup("");
		m->drives[i].firmware = fv_dup("");
		m->drives[i].label = fv_dup("");
		m->drives[i].location = fv_dup("");
		if (!m->drives[i].device || !m->drives[i].serial || !m->drives[i].model ||
		    !m->drives[i].firmware || !m->drives[i].label || !m->drives[i].location)
			return -ENOMEM;
	}
	for (int p = FV_P_HOST + 1; p < FV_PARTS; p++)
		for (size_t i = 0; a->now[p] && i < a->now[p]->n; i++) {
			const struct promq_sample *s = &a->now[p]->v[i];
			struct dkey dk;
			const struct dkey *d;

			if (!promq_get(s, "device") || !hkey_of(s, &k) ||
			    (h = hkey_find(m->keys, m->n_hosts, &k)) < 0)
				continue;
			dk = (struct dkey){(size_t)h, promq_get(s, "device"),
					   fv_label_or(s, "serial", "")};
			d = bsearch(&dk, m->dkeys, m->n_dkeys, sizeof(dk), dkey_cmp);
			if (d && fv_drive_apply(&m->drives[d - m->dkeys], (enum fv_part)p, s) < 0)
				return -ENOMEM;
		}
	for (size_t i = 0; i < m->n_dkeys; i++) {
		struct fv_drive *d = &m->drives[i];
		bool has_data = d->model[0] || d->up >= 0 || isfinite(d->last_sample) ||
				isfinite(d->temperature_c);
		if (!d->verdict_reported)
			d->verdict = fv_verdict_derived(d, has_data);
		if (d->n_alerts > 1)
			qsort(d->alerts, d->n_alerts, sizeof(*d->alerts), fv_alert_cmp);
	}
	return 0;
}

/* The drives of host @h (index) in the instant query: moved from m->drives. */
static int host_take_drives(struct merge *m, size_t h)
{
	size_t lo = 0, n = 0;
	struct fv_host *host = &m->hosts[h];

	while (lo < m->n_dkeys && m->dkeys[lo].host < h)
		lo++;
	while (lo + n < m->n_dkeys && m->dkeys[lo + n].host == h)
		n++;
	if (!n)
		return 0;
	host->drives = calloc(n, sizeof(*host->drives));
	if (!host->drives)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		host->drives[i] = m->drives[lo + i];
		fv_drive_init(&m->drives[lo + i]); /* moved: nothing left to free there */
	}
	host->n_drives = n;
	return 0;
}

/* A host no longer in the instant query: the previous view's drives, else the gone query's. */
static int host_take_gone(struct merge *m, size_t h, const struct fv_host *prev)
{
	const struct promq_result *gone = m->a->gone;
	struct fv_host *host = &m->hosts[h];
	struct hkey k;

	host->drives_stale = true;
	if (prev && prev->n_drives) {
		host->drives = calloc(prev->n_drives, sizeof(*host->drives));
		if (!host->drives)
			return -ENOMEM;
		for (size_t i = 0; i < prev->n_drives; i++) {
			host->n_drives = i + 1;
			if (fv_drive_copy(&host->drives[i], &prev->drives[i]) < 0)
				return -ENOMEM;
		}
	}
	for (size_t i = 0; gone && i < gone->n; i++) {
		const struct promq_sample *s = &gone->v[i];
		if (!hkey_of(s, &k) || hkey_cmp(&k, &m->keys[h]) != 0 || !isfinite(s->value))
			continue;
		if (!isfinite(m->work[h].gone_seen) || s->value > m->work[h].gone_seen)
			m->work[h].gone_seen = s->value;
		if (prev && prev->n_drives)
			continue;
		struct fv_drive *v = realloc(host->drives, (host->n_drives + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		host->drives = v;
		struct fv_drive *d = &v[host->n_drives++];
		fv_drive_init(d);
		d->device = fv_dup(promq_get(s, "device"));
		d->serial = fv_dup(promq_get(s, "serial"));
		d->model = fv_dup(promq_get(s, "model"));
		d->firmware = fv_dup("");
		d->label = fv_dup("");
		d->location = fv_dup("");
		d->last_sample = s->value;
		if (!d->device || !d->serial || !d->model || !d->firmware || !d->label ||
		    !d->location)
			return -ENOMEM;
	}
	return 0;
}

static void host_summarise(struct fv_host *h)
{
	h->worst = FV_OK;
	h->problems = 0;
	for (size_t i = 0; i < h->n_drives; i++) {
		if (h->drives[i].verdict > h->worst)
			h->worst = h->drives[i].verdict;
		if (fleetview_drive_problem(&h->drives[i]))
			h->problems++;
	}
	if (h->n_drives > 1)
		qsort(h->drives, h->n_drives, sizeof(*h->drives), fv_drive_cmp);
}

/* The identity and host labels a host had in the previous view. */
static int host_copy_info(struct fv_host *h, const struct fv_host *prev)
{
	h->host = fv_dup(prev->host);
	h->host_id = fv_dup(prev->host_id);
	h->public_url = fv_dup(prev->public_url);
	h->label_names = calloc(prev->n_labels ? prev->n_labels : 1, sizeof(char *));
	h->label_values = calloc(prev->n_labels ? prev->n_labels : 1, sizeof(char *));
	if (!h->host || !h->host_id || !h->public_url || !h->label_names || !h->label_values)
		return -ENOMEM;
	for (size_t j = 0; j < prev->n_labels; j++) {
		h->label_names[j] = strdup(prev->label_names[j]);
		h->label_values[j] = strdup(prev->label_values[j]);
		h->n_labels = j + 1;
		if (!h->label_names[j] || !h->label_values[j])
			return -ENOMEM;
	}
	return 0;
}

static int finish_host(struct merge *m, size_t i)
{
	const struct fv_answer *a = m->a;
	struct fv_host *h = &m->hosts[i];
	const struct fv_host *prev = fv_prev_host(a->prev, h);
	int r;

	if (m->work[i].info) {
		r = fv_host_take_info(h, m->work[i].info);
	} else if (prev) {
		r = host_copy_info(h, prev);
	} else {
		h->host = fv_dup("");
		h->host_id = fv_dup("");
		h->public_url = fv_dup("");
		r = h->host && h->host_id && h->public_url ? 0 : -ENOMEM;
	}
	if (r < 0)
		return r;
	if (m->work[i].in_now) {
		r = host_take_drives(m, i);
		if (r < 0)
			return r;
		/* Without nvmond_host_info (an nvmond before it), the lookback alone says. */
		h->reporting =
			!m->work[i].info_now || a->eval_ts - h->last_seen <= a->stale_after_s;
		h->drives_stale = !h->reporting;
	} else {
		r = host_take_gone(m, i, prev);
		if (r < 0)
			return r;
		h->reporting = false;
		if (prev && isfinite(prev->last_seen))
			h->last_seen = prev->last_seen;
		else
			h->last_seen = m->work[i].gone_seen;
	}
	host_summarise(h);
	return 0;
}

/* The key index of a view (qsort_r()'s @arg). */
static int by_key_cmp(const void *a, const void *b, void *arg)
{
	const struct fv_view *v = arg;
	const struct fv_host *x = &v->hosts[*(const size_t *)a];
	const struct fv_host *y = &v->hosts[*(const size_t *)b];
	return fv_host_key_cmp(x, y->job, y->instance);
}

int fleetview_merge(const struct fv_answer *a, struct fv_view *ret)
{
	struct merge m = {.a = a};
	struct fv_view v = {.eval_ts = a->eval_ts};
	int r;

	r = collect_hosts(&m);
	if (r < 0)
		goto out;
	mark_hosts(&m);
	r = collect_drives(&m);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < m.n_hosts; i++) {
		r = finish_host(&m, i);
		if (r < 0)
			goto out;
	}
	qsort(m.hosts, m.n_hosts, sizeof(*m.hosts), fv_host_cmp);
	for (size_t i = 0; i < m.n_hosts; i++) {
		const struct fv_host *h = &m.hosts[i];
		v.n_drives += h->n_drives;
		v.n_problems += h->reporting ? h->problems : h->n_drives;
		v.n_not_reporting += !h->reporting;
	}
	v.hosts = m.hosts;
	v.n_hosts = m.n_hosts;
	m.hosts = NULL;
	m.n_hosts = 0;
	v.by_key = malloc((v.n_hosts ? v.n_hosts : 1) * sizeof(*v.by_key));
	if (!v.by_key) {
		fleetview_view_free(&v);
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < v.n_hosts; i++)
		v.by_key[i] = i;
	qsort_r(v.by_key, v.n_hosts, sizeof(*v.by_key), by_key_cmp, &v);
	*ret = v;
	r = 0;
out:
	for (size_t i = 0; i < m.n_hosts && m.hosts; i++)
		fv_host_free(&m.hosts[i]);
	free(m.hosts);
	for (size_t i = 0; i < m.n_dkeys && m.drives; i++)
		fv_drive_free(&m.drives[i]);
	free(m.drives);
	free(m.dkeys);
	free(m.keys);
	free(m.work);
	return r;
}
