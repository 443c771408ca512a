/* SPDX-License-Identifier: MIT */
/*
 * GET /metrics on an HTTP thread: the fleet is copied under its lock; counters
 * and the configuration are read on the main loop through mainq; wear and probe
 * history come from the request's read-only store handle.
 */
#include <errno.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "nvmond/alert/alert_svc.h"
#include "nvmond/config.h"
#include "nvmond/core/log.h"
#include "nvmond/core/mainq.h"
#include "nvmond/metrics/metrics.h"
#include "nvmond/store/store_alert.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_rollup.h"
#include "nvmond/analysis/wear.h"
#include "nvmond/api/wear_api.h"

/* The main loop's part of a collect (metrics_gather(), or through mainq). */
struct metrics_gathered {
	struct metrics_source *src;
	struct fleet_device *fds;
	struct metrics_device *devs;
	size_t n_devs;
	struct metrics_host host;
	struct poller_stats stats;
	bool has_alert_sinks;
	struct alert_sink_stats sinks[ALERT_SINKS_MAX];
	size_t n_sinks;
};

/* On the main loop: the counters, and what the configuration says per drive. */
static int gather_on_main(void *arg)
{
	struct metrics_gathered *g = arg;

	poller_stats(g->src->poller, &g->stats);
	memcpy(g->host.name, g->src->cfg->host_name, sizeof(g->host.name));
	g->host.labels = g->src->cfg->host_labels;
	memcpy(g->host.public_url, g->src->cfg->public_url, sizeof(g->host.public_url));
	if (g->src->alerts) {
		g->n_sinks = alert_svc_sink_stats(g->src->alerts, g->sinks);
		g->has_alert_sinks = true;
	}
	for (size_t i = 0; i < g->n_devs; i++) {
		struct cfg_device cd;

		cfg_device_for(g->src->cfg, g->devs[i].fd.row.model, g->devs[i].fd.row.serial, &cd);
		g->devs[i].rated_bytes = cd.rated_bytes;
	}
	return 0;
}

/* Rated endurance and projections: the same report as GET …/wear. */
static int gather_wear(struct store *s, int64_t now_ms, struct metrics_device *m)
{
	struct wear_report w;
	int r;

	if (!m->fd.has_sample)
		return 0;
	r = wear_report_for(s, &m->fd, m->rated_bytes, now_ms, &w, NULL, 0);
	if (r < 0)
		return r;
	m->rated_bytes = w.rated_bytes;
	m->wear_tbw_end_ms = w.tbw_date_ms;
	m->wear_used_end_ms = w.used_date_ms;
	return 0;
}

static int probe_cmp(const void *a, const void *b)
{
	return strcmp(((const struct metrics_probe *)a)->preset,
		      ((const struct metrics_probe *)b)->preset);
}

