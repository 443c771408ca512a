/* SPDX-License-Identifier: MIT */
/*
 * A probe run's own thread and its calls back into the main loop: SMART
 * reads, budget charges, the probe file made, progress, the end of the run
 * stored; and launching the thread for a run its gates let through
 * (probe_svc.c). See probe_svc.h.
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
#include "nvmond/probe/probe_nsopen.h"
#include "nvmond/probe/probe_progress.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/probe/probe_sched.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_probe_group.h"
#include "nvmond/util/timefmt.h"

#include "probe_svc_internal.h"

struct smart_call {
	struct probe_svc *svc;
	const char *name;
	const struct dev_ident *who;
	int64_t now_ms;
	struct smart_log *ret;
};

/*
 * On the probe's thread: the guard is thread-safe and bounds the wait by
 * [daemon] device_timeout, so a hung controller never holds the main loop.
 */
static int smart_read(void *arg)
{
	struct smart_call *c = arg;
	uint8_t page[SMART_LOG_SIZE];
	int r = dev_read_smart(c->svc->backend, c->name, c->who, c->now_ms, page);

	if (r < 0)
		return r;
	return smart_decode(page, c->ret);
}

static int job_read_smart(void *ctx, const char *ctrl, int64_t now_ms, struct smart_log *ret)
{
	struct probe_job_ctx *j = ctx;
	struct dev_ident who = {.model = j->plan.model, .serial = j->plan.serial};
	struct smart_call c = {j->svc, ctrl, &who, now_ms, ret};

	return smart_read(&c);
}

/*
 * A raw target's namespace: the device process opens it (this process may
 * open no block device); a backend without one (tests), here.
 */
static int job_open_ns(void *ctx, const char *ns, const struct dev_ident *who, uint32_t nsid,
		       enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX])
{
	struct probe_job_ctx *j = ctx;
	int r = dev_open_ns(j->svc->backend, ns, who, nsid, mode, ret_reason);

	if (r == -EOPNOTSUPP)
		r = probe_ns_open(ns, who, nsid, mode, ret_reason);
	return r;
}

/* copy-to: the drive read, looked up by its own identity. */
static int job_read_smart_source(void *ctx, const char *ctrl, int64_t now_ms, struct smart_log *ret)
{
	struct probe_job_ctx *j = ctx;
	struct dev_ident who = {.model = j->src_plan.model, .serial = j->src_plan.serial};
	struct smart_call c = {j->svc, ctrl, &who, now_ms, ret};

	return smart_read(&c);
}

struct charge_call {
	struct store *store;
	int64_t id;
	uint64_t lease, written;
};

static int charge_on_loop(void *arg)
{
	struct charge_call *c = arg;

	return store_probe_run_charge(c->store, c->id, c->lease, c->written);
}

/* The lease goes on record before a write passes the last one. */
static int job_charge(void *ctx, uint64_t lease, uint64_t written)
{
	struct probe_job_ctx *j = ctx;
	struct charge_call c = {j->svc->store, j->out.run.id, lease, written};

	return mainq_call(j->svc->mainq, charge_on_loop, &c);
}

struct file_call {
	struct store *store;
	int64_t device_id;
	const char *dir;
	const struct probe_file_id *id;
};

static int file_on_loop(void *arg)
{
	struct file_call *c = arg;

	return store_probe_file_put(c->store, c->device_id, c->dir, c->id, timefmt_now_ms());
}

static int job_file_made(void *ctx, const char *dir, const struct probe_file_id *id)
{
	struct probe_job_ctx *j = ctx;
	struct file_call c = {j->svc->store, j->plan.device_id, dir, id};

	return mainq_call(j->svc->mainq, file_on_loop, &c);
}

static void job_progress(void *ctx, size_t phase, const struct probe_point *v, size_t n)
{
	struct probe_job_ctx *j = ctx;

	pthread_mutex_lock(&j->lock);
	(void)probe_progress_update(&j->prog, phase, v, n); /* -ENOMEM: shows the last one */
	pthread_mutex_unlock(&j->lock);
}

static bool job_cancelled(void *ctx)
{
	struct probe_job_ctx *j = ctx;

	return atomic_load(&j->cancel);
}

static int finish_on_loop(void *arg)
{
	struct probe_job_ctx *j = arg;
	struct probe_svc *p = j->svc;
	struct probe_dev *d = probe_svc_dev_find(p, j->plan.device_id, false);
	int r = probe_outcome_save(p->store, &j->out);

	if (r == 0 && j->group)
		r = store_probe_group_skew(p->store, j->out.run.id, j->skew_ns / 1000);
	if (r < 0)
		log_error("probe %" PRId64 ": cannot store the result: %s (%s)", j->out.run.id,
			  strerror(-r), store_strerror(p->store));
	log_info("probe %" PRId64 " (%s on drive %s, %s): %s%s%s, %.1f MB written, %.1f MB charged",
		 j->out.run.id, j->out.run.preset, j->serial, j->out.run.target, j->out.run.state,
		 j->out.run.reason[0] ? ": " : "", j->out.run.reason,
		 (double)j->out.run.bytes_written / 1e6, (double)j->out.run.bytes_charged / 1e6);
	if (d)
		d->job = NULL;
	if (j->plan.source) {
		struct probe_dev *sd = probe_svc_dev_find(p, j->src_plan.device_id, false);
		if (sd && sd->job == j)
			sd->job = NULL;
	}
	j->next = p->done;
	p->done = j;
	if (d && d->series.active && j->out.run.series_id == d->series.series_id)
		probe_series_after_run(p, d, j);
	return 0;
}

