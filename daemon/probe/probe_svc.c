/* SPDX-License-Identifier: MIT */
/*
 * Throughput probes in the daemon. See probe_svc.h.
 *
 * Main loop: the service's life, the drives' entries, starting a run (its
 * drives, their locks, its gates in probe_plan.c, one at a time). The probe
 * thread (probe_execute(), with SMART read and the result stored through
 * mainq_call()) is in probe_svc_job.c, the busy history in probe_svc_busy.c,
 * the schedules in probe_svc_sched.c, series in probe_svc_series.c. The
 * endpoints are in probe_http.c, `nvmond probe` in probe_cli.c. Who owns which
 * field: probe_svc_internal.h and the headers it names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "nvmond/core/log.h"
#include "nvmond/dev/nvme_sysfs.h"
#include "nvmond/probe/probe_lock.h"
#include "nvmond/probe/probe_progress.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/probe/probe_sched.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_probe_group.h"
#include "nvmond/util/timefmt.h"

#include "probe_svc_internal.h"

/* ---- the daemon ---- */

struct probe_dev *probe_svc_dev_find(struct probe_svc *p, int64_t id, bool create)
{
	for (size_t i = 0; i < p->n_dev; i++)
		if (p->dev[i].device_id == id)
			return &p->dev[i];
	if (!create || p->n_dev == PROBE_SVC_DEVICES)
		return NULL;
	p->dev[p->n_dev] = (struct probe_dev){.device_id = id};
	return &p->dev[p->n_dev++];
}

/*
 * A drive a start reaches: the run's own (the one written, or read by a read
 * preset), and for copy-to the drive read. Each has its fleet entry, its
 * state in the service and what the gates know of it now.
 */
struct start_drive {
	struct fleet_device fd;
	struct probe_dev *d;
	struct gate_facts g;
};

/*
 * copy-to: the drive read (@c->device_id) as the one written is checked: it
 * is there and online, no probe runs or cools down on it. Return: 0 with
 * @src, or negative errno with c->reason.
 */
static int source_check(struct probe_svc *p, struct start_call *c, struct start_drive *src)
{
	struct probe_dev *sd;

	if (c->to_device_id == c->device_id) {
		snprintf(c->reason, sizeof(c->reason),
			 "copy-to: the drive written (\"to\") must be another drive "
			 "(copy-self copies a drive onto itself)");
		return -EINVAL;
	}
	if (c->repeat > 1) {
		snprintf(c->reason, sizeof(c->reason), "copy-to runs once (no repeat)");
		return -EINVAL;
	}
	if (fleet_get(p->fleet, c->device_id, &src->fd) < 0) {
		snprintf(c->reason, sizeof(c->reason), "no such device");
		return -ENOENT;
	}
	if (!src->fd.row.online) {
		snprintf(c->reason, sizeof(c->reason), "the drive copied from is offline");
		return -ENODEV;
	}
	if (src->fd.facts.unresponsive) {
		snprintf(c->reason, sizeof(c->reason),
			 "the drive copied from is unresponsive (a command to it is stuck)");
		return -ENODEV;
	}
	sd = probe_svc_dev_find(p, c->device_id, true);
	if (!sd)
		return -ENOMEM;
	if (sd->job) {
		snprintf(c->reason, sizeof(c->reason),
			 "probe %" PRId64 " is running on the drive copied from",
			 sd->job->out.run.id);
		return -EALREADY;
	}
	if (sd->series.active) {
		snprintf(c->reason, sizeof(c->reason),
			 "probe series %" PRId64 " is cooling down on the drive copied from",
			 sd->series.series_id);
		return -EALREADY;
	}
	src->d = sd;
	return 0;
}

/*
 * The run's drive (@id; @copy: the one a copy-to writes) is there, online and
 * answering, and nothing else runs or cools down on it (but the next run of
 * its own series). Return: 0 with @tgt, or negative errno with c->reason.
 */
static int target_check(struct probe_svc *p, struct start_call *c, int64_t id, bool copy,
			struct start_drive *tgt)
{
	struct probe_dev *d;

