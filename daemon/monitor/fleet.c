/* SPDX-License-Identifier: MIT */
/*
 * The fleet: every known device's identity, online state and latest sample,
 * behind one mutex (the poller writes, HTTP threads copy). See fleet.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "nvmond/monitor/fleet.h"

struct fleet {
	pthread_mutex_t lock;
	struct fleet_device *v; /* sorted by row.id */
	size_t n, cap;
	uint64_t gen; /* bumped by every change, see fleet_generation() */
	char *memo;   /* a rendering of generation memo_gen, see fleet_memo_put() */
	size_t memo_len;
	uint64_t memo_gen;
};

struct fleet *fleet_new(void)
{
	struct fleet *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	pthread_mutex_init(&f->lock, NULL);
	return f;
}

struct fleet *fleet_free(struct fleet *f)
{
	if (!f)
		return NULL;
	pthread_mutex_destroy(&f->lock);
	free(f->memo);
	free(f->v);
	free(f);
	return NULL;
}

/* Caller holds the lock: whatever a reader copies may have changed. */
static void changed(struct fleet *f)
{
	f->gen++;
	free(f->memo);
	f->memo = NULL;
}

/* Caller holds the lock. Return: index of @id, or where it would go (negative - 1). */
static ssize_t find(const struct fleet *f, int64_t id)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->v[mid].row.id == id)
			return (ssize_t)mid;
		if (f->v[mid].row.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -(ssize_t)lo - 1;
}

int fleet_put_device(struct fleet *f, const struct device_row *row)
{
	int r = 0;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, row->id);
	if (i >= 0) {
		f->v[i].row = *row;
		goto out;
	}
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct fleet_device *v = realloc(f->v, cap * sizeof(*v));
		if (!v) {
			r = -ENOMEM;
			goto out;
		}
		f->v = v;
		f->cap = cap;
	}
	size_t at = (size_t)(-i - 1);
	memmove(&f->v[at + 1], &f->v[at], (f->n - at) * sizeof(*f->v));
	f->v[at] = (struct fleet_device){.row = *row};
	f->n++;
out:
	changed(f);
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_set_online(struct fleet *f, int64_t id, bool online, int64_t now_ms)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, id);
	if (i >= 0) {
		f->v[i].row.online = online;
		if (online)
			f->v[i].row.last_seen_ms = now_ms;
		r = 0;
	}
	changed(f);
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_put_facts(struct fleet *f, int64_t id, const struct fleet_facts *facts)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, id);
	if (i >= 0) {
		f->v[i].facts = *facts;
		r = 0;
	}
	changed(f);
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_put_sample(struct fleet *f, const struct sample *s)
{
	return fleet_put_judged(f, s, NULL);
}

int fleet_put_judged(struct fleet *f, const struct sample *s, const struct fleet_temps *t)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, s->device_id);
	if (i >= 0) {
		if (t)
			f->v[i].temps = *t;
		f->v[i].last = *s;
		f->v[i].has_sample = true;
		if (s->ts_ms > f->v[i].row.last_seen_ms)
			f->v[i].row.last_seen_ms = s->ts_ms;
		r = 0;
	}
	changed(f);
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_put_errors(struct fleet *f, int64_t id, const uint64_t counts[_ERRCLASS_MAX])
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, id);
	if (i >= 0) {
		memcpy(f->v[i].errors, counts, sizeof(f->v[i].errors));
		f->v[i].errors_read = true;
		r = 0;
	}
	changed(f);
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_put_names(struct fleet *f, int64_t id, const struct fleet_names *names)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, id);
	if (i >= 0) {
		r = 0;
		if (strcmp(f->v[i].names.label, names->label) != 0 ||
		    strcmp(f->v[i].names.location, names->location) != 0) {
			f->v[i].names = *names;
			changed(f);
		}
	}
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_put_rated(struct fleet *f, int64_t id, uint64_t rated_bytes_cfg)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, id);
	if (i >= 0) {
		r = 0;
		if (f->v[i].rated_bytes_cfg != rated_bytes_cfg) {
			f->v[i].rated_bytes_cfg = rated_bytes_cfg;
			changed(f);
		}
	}
	pthread_mutex_unlock(&f->lock);
	return r;
}

