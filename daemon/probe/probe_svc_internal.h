/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Private to the probe service (probe_svc.c, probe_plan.c, probe_http.c,
 * probe_cli.c): its state, and the functions one file of it calls in another.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nvmond/analysis/recovery.h"
#include "nvmond/probe/probe_group.h"
#include "nvmond/probe/probe_progress.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/probe/probe_sched.h"
#include "nvmond/probe/probe_series.h"
#include "nvmond/probe/probe_svc.h"
#include "nvmond/util/units.h"

#define SCHED_TICK_MS	  15000 /* a look in a wakeup the loop has anyway (clock steps, new drives) */
#define BUSY_WINDOW_MS	  60000
#define BUSY_HIST	  32
#define PROBE_SVC_DEVICES 64

struct busy_snap {
	int64_t mono_ms;
	struct probe_diskstat ds;
};

struct probe_job_ctx;

/* One write of a cache-recovery study: its fill (to the cliff) or a burst. */
struct probe_study_step {
	bool fill;
	uint64_t bytes;
};

/* A cache-recovery study, decided at its start (probe_study.c). */
struct probe_study {
	uint64_t cache_bytes; /* the drive's measured write cache */
	int64_t cache_run_id; /* the sustained-write that measured it */
	double pre_rate;      /* bytes/s before its cliff (the fill's own cliff, once found) */
	uint64_t fill_bytes, burst_bytes;
	int64_t interval_ms[RECOVERY_MAX_INTERVALS];
	size_t n_intervals;
	int64_t cliff_ms; /* when the fill ended: idle times count from here */
	/* The daemon's idle clock (analysis/recovery.h): idle since the cliff net of
	 * busy periods; a burst runs when it reaches the burst's interval. */
	bool idle_net;		   /* the clock runs (the daemon), else wall time (the CLI) */
	struct recovery_idle idle; /* monotonic ms */
	int64_t own_end_mono;	   /* the study's last run ended: its writes are not foreground */
	bool busy_seen;		   /* the last observation was busy (the log says it once) */
};

/*
 * A repeated preset (repeat = N): its runs one after the other, each a normal
 * run started by probe_svc_start_on_loop(), with an idle cooldown between.
 */
struct probe_series_state {
	bool active;
	struct probe_svc *svc;
	int64_t series_id;	 /* the id of its first run */
	int64_t last_run_id;	 /* the run that ran last (or runs) */
	uint32_t next_index, of; /* the run to start next (1 …), the runs asked for */
	enum probe_preset_id preset;
	char trigger[16];
	int64_t cooldown_ms;
	int64_t timer; /* the cooldown's timer, 0 when none */
	bool is_study; /* a cache-recovery study: its fill, then a burst per interval */
	struct probe_study study;
};

struct probe_dev {
	int64_t device_id;
	struct probe_job_ctx *job;  /* running, or NULL */
	struct probe_sim_state sim; /* the simulated engine's state of the drive, between runs */
	struct busy_snap busy[BUSY_HIST];
	size_t n_busy, busy_pos;
	struct probe_sched sched[PROBE_SCHED_MAX];
	size_t n_sched;
	int64_t next_due[PROBE_SCHED_MAX];
	char sched_text[256];
	struct probe_series_state series;
};

struct probe_svc {
	struct cfg cfg;
	struct dev_backend *backend;
	struct store *store;
	struct fleet *fleet;
	struct mainq *mainq;
	struct loop *loop;
	int64_t sched_timer; /* probe_svc_sched_tick() */
	bool own_probes; /* DEV_CAP_OWN_PROBES: its drives' probes run on the simulated engine */
	bool sim_busy;	 /* DEV_CAP_SIM_BUSY: their foreground I/O is the backend's, no diskstats */
	struct probe_dev dev[PROBE_SVC_DEVICES];
	size_t n_dev;
	struct probe_job_ctx *done; /* finished threads to join */
	struct api_endpoint endpoints[5];
	probe_rated_fn on_rated; /* a series' spec check, for the below_rated rule */
	void *on_rated_ctx;
};

struct probe_job_ctx {
	struct probe_svc *svc;
	pthread_t thread;
	int lock_fd;		    /* the drive's probe lock, held until the result is stored */
	int src_lock_fd;	    /* copy-to: the drive read's probe lock, likewise; else -1 */
	struct probe_plan src_plan; /* copy-to: the drive read (plan.source) */
	char serial[21];	    /* for log lines: names move, serials do not */
	struct probe_plan plan;
	struct probe_outcome out;
	struct probe_sim_state sim; /* the drive's, for the run (back to probe_dev.sim after) */
	atomic_bool cancel;
	char cancel_why[64];  /* the reason a cancel gives; set before cancel */
	pthread_mutex_t lock; /* guards prog: the probe thread writes, the loop reads */
	struct probe_progress prog;
	struct probe_job_ctx *next;    /* in svc->done */
	struct probe_group_run *group; /* a member of a group run, or NULL */
	int64_t skew_ns;	       /* a member: the latest it left a phase's barrier */
};
/* A group run (several drives at once): its members' barrier, shared by their jobs. */
struct probe_group_run {
	struct probe_group_sync sync;
	int64_t id;   /* the first member's run id, once on record */
	size_t users; /* jobs holding it; the last one frees it (on the loop) */
};

