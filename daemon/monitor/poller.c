/* SPDX-License-Identifier: MIT */
/*
 * The poller, on the main loop: rescans controllers, starts each drive's poll
 * every interval, keeps the fleet current, tells the listeners, and stores
 * the samples through the bounded buffer. Its commands go out without waiting
 * (dev_async.h): poll_drive.c takes a drive's poll from answer to answer,
 * poll_errlog.c the error log, poll_facts.c records firmware, link and sleep.
 * See poller.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/monitor/devrow.h"
#include "nvmond/core/log.h"
#include "nvmond/monitor/poller.h"
#include "nvmond/monitor/pollplan.h"
#include "nvmond/monitor/sbuf.h"
#include "nvmond/store/store_conf.h"
#include "nvmond/util/timefmt.h"
#include "poller_internal.h"

#define FLUSH_BATCH  1000
#define RETRY_MIN_MS 1000

int poller_add_listener(struct poller *p, const struct poller_listener *l)
{
	if (p->n_listeners == MAX_LISTENERS)
		return -ENOSPC;
	p->listeners[p->n_listeners++] = *l;
	return 0;
}

/* Tell listeners; they read the device from the fleet's copy. */
static void notify(struct poller *p, int64_t id, const struct sample *s, int online, int64_t now_ms)
{
	struct fleet_device fd;

	if (p->n_listeners == 0 || fleet_get(p->fleet, id, &fd) < 0)
		return;
	for (size_t i = 0; i < p->n_listeners; i++) {
		const struct poller_listener *l = &p->listeners[i];
		if (s && l->on_sample)
			l->on_sample(l->ctx, &fd.row, s);
		if (!s && l->on_online)
			l->on_online(l->ctx, &fd.row, online, now_ms);
	}
}

void poller_notify_sample(struct poller *p, const struct pdev *d, const struct sample *s,
			  int64_t now)
{
	notify(p, d->id, s, 1, now);
}

static struct pdev *pdev_by_key(struct poller *p, const char *key)
{
	for (size_t i = 0; i < p->n_devs; i++)
		if (strcmp(p->devs[i].key, key) == 0)
			return &p->devs[i];
	return NULL;
}

static int pdev_add(struct poller *p, const struct device_row *row, struct pdev **ret)
{
	struct pdev_poll *q = calloc(1, sizeof(*q));
	struct pdev_logs *logs = q ? poller_logs_new() : NULL;
	struct pdev *v = logs ? realloc(p->devs, (p->n_devs + 1) * sizeof(*v)) : NULL;

	if (!v) {
		free(q);
		poller_logs_free(logs);
		return -ENOMEM;
	}
	p->devs = v;
	*q = (struct pdev_poll){.p = p, .idx = p->n_devs};
	struct pdev *d = &p->devs[p->n_devs++];
	*d = (struct pdev){.poll = q,
			   .logs = logs,
			   .id = row->id,
			   .online = row->online,
			   .online_stored = row->online,
			   .wctemp_k = row->wctemp_k,
			   .cctemp_k = row->cctemp_k};
	snprintf(d->key, sizeof(d->key), "%s", row->key);
	snprintf(d->model, sizeof(d->model), "%s", row->model);
	snprintf(d->serial, sizeof(d->serial), "%s", row->serial);
	snprintf(d->name, sizeof(d->name), "%s", row->name);
	snprintf(d->row_fw, sizeof(d->row_fw), "%s", row->firmware);
	*ret = d;
	return 0;
}

static void set_online(struct poller *p, struct pdev *d, bool online, int64_t now_ms)
{
	bool changed = d->online != online;

	if (changed)
		log_event(LOG_LVL_INFO, d->name, strrchr(d->key, '/') + 1,
			  online ? "online" : "offline", "device %s (%s) is %s", d->key, d->name,
			  online ? "online" : "offline");
	d->online = online;
	if (!online)
		d->limits_asked = 0; /* back, it may be another firmware: ask again */
	fleet_set_online(p->fleet, d->id, online, now_ms);
	if (d->online_stored != online &&
	    store_device_set_online(p->store, d->id, online, now_ms) == 0)
		d->online_stored = online;
	if (changed)
		notify(p, d->id, NULL, online, now_ms);
}

