/* SPDX-License-Identifier: MIT */
/*
 * The poller's Error Information log (log page 01h): read when a health log
 * shows num_err_log_entries moved (the read itself is a step of the drive's
 * poll, poll_drive.c), the new entries classified and stored
 * (store_errlog), their counts by class put into the fleet, logged, and the
 * listeners told (on_errors). See poller_internal.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/errclass.h"
#include "nvmond/core/log.h"
#include "nvmond/decode/errlog.h"
#include "nvmond/util/timefmt.h"
#include "poller_internal.h"

/* After a failed read of the error log: no new try for this long. A read that
 * fails may log an error of its own, and the count it raises must not make
 * nvmond read (and fail) again at every poll. */
#define ERRLOG_RETRY_MS	      (3600 * 1000LL)
#define ERRLOG_STORE_RETRY_MS (60 * 1000LL)

static void notify_errors(struct poller *p, int64_t id, const struct errlog_row *v, size_t n)
{
	struct fleet_device fd;

	if (n == 0 || p->n_listeners == 0 || fleet_get(p->fleet, id, &fd) < 0)
		return;
	for (size_t i = 0; i < p->n_listeners; i++)
		if (p->listeners[i].on_errors)
			p->listeners[i].on_errors(p->listeners[i].ctx, &fd.row, v, n);
}