	if (fleet_get(p->fleet, id, &tgt->fd) < 0) {
		snprintf(c->reason, sizeof(c->reason),
			 copy ? "no such device to copy to" : "no such device");
		return copy ? -EINVAL : -ENOENT;
	}
	if (!tgt->fd.row.online) {
		snprintf(c->reason, sizeof(c->reason), "the device is offline");
		return -ENODEV;
	}
	if (tgt->fd.facts.unresponsive) {
		/* Its temperature could not be watched, nor its identity re-read. */
		snprintf(c->reason, sizeof(c->reason),
			 "the device is unresponsive (a command to it is stuck past "
			 "device_timeout)");
		return -ENODEV;
	}
	d = probe_svc_dev_find(p, id, true);
	if (!d)
		return -ENOMEM;
	if (d->job) {
		snprintf(c->reason, sizeof(c->reason), "probe %" PRId64 " is running on it",
			 d->job->out.run.id);
		return -EALREADY;
	}
	if (d->series.active && !c->next_of_series) {
		snprintf(c->reason, sizeof(c->reason),
			 "probe series %" PRId64 " is cooling down on it before run %u of %u",
			 d->series.series_id, d->series.next_index, d->series.of);
		return -EALREADY;
	}
	tgt->d = d;
	return 0;
}

/*
 * The drives of @c: its target, and for copy-to its source (else src->d
 * stays NULL), checked, with what the gates know of each now.
 * Return: 0, or negative errno with c->reason.
 */
static int start_drives(struct probe_svc *p, struct start_call *c, bool copy,
			struct start_drive *tgt, struct start_drive *src)
{
	int r;

	if (copy != (c->to_device_id != 0)) {
		snprintf(c->reason, sizeof(c->reason),
			 copy ? "copy-to needs the drive to copy to (\"to\")"
			      : "only copy-to copies to another drive (\"to\")");
		return -EINVAL;
	}
	/* copy-to: c->device_id is read, c->to_device_id written (the run's drive). */
	if (copy) {
		r = source_check(p, c, src);
		if (r < 0)
			return r;
	}
	r = target_check(p, c, copy ? c->to_device_id : c->device_id, copy, tgt);
	if (r < 0)
		return r;
	struct start_drive *v[2] = {tgt, copy ? src : NULL};
	for (size_t i = 0; i < 2 && v[i]; i++) {
		if (v[i]->fd.has_sample)
			v[i]->g.temp_k = v[i]->fd.last.smart.temperature_k;
		probe_svc_busy_of(p, v[i]->d, &v[i]->g);
	}
	return 0;
}

/* No self-test runs on @sd (@what: how the reason names it). Return: 0 or -EBUSY. */
static int selftest_free(const struct start_drive *sd, const char *what,
			 char reason[PROBE_REASON_MAX])
{
	if (!sd->fd.selftest.running)
		return 0;
	/* It would measure the self-test as much as the drive. */
	snprintf(reason, PROBE_REASON_MAX, "%s %s device self-test is running on %s (%u %%)",
		 sd->fd.selftest.running == SELFTEST_CODE_EXTENDED ? "an" : "a",
		 selftest_code_name(sd->fd.selftest.running), what, sd->fd.selftest.percent);
	return -EBUSY;
}

/*
 * The drives' probe locks into @j, two in the one order every process takes
 * them; then no self-test runs on either. Return: 0, or negative errno with
 * @reason.
 */
static int start_locks(struct probe_svc *p, const struct start_drive *tgt,
		       const struct start_drive *src, int64_t now, struct probe_job_ctx *j,
		       char reason[PROBE_REASON_MAX])
{
	int r = probe_drive_locks(&p->cfg, p->store, "the daemon", &tgt->fd.row,
				  src->d ? &src->fd.row : NULL, now, &j->lock_fd, &j->src_lock_fd,
				  reason);

	if (r == 0 && src->d)
		r = selftest_free(src, "the drive copied from", reason);
	if (r == 0)
		r = selftest_free(tgt, "the drive", reason);
	return r;
}

/*
 * cache-recovery: the step this run writes: the next burst of the drive's
 * study, or a new study's fill (planned here, into @ret_study, *@ret_new).
 * Return: 0, or negative errno with c->reason.
 */