/* A group's member: its phases start with the others'. */
static void job_phase_start(void *ctx, size_t step)
{
	struct probe_job_ctx *j = ctx;
	int64_t late = probe_group_sync_arrive(&j->group->sync);

	(void)step;
	if (late > j->skew_ns)
		j->skew_ns = late;
}

static void *job_thread(void *arg)
{
	struct probe_job_ctx *j = arg;
	char comm[16];
	struct probe_hooks h = {
		.read_smart = job_read_smart,
		.read_smart_source = job_read_smart_source,
		.progress = job_progress,
		.cancelled = job_cancelled,
		.charge = job_charge,
		.file_made = job_file_made,
		.open_ns = job_open_ns,
		.phase_start = j->group ? job_phase_start : NULL,
		.ctx = j,
	};

	snprintf(comm, sizeof(comm), "probe:%lld", (long long)j->out.run.id);
	(void)pthread_setname_np(pthread_self(), comm);
	probe_execute(&j->plan, &h, &j->out);
	if (j->group) /* the others stop waiting for this one */
		probe_group_sync_leave(&j->group->sync);
	j->out.run.ended_ms = timefmt_now_ms();
	if (!strcmp(j->out.run.state, "aborted") && !strcmp(j->out.run.reason, "cancelled") &&
	    j->cancel_why[0])
		snprintf(j->out.run.reason, sizeof(j->out.run.reason), "%s", j->cancel_why);
	/* Shutting down: the main thread waits in probe_svc_free(), store now. */
	if (mainq_call(j->svc->mainq, finish_on_loop, j) == -ECANCELED) {
		(void)probe_outcome_save(j->svc->store, &j->out);
		if (j->group)
			(void)store_probe_group_skew(j->svc->store, j->out.run.id,
						     j->skew_ns / 1000);
	}
	/* Only now may another process take the drives: the run is settled. */
	probe_lock_release(j->lock_fd);
	probe_lock_release(j->src_lock_fd);
	return NULL;
}

/*
 * Ask @j to stop, saying @why (kept as the run's reason); the first ask wins.
 * On the loop. Return: false when it was asked already.
 */
bool probe_job_cancel(struct probe_job_ctx *j, const char *why)
{
	if (atomic_load(&j->cancel))
		return false;
	snprintf(j->cancel_why, sizeof(j->cancel_why), "%s", why);
	atomic_store(&j->cancel, true);
	return true;
}

void probe_job_free(struct probe_job_ctx *j)
{
	pthread_join(j->thread, NULL);
	probe_group_run_unref(j->group);
	probe_outcome_clear(&j->out);
	probe_progress_clear(&j->prog);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

void probe_svc_reap(struct probe_svc *p)
{
	while (p->done) {
		struct probe_job_ctx *j = p->done;
		p->done = j->next;
		probe_job_free(j);
	}
}

void probe_job_discard(struct probe_job_ctx *j)
{
	if (!j)
		return;
	probe_lock_release(j->lock_fd);
	probe_lock_release(j->src_lock_fd);
	if (j->group) {
		probe_group_sync_leave(&j->group->sync);
		probe_group_run_unref(j->group);
	}
	free(j);
}

void probe_group_run_unref(struct probe_group_run *g)
{
	if (!g || --g->users)
		return;
	probe_group_sync_destroy(&g->sync);
	free(g);
}

int probe_job_launch(struct probe_svc *p, struct probe_dev *d, struct probe_job_ctx *j, int64_t now,
		     char reason[PROBE_REASON_MAX])
{
	int r;

	j->out.run.id = 0;
	r = store_probe_run_insert(p->store, &j->out.run, &j->out.run.id);
	if (r == 0 && j->out.run.series_index == 1) {
		/* A series is known by its first run's id. */
		j->out.run.series_id = j->out.run.id;
		r = store_probe_run_update(p->store, &j->out.run);
	}
	if (r == 0 && j->group) {
		/* A group is known by its first member's id. */
		if (!j->group->id)
			j->group->id = j->out.run.id;
		r = store_probe_group_add(p->store, j->group->id, j->out.run.id);
	}
	if (r < 0) {
		snprintf(reason, PROBE_REASON_MAX, "database: %s", store_strerror(p->store));
		if (j->out.run.id) {
			/* On record already: it never ran. */
			j->out.run.ended_ms = now;
			snprintf(j->out.run.state, sizeof(j->out.run.state), "failed");
			snprintf(j->out.run.reason, sizeof(j->out.run.reason), "%s", reason);
			j->out.run.bytes_charged = 0;
			(void)store_probe_run_update(p->store, &j->out.run);
		}
		probe_job_discard(j);
		return r;
	}
	j->svc = p;
	atomic_init(&j->cancel, false);
	pthread_mutex_init(&j->lock, NULL);
	probe_progress_init(&j->prog, j->plan.preset, j->plan.phase_ms, j->plan.allowed_write);
	r = -pthread_create(&j->thread, NULL, job_thread, j);
	if (r < 0) {
		pthread_mutex_destroy(&j->lock);
		probe_progress_clear(&j->prog);
		j->out.run.ended_ms = now;
		snprintf(j->out.run.state, sizeof(j->out.run.state), "failed");
		snprintf(j->out.run.reason, sizeof(j->out.run.reason), "cannot start a thread");
		j->out.run.bytes_charged = 0;
		(void)store_probe_run_update(p->store, &j->out.run);
		snprintf(reason, PROBE_REASON_MAX, "cannot start a thread");
		probe_job_discard(j);
		return r;
	}
	d->job = j;
	return 0;
}