/*
 * A drive online when the last run ended and missing at this run's first scan
 * went away while nvmond was not running: offline like one seen going, so the
 * alerts hear of it.
 */
static void announce_gone(struct poller *p, struct pdev *d, int64_t now_ms)
{
	log_event(LOG_LVL_WARNING, d->name, strrchr(d->key, '/') + 1, "offline",
		  "device %s (%s) is offline: gone since the last run", d->key, d->name);
	fleet_set_online(p->fleet, d->id, false, now_ms);
	if (store_device_set_online(p->store, d->id, false, now_ms) == 0)
		d->online_stored = false;
	notify(p, d->id, NULL, false, now_ms);
}

/*
 * What a scan at @now found (@v, @n, freed here): new controllers get a store
 * id, known ones may have a new name, missing ones go offline.
 */
/* The drive's [device] label, location and rated_tbw into the fleet (a reload changes them). */
static void poller_names_to_fleet(struct poller *p, int64_t id, const char *model,
				  const char *serial)
{
	struct fleet_names names;
	struct cfg_device cd;

	cfg_device_for(&p->cfg, model, serial, &cd);
	memcpy(names.label, cd.label, sizeof(names.label));
	memcpy(names.location, cd.location, sizeof(names.location));
	(void)fleet_put_names(p->fleet, id, &names);
	(void)fleet_put_rated(p->fleet, id, cd.rated_bytes);
}

static int rescan_take(struct poller *p, struct dev_info *v, size_t n, int64_t now)
{
	int r;

	bool *seen = calloc(p->n_devs + n + 1, sizeof(*seen));
	if (!seen) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct device_row row;
		int64_t id;

		devrow_from_scan(p->backend, &v[i], now, &row);
		struct pdev *d = pdev_by_key(p, row.key);
		bool partial = v[i].asleep || v[i].unresponsive || v[i].access == DEV_ACCESS_SYSFS;
		bool changed = !d || !d->online || strcmp(d->name, row.name) != 0 ||
			       (d->ident_partial && !partial) ||
			       (row.firmware[0] && strcmp(d->row_fw, row.firmware) != 0);
		if (changed || !d->online_stored) {
			r = store_device_upsert(p->store, &row, &id);
			if (r < 0) {
				/* Known devices keep being polled; a new one waits for the store. */
				log_warn("storing device %s failed: %s", row.key,
					 store_strerror(p->store));
				if (!d)
					continue;
			} else {
				struct device_row stored;
				if (store_device_get(p->store, id, &stored) == 0)
					row = stored;
				if (!d) {
					if (pdev_add(p, &row, &d) < 0)
						continue;
					d->online = false; /* new: set_online() announces it */
				}
				d->online_stored = true;
				d->ident_partial = partial;
				snprintf(d->row_fw, sizeof(d->row_fw), "%s", row.firmware);
				fleet_put_device(p->fleet, &row);
				poller_names_to_fleet(p, row.id, row.model, row.serial);
			}
		}
		if (!d)
			continue;
		if (strcmp(d->name, row.name) != 0)
			log_info("device %s is now %s (was %s)", d->key, row.name, d->name);
		snprintf(d->name, sizeof(d->name), "%s", row.name);
		d->el_kept = idctl_errlog_entries(&v[i].id);
		d->el_ext = v[i].id.lpa & IDCTL_LPA_EXT_DATA;
		d->wctemp_k = row.wctemp_k;
		d->cctemp_k = row.cctemp_k;
		seen[d - p->devs] = true;
		set_online(p, d, true, now);
		poller_facts_update(p, d, &v[i], now);
		poller_logs_scan(p, d, &v[i], now);
	}
	for (size_t i = 0; i < p->n_devs; i++) {
		struct pdev *d = &p->devs[i];
		if (!seen[i] && d->online)
			set_online(p, d, false, now);
		else if (!seen[i] && d->was_online)
			announce_gone(p, d, now);
		d->was_online = false; /* only the first scan can tell */
	}
	free(seen);
	free(v);
	return 0;
}