static int start_study(struct probe_svc *p, struct start_call *c, const struct start_drive *tgt,
		       int64_t now, struct probe_study *ret_study, bool *ret_new)
{
	int r;

	if (c->next_of_series) {
		c->study = (struct probe_study_step){.bytes = tgt->d->series.study.burst_bytes};
		return 0;
	}
	r = probe_study_setup(&p->cfg, p->store, &tgt->fd.row, now, ret_study, c->reason);
	c->study = (struct probe_study_step){.fill = true, .bytes = ret_study->fill_bytes};
	c->repeat = 1 + (uint32_t)ret_study->n_intervals;
	*ret_new = r == 0;
	return r;
}

/* The plans of @j: its drive's through the gates, and copy-to's source's. */
static int start_plans(struct probe_svc *p, struct start_call *c, const struct start_drive *tgt,
		       const struct start_drive *src, int64_t now, struct probe_job_ctx *j)
{
	bool study = probe_preset_get(c->preset)->study;
	int r = probe_plan_prepare_step(&p->cfg, p->store, &tgt->fd.row, c->preset, c->trigger,
					p->own_probes, &tgt->g, study ? &c->study : NULL, now,
					&j->plan, &j->out.run, c->reason);

	if (r == 0 && src->d) {
		r = probe_plan_prepare_source(&p->cfg, p->store, &src->fd.row, p->own_probes,
					      &src->g, &j->src_plan, c->reason);
		j->plan.source = &j->src_plan;
		j->out.run.source_device_id = src->fd.row.id;
	}
	return r;
}

/* A start refused (@r) after its drives were found: a series' run or a scheduled one on record. */
static void start_refused(struct probe_svc *p, const struct start_call *c,
			  const struct start_drive *tgt, int r, int64_t now)
{
	if (r == -ENOMEM)
		return;
	if (c->next_of_series) {
		probe_series_skip_record(p, tgt->d, c->reason);
	} else if (tgt->g.scheduled) {
		/* A skipped scheduled probe is recorded, with why. */
		struct probe_run_row skip = {.device_id = tgt->fd.row.id, .started_ms = now};
		int64_t id;
		snprintf(skip.preset, sizeof(skip.preset), "%s", probe_preset_get(c->preset)->name);
		snprintf(skip.trigger, sizeof(skip.trigger), "%s", c->trigger);
		snprintf(skip.state, sizeof(skip.state), "skipped");
		snprintf(skip.reason, sizeof(skip.reason), "%s", c->reason);
		skip.ended_ms = now;
		(void)store_probe_run_insert(p->store, &skip, &id);
	}
}

/* Launched run @j of @c is the drive's series' next, or starts one (@study: a new study's). */
static void start_series(struct probe_svc *p, struct start_call *c, struct probe_dev *d,
			 const struct probe_job_ctx *j, const struct probe_study *study)
{
	if (c->next_of_series) {
		d->series.last_run_id = j->out.run.id;
		d->series.next_index++;
		return;
	}
	if (c->repeat <= 1)
		return;
	d->series = (struct probe_series_state){
		.active = true,
		.svc = p,
		.series_id = j->out.run.id,
		.last_run_id = j->out.run.id,
		.next_index = 2,
		.of = c->repeat,
		.preset = c->preset,
		.cooldown_ms = c->cooldown_ms,
	};
	snprintf(d->series.trigger, sizeof(d->series.trigger), "%s", c->trigger);
	if (study) {
		d->series.is_study = true;
		d->series.study = *study;
		c->ret_study = *study;
	}
}

/*
 * Start prepared job @j of @c on its drives: on record as its series' run,
 * its thread started, the series' state. Return: 0, or negative errno with
 * c->reason (the job is then freed).
 */
static int start_launch(struct probe_svc *p, struct start_call *c, const struct start_drive *tgt,
			const struct start_drive *src, struct probe_job_ctx *j, int64_t now,
			const struct probe_study *study)
{
	struct probe_dev *d = tgt->d;
	int r;

	if (c->next_of_series) {
		j->out.run.series_id = d->series.series_id;
		j->out.run.series_index = d->series.next_index;
		j->out.run.series_of = d->series.of;
	} else if (c->repeat > 1) {
		j->out.run.series_index = 1;
		j->out.run.series_of = c->repeat;
	}
	r = probe_job_launch(p, d, j, now, c->reason);
	if (r < 0)
		return r;
	if (src->d)
		src->d->job = j; /* the drive read shows it running, and takes no other probe */
	c->ret_id = j->out.run.id;
	start_series(p, c, d, j, study);
	if (src->d)
		log_info("probe %" PRId64 ": %s from drive %s to drive %s (%s)", c->ret_id,
			 j->out.run.preset, src->fd.row.serial, tgt->fd.row.serial, c->trigger);
	else
		log_info("probe %" PRId64 ": %s on drive %s (%s)", c->ret_id, j->out.run.preset,
			 tgt->fd.row.serial, c->trigger);
	return 0;
}