/* Probe bytes written, and each phase of the latest finished run of every preset. */
static int gather_probes(struct store *s, struct metrics_device *m, struct metrics_probe **ret,
			 size_t *ret_n)
{
	struct probe_run_row *runs = NULL;
	struct metrics_probe *v = NULL;
	size_t n_runs = 0, n = 0;
	int r;

	r = store_probe_written_since(s, m->fd.row.id, 0, &m->probe_bytes_written);
	if (r < 0)
		return r;
	m->has_probe_bytes = true;
	/* Finished is done or stopped: every sustained-write that finds its cliff
	 * ends stopped, and was never exported (issue 28 §8). */
	r = store_probe_runs_latest(s, m->fd.row.id, &runs, &n_runs);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_runs; i++) {
		struct probe_phase_row *ph = NULL;
		size_t n_ph = 0;

		r = store_probe_phases_get(s, runs[i].id, &ph, &n_ph);
		if (r < 0)
			goto fail;
		struct metrics_probe *nv = realloc(v, (n + 2 * n_ph + 1) * sizeof(*v));
		if (!nv) {
			free(ph);
			r = -ENOMEM;
			goto fail;
		}
		v = nv;
		for (size_t p = 0; p < n_ph; p++) {
			const struct probe_dir_stats *dir[2] = {&ph[p].rd, &ph[p].wr};
			static const char *const dir_name[2] = {"read", "write"};
			double secs = (double)ph[p].elapsed_ms / 1000.0;

			for (size_t j = 0; j < 2; j++) {
				if (dir[j]->bytes == 0 || secs <= 0)
					continue;
				struct metrics_probe *e = &v[n++];
				*e = (struct metrics_probe){
					.direction = dir_name[j],
					.ended_ms = runs[i].ended_ms,
					.bytes_per_second = (double)dir[j]->bytes / secs,
					.iops = (double)dir[j]->ios / secs,
					.lat_p50_ns = dir[j]->lat_p50_ns,
					.lat_p99_ns = dir[j]->lat_p99_ns,
					.lat_p999_ns = dir[j]->lat_p999_ns,
				};
				snprintf(e->preset, sizeof(e->preset), "%s", runs[i].preset);
				snprintf(e->phase, sizeof(e->phase), "%s", ph[p].name);
			}
		}
		free(ph);
	}
	free(runs);
	/* Grouped by preset for the renderer (the order inside one does not matter). */
	if (n > 1)
		qsort(v, n, sizeof(*v), probe_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
fail:
	free(runs);
	free(v);
	return r;
}

/* The alerts firing now, from the store (as GET /api/v1/alerts lists them). */
static int gather_alerts(struct store *s, struct metrics_alert **ret, size_t *ret_n)
{
	struct alert_row *rows = NULL;
	struct metrics_alert *v;
	size_t n = 0;
	int r = store_alerts_list(s, true, 0, &rows, &n);

	if (r < 0)
		return r;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		v[i].device_id = rows[i].device_id;
		snprintf(v[i].rule, sizeof(v[i].rule), "%s", alert_rule_name(rows[i].rule));
		v[i].severity = alert_severity_name(rows[i].severity);
	}
	free(rows);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* The fleet copied into @g, and room for its drives. Return: 0 or -ENOMEM. */
static int gathered_init(struct metrics_source *src, struct fleet *fleet,
			 struct metrics_gathered *g)
{
	size_t n = 0;
	int r;

