/* SPDX-License-Identifier: MIT */
/*
 * An export's stored part (export_svc.c runs its thread): the drives and their
 * cursors, the backlog behind them, and the catch-up's batches of stored samples,
 * each drive's in cursor order (the remote-write specification's MUST: a series'
 * samples go in time order).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "nvmond/core/log.h"
#include "nvmond/core/mainq.h"
#include "nvmond/export/export_svc.h"
#include "nvmond/export/rw_round.h"
#include "nvmond/export/rw_text.h"
#include "nvmond/metrics/metrics_stored.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_export.h"
#include "nvmond/util/timefmt.h"
#include "export_internal.h"

#define BATCH_SAMPLES  8000 /* series samples per request of the catch-up, about */
#define BATCH_ROWS_MAX 64   /* stored samples of one drive per request, at most */
#define SERIES_PER_ROW 40   /* what one stored sample makes, about (for the batch size) */

/* ---- the stored part ------------------------------------------------------ */

/* The drives the store knows, with their cursors (kept for the ones known already). */
int export_refresh_devices(struct exporter *x)
{
	struct device_row *rows = NULL;
	struct export_cursor *cur = NULL;
	size_t n = 0, n_cur = 0;
	int r = store_devices_list(x->ro, &rows, &n);

	if (r == 0 && !x->ready)
		r = store_export_cursors(x->ro, x->name, &cur, &n_cur);
	if (r < 0) {
		free(rows);
		return r;
	}
	struct xdev *v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		free(rows);
		free(cur);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		v[i].id = rows[i].id;
		v[i].sent_ms = x->created_ms;
		metrics_label_clean(rows[i].name, v[i].name, sizeof(v[i].name));
		metrics_label_clean(rows[i].model, v[i].model, sizeof(v[i].model));
		metrics_label_clean(rows[i].serial, v[i].serial, sizeof(v[i].serial));
		for (size_t k = 0; k < n_cur; k++)
			if (cur[k].device_id == v[i].id && cur[k].sent_ms > v[i].sent_ms)
				v[i].sent_ms = cur[k].sent_ms;
		for (size_t k = 0; k < x->n_devs; k++)
			if (x->devs[k].id == v[i].id) {
				v[i].sent_ms = x->devs[k].sent_ms;
				v[i].dirty = x->devs[k].dirty;
			}
	}
	free(rows);
	free(cur);
	free(x->devs);
	x->devs = v;
	x->n_devs = n;
	x->ready = true;
	return 0;
}

/* The backlog and lag, for /metrics and the API. */
void export_refresh_backlog(struct exporter *x)
{
	uint64_t total = 0;
	int64_t oldest = 0;

	for (size_t i = 0; i < x->n_devs; i++) {
		uint64_t n;
		int64_t o;
		if (store_export_pending(x->ro, x->devs[i].id, x->devs[i].sent_ms, &n, &o) < 0)
			return;
		total += n;
		if (n && (!oldest || o < oldest))
			oldest = o;
	}
	int64_t now = timefmt_now_ms();
	pthread_mutex_lock(&x->lock);
	x->st.backlog = total;
	x->st.lag_ms = oldest && now > oldest ? now - oldest : 0;
	pthread_mutex_unlock(&x->lock);
}

/*
 * The cursors that moved, handed to the main loop, which records them in the
 * wakeup of the next poll (export_svc_round()), or at once after a round that
 * went at its own time (record_on_main()). Return: 0, or -ENOMEM (kept dirty,
 * handed over after the next batch).
 */
static int hand_cursors(struct exporter *x)
{
	int r = 0;

	pthread_mutex_lock(&x->lock);
	for (size_t i = 0; i < x->n_devs && r == 0; i++)
		if (x->devs[i].dirty &&
		    (r = export_pending_put(x, x->devs[i].id, x->devs[i].sent_ms)) == 0)
			x->devs[i].dirty = false;
	pthread_mutex_unlock(&x->lock);
	return r;
}