static uint64_t sat64(u128 v)
{
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* The entries stored for @d, by class, into the fleet (the device's counts). */
void poller_errlog_counts_to_fleet(struct poller *p, struct pdev *d)
{
	uint64_t c[_ERRCLASS_MAX];

	if (store_errors_count(p->store, d->id, INT64_MIN, INT64_MAX, c) == 0)
		fleet_put_errors(p->fleet, d->id, c);
}

static void errlog_log(const struct pdev *d, const struct errlog_row *v, size_t n, bool baseline,
		       uint64_t lost)
{
	uint64_t by[_ERRCLASS_MAX] = {0};
	char desc[160];

	for (size_t i = 0; i < n; i++)
		by[v[i].cls]++;
	if (n == 0 && lost == 0)
		return;
	char lost_txt[96] = "";
	if (lost)
		snprintf(lost_txt, sizeof(lost_txt),
			 "; %llu more were no longer in the log (it keeps %u entries)",
			 (unsigned long long)lost, d->el_kept);
	log_event(by[ERRCLASS_MEDIA] || by[ERRCLASS_IO] ? LOG_LVL_WARNING : LOG_LVL_INFO, d->name,
		  d->serial, "errors",
		  "%s (%s): %zu %s error log entries (%llu benign, %llu media, %llu io, %llu "
		  "other)%s%s",
		  d->name, d->key, n, baseline ? "earlier" : "new",
		  (unsigned long long)by[ERRCLASS_BENIGN], (unsigned long long)by[ERRCLASS_MEDIA],
		  (unsigned long long)by[ERRCLASS_IO], (unsigned long long)by[ERRCLASS_OTHER],
		  baseline ? ", there before nvmond watched the drive: shown, never alerted" : "",
		  lost_txt);
	for (size_t i = 0; i < n; i++) {
		bool bad = errclass_alerts(v[i].cls) && !baseline;
		log_event(bad ? LOG_LVL_WARNING : LOG_LVL_DEBUG, d->name, d->serial, "errors",
			  "%s error log %s: %s", d->name,
			  errclass_describe(&v[i].e, desc, sizeof(desc)), errclass_name(v[i].cls));
	}
}

/*
 * The Error Information log, read only when num_err_log_entries moved since
 * the last read (and once for a drive nvmond never read, when it counts any
 * error: the baseline, whose entries are stored as before_watch). New entries
 * are those with an error count in (last read, now], one row each. Before the
 * read: how many entries to read (0: none, after storing the baseline of a
 * drive that counts none).
 */
size_t poller_errlog_want(struct poller *p, struct pdev *d, const struct smart_log *smart,
			  int64_t now)
{
	uint64_t cur = sat64(smart->num_err_log_entries);
	int r;

	if (!d->el_loaded) {
		r = store_errlog_state_get(p->store, d->id, &d->el);
		if (r < 0 && r != -ENOENT)
			return 0; /* the store answers later */
		d->el_have = r == 0;
		d->el_loaded = true;
		if (d->el_have)
			poller_errlog_counts_to_fleet(p, d);
	}
	if (timefmt_mono_ms() < d->el_retry_mono_ms)
		return 0;
	size_t want = errlog_read_count(d->el_have, d->el.read_count, cur,
					d->el_kept ? d->el_kept : 1, d->el_ext);
	if (want == 0 && !d->el_have) {
		/* Never read and nothing counted: the baseline is 0. */
		struct errlog_state st = {.read_count = cur, .read_ms = now, .lost = d->el.lost};
		if (store_errors_add(p->store, d->id, NULL, 0, &st) == 0) {
			d->el = st;
			d->el_have = true;
			poller_errlog_counts_to_fleet(p, d);
		}
	}
	return want;
}

/*
 * After the read of @want entries that poller_errlog_want() asked for with the
 * health log @smart: @r its end, @page what it read (@r 0).
 */
void poller_errlog_take(struct poller *p, struct pdev *d, const struct smart_log *smart,
			size_t want, int r, const uint8_t *page, int64_t now)
{
	uint64_t cur = sat64(smart->num_err_log_entries);
	int64_t mono = timefmt_mono_ms();
	struct errlog_state st = {.read_count = cur, .read_ms = now, .lost = d->el.lost};

	if (dev_timed_out(r)) {
		/* Unresponsive (the poll says so): read it once it answers again. */
		p->n_errlog_errors++;
		return;
	}
	if (r < 0) {
		p->n_errlog_errors++;
		if (d->el_failed_count != cur || !d->el_retry_mono_ms)
			log_warn("reading the error log of %s (%s) failed: %s; trying again in an "
				 "hour",
				 d->key, d->name, strerror(-r));
		d->el_failed_count = cur;
		d->el_retry_mono_ms = mono + ERRLOG_RETRY_MS;
		return;
	}
	struct errlog_entry *e = calloc(want, sizeof(*e));
	struct errlog_row *rows = calloc(want, sizeof(*rows));
	size_t *idx = calloc(want, sizeof(*idx));
	if (!e || !rows || !idx)
		goto out;
	p->n_errlog_reads++;
	size_t n = errlog_decode(page, want * ERRLOG_ENTRY_SIZE, e, want);
	uint64_t lost = 0;
	bool baseline = !d->el_have;
	size_t k = errlog_new_entries(baseline ? 0 : d->el.read_count, cur, e, n, idx, &lost);
	for (size_t i = 0; i < k; i++)
		rows[i] = (struct errlog_row){
			.e = e[idx[i]],
			.cls = errclass_of(&e[idx[i]]),
			.before_watch = baseline,
			.seen_ms = now,
		};
	/* On the first read, errors the log no longer holds are history, not a loss. */
	st.lost += baseline ? 0 : lost;
	r = store_errors_add(p->store, d->id, rows, k, &st);
	if (r < 0) {
		p->n_errlog_errors++;
		log_warn("storing the error log entries of %s failed (%s): reading it again in a "
			 "minute",
			 d->key, store_strerror(p->store));
		d->el_retry_mono_ms = mono + ERRLOG_STORE_RETRY_MS;
		goto out;
	}
	d->el = st;
	d->el_have = true;
	d->el_retry_mono_ms = 0;
	errlog_log(d, rows, k, baseline, baseline ? 0 : lost);
	poller_errlog_counts_to_fleet(p, d);
	if (!baseline)
		notify_errors(p, d->id, rows, k);
out:
	free(e);
	free(rows);
	free(idx);
}