	*g = (struct metrics_gathered){.src = src};
	r = fleet_snapshot(fleet, &g->fds, &n);
	if (r < 0)
		return r;
	g->devs = calloc(n ? n : 1, sizeof(*g->devs));
	if (!g->devs) {
		free(g->fds);
		g->fds = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		g->devs[i].fd = g->fds[i];
	g->n_devs = n;
	return 0;
}

static void gathered_wipe(struct metrics_gathered *g)
{
	free(g->devs);
	free(g->fds);
	g->devs = NULL;
	g->fds = NULL;
}

int metrics_gather(struct metrics_source *src, struct fleet *fleet, struct metrics_gathered **ret)
{
	struct metrics_gathered *g = malloc(sizeof(*g));
	int r;

	if (!g)
		return -ENOMEM;
	r = gathered_init(src, fleet, g);
	if (r < 0) {
		free(g);
		return r;
	}
	gather_on_main(g);
	*ret = g;
	return 0;
}

struct metrics_gathered *metrics_gathered_free(struct metrics_gathered *g)
{
	if (g) {
		gathered_wipe(g);
		free(g);
	}
	return NULL;
}

/* The rest of a collect, on the caller's thread, from @g (the main loop's part). */
static int collect_from(struct metrics_gathered *g, struct store *store, int64_t now_ms,
			bool omit_stored, char **ret, size_t *ret_len)
{
	struct metrics_source *src = g->src;
	struct metrics_probe **probes = NULL;
	struct metrics_alert *alerts = NULL;
	struct metrics_export exports[CFG_MAX_EXPORTS];
	size_t n = g->n_devs, n_alerts = 0, n_exports = 0;
	int r;

	probes = calloc(n ? n : 1, sizeof(*probes));
	if (!probes)
		return -ENOMEM;
	memcpy(g->host.id, src->host_id, sizeof(g->host.id));
	/* History the store cannot give leaves those series out; the rest is still served. */
	for (size_t i = 0; i < n && store; i++) {
		struct metrics_device *m = &g->devs[i];

		r = gather_wear(store, now_ms, m);
		if (r == 0)
			r = gather_probes(store, m, &probes[i], &m->n_probes);
		if (r < 0)
			log_warn("GET /metrics: wear or probe history of %s: %s (%s)",
				 m->fd.row.key, strerror(-r), store_rollup_errmsg(store));
		m->probes = probes[i];
	}
	if (store && (r = gather_alerts(store, &alerts, &n_alerts)) < 0)
		log_errno(LOG_LVL_WARNING, -r, "GET /metrics: the alerts firing");
	if (src->export_stats)
		n_exports = src->export_stats(src->export_ctx, exports, CFG_MAX_EXPORTS);
	struct metrics_input in = {
		.devs = g->devs,
		.n_devs = g->n_devs,
		.host = &g->host,
		.alerts = alerts,
		.n_alerts = n_alerts,
		.has_exports = src->export_stats != NULL,
		.exports = exports,
		.n_exports = n_exports,
		.omit_stored = omit_stored,
		.poller = g->stats,
		.has_alert_sinks = g->has_alert_sinks,
		.n_alert_sinks = g->n_sinks,
		.start_ms = src->start_ms,
		.version = NVMOND_VERSION,
	};
	metrics_memory_read(&in);
	memcpy(in.alert_sinks, g->sinks, sizeof(in.alert_sinks));
	r = metrics_render(&in, ret, ret_len);
	for (size_t i = 0; i < n; i++) {
		free(probes[i]);
		g->devs[i].probes = NULL;
		g->devs[i].n_probes = 0;
	}
	free(probes);
	free(alerts);
	return r;
}

void metrics_memory_read(struct metrics_input *in)
{
#ifdef __GLIBC__
	/* uordblks: in use in the arenas; hblkhd: mapped blocks (1 MiB and more, api.c's
	 * malloc_tune()), in use until freed; fordblks: free in the arenas, kept */
	struct mallinfo2 mi = mallinfo2();

	in->memory_in_use = mi.uordblks + mi.hblkhd;
	/* An allocator that counts nothing here (ASan's, another malloc): no figures. */
	in->has_memory = in->memory_in_use > 0;
	in->memory_kept_free = mi.fordblks;
#else
	(void)in;
#endif
}

int metrics_collect_gathered(struct metrics_gathered *g, struct store *store, int64_t now_ms,
			     bool omit_stored, char **ret, size_t *ret_len)
{
	return collect_from(g, store, now_ms, omit_stored, ret, ret_len);
}

int metrics_collect(struct metrics_source *src, struct fleet *fleet, struct store *store,
		    int64_t now_ms, bool omit_stored, char **ret, size_t *ret_len)
{
	struct metrics_gathered g;
	int r = gathered_init(src, fleet, &g);

	if (r < 0)
		return r;
	r = mainq_call(src->mainq, gather_on_main, &g);
	if (r == 0)
		r = collect_from(&g, store, now_ms, omit_stored, ret, ret_len);
	gathered_wipe(&g);
	return r;
}

static void metrics_handle(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	char *text;
	size_t len;
	int r = metrics_collect(ctx, req->fleet, req->store, req->now_ms, false, &text, &len);

	if (r < 0) {
		log_errno(LOG_LVL_WARNING, -r, "GET /metrics");
		api_reply_error(ret, r == -ECANCELED ? 503 : 500, "%s", strerror(-r));
		return;
	}
	ret->text = text;
	ret->text_len = len;
	ret->content_type = METRICS_CONTENT_TYPE;
}

struct api_endpoint metrics_endpoint(struct metrics_source *src)
{
	return (struct api_endpoint){
		.method = "GET",
		.pattern = "/metrics",
		.flags = API_EP_STORE | API_EP_METRICS,
		.fn = metrics_handle,
		.ctx = src,
	};
}