/* The series of one drive's stored samples @rows (@n, in time order) into the batch. */
static int add_rows(struct exporter *x, const struct xdev *d, const struct sample *rows, size_t n)
{
	struct rw_label base[4 + EXPORT_EXT_MAX];
	struct metrics_point pts[METRICS_POINTS_MAX];
	size_t nb = 0;

	base[nb++] = (struct rw_label){"__name__", NULL};
	base[nb++] = (struct rw_label){NULL, NULL}; /* the family's own label, if any */
	base[nb++] = (struct rw_label){"device", d->name};
	base[nb++] = (struct rw_label){"model", d->model};
	base[nb++] = (struct rw_label){"serial", d->serial};
	for (size_t i = 0; i < x->conf.n_ext; i++)
		base[nb++] = (struct rw_label){x->conf.ext_v[i].name, x->conf.ext_v[i].value};
	for (size_t fam = 0; fam < METRICS_STORED_FAMILIES; fam++) {
		struct {
			const char *value; /* the point's label value (static), NULL: none */
			size_t idx;
		} seen[METRICS_POINTS_MAX * 2];
		size_t n_seen = 0;

		base[0].value = metrics_stored_families[fam].name;
		for (size_t r = 0; r < n; r++) {
			size_t np = metrics_stored_points(fam, &rows[r].smart, pts);
			for (size_t k = 0; k < np; k++) {
				size_t s = 0;
				while (s < n_seen && seen[s].value != pts[k].label_value)
					s++;
				if (s == n_seen) {
					struct rw_label l[sizeof(base) / sizeof(base[0])];
					memcpy(l, base, nb * sizeof(*l));
					/* no own label: an empty name, which normalizing drops */
					l[1] = (struct rw_label){
						pts[k].label ? pts[k].label : "",
						pts[k].label_value ? pts[k].label_value : ""};
					int e = rw_batch_series(x->batch, l, nb, n, &seen[s].idx);
					if (e < 0)
						return e;
					seen[s].value = pts[k].label_value;
					n_seen++;
				}
				int e = rw_batch_sample(x->batch, seen[s].idx, rows[r].ts_ms,
							metrics_point_double(&pts[k]));
				if (e < 0)
					return e;
			}
		}
	}
	return 0;
}

/*
 * One batch of stored samples from the cursors on, sent. Return: true when
 * it went (accepted or refused for good) and there may be more; false when
 * there is nothing left to send or it must wait (failing engine, stop).
 */
bool export_catch_up_once(struct exporter *x, int64_t deadline)
{
	size_t per = BATCH_SAMPLES / ((x->n_devs ? x->n_devs : 1) * SERIES_PER_ROW);
	int64_t *upto = calloc(x->n_devs ? x->n_devs : 1, sizeof(*upto));
	bool any = false;

	if (!upto)
		return false;
	per = per < 1 ? 1 : per > BATCH_ROWS_MAX ? BATCH_ROWS_MAX : per;
	rw_batch_reset(x->batch);
	for (size_t i = 0; i < x->n_devs; i++) {
		struct sample *rows = NULL;
		size_t n = 0;
		int r = store_samples_range(x->ro, x->devs[i].id, x->devs[i].sent_ms + 1, INT64_MAX,
					    per, &rows, &n);
		if (r == 0 && n)
			r = add_rows(x, &x->devs[i], rows, n);
		if (r < 0) {
			log_warn("export %s: cannot read the stored samples: %s (%s)", x->name,
				 strerror(-r), store_strerror(x->ro));
			free(rows);
			free(upto);
			return false;
		}
		if (n) {
			upto[i] = rows[n - 1].ts_ms;
			any = true;
		}
		free(rows);
	}
	pthread_mutex_lock(&x->lock);
	x->catching_up = any;
	pthread_mutex_unlock(&x->lock);
	enum rw_action a = any ? export_send_batch(x, deadline, "stored samples") : RW_RETRY;
	if (any && a != RW_RETRY) {
		for (size_t i = 0; i < x->n_devs; i++)
			if (upto[i]) {
				x->devs[i].sent_ms = upto[i];
				x->devs[i].dirty = true;
			}
		(void)hand_cursors(x);
	}
	free(upto);
	return any && a != RW_RETRY;
}