/*
 * libnvme's scan sends Identify Namespace to every controller, past the
 * controllers' workers: while one is unresponsive it would be a second
 * command to it. The scan waits until it answers again (issue 15).
 */
static bool rescan_paused(struct poller *p)
{
	for (size_t i = 0; i < p->n_devs; i++)
		if (p->devs[i].online && p->devs[i].facts.unresponsive) {
			if (!p->rescans_paused)
				log_info("rescans paused while %s (%s) is unresponsive",
					 p->devs[i].key, p->devs[i].name);
			p->rescans_paused = true;
			return true;
		}
	p->rescans_paused = false;
	return false;
}

static void poller_poll(struct poller *p);

static void on_scan(void *userdata, int r, void *answer)
{
	struct poller *p = userdata;
	struct dev_scan_answer *a = answer;

	p->scan_busy = false;
	if (r < 0)
		log_errno(LOG_LVL_WARNING, -r, "scanning for NVMe controllers failed");
	else
		(void)rescan_take(p, a->v, a->n, p->scan_now);
	if (p->poll_soon) {
		p->poll_soon = false;
		poller_poll(p);
	}
}

/* A rescan, answered on the loop (on_scan()); one at a time. */
static void poller_rescan(struct poller *p)
{
	p->rescan_soon = false;
	if (rescan_paused(p))
		return;
	/* A drive's poll is out: its controller may be about to hang, and the
	 * scan's Identify would be a second command to it before the deadline
	 * makes it unresponsive. The rescan follows the round's last answer
	 * (poller_round_end()). */
	if (p->scan_busy || p->n_busy > 0) {
		p->rescan_soon = true; /* again once this one is answered */
		return;
	}
	p->scan_now = timefmt_now_ms();
	int r = dev_scan_async(p->async, p->scan_now, on_scan, p);
	if (r < 0) {
		log_errno(LOG_LVL_WARNING, -r, "scanning for NVMe controllers failed");
		return;
	}
	p->scan_busy = true;
}

/* Store the buffered samples now (@force), or when poll_commit_due() says so. */
static void poller_store(struct poller *p, bool force)
{
	int64_t mono = timefmt_mono_ms();
	const struct sample *v;
	size_t n;

	if (mono < p->retry_at_ms)
		return;
	if (!force &&
	    !poll_commit_due(p->pending_since_ms, mono, p->cfg.poll_interval_ms,
			     store_conf(&p->cfg)->commit_interval_ms, p->buf.len, FLUSH_BATCH))
		return;
	while ((n = sbuf_peek(&p->buf, FLUSH_BATCH, &v)) > 0) {
		int r = store_samples_insert(p->store, v, n);
		if (r < 0) {
			p->n_store_errors++;
			if (r != p->last_store_err)
				log_error(
					"storing samples failed (%s): %zu samples held in memory, "
					"retrying",
					store_strerror(p->store), p->buf.len);
			p->last_store_err = r;
			p->retry_delay_ms =
				p->retry_delay_ms ? p->retry_delay_ms * 2 : RETRY_MIN_MS;
			if (p->retry_delay_ms > store_conf(&p->cfg)->retry_max_ms)
				p->retry_delay_ms = store_conf(&p->cfg)->retry_max_ms;
			p->retry_at_ms = mono + p->retry_delay_ms;
			return;
		}
		sbuf_pop(&p->buf, n);
		p->n_stored += n;
	}
	p->pending_since_ms = 0;
	if (p->last_store_err)
		log_info("storing samples works again");
	p->last_store_err = 0;
	p->retry_delay_ms = 0;
}

/* A read failed: the drive is gone, or its name moved. */
void poller_poll_failed(struct poller *p, struct pdev *d, int r, int64_t now)
{
	p->n_poll_errors++;
	if (r == -ESTALE)
		/* The driver bound the controllers again and the name moved:
		 * nothing read under it belongs to this drive. Find it again. */
		log_warn("%s is no longer %s (another drive answers under that name): "
			 "looking for it again",
			 d->name, d->key);
	else
		log_errno(LOG_LVL_WARNING, -r, "reading the health log of %s (%s) failed", d->key,
			  d->name);
	set_online(p, d, false, now);
	p->rescan_soon = true;
}

