/* SPDX-License-Identifier: MIT */
/*
 * The poller, on the main loop: rescans controllers, reads each health log
 * every interval, keeps the fleet current, tells the listeners, and stores
 * the samples through the bounded buffer. See poller.h.
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
#include "nvmond/store/store_facts.h"
#include "nvmond/monitor/temps.h"
#include "nvmond/util/timefmt.h"

#define FLUSH_BATCH   1000
#define RETRY_MIN_MS  1000
#define MAX_LISTENERS 16
/* After a failed read of the error log: no new try for this long. A read that
 * fails may log an error of its own, and the count it raises must not make
 * nvmond read (and fail) again at every poll. */
#define ERRLOG_RETRY_MS	      (3600 * 1000LL)
#define ERRLOG_STORE_RETRY_MS (60 * 1000LL)

struct pdev {
	int64_t id;
	char key[DEV_KEY_MAX];
	char model[41], serial[21]; /* checked on every read: names move */
	char name[DEV_NAME_MAX];
	bool online;
	bool online_stored; /* what the database believes; fixed up when it can */
	bool was_online;    /* online when the last run ended: missing at the first scan = gone */
	/* The error log (log page 01h). */
	unsigned el_kept;	  /* entries the controller keeps (ELPE + 1), from the scan */
	bool el_ext;		  /* LPA bit 2: Get Log Page takes offsets */
	bool el_loaded;		  /* el_have / el were read from the store */
	bool el_have;		  /* the log was read before (el holds where) */
	struct errlog_state el;	  /* where it was last read */
	int64_t el_retry_mono_ms; /* no read before this (after a failure) */
	uint64_t el_failed_count; /* the count of the failed read (logged once per count) */
	enum dev_access access;
	bool ident_partial; /* stored from sysfs only (asleep, or no access): upsert when full */
	bool facts_loaded;  /* the last recorded firmware and link are read from the store */
	bool link_recorded; /* link holds the newest link_history row */
	char fw[FWLOG_REV_MAX];	    /* the firmware last recorded; "" none yet */
	char row_fw[FWLOG_REV_MAX]; /* devices.firmware as last stored */
	struct fleet_facts facts;
	uint16_t wctemp_k, cctemp_k;
	/* Sensors 1-8: their history (the stuck rule) and the drive's own
	 * thresholds, asked once per appearance for the sensors it reports. */
	struct sensor_hist hist[SMART_NUM_SENSORS];
	uint16_t drive_limit_k[SMART_NUM_SENSORS];
	uint8_t limits_asked; /* sensors whose threshold was asked since it came online */
};

struct poller {
	struct cfg cfg;
	struct dev_backend *backend;
	struct store *store;
	struct fleet *fleet;
	struct loop *loop;
	struct pdev *devs;
	size_t n_devs;
	struct sbuf buf;
	int64_t retry_at_ms; /* monotonic: no store attempt before this */
	int64_t retry_delay_ms;
	int last_store_err;
	bool rescan_soon;
	int64_t poll_timer, rescan_timer;
	struct poller_listener listeners[MAX_LISTENERS];
	size_t n_listeners;
	bool told_no_permission; /* the one log line about missing privileges went out */
	uint64_t n_polls, n_poll_errors, n_store_errors, n_stored;
	uint64_t n_errlog_reads, n_errlog_errors;
};

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

static void notify_errors(struct poller *p, int64_t id, const struct errlog_row *v, size_t n)
{
	struct fleet_device fd;

	if (n == 0 || p->n_listeners == 0 || fleet_get(p->fleet, id, &fd) < 0)
		return;
	for (size_t i = 0; i < p->n_listeners; i++)
		if (p->listeners[i].on_errors)
			p->listeners[i].on_errors(p->listeners[i].ctx, &fd.row, v, n);
}

