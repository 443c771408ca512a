/* SPDX-License-Identifier: MIT */
/*
 * Group runs: the barrier of the members' threads, and the group's result
 * (each drive against its own latest solo run, the total). See probe_group.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmond/probe/probe_group.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_probe_group.h"

/* ---- the barrier ---- */

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int probe_group_sync_init(struct probe_group_sync *g, size_t members)
{
	int r;

	*g = (struct probe_group_sync){.members = members};
	r = -pthread_mutex_init(&g->lock, NULL);
	if (r < 0)
		return r;
	r = -pthread_cond_init(&g->cond, NULL);
	if (r < 0)
		pthread_mutex_destroy(&g->lock);
	return r;
}

void probe_group_sync_destroy(struct probe_group_sync *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

/* The last one in releases the others. Under the lock. */
static void release(struct probe_group_sync *g)
{
	g->arrived = 0;
	g->generation++;
	g->release_ns = mono_ns();
	pthread_cond_broadcast(&g->cond);
}

int64_t probe_group_sync_arrive(struct probe_group_sync *g)
{
	int64_t late;

	pthread_mutex_lock(&g->lock);
	uint64_t gen = g->generation;
	if (++g->arrived >= g->members) {
		release(g);
	} else {
		while (g->generation == gen)
			pthread_cond_wait(&g->cond, &g->lock);
	}
	late = mono_ns() - g->release_ns;
	pthread_mutex_unlock(&g->lock);
	return late > 0 ? late : 0;
}

void probe_group_sync_leave(struct probe_group_sync *g)
{
	pthread_mutex_lock(&g->lock);
	if (g->members)
		g->members--;
	/* Those waiting waited for this one too. */
	if (g->arrived && g->arrived >= g->members)
		release(g);
	pthread_mutex_unlock(&g->lock);
}

/* ---- the result ---- */

char *probe_group_phase_text(const struct probe_group_fig *v, size_t n, char *buf, size_t size)
{
	double total = 0, solo_sum = 0, lo = INFINITY, hi = 0;
	size_t n_solo = 0;

	for (size_t i = 0; i < n; i++) {
		total += v[i].mb_s;
		if (v[i].solo_mb_s > 0) {
			double ratio = v[i].mb_s / v[i].solo_mb_s * 100;
			solo_sum += v[i].solo_mb_s;
			n_solo++;
			lo = fmin(lo, ratio);
			hi = fmax(hi, ratio);
		}
	}
	if (n_solo == 0 || n_solo < n) {
		snprintf(buf, size, "together %.0f MB/s (%s)", total,
			 n_solo ? "not every drive has a solo run to compare"
				: "no solo run to compare");
		return buf;
	}
	double one = solo_sum / (double)n_solo;
	if (lround(lo) == lround(hi))
		snprintf(buf, size, "each at %.0f %% of solo, together %.0f MB/s = %.2f× one drive",
			 lo, total, total / one);
	else
		snprintf(buf, size,
			 "each at %.0f–%.0f %% of solo, together %.0f MB/s = %.2f× one drive", lo,
			 hi, total, total / one);
	return buf;
}

static bool measured(const char *state)
{
	return !strcmp(state, "done") || !strcmp(state, "stopped");
}

/* The MB/s of a phase in its own direction (a copy: what it read). */
static double phase_mb_s(const struct probe_phase_row *ph)
{
	const struct probe_dir_stats *d = !strcmp(ph->op, "write") ? &ph->wr : &ph->rd;

	return ph->elapsed_ms > 0 ? (double)d->bytes / ((double)ph->elapsed_ms / 1000.0) / 1e6 : 0;
}

static const struct probe_phase_row *phase_named(const struct probe_phase_row *v, size_t n,
						 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

struct member {
	struct probe_run_row run;
	struct device_row dev;
	int64_t skew_us;
	struct probe_phase_row *ph, *solo_ph;
	size_t n_ph, n_solo_ph;
	int64_t solo_id;
};

static int member_load(struct store *s, const struct probe_group_member *gm, struct member *m)
{
	int r = store_probe_run_get(s, gm->run_id, &m->run);

	m->skew_us = gm->skew_us;
	if (r == 0 && store_device_get(s, m->run.device_id, &m->dev) < 0)
		snprintf(m->dev.name, sizeof(m->dev.name), "drive %lld",
			 (long long)m->run.device_id);
	if (r == 0)
		r = store_probe_phases_get(s, m->run.id, &m->ph, &m->n_ph);
	if (r < 0)
		return r;
	r = store_probe_solo_latest(s, m->run.device_id, m->run.preset, m->run.target, m->run.id,
				    &m->solo_id);
	if (r == -ENOENT) {
		m->solo_id = 0;
		return 0;
	}
	if (r == 0)
		r = store_probe_phases_get(s, m->solo_id, &m->solo_ph, &m->n_solo_ph);
	return r;
}

static json_t *member_json(const struct member *m)
{
	json_t *phases = json_array();

	for (size_t k = 0; phases && k < m->n_ph; k++) {
		const struct probe_phase_row *so =
			phase_named(m->solo_ph, m->n_solo_ph, m->ph[k].name);
		double mb = phase_mb_s(&m->ph[k]), solo = so ? phase_mb_s(so) : 0;
		json_array_append_new(
			phases, json_pack("{s:s, s:f, s:o, s:o}", "name", m->ph[k].name, "mb_s", mb,
					  "solo_mb_s", solo > 0 ? json_real(solo) : json_null(),
					  "ratio", solo > 0 ? json_real(mb / solo) : json_null()));
	}
	return json_pack("{s:I, s:I, s:s, s:s, s:s, s:o, s:o, s:o}", "run_id",
			 (json_int_t)m->run.id, "device_id", (json_int_t)m->run.device_id, "device",
			 m->dev.name, "state", m->run.state, "reason", m->run.reason, "skew_ms",
			 m->skew_us >= 0 ? json_real((double)m->skew_us / 1000.0) : json_null(),
			 "solo_run_id", m->solo_id ? json_integer(m->solo_id) : json_null(),
			 "phases", phases);
}

static int group_json(struct member *mv, size_t n, int64_t group_id, json_t **ret)
{
	json_t *members = json_array(), *agg = json_array();
	char text[1024] = "", line[256];
	size_t off = 0, n_done = 0;
	int64_t skew = -1;
	bool running = false;

	for (size_t i = 0; i < n; i++) {
		json_array_append_new(members, member_json(&mv[i]));
		n_done += measured(mv[i].run.state);
		running |= !strcmp(mv[i].run.state, "running");
		if (mv[i].skew_us > skew)
			skew = mv[i].skew_us;
	}
	/* Phase by phase, over the members that ran it in full (measured). */
	const struct member *first = NULL;
	for (size_t i = 0; i < n && !first; i++)
		if (measured(mv[i].run.state))
			first = &mv[i];
	for (size_t k = 0; first && k < first->n_ph; k++) {
		struct probe_group_fig v[PROBE_GROUP_MAX];
		size_t nv = 0;
		double total = 0;
		for (size_t i = 0; i < n && nv < PROBE_GROUP_MAX; i++) {
			const struct probe_phase_row *ph =
				measured(mv[i].run.state)
					? phase_named(mv[i].ph, mv[i].n_ph, first->ph[k].name)
					: NULL;
			if (!ph)
				continue;
			const struct probe_phase_row *so =
				phase_named(mv[i].solo_ph, mv[i].n_solo_ph, ph->name);
			v[nv] = (struct probe_group_fig){.name = mv[i].dev.name,
							 .mb_s = phase_mb_s(ph),
							 .solo_mb_s = so ? phase_mb_s(so) : 0};
			total += v[nv++].mb_s;
		}
		probe_group_phase_text(v, nv, line, sizeof(line));
		json_array_append_new(agg,
				      json_pack("{s:s, s:i, s:f, s:s}", "name", first->ph[k].name,
						"drives", (int)nv, "mb_s", total, "text", line));
		off += (size_t)snprintf(text + off, off < sizeof(text) ? sizeof(text) - off : 0,
					"%s%s: %s", off ? "; " : "", first->ph[k].name, line);
	}
	if (off >= sizeof(text))
		off = sizeof(text) - 1;
	/* If one stopped, the others finished: the group says so. */
	for (size_t i = 0; i < n; i++) {
		if (measured(mv[i].run.state) || !strcmp(mv[i].run.state, "running"))
			continue;
		off += (size_t)snprintf(text + off, off < sizeof(text) ? sizeof(text) - off : 0,
					"%s%s %s%s%s", off ? "; " : "", mv[i].dev.name,
					mv[i].run.state, mv[i].run.reason[0] ? ": " : "",
					mv[i].run.reason);
		if (off >= sizeof(text))
			off = sizeof(text) - 1;
	}
	if (n_done < n && n_done && !running)
		snprintf(text + off, off < sizeof(text) ? sizeof(text) - off : 0,
			 " (the other%s finished)", n_done > 1 ? "s" : "");
	if (running)
		snprintf(text, sizeof(text), "running on %zu drives together", n);
	*ret = json_pack("{s:I, s:o, s:o, s:o, s:s}", "id", (json_int_t)group_id, "members",
			 members, "aggregate", agg, "skew_ms",
			 skew >= 0 ? json_real((double)skew / 1000.0) : json_null(), "text", text);
	return *ret ? 0 : -ENOMEM;
}

int probe_group_json_add(struct store *s, json_t *detail)
{
	int64_t id = json_integer_value(json_object_get(detail, "id")), group_id;
	struct probe_group_member *gm = NULL;
	struct member *mv = NULL;
	json_t *g = NULL;
	size_t n = 0;
	int r = store_probe_group_of(s, id, &group_id);

	if (r == -ENOENT)
		return json_object_set_new(detail, "group", json_null()) < 0 ? -ENOMEM : 0;
	if (r == 0)
		r = store_probe_group_members(s, group_id, &gm, &n);
	if (r < 0)
		return r;
	mv = calloc(n ? n : 1, sizeof(*mv));
	r = mv ? 0 : -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++)
		r = member_load(s, &gm[i], &mv[i]);
	if (r == 0)
		r = group_json(mv, n, group_id, &g);
	if (r == 0 && json_object_set_new(detail, "group", g) < 0)
		r = -ENOMEM;
	for (size_t i = 0; mv && i < n; i++) {
		free(mv[i].ph);
		free(mv[i].solo_ph);
	}
	free(mv);
	free(gm);
	return r;
}

void probe_group_print(FILE *out, const json_t *group)
{
	size_t i, k;
	json_t *m, *ph, *a;

	if (!json_is_object(group))
		return;
	fprintf(out, "group %lld: %zu drives together, phases started within %.2f ms\n",
		(long long)json_integer_value(json_object_get(group, "id")),
		json_array_size(json_object_get(group, "members")),
		json_number_value(json_object_get(group, "skew_ms")));
	json_array_foreach(json_object_get(group, "members"), i, m)
	{
		fprintf(out, "  %-10s probe %lld %s",
			json_string_value(json_object_get(m, "device")),
			(long long)json_integer_value(json_object_get(m, "run_id")),
			json_string_value(json_object_get(m, "state")));
		json_array_foreach(json_object_get(m, "phases"), k, ph)
		{
			json_t *ratio = json_object_get(ph, "ratio");
			fprintf(out, "  %s %.0f MB/s",
				json_string_value(json_object_get(ph, "name")),
				json_number_value(json_object_get(ph, "mb_s")));
			if (json_is_number(ratio))
				fprintf(out, " (%.0f %% of solo)", json_number_value(ratio) * 100);
		}
		fputc('\n', out);
	}
	json_array_foreach(json_object_get(group, "aggregate"), i, a) fprintf(
		out, "  total %-5s %.0f MB/s: %s\n", json_string_value(json_object_get(a, "name")),
		json_number_value(json_object_get(a, "mb_s")),
		json_string_value(json_object_get(a, "text")));
	/* The totals said it all, unless a member stopped: then the text says which. */
	bool all_measured = true;
	json_array_foreach(json_object_get(group, "members"), i, m) all_measured &=
		measured(json_string_value(json_object_get(m, "state")) ?: "");
	if (!all_measured)
		fprintf(out, "  %s\n", json_string_value(json_object_get(group, "text")));
}