/*
 * After a round's polls, or the last answer of one: a rescan asked for, the
 * store; once no poll of it is out, the listeners' on_round.
 */
void poller_round_end(struct poller *p)
{
	if (p->rescan_soon)
		poller_rescan(p);
	poller_store(p, false);
	if (p->n_busy)
		return; /* the last answer ends it */
	for (size_t i = 0; i < p->n_listeners; i++)
		if (p->listeners[i].on_round)
			p->listeners[i].on_round(p->listeners[i].ctx);
}

/*
 * A round: each online drive whose last poll is over gets a new one (its
 * commands go out without waiting: poll_drive.c). A drive still waiting for
 * an answer (a controller that hangs, until device_timeout) is left out.
 */
static void poller_poll(struct poller *p)
{
	/* A wall clock set back does not reorder or overlap the series (timefmt.h). */
	int64_t now = timefmt_steady_ms(&p->clock, timefmt_now_ms(), timefmt_mono_ms());

	/* A rescan is out: its Identify goes to every controller, and a poll's
	 * command would be a second one to it. The round follows its answer (on_scan()). */
	if (p->scan_busy) {
		p->poll_soon = true;
		return;
	}
	p->in_tick = true;
	for (size_t i = 0; i < p->n_devs; i++) {
		struct pdev *d = &p->devs[i];
		enum nvme_runtime_status rt;
		int r;

		if (!d->online || d->poll->busy)
			continue;
		/* sysfs only: asking whether it sleeps never wakes it. */
		r = dev_read_runtime(p->backend, d->name, now, &rt);
		if (r < 0) {
			poller_poll_failed(p, d, r, now);
			continue;
		}
		enum poll_action act = poll_plan(rt, p->cfg.wake_sleeping, d->access);
		poller_set_asleep(p, d, act == POLL_ASLEEP, now);
		if (act == POLL_ASLEEP)
			continue;
		/* A command stuck in the kernel: nothing more to it until it returns. */
		if (dev_unresponsive(p->backend, d->name)) {
			poller_set_unresponsive(p, d, true, now);
			continue;
		}
		poller_poll_drive(p, d, act, now);
	}
	p->in_tick = false;
	poller_round_end(p);
}

static int64_t on_poll(struct loop *l, void *userdata)
{
	struct poller *p = userdata;

	(void)l;
	poller_poll(p);
	return p->cfg.poll_interval_ms;
}

/* A rescan runs in a poll's wakeup, one poll interval late at most: never one of its own. */
static int64_t on_rescan(struct loop *l, void *userdata)
{
	struct poller *p = userdata;

	poller_rescan(p);
	return loop_timer_lazy(l, p->rescan_timer, p->cfg.rescan_interval_ms,
			       p->cfg.rescan_interval_ms + p->cfg.poll_interval_ms);
}

int poller_new(const struct cfg *c, struct dev_backend *b, struct store *s, struct fleet *f,
	       struct poller **ret)
{
	struct device_row *rows = NULL;
	size_t n = 0;
	int r;

	struct poller *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*p = (struct poller){.cfg = *c, .backend = b, .store = s, .fleet = f};
	dev_configure(b, &(struct dev_opts){.wake_sleeping = c->wake_sleeping,
					    .device_timeout_ms = c->device_timeout_ms});
	/* Every command of the daemon (polls, probes, self-tests) from now on
	 * runs on its controller's worker, with a deadline (issue 15). */
	r = dev_backend_guard(b, c->device_timeout_ms);
	if (r < 0)
		goto fail;
	r = sbuf_init(&p->buf, store_conf(c)->buffer_samples);
	if (r < 0)
		goto fail;
	/* Devices seen before start offline, with their last stored sample. */
	r = store_devices_list(s, &rows, &n);
	if (r < 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		struct pdev *d;
		struct sample last;

		bool was_online = rows[i].online;
		rows[i].online = 0;
		r = pdev_add(p, &rows[i], &d);
		if (r < 0)
			goto fail;
		d->online_stored = false; /* corrected by the first scan */
		d->was_online = was_online;
		fleet_put_device(f, &rows[i]);
		poller_names_to_fleet(p, rows[i].id, rows[i].model, rows[i].serial);
		struct errlog_state el;
		if (store_errlog_state_get(s, rows[i].id, &el) == 0)
			poller_errlog_counts_to_fleet(p, d);
		if (store_sample_latest(s, rows[i].id, &last) == 0)
			fleet_put_sample(f, &last);
	}
	free(rows);
	*ret = p;
	return 0;
fail:
	free(rows);
	poller_free(p);
	return r;
}

