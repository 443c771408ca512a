/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A running probe in the daemon: its job (its thread, its plan, its outcome)
 * and a group run's shared barrier. Owned by probe_svc_job.c, which launches,
 * ends, cancels and frees jobs; a start (probe_svc.c, probe_svc_group.c)
 * prepares one: its locks and plans, before the launch.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "nvmond/probe/probe_group.h"
#include "nvmond/probe/probe_progress.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"

struct probe_svc;
struct probe_dev;
struct probe_group_run;

struct probe_job_ctx {
	/* the start (probe_svc.c, probe_svc_group.c): prepared before the launch */
	int lock_fd;		    /* the drive's probe lock, held until the result is stored */
	int src_lock_fd;	    /* copy-to: the drive read's probe lock, likewise; else -1 */
	struct probe_plan src_plan; /* copy-to: the drive read (plan.source) */
	char serial[21];	    /* for log lines: names move, serials do not */
	struct probe_plan plan;
	struct probe_group_run *group; /* a member of a group run, or NULL (probe_svc_group.c) */
	/* probe_svc_job.c: at the launch, then the thread's */
	struct probe_svc *svc;
	pthread_t thread;
	struct probe_outcome out; /* the thread's until it ends; out.run on the loop before */
	atomic_bool cancel;
	char cancel_why[64];  /* the reason a cancel gives; set before cancel */
	pthread_mutex_t lock; /* guards prog: the probe thread writes, the loop reads */
	struct probe_progress prog;
	int64_t skew_ns;	    /* a member: the latest it left a phase's barrier */
	struct probe_job_ctx *next; /* in svc->done, once it ended */
};

/* A group run (several drives at once): its members' barrier, shared by their jobs. */
struct probe_group_run {
	struct probe_group_sync sync;
	int64_t id;   /* the first member's run id, once on record (probe_job_launch()) */
	size_t users; /* jobs holding it (probe_svc_group.c); the last one frees it (on the loop) */
};

/*
 * Record prepared job @j of drive @d and start its thread (a group's member
 * joins its group's record). On the loop. Return: 0, or negative errno with
 * @reason (the job is then freed).
 */
int probe_job_launch(struct probe_svc *p, struct probe_dev *d, struct probe_job_ctx *j,
		     int64_t now_ms, char reason[PROBE_REASON_MAX]);

/*
 * Ask @j to stop, saying @why (kept as the run's reason); the first ask wins.
 * On the loop. Return: false when it was asked already.
 */
bool probe_job_cancel(struct probe_job_ctx *j, const char *why);

/* Drop a job that was prepared (hold) but never launched: its lock, its memory. */
void probe_job_discard(struct probe_job_ctx *j);

/* Join a launched job's thread and free it (its run is over). */
void probe_job_free(struct probe_job_ctx *j);

/* Join and free the probe threads that finished (svc->done). On the loop. */
void probe_svc_reap(struct probe_svc *p);

/* Let go of @j's group (the last one frees it). On the loop. */
void probe_group_run_unref(struct probe_group_run *g);