/* What the gates know of the drive now. */
struct gate_facts {
	bool scheduled;
	bool busy_known;
	double busy_iops, busy_bps;
	uint16_t temp_k;
};

/* A request to start a probe, run on the loop by probe_svc_start_on_loop(). */
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

/* probe_plan.c */

/*
 * Take @row's probe lock for @who, then settle runs of it whose process died:
 * they are charged what they may have written. Return: 0 with *ret_fd;
 * -EALREADY (another process probes it) or other errno, with @reason.
 */
int probe_drive_lock(const struct cfg *c, struct store *s, const struct device_row *row,
		     const char *who, int64_t now_ms, int *ret_fd, char reason[PROBE_REASON_MAX]);

/*
 * Decide whether @preset may run on @row now and fill @plan and @run; hold the
 * drive's probe lock (the budget is read and reserved under it).
 * Return: 0 go; -EBUSY (busy: scheduled only) / -EAGAIN (too hot, too soon) /
 * -EDQUOT (budget) / -EPERM (refused target) / -EINVAL with @reason; other errno.
 */
int probe_plan_prepare(const struct cfg *c, struct store *s, const struct device_row *row,
		       enum probe_preset_id preset, const char *trigger, bool own_probes,
		       const struct gate_facts *g, int64_t now_ms, struct probe_plan *plan,
		       struct probe_run_row *run, char reason[PROBE_REASON_MAX]);

/*
 * probe_plan_prepare() for one write of a cache-recovery study (@step: its
 * fill or a burst, and how much it writes); NULL for any other preset.
 */
int probe_plan_prepare_step(const struct cfg *c, struct store *s, const struct device_row *row,
			    enum probe_preset_id preset, const char *trigger, bool own_probes,
			    const struct gate_facts *g, const struct probe_study_step *step,
			    int64_t now_ms, struct probe_plan *plan, struct probe_run_row *run,
			    char reason[PROBE_REASON_MAX]);

/*
 * copy-to: the plan of the drive @row read (plan->source): read-only
 * (allowed_write 0, no budget), its probe file only as nvmond recorded making
 * it (else its raw namespace, read), and the gates that apply to a drive read:
 * temperature, busy for a scheduled run. Return: 0; -EPERM (no probe file
 * made by nvmond), -EBUSY, -EAGAIN with @reason; other errno.
 */
int probe_plan_prepare_source(const struct cfg *c, struct store *s, const struct device_row *row,
			      bool own_probes, const struct gate_facts *g, struct probe_plan *plan,
			      char reason[PROBE_REASON_MAX]);

/* probe_study.c */

/*
 * Plan a cache-recovery study on @row: its measured cache (refused, -ENOENT,
 * when sustained-write never found one), [probes] recovery_intervals, the fill
 * and the burst sizes. Return: 0 with @ret; -ENODATA (no cache size measured),
 * -EINVAL (bad intervals), -EDQUOT (the fill exceeds probe_sustained_limit) or
 * other negative errno, with @reason.
 */
int probe_study_setup(const struct cfg *c, struct store *s, const struct device_row *row,
		      int64_t now_ms, struct probe_study *ret, char reason[PROBE_REASON_MAX]);

/*
 * After a run of study @st: the fill sets when the cliff came and its rate
 * before; a burst is judged. Return: true when the study is over (the cache
 * recovered), with @verdict (may be NULL) filled.
 */
bool probe_study_after(struct probe_study *st, const struct probe_outcome *o, uint32_t index,
		       char verdict[PROBE_REASON_MAX]);

/* The schedule of @st, one line per burst, for the log and the CLI. */
void probe_study_print_plan(FILE *out, const struct probe_study *st);

/* The scheduler's timer: starts the probes that are due. On the loop. */
int64_t probe_svc_sched_tick(struct loop *l, void *userdata);

/* Every schedule must parse: a typo should stop the start (or reload), not a probe at 3 am. */
int probe_svc_schedules_check(const struct cfg *c, char ret_err[PROBE_SVC_ERR_MAX]);

/* probe_svc.c */

/* The state of drive @id; made when @create and there is room. Else NULL. */
struct probe_dev *probe_svc_dev_find(struct probe_svc *p, int64_t id, bool create);

/* Join and free the probe threads that finished. On the loop. */
void probe_svc_reap(struct probe_svc *p);