static void notify_facts(struct poller *p, const struct pdev *d, int64_t now_ms)
{
	struct fleet_device fd;

	fleet_put_facts(p->fleet, d->id, &d->facts);
	if (p->n_listeners == 0 || fleet_get(p->fleet, d->id, &fd) < 0)
		return;
	for (size_t i = 0; i < p->n_listeners; i++)
		if (p->listeners[i].on_facts)
			p->listeners[i].on_facts(p->listeners[i].ctx, &fd.row, &d->facts, now_ms);
}

/* Once per run: what is missing without privileges, and how to grant them. */
static void tell_no_permission(struct poller *p, const struct pdev *d)
{
	if (p->told_no_permission)
		return;
	p->told_no_permission = true;
	log_warn("no permission for NVMe admin commands on /dev/%s (%s): showing the identity "
		 "from sysfs and the temperatures from hwmon only; the health counters, "
		 "critical warnings, error log and firmware slots stay unknown and their alerts "
		 "silent. Run nvmond as root, or with CAP_SYS_ADMIN (systemd: "
		 "AmbientCapabilities=CAP_SYS_ADMIN) and read access to the /dev/nvme* nodes",
		 d->name, d->key);
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

/* The firmware and link last recorded for @d, once per run. */
static void facts_load(struct poller *p, struct pdev *d)
{
	struct store_fw_row fw;
	struct store_link_row l;

	if (d->facts_loaded)
		return;
	if (store_fw_last(p->store, d->id, &fw) == 0) {
		snprintf(d->fw, sizeof(d->fw), "%s", fw.new_rev);
		snprintf(d->facts.firmware, sizeof(d->facts.firmware), "%s", fw.new_rev);
		if (fw.old_rev[0]) {
			snprintf(d->facts.firmware_prev, sizeof(d->facts.firmware_prev), "%s",
				 fw.old_rev);
			d->facts.firmware_changed_ms = fw.ts_ms;
		}
	}
	if (store_link_at(p->store, d->id, INT64_MAX, &l) == 0) {
		d->facts.link = l.link;
		d->link_recorded = true;
	}
	d->facts_loaded = true;
}

/* Record a firmware revision change (or the baseline) found by a scan. */
static void facts_firmware(struct poller *p, struct pdev *d, const struct dev_info *info,
			   int64_t now)
{
	struct fw_change ch;
	struct store_fw_row row = {.device_id = d->id, .ts_ms = now};

	fwlog_change(d->fw, info->id.firmware, info->facts.has_fwlog ? &info->facts.fwlog : NULL,
		     &ch);
	snprintf(d->facts.firmware_pending, sizeof(d->facts.firmware_pending), "%s", ch.pending);
	if (!ch.current[0] || (!ch.changed && d->fw[0]))
		return;
	snprintf(row.old_rev, sizeof(row.old_rev), "%s", ch.changed ? ch.old_rev : "");
	snprintf(row.new_rev, sizeof(row.new_rev), "%s", ch.current);
	if (store_fw_insert(p->store, &row) < 0) {
		log_warn("storing the firmware of %s failed: %s", d->key, store_strerror(p->store));
		return; /* tried again at the next scan */
	}
	snprintf(d->fw, sizeof(d->fw), "%s", ch.current);
	snprintf(d->facts.firmware, sizeof(d->facts.firmware), "%s", ch.current);
	if (!ch.changed)
		return;
	snprintf(d->facts.firmware_prev, sizeof(d->facts.firmware_prev), "%s", ch.old_rev);
	d->facts.firmware_changed_ms = now;
	log_event(LOG_LVL_INFO, d->name, d->serial, "firmware_changed",
		  "device %s (%s): firmware changed from %s to %s", d->key, d->name, ch.old_rev,
		  ch.new_rev);
}

/* Record the PCIe link when it differs from the last one recorded. */
static void facts_link(struct poller *p, struct pdev *d, const struct nvme_pcie_link *l,
		       int64_t now)
{
	struct store_link_row row = {.device_id = d->id, .ts_ms = now, .link = *l};
	char was[NVME_PCIE_LINK_STR_MAX], is[NVME_PCIE_LINK_STR_MAX];

	if (!nvme_pcie_link_known(l) ||
	    (d->link_recorded && memcmp(&d->facts.link, l, sizeof(*l)) == 0))
		return;
	if (store_link_insert(p->store, &row) < 0) {
		log_warn("storing the PCIe link of %s failed: %s", d->key,
			 store_strerror(p->store));
		return;
	}
	nvme_pcie_link_format(&d->facts.link, was, sizeof(was));
	nvme_pcie_link_format(l, is, sizeof(is));
	if (d->link_recorded)
		log_event(nvme_pcie_link_degraded(l) ? LOG_LVL_WARNING : LOG_LVL_INFO, d->name,
			  d->serial, "link", "device %s (%s): %s, was %s", d->key, d->name, is,
			  was);
	else if (nvme_pcie_link_degraded(l))
		log_event(LOG_LVL_WARNING, d->name, d->serial, "link",
			  "device %s (%s): %s: the link runs below what the drive supports", d->key,
			  d->name, is);
	d->facts.link = *l;
	d->link_recorded = true;
}

/* After a scan found @d: its access, sleep, link and firmware. */
static void facts_update(struct poller *p, struct pdev *d, const struct dev_info *info, int64_t now)
{
	facts_load(p, d);
	d->access = info->access;
	if (info->access == DEV_ACCESS_SYSFS)
		tell_no_permission(p, d);
	d->facts.known = true;
	d->facts.asleep = info->asleep;
	d->facts.hwmon_only = info->access == DEV_ACCESS_SYSFS;
	facts_link(p, d, &info->facts.link, now);
	facts_firmware(p, d, info, now);
	notify_facts(p, d, now);
}

/* Find controllers; new ones get a store id, known ones may have a new name. */
static int poller_rescan(struct poller *p)
{
	int64_t now = timefmt_now_ms();
	struct dev_info *v = NULL;
	size_t n = 0;
	int r;

	p->rescan_soon = false;
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
		bool partial = v[i].asleep || v[i].access == DEV_ACCESS_SYSFS;
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
		facts_update(p, d, &v[i], now);
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

static void poller_store(struct poller *p)
{
	int64_t mono = timefmt_mono_ms();
	const struct sample *v;
	size_t n;

	if (mono < p->retry_at_ms)
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
	if (p->last_store_err)
		log_info("storing samples works again");
	p->last_store_err = 0;
	p->retry_delay_ms = 0;
}

static uint64_t sat64(u128 v)
{
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* The entries stored for @d, by class, into the fleet (the device's counts). */
static void errlog_counts_to_fleet(struct poller *p, struct pdev *d)
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
 * are those with an error count in (last read, now], one row each.
 */
static void poll_errlog(struct poller *p, struct pdev *d, const struct dev_ident *who,
			const struct smart_log *smart, int64_t now)
{
	uint64_t cur = sat64(smart->num_err_log_entries);
	int64_t mono = timefmt_mono_ms();
	int r;

	if (!d->el_loaded) {
		r = store_errlog_state_get(p->store, d->id, &d->el);
		if (r < 0 && r != -ENOENT)
			return; /* the store answers later */
		d->el_have = r == 0;
		d->el_loaded = true;
		if (d->el_have)
			errlog_counts_to_fleet(p, d);
	}
	if (mono < d->el_retry_mono_ms)
		return;
	size_t want = errlog_read_count(d->el_have, d->el.read_count, cur,
					d->el_kept ? d->el_kept : 1, d->el_ext);
	struct errlog_state st = {.read_count = cur, .read_ms = now, .lost = d->el.lost};
	if (want == 0) {
		if (d->el_have)
			return;
		/* Never read and nothing counted: the baseline is 0. */
		if (store_errors_add(p->store, d->id, NULL, 0, &st) == 0) {
			d->el = st;
			d->el_have = true;
			errlog_counts_to_fleet(p, d);
		}
		return;
	}
	uint8_t *page = malloc(want * ERRLOG_ENTRY_SIZE);
	struct errlog_entry *e = calloc(want, sizeof(*e));
	struct errlog_row *rows = calloc(want, sizeof(*rows));
	size_t *idx = calloc(want, sizeof(*idx));
	if (!page || !e || !rows || !idx)
		goto out;
	r = dev_read_errlog(p->backend, d->name, who, now, want, d->el_ext, page);
	if (r < 0) {
		p->n_errlog_errors++;
		if (d->el_failed_count != cur || !d->el_retry_mono_ms)
			log_warn("reading the error log of %s (%s) failed: %s; trying again in an "
				 "hour",
				 d->key, d->name, strerror(-r));
		d->el_failed_count = cur;
		d->el_retry_mono_ms = mono + ERRLOG_RETRY_MS;
		goto out;
	}
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
	errlog_counts_to_fleet(p, d);
	if (!baseline)
		notify_errors(p, d->id, rows, k);
out:
	free(page);
	free(e);
	free(rows);
	free(idx);
}

/* A sample of the temperatures hwmon shows; the other fields stay unknown. */
static int hwmon_sample(struct poller *p, struct pdev *d, int64_t now, struct sample *ret)
{
	struct nvme_hwmon_temps t;
	int r = dev_read_hwmon(p->backend, d->name, now, &t);

	if (r < 0)
		return r;
	*ret = (struct sample){.device_id = d->id, .ts_ms = now, .source = SAMPLE_SOURCE_HWMON};
	ret->smart.temperature_k = t.composite_k;
	memcpy(ret->smart.temp_sensor_k, t.sensor_k, sizeof(t.sensor_k));
	return 0;
}

/* A drive fell asleep or woke: tell once, show it. */
static void set_asleep(struct poller *p, struct pdev *d, bool asleep, int64_t now)
{
	if (d->facts.asleep == asleep)
		return;
	log_event(LOG_LVL_INFO, d->name, d->serial, asleep ? "asleep" : "awake",
		  asleep ? "device %s (%s) is asleep (runtime-suspended): not polled until it "
			   "wakes (wake_sleeping = no)"
			 : "device %s (%s) is awake: polling again",
		  d->key, d->name);
	d->facts.asleep = asleep;
	notify_facts(p, d, now);
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
	int64_t now = timefmt_now_ms();

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
		set_asleep(p, d, act == POLL_ASLEEP, now);
		if (act == POLL_ASLEEP)
			continue;
		if (act == POLL_SMART) {
			struct dev_ident who = {.model = d->model, .serial = d->serial};
			r = dev_read_smart(p->backend, d->name, &who, now, page);
			if (dev_no_permission(r)) {
				/* Identify was allowed, the health log is not. */
				d->access = DEV_ACCESS_SYSFS;
				d->facts.hwmon_only = true;
				tell_no_permission(p, d);
				notify_facts(p, d, now);
				act = POLL_HWMON;
			} else if (r < 0) {
				poll_failed(p, d, r, now);
				continue;
			} else {
				smart_decode(page, &s.smart);
				poll_errlog(p, d, &who, &s.smart, now);
				ask_sensor_limits(p, d, &who, &s.smart);
			}
		}
		if (act == POLL_HWMON) {
			r = hwmon_sample(p, d, now, &s);
			if (r < 0) {
				/* No hwmon (before Linux 5.5): identity only, nothing to sample. */
				if (r != -ENOENT)
					log_debug("reading the hwmon temperatures of %s failed: %s",
						  d->name, strerror(-r));
				continue;
			}
		}
		p->n_polls++;
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
		if (s.source == SAMPLE_SOURCE_SMART && sbuf_push(&p->buf, &s))
			log_debug("sample buffer full: dropped the oldest (%llu so far)",
				  (unsigned long long)p->buf.dropped);
	}
	if (p->rescan_soon)
		poller_rescan(p);
	poller_store(p);
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
			errlog_counts_to_fleet(p, d);
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
	return 0;
}

int poller_flush(struct poller *p)
{
	p->retry_at_ms = 0;
	poller_store(p);
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