int probe_svc_start_on_loop(void *arg)
{
	struct start_call *c = arg;
	struct probe_svc *p = c->svc;
	bool scheduled = strcmp(c->trigger, "schedule") == 0;
	struct start_drive tgt = {.g = {.scheduled = scheduled}};
	struct start_drive src = {.g = {.scheduled = scheduled}};
	struct probe_job_ctx *j;
	struct probe_study study;
	bool study_start = false;
	int64_t now = timefmt_now_ms();
	int r;

	probe_svc_reap(p);
	r = start_drives(p, c, probe_preset_get(c->preset)->copy_to, &tgt, &src);
	if (r < 0)
		return r;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->lock_fd = -1;
	j->src_lock_fd = -1;
	r = start_locks(p, &tgt, &src, now, j, c->reason);
	if (r == 0 && probe_preset_get(c->preset)->study)
		r = start_study(p, c, &tgt, now, &study, &study_start);
	if (r == 0)
		r = start_plans(p, c, &tgt, &src, now, j);
	if (r < 0) {
		start_refused(p, c, &tgt, r, now);
		probe_job_discard(j);
		return r;
	}
	snprintf(j->serial, sizeof(j->serial), "%s", tgt.fd.row.serial);
	snprintf(j->out.run.state, sizeof(j->out.run.state), "running");
	if (c->hold) {
		c->ret_job = j;
		return 0;
	}
	return start_launch(p, c, &tgt, &src, j, now, study_start ? &study : NULL);
}

int probe_svc_drive_blocked(struct probe_svc *p, const struct device_row *row, bool scheduled,
			    char ret_reason[PROBE_SVC_ERR_MAX])
{
	struct probe_dev *d = probe_svc_dev_find(p, row->id, false);
	char dir[CFG_PATH_MAX], why[PROBE_LOCK_ERR_MAX];
	int fd = -1, r;

	probe_svc_reap(p);
	if (d && d->job) {
		snprintf(ret_reason, PROBE_SVC_ERR_MAX,
			 "probe %" PRId64 " is running on this drive", d->job->out.run.id);
		return 1;
	}
	if (d && d->series.active) {
		snprintf(ret_reason, PROBE_SVC_ERR_MAX,
			 "probe series %" PRId64 " is cooling down on this drive",
			 d->series.series_id);
		return 1;
	}
	/* `nvmond probe` or another daemon: the drive's probe lock is held. */
	r = probe_lock_take(probe_lock_dir_of(&p->cfg, dir, sizeof(dir)), row->serial, "the daemon",
			    &fd, why);
	probe_lock_release(fd);
	if (r == -EBUSY) {
		snprintf(ret_reason, PROBE_SVC_ERR_MAX, "%s", why);
		return 1;
	}
	if (scheduled && d) {
		struct gate_facts g = {.scheduled = true};
		if (probe_svc_busy(p, d, &g)) {
			snprintf(ret_reason, PROBE_SVC_ERR_MAX,
				 "drive busy: %.0f IO/s, %.1f MB/s over the last minute (the "
				 "probes' limits: [probes] busy_iops, busy_mbps)",
				 g.busy_iops, g.busy_bps / 1e6);
			return 1;
		}
	}
	return 0;
}

int probe_svc_new(const struct cfg *c, struct dev_backend *b, struct store *s, struct fleet *f,
		  struct mainq *q, struct probe_svc **ret, char ret_err[PROBE_SVC_ERR_MAX])
{
	struct probe_svc *p;
	int r;