struct poller *poller_free(struct poller *p)
{
	if (!p)
		return NULL;
	/* First: no answer comes back after this. */
	p->async = dev_async_free(p->async);
	if (p->loop) {
		loop_cancel_timer(p->loop, p->poll_timer);
		loop_cancel_timer(p->loop, p->rescan_timer);
	}
	sbuf_done(&p->buf);
	for (size_t i = 0; i < p->n_devs; i++) {
		free(p->devs[i].poll);
		poller_logs_free(p->devs[i].logs);
	}
	free(p->devs);
	free(p);
	return NULL;
}

/* The first scan, before the loop runs (nothing waits for it yet): at once. */
static int poller_first_scan(struct poller *p)
{
	int64_t now = timefmt_now_ms();
	struct dev_info *v = NULL;
	size_t n = 0;
	int r = dev_scan(p->backend, now, &v, &n);

	if (r < 0) {
		log_errno(LOG_LVL_WARNING, -r, "scanning for NVMe controllers failed");
		return r;
	}
	return rescan_take(p, v, n, now);
}

int poller_start(struct poller *p, struct loop *l)
{
	int r = poller_first_scan(p);

	if (r < 0 && r != -ENOMEM)
		r = 0; /* a failed scan is retried by the timer */
	if (r < 0)
		return r;
	r = dev_async_new(p->backend, l, &p->async);
	if (r < 0)
		return r;
	p->loop = l;
	p->poll_timer = loop_add_timer(l, 0, on_poll, p);
	if (p->poll_timer < 0)
		return (int)p->poll_timer;
	p->rescan_timer = loop_add_timer_lazy(l, p->cfg.rescan_interval_ms,
					      p->cfg.rescan_interval_ms + p->cfg.poll_interval_ms,
					      on_rescan, p);
	if (p->rescan_timer < 0)
		return (int)p->rescan_timer;
	return 0;
}

int poller_reconfigure(struct poller *p, const struct cfg *c)
{
	if (store_conf(c)->buffer_samples != p->buf.cap) {
		struct sbuf nb;
		const struct sample *v;
		size_t n;
		int r = sbuf_init(&nb, store_conf(c)->buffer_samples);
		if (r < 0)
			return r;
		while ((n = sbuf_peek(&p->buf, SIZE_MAX, &v)) > 0) {
			for (size_t i = 0; i < n; i++)
				sbuf_push(&nb, &v[i]);
			sbuf_pop(&p->buf, n);
		}
		nb.dropped += p->buf.dropped;
		sbuf_done(&p->buf);
		p->buf = nb;
	}
	p->cfg = *c;
	for (size_t i = 0; i < p->n_devs; i++)
		poller_names_to_fleet(p, p->devs[i].id, p->devs[i].model, p->devs[i].serial);
	dev_configure(p->backend, &(struct dev_opts){.wake_sleeping = c->wake_sleeping,
						     .device_timeout_ms = c->device_timeout_ms});
	return dev_backend_guard(p->backend, c->device_timeout_ms);
}

int poller_flush(struct poller *p)
{
	p->retry_at_ms = 0;
	poller_store(p, true);
	return p->buf.len ? p->last_store_err : 0;
}

size_t poller_pending(const struct poller *p)
{
	return p->buf.len;
}

void poller_stats(const struct poller *p, struct poller_stats *ret)
{
	*ret = (struct poller_stats){
		.polls = p->n_polls,
		.poll_errors = p->n_poll_errors,
		.store_errors = p->n_store_errors,
		.samples_stored = p->n_stored,
		.samples_dropped = p->buf.dropped,
		.errlog_reads = p->n_errlog_reads,
		.errlog_errors = p->n_errlog_errors,
		.samples_pending = p->buf.len,
		.buffer_capacity = p->buf.cap,
	};
}