/* The lock directory every nvmond process agrees on: [probes] lock_dir, else the default. */
const char *probe_lock_dir_of(const struct cfg *c, char *buf, size_t len);

/*
 * Foreground I/O on @d over the last minute, from the poll-time snapshots
 * (busy_known); on a demo drive what its test hook says (dev_demo_foreground()).
 */
void probe_svc_busy_of(const struct probe_svc *p, const struct probe_dev *d, struct gate_facts *g);

/* probe_svc_busy_of(), then whether it is over [probes] busy_iops / busy_mbps (probe_busy()). */
bool probe_svc_busy(const struct probe_svc *p, const struct probe_dev *d, struct gate_facts *g);

/*
 * Whether @d is busy now by the probes' rule (probe_busy()) for the
 * cache-recovery study's idle clock: on the drive's diskstats since
 * @since_mono (the study's own last write left out), on a demo drive what its
 * test hook says (dev_demo_foreground()). Not known counts as not busy.
 */
bool probe_svc_busy_since(const struct probe_svc *p, const struct probe_dev *d, int64_t since_mono,
			  struct gate_facts *g);

/* probe_svc_busy.c: the poller's listener, the drive's diskstats at each poll (the busy history). */
void probe_svc_on_sample(void *ctx, const struct device_row *dev, const struct sample *s);

/* probe_svc_series.c: after run @j of @d's series, the idle time before the next, or the end. */
void probe_series_after_run(struct probe_svc *p, struct probe_dev *d,
			    const struct probe_job_ctx *j);

/* A run @d's series did not run (refused at its start, cancelled while idle), on record. */
void probe_series_skip_record(struct probe_svc *p, struct probe_dev *d, const char *reason);

/* Start a probe as @arg (a struct start_call) asks. On the loop (mainq_call). */
int probe_svc_start_on_loop(void *arg);

/*
 * Ask @j to stop, saying @why (kept as the run's reason); the first ask wins.
 * On the loop. Return: false when it was asked already.
 */
bool probe_job_cancel(struct probe_job_ctx *j, const char *why);

/*
 * Stop the series of drive @d (its cooldown, and its running run with @why)
 * when @run_id is its id or one of its runs. On the loop.
 * Return: true when it was one of its runs.
 */
bool probe_series_cancel(struct probe_svc *p, struct probe_dev *d, int64_t run_id, const char *why);

/* A request to start a group run, by probe_svc_group_start_on_loop(). */
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
/* probe_svc_group.c */
/*
 * Start @arg (a struct group_call): every drive passes its own gates and takes
 * its lock (in the order of their serials), or none starts; then the runs are
 * recorded, linked, and their threads started together. On the loop.
 * Return: 0; else a drive's refusal (its errno, @reason names it), or -EINVAL.
 */
int probe_svc_group_start_on_loop(void *arg);
/* Drop a job that was prepared (hold) but never launched: its lock, its memory. */
void probe_job_discard(struct probe_job_ctx *j);
/* Join a launched job's thread and free it (its run is over). */
void probe_job_free(struct probe_job_ctx *j);
/*
 * Record prepared job @j of drive @d and start its thread (a group's member
 * joins its group's record). On the loop. Return: 0, or negative errno with
 * @reason (the job is then freed).
 */
int probe_job_launch(struct probe_svc *p, struct probe_dev *d, struct probe_job_ctx *j,
		     int64_t now_ms, char reason[PROBE_REASON_MAX]);
/* Let go of @j's group (the last one frees it). On the loop. */
void probe_group_run_unref(struct probe_group_run *g);
/* probe_cli.c */
/*
 * The drive @device names (a store id, controller or namespace name, serial)
 * among the scanned @v and the stored @rows: on record in @s (upserted, so
 * budgets are shared with the daemon) as *ret_row, its temperature in @g, and whether the
 * backend answers its probes itself (DEV_CAP_OWN_PROBES). Messages go to stderr.
 * Return: 0; -ENOENT (no such device); or negative errno.
 */
int probe_cli_drive(struct dev_backend *b, struct store *s, const struct dev_info *v, size_t n,
		    const struct device_row *rows, size_t n_rows, const char *device, int64_t now,
		    struct device_row *ret_row, struct gate_facts *g, bool *ret_own_probes);
/* probe_http.c: the endpoints */
void probe_http_list(void *ctx, const struct api_request *req, struct api_reply *ret);
void probe_http_get(void *ctx, const struct api_request *req, struct api_reply *ret);
void probe_http_cancel(void *ctx, const struct api_request *req, struct api_reply *ret);
void probe_http_post(void *ctx, const struct api_request *req, struct api_reply *ret);
void probe_http_group_post(void *ctx, const struct api_request *req, struct api_reply *ret);