	r = probe_svc_schedules_check(c, ret_err);
	if (r < 0)
		return r;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cfg = *c;
	p->backend = b;
	p->store = s;
	p->fleet = f;
	p->mainq = q;
	p->own_probes = dev_has(b, DEV_CAP_OWN_PROBES);
	p->sim_busy = dev_has(b, DEV_CAP_SIM_BUSY);
	p->endpoints[0] = (struct api_endpoint){"GET", "/api/v1/devices/{id}/probes",
						API_EP_STORE | API_EP_QUERY, probe_http_list, p};
	p->endpoints[1] = (struct api_endpoint){"GET", "/api/v1/probes/{id}", API_EP_STORE,
						probe_http_get, p};
	p->endpoints[2] = (struct api_endpoint){"POST", "/api/v1/devices/{id}/probes",
						API_EP_AUTH | API_EP_BODY, probe_http_post, p};
	p->endpoints[3] = (struct api_endpoint){"POST", "/api/v1/probes/{id}/cancel",
						API_EP_AUTH | API_EP_STORE, probe_http_cancel, p};
	p->endpoints[4] = (struct api_endpoint){"POST", "/api/v1/probes", API_EP_AUTH | API_EP_BODY,
						probe_http_group_post, p};
	*ret = p;
	return 0;
}

/*
 * Runs left "running" whose process died (the daemon's last run, a killed
 * `nvmond probe`): settle those whose drive lock is free; a drive whose lock
 * is held is being probed by a live process, and its runs are its own.
 */
static void recover_dead_runs(struct probe_svc *p)
{
	int64_t *ids = NULL, now = timefmt_now_ms();
	size_t n = 0;

	if (store_probe_running_devices(p->store, &ids, &n) < 0) {
		log_warn("cannot look for probe runs left running: %s", store_strerror(p->store));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct device_row row;
		char reason[PROBE_REASON_MAX];
		int fd;
		if (store_device_get(p->store, ids[i], &row) < 0)
			continue;
		int r = probe_drive_lock(&p->cfg, p->store, &row, "the daemon", now, &fd, reason);
		if (r == 0)
			probe_lock_release(fd);
		else if (r == -EALREADY)
			log_info("%s: a probe run by another nvmond process is still running (%s)",
				 row.key, reason);
		else
			log_warn("%s: cannot settle probe runs left running: %s", row.key, reason);
	}
	free(ids);
}

int probe_svc_start(struct probe_svc *p, struct loop *l, struct poller *poller)
{
	struct poller_listener pl = {.on_sample = probe_svc_on_sample, .ctx = p};
	int r;

	recover_dead_runs(p);
	r = poller_add_listener(poller, &pl);
	if (r < 0)
		return r;
	p->loop = l;
	/* The first look at once: the first scan put the drives in the fleet. */
	p->sched_timer = loop_add_timer(l, 0, probe_svc_sched_tick, p);
	return p->sched_timer < 0 ? (int)p->sched_timer : 0;
}

int probe_svc_reconfigure(struct probe_svc *p, const struct cfg *c, char ret_err[PROBE_SVC_ERR_MAX])
{
	int r = probe_svc_schedules_check(c, ret_err);

	if (r < 0)
		return r;
	p->cfg = *c;
	for (size_t i = 0; i < p->n_dev; i++)
		p->dev[i].sched.text[0] = '\0'; /* reparsed at the next tick: now */
	if (p->loop && p->sched_timer > 0)
		(void)loop_timer_pull(p->loop, p->sched_timer, 0);
	return 0;
}

const struct api_endpoint *probe_svc_endpoints(struct probe_svc *p, size_t *ret_n)
{
	*ret_n = sizeof(p->endpoints) / sizeof(p->endpoints[0]);
	return p->endpoints;
}

struct probe_svc *probe_svc_free(struct probe_svc *p)
{
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->n_dev; i++) {
		if (p->dev[i].series.timer && p->loop)
			(void)loop_cancel_timer(p->loop, p->dev[i].series.timer);
		p->dev[i].series.active = false;
		if (p->dev[i].job)
			(void)probe_job_cancel(p->dev[i].job, "the daemon stopped");
	}
	for (size_t i = 0; i < p->n_dev; i++) {
		struct probe_job_ctx *j = p->dev[i].job;
		/* A copy-to run is on both drives' entries: freed by the written one's. */
		if (j && j->plan.device_id == p->dev[i].device_id)
			probe_job_free(j);
	}
	probe_svc_reap(p);
	free(p);
	return NULL;
}
