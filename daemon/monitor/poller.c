/* SPDX-License-Identifier: MIT */
/*
 * The poller, on the main loop: rescans controllers, reads each health log
 * every interval, keeps the fleet current, tells the listeners, and stores
 * the samples through the bounded buffer. poll_errlog.c reads the error log,
 * poll_facts.c records firmware, link and sleep. See poller.h.
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
#include "nvmond/monitor/temps.h"
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

static struct pdev *pdev_by_key(struct poller *p, const char *key)
{
	for (size_t i = 0; i < p->n_devs; i++)
		if (strcmp(p->devs[i].key, key) == 0)
			return &p->devs[i];
	return NULL;
}

static int pdev_add(struct poller *p, const struct device_row *row, struct pdev **ret)
{
	struct pdev *v = realloc(p->devs, (p->n_devs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->devs = v;
	struct pdev *d = &p->devs[p->n_devs++];
	*d = (struct pdev){.id = row->id,
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

/* Find controllers; new ones get a store id, known ones may have a new name. */
static int poller_rescan(struct poller *p)
{
	int64_t now = timefmt_now_ms();
	struct dev_info *v = NULL;
	size_t n = 0;
	int r;

	p->rescan_soon = false;
	/*
	 * libnvme's scan sends Identify Namespace to every controller, past the
	 * controllers' workers: while one is unresponsive it would be a second
	 * command to it. The scan waits until it answers again (issue 15).
	 */
	for (size_t i = 0; i < p->n_devs; i++)
		if (p->devs[i].online && p->devs[i].facts.unresponsive) {
			if (!p->rescans_paused)
				log_info("rescans paused while %s (%s) is unresponsive",
					 p->devs[i].key, p->devs[i].name);
			p->rescans_paused = true;
			return 0;
		}
	p->rescans_paused = false;
	r = dev_scan(p->backend, now, &v, &n);
	if (r < 0) {
		log_warn("scanning for NVMe controllers failed: %s", strerror(-r));
		return r;
	}
	bool *seen = calloc(p->n_devs + n + 1, sizeof(*seen));
	if (!seen) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct device_row row;
		int64_t id;

		devrow_from_info(&v[i], now, &row);
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

/* Store the buffered samples now (@force), or when poll_commit_due() says so. */
static void poller_store(struct poller *p, bool force)
{
	int64_t mono = timefmt_mono_ms();
	const struct sample *v;
	size_t n;

	if (mono < p->retry_at_ms)
		return;
	if (!force && !poll_commit_due(p->pending_since_ms, mono, p->cfg.poll_interval_ms,
				       p->cfg.commit_interval_ms, p->buf.len, FLUSH_BATCH))
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
			if (p->retry_delay_ms > p->cfg.retry_max_ms)
				p->retry_delay_ms = p->cfg.retry_max_ms;
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
static void poll_failed(struct poller *p, struct pdev *d, int r, int64_t now)
{
	p->n_poll_errors++;
	if (r == -ESTALE)
		/* The driver bound the controllers again and the name moved:
		 * nothing read under it belongs to this drive. Find it again. */
		log_warn("%s is no longer %s (another drive answers under that name): "
			 "looking for it again",
			 d->name, d->key);
	else
		log_warn("reading the health log of %s (%s) failed: %s", d->key, d->name,
			 strerror(-r));
	set_online(p, d, false, now);
	p->rescan_soon = true;
}

/*
 * The drive's own threshold of each sensor it reports, asked once after it
 * came online (and again for a sensor that starts reporting), never every
 * poll: only for reported sensors, since a drive may log an Invalid Field
 * error for a sensor it does not have.
 */
static void ask_sensor_limits(struct poller *p, struct pdev *d, const struct dev_ident *who,
			      const struct smart_log *s)
{
	uint8_t want = temps_reported(s) & (uint8_t)~d->limits_asked;
	uint16_t k[SMART_NUM_SENSORS];

	if (!want)
		return;
	d->limits_asked |= want;
	int r = dev_read_sensor_limits(p->backend, d->name, who, want, k);
	if (r == -EOPNOTSUPP)
		return;
	if (dev_timed_out(r)) {
		d->limits_asked &= (uint8_t)~want; /* asked again once it answers */
		return;
	}
	if (r < 0) {
		log_info("%s: cannot read the sensors' temperature thresholds: %s", d->name,
			 strerror(-r));
		return;
	}
	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		if (want & (1u << i))
			d->drive_limit_k[i] = k[i];
}

static void poller_poll(struct poller *p)
{
	/* A wall clock set back does not reorder or overlap the series (timefmt.h). */
	int64_t now = timefmt_steady_ms(&p->clock, timefmt_now_ms(), timefmt_mono_ms());

	for (size_t i = 0; i < p->n_devs; i++) {
		struct pdev *d = &p->devs[i];
		uint8_t page[SMART_LOG_SIZE];
		struct sample s = {.device_id = d->id, .ts_ms = now};
		enum nvme_runtime_status rt;
		int r;

		if (!d->online)
			continue;
		/* sysfs only: asking whether it sleeps never wakes it. */
		r = dev_read_runtime(p->backend, d->name, now, &rt);
		if (r < 0) {
			poll_failed(p, d, r, now);
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
		if (act == POLL_SMART) {
			struct dev_ident who = {.model = d->model, .serial = d->serial};
			r = dev_read_smart(p->backend, d->name, &who, now, page);
			if (dev_no_permission(r)) {
				/* Identify was allowed, the health log is not. */
				d->access = DEV_ACCESS_SYSFS;
				d->facts.hwmon_only = true;
				poller_tell_no_permission(p, d);
				poller_notify_facts(p, d, now);
				act = POLL_HWMON;
			} else if (dev_timed_out(r)) {
				/* Not offline: still there, not answering (issue 15). */
				poller_set_unresponsive(p, d, true, now);
				continue;
			} else if (r < 0) {
				poll_failed(p, d, r, now);
				continue;
			} else {
				smart_decode(page, &s.smart);
				poller_poll_errlog(p, d, &who, &s.smart, now);
				ask_sensor_limits(p, d, &who, &s.smart);
			}
		}
		if (act == POLL_HWMON) {
			r = poller_hwmon_sample(p, d, now, &s);
			if (dev_timed_out(r)) {
				poller_set_unresponsive(p, d, true, now);
				continue;
			}
			if (r < 0) {
				/* No hwmon (before Linux 5.5): identity only, nothing to sample. */
				if (r != -ENOENT)
					log_debug("reading the hwmon temperatures of %s failed: %s",
						  d->name, strerror(-r));
				continue;
			}
		}
		p->n_polls++;
		poller_set_unresponsive(p, d, false, now);
		struct temps_drive td = {
			.model = d->model,
			.serial = d->serial,
			.wctemp_k = d->wctemp_k,
			.cctemp_k = d->cctemp_k,
			.drive_limit_k = d->drive_limit_k,
		};
		struct fleet_temps t;
		temps_judge(&p->cfg, &td, d->hist, &s.smart, now, &t);
		fleet_put_judged(p->fleet, &s, &t);
		notify(p, d->id, &s, 1, now);
		/* hwmon samples know the temperatures only: shown, never stored. */
		if (s.source == SAMPLE_SOURCE_SMART) {
			if (p->buf.len == 0)
				p->pending_since_ms = timefmt_mono_ms();
			if (sbuf_push(&p->buf, &s))
				log_debug("sample buffer full: dropped the oldest (%llu so far)",
					  (unsigned long long)p->buf.dropped);
		}
	}
	if (p->rescan_soon)
		poller_rescan(p);
	poller_store(p, false);
}

static int64_t on_poll(struct loop *l, void *userdata)
{
	struct poller *p = userdata;

	(void)l;
	poller_poll(p);
	return p->cfg.poll_interval_ms;
}

static int64_t on_rescan(struct loop *l, void *userdata)
{
	struct poller *p = userdata;

	(void)l;
	poller_rescan(p);
	return p->cfg.rescan_interval_ms;
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
	dev_configure(b, &(struct dev_opts){.wake_sleeping = c->wake_sleeping});
	/* Every command of the daemon (polls, probes, self-tests) from now on
	 * runs on its controller's worker, with a deadline (issue 15). */
	r = dev_backend_guard(b, c->device_timeout_ms);
	if (r < 0)
		goto fail;
	r = sbuf_init(&p->buf, c->buffer_samples);
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
	if (p->loop) {
		loop_cancel_timer(p->loop, p->poll_timer);
		loop_cancel_timer(p->loop, p->rescan_timer);
	}
	sbuf_done(&p->buf);
	free(p->devs);
	free(p);
	return NULL;
}

int poller_start(struct poller *p, struct loop *l)
{
	int r = poller_rescan(p);

	if (r < 0 && r != -ENOMEM)
		r = 0; /* a failed scan is retried by the timer */
	if (r < 0)
		return r;
	p->loop = l;
	p->poll_timer = loop_add_timer(l, 0, on_poll, p);
	if (p->poll_timer < 0)
		return (int)p->poll_timer;
	p->rescan_timer = loop_add_timer(l, p->cfg.rescan_interval_ms, on_rescan, p);
	if (p->rescan_timer < 0)
		return (int)p->rescan_timer;
	return 0;
}

int poller_reconfigure(struct poller *p, const struct cfg *c)
{
	if (c->buffer_samples != p->buf.cap) {
		struct sbuf nb;
		const struct sample *v;
		size_t n;
		int r = sbuf_init(&nb, c->buffer_samples);
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
	dev_configure(p->backend, &(struct dev_opts){.wake_sleeping = c->wake_sleeping});
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