/* Equal lists: the same alerts, each saying the same. */
static bool alerts_equal(const struct fleet_alerts *a, const struct fleet_alerts *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].id != b->v[i].id || a->v[i].rule != b->v[i].rule ||
		    a->v[i].severity != b->v[i].severity ||
		    strcmp(a->v[i].message, b->v[i].message) != 0)
			return false;
	return true;
}

int fleet_put_alerts(struct fleet *f, int64_t id, const struct fleet_alerts *alerts)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, id);
	if (i >= 0) {
		r = 0;
		if (!alerts_equal(&f->v[i].alerts, alerts)) {
			f->v[i].alerts = *alerts;
			changed(f);
		}
	}
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_put_selftest(struct fleet *f, int64_t id, const struct fleet_selftest *st)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, id);
	if (i >= 0) {
		f->v[i].selftest = *st;
		r = 0;
		changed(f);
	}
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_put_drive(struct fleet *f, int64_t id, const struct fleet_drive *d)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, id);
	if (i >= 0) {
		f->v[i].drive = *d;
		r = 0;
		changed(f);
	}
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_put_risk(struct fleet *f, int64_t id, const struct risk_verdict *v)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, id);
	if (i >= 0) {
		f->v[i].risk = *v;
		r = 0;
		changed(f);
	}
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_snapshot_gen(struct fleet *f, struct fleet_device **ret, size_t *ret_n, uint64_t *ret_gen)
{
	int r = 0;

	pthread_mutex_lock(&f->lock);
	struct fleet_device *v = malloc((f->n ? f->n : 1) * sizeof(*v));
	if (!v) {
		r = -ENOMEM;
		goto out;
	}
	if (f->n) /* an empty fleet has no array yet (memcpy from NULL is undefined) */
		memcpy(v, f->v, f->n * sizeof(*v));
	*ret = v;
	*ret_n = f->n;
	if (ret_gen)
		*ret_gen = f->gen;
out:
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_snapshot(struct fleet *f, struct fleet_device **ret, size_t *ret_n)
{
	return fleet_snapshot_gen(f, ret, ret_n, NULL);
}

uint64_t fleet_generation(struct fleet *f)
{
	pthread_mutex_lock(&f->lock);
	uint64_t g = f->gen;
	pthread_mutex_unlock(&f->lock);
	return g;
}

int fleet_memo_put(struct fleet *f, uint64_t gen, const char *text, size_t len)
{
	int r = 0;

	pthread_mutex_lock(&f->lock);
	if (gen != f->gen || (f->memo && f->memo_gen == gen))
		goto out;
	char *m = malloc(len ? len : 1);
	if (!m) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(m, text, len);
	free(f->memo);
	f->memo = m;
	f->memo_len = len;
	f->memo_gen = gen;
out:
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_memo_get(struct fleet *f, char **ret, size_t *ret_len)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	if (f->memo && f->memo_gen == f->gen) {
		char *m = malloc(f->memo_len ? f->memo_len : 1);
		r = -ENOMEM;
		if (m) {
			memcpy(m, f->memo, f->memo_len);
			*ret = m;
			*ret_len = f->memo_len;
			r = 0;
		}
	}
	pthread_mutex_unlock(&f->lock);
	return r;
}

int fleet_get(struct fleet *f, int64_t id, struct fleet_device *ret)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	ssize_t i = find(f, id);
	if (i >= 0) {
		*ret = f->v[i];
		r = 0;
	}
	pthread_mutex_unlock(&f->lock);
	return r;
}

const char *fleet_device_state(const struct fleet_device *d)
{
	if (!d->row.online)
		return "offline";
	if (d->facts.unresponsive)
		return "unresponsive";
	return d->facts.asleep ? "asleep" : "online";
}
