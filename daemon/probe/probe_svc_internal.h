/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The probe service in the daemon: its state, by concern, and the calls into
 * it. Each concern's header says which file owns (changes) which field:
 *
 *   probe_svc.c            the service, the drives' entries, starting a run
 *                          (this header)
 *   probe_svc_job.c        a running probe, a group's barrier (probe_svc_job_internal.h)
 *   probe_svc_busy.c       each drive's busy history (probe_svc_busy_internal.h)
 *   probe_svc_sched.c      each drive's schedule, the timer (probe_svc_sched_internal.h)
 *   probe_svc_series.c     each drive's series (probe_svc_series_internal.h)
 *   probe_study.c          a cache-recovery study (probe_study_internal.h)
 *   probe_plan.c           the lock, gates and budget, no state (probe_plan_internal.h)
 *   probe_svc_group.c      starting a group run (this header: struct group_call)
 *   probe_http.c           the endpoints (this header)
 *
 * Everything here runs on the main loop, but a job's thread (probe_svc_job.c),
 * which reaches the loop only through mainq_call().
 */
#include <stdbool.h>
#include <stdint.h>

#include "nvmond/probe/probe_group.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/probe/probe_series.h"
#include "nvmond/probe/probe_svc.h"
#include "nvmond/util/units.h"

#include "probe_plan_internal.h"
#include "probe_study_internal.h"
#include "probe_svc_busy_internal.h"
#include "probe_svc_job_internal.h"
#include "probe_svc_sched_internal.h"
#include "probe_svc_series_internal.h"

#define PROBE_SVC_DEVICES 64

/* One drive's entry (probe_svc_dev_find()): a part per concern, each its owner's. */
struct probe_dev {
	int64_t device_id; /* probe_svc.c */
	/* running, or NULL: set by probe_job_launch() (and by probe_svc.c on a copy-to's
	 * drive read), cleared by probe_svc_job.c when the run ends */
	struct probe_job_ctx *job;
	struct probe_busy_hist busy;	  /* probe_svc_busy.c */
	struct probe_sched_state sched;	  /* probe_svc_sched.c */
	struct probe_series_state series; /* probe_svc_series.c; probe_svc.c begins one */
};

struct probe_svc {
	/* probe_svc.c: at probe_svc_new() (cfg again at each reload), read by all */
	struct cfg cfg;
	struct dev_backend *backend;
	struct store *store;
	struct fleet *fleet;
	struct mainq *mainq;
	bool own_probes; /* DEV_CAP_OWN_PROBES: its drives' probes run on the simulated engine */
	bool sim_busy;	 /* DEV_CAP_SIM_BUSY: their foreground I/O is the backend's, no diskstats */
	struct api_endpoint endpoints[5];
	/* probe_svc.c: at probe_svc_start() */
	struct loop *loop;
	int64_t sched_timer; /* probe_svc_sched_tick(), which re-arms it */
	/* probe_svc.c: the drives' entries, made as drives are seen */
	struct probe_dev dev[PROBE_SVC_DEVICES];
	size_t n_dev;
	/* probe_svc_job.c: finished threads to join (probe_svc_reap()) */
	struct probe_job_ctx *done;
	/* probe_svc_series.c: a series' spec check, for the below_rated rule (probe_svc_on_rated()) */
	probe_rated_fn on_rated;
	void *on_rated_ctx;
};

/* The state of drive @id; made when @create and there is room. Else NULL. */
struct probe_dev *probe_svc_dev_find(struct probe_svc *p, int64_t id, bool create);

/* A request to start a probe, run on the loop by probe_svc_start_on_loop() (probe_svc.c). */
struct start_call {
	struct probe_svc *svc;
	int64_t device_id;
	int64_t to_device_id; /* copy-to: the drive written; device_id is the drive read */
	enum probe_preset_id preset;
	const char *trigger;
	uint32_t repeat;	       /* 0 or 1: one run; 2 … PROBE_REPEAT_MAX: a series */
	int64_t cooldown_ms;	       /* idle between the runs of a series */
	struct probe_study_step study; /* cache-recovery: set by probe_svc_start_on_loop() */
	struct probe_study ret_study;  /* cache-recovery: the study started */
	bool next_of_series;	       /* the next run of the drive's series (series state) */
	bool hold; /* a group's member: pass the gates and take the lock, start nothing */
	struct probe_job_ctx *ret_job; /* with hold: the job, ready for probe_job_launch() */
	int64_t ret_id;
	char reason[PROBE_REASON_MAX];
};

/* Start a probe as @arg (a struct start_call) asks. On the loop (mainq_call). */
int probe_svc_start_on_loop(void *arg);

/* A request to start a group run, by probe_svc_group_start_on_loop() (probe_svc_group.c). */
struct group_call {
	struct probe_svc *svc;
	int64_t device_id[PROBE_GROUP_MAX];
	size_t n;
	enum probe_preset_id preset;
	const char *trigger;
	int64_t ret_id;			     /* the group's id (its first member's run) */
	int64_t ret_run_id[PROBE_GROUP_MAX]; /* each drive's run, in the order asked */
	int64_t ret_refused;		     /* the drive refused, when one was */
	char reason[PROBE_REASON_MAX + 128]; /* which drive, and its own reason */
};

/*
 * Start @arg (a struct group_call): every drive passes its own gates and takes
 * its lock (in the order of their serials), or none starts; then the runs are
 * recorded, linked, and their threads started together. On the loop.
 * Return: 0; else a drive's refusal (its errno, @reason names it), or -EINVAL.
 */
int probe_svc_group_start_on_loop(void *arg);

/* probe_http.c, probe_svc_group.c: the endpoints */
void probe_http_list(void *ctx, const struct api_request *req, struct api_reply *ret);
void probe_http_get(void *ctx, const struct api_request *req, struct api_reply *ret);
void probe_http_cancel(void *ctx, const struct api_request *req, struct api_reply *ret);
void probe_http_post(void *ctx, const struct api_request *req, struct api_reply *ret);
void probe_http_group_post(void *ctx, const struct api_request *req, struct api_reply *ret);
