/* SPDX-License-Identifier: MIT */
/*
 * Throughput probes in the daemon and in `nvmond probe`. See probe_svc.h.
 *
 * Main loop: schedules, gates (budget, busy, temperature, one at a time),
 * the run's row in the store. Probe thread: probe_execute(), with SMART read
 * and the result stored through mainq_call().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "nvmond/api/api_params.h"
#include "nvmond/core/log.h"
#include "nvmond/dev/nvme_sysfs.h"
#include "nvmond/probe/probe_lock.h"
#include "nvmond/probe/probe_progress.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/probe/probe_sched.h"
#include "nvmond/probe/probe_svc.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/util/timefmt.h"

#define MS_PER_DAY	  86400000LL
#define SCHED_TICK_MS	  15000
#define BUSY_WINDOW_MS	  60000
#define BUSY_HIST	  32
#define PROBE_SVC_DEVICES 64

struct busy_snap {
	int64_t mono_ms;
	struct probe_diskstat ds;
};

struct probe_job_ctx;

struct probe_dev {
	int64_t device_id;
	struct probe_job_ctx *job; /* running, or NULL */
	struct probe_demo_state demo;
	struct busy_snap busy[BUSY_HIST];
	size_t n_busy, busy_pos;
	struct probe_sched sched[PROBE_SCHED_MAX];
	size_t n_sched;
	int64_t next_due[PROBE_SCHED_MAX];
	char sched_text[256];
};

struct probe_svc {
	struct cfg cfg;
	struct dev_backend *backend;
	struct store *store;
	struct fleet *fleet;
	struct mainq *mainq;
	struct loop *loop;
	bool demo;
	struct probe_dev dev[PROBE_SVC_DEVICES];
	size_t n_dev;
	struct probe_job_ctx *done; /* finished threads to join */
	struct api_endpoint endpoints[4];
};

struct probe_job_ctx {
	struct probe_svc *svc;
	pthread_t thread;
	int lock_fd;	 /* the drive's probe lock, held until the result is stored */
	char serial[21]; /* for log lines: names move, serials do not */
	struct probe_plan plan;
	struct probe_outcome out;
	struct probe_demo_state demo;
	atomic_bool cancel;
	char cancel_why[64];  /* the reason a cancel gives; set before cancel */
	pthread_mutex_t lock; /* guards prog: the probe thread writes, the loop reads */
	struct probe_progress prog;
	struct probe_job_ctx *next; /* in svc->done */
};

/* ---- shared by the daemon and the command ---- */

static bool preset_writes(const struct probe_preset *p)
{
	for (size_t k = 0; k < p->n_phases; k++)
		if (p->phase[k].op != PROBE_OP_READ)
			return true;
	return false;
}

struct gate_facts {
	bool scheduled;
	bool busy_known;
	double busy_iops, busy_bps;
	uint16_t temp_k;
};

/* The lock directory every nvmond process agrees on. */
static const char *lock_dir(const struct cfg *c, char *buf, size_t len)
{
	if (c->probe_lock_dir[0])
		return c->probe_lock_dir;
	return probe_lock_dir_default(buf, len);
}

/*
 * Take @row's probe lock for @who, then settle runs of it whose process died:
 * they are charged what they may have written. Return: 0 with *ret_fd;
 * -EALREADY (another process probes it) or other errno, with @reason.
 */
static int drive_lock(const struct cfg *c, struct store *s, const struct device_row *row,
		      const char *who, int64_t now_ms, int *ret_fd, char reason[PROBE_REASON_MAX])
{
	char dir[CFG_PATH_MAX];
	char why[PROBE_LOCK_ERR_MAX];
	int r = probe_lock_take(lock_dir(c, dir, sizeof(dir)), row->serial, who, ret_fd, why);

	if (r < 0) {
		snprintf(reason, PROBE_REASON_MAX, "%s", why);
		return r == -EBUSY ? -EALREADY : r;
	}
	r = store_probe_runs_recover(s, row->id, now_ms,
				     "the nvmond process running it ended during the run: charged "
				     "what it may have written");
	if (r > 0)
		log_warn("%s: %d probe run(s) left by a process that died are now failed, and "
			 "charged what they may have written",
			 row->key, r);
	if (r < 0) {
		snprintf(reason, PROBE_REASON_MAX, "database: %s", store_strerror(s));
		probe_lock_release(*ret_fd);
		return r;
	}
	return 0;
}

/*
 * Decide whether @preset may run on @row now and fill @plan and @run; hold the
 * drive's probe lock (the budget is read and reserved under it).
 * Return: 0 go; -EBUSY (busy: scheduled only) / -EAGAIN (too hot, too soon) /
 * -EDQUOT (budget) / -EPERM (refused target) / -EINVAL with @reason; other errno.
 */
static int plan_prepare(const struct cfg *c, struct store *s, const struct device_row *row,
			enum probe_preset_id preset, const char *trigger, int demo_index,
			const struct gate_facts *g, int64_t now_ms, struct probe_plan *plan,
			struct probe_run_row *run, char reason[PROBE_REASON_MAX])
{
	const struct probe_preset *pre = probe_preset_get(preset);
	struct cfg_device cd;
	struct probe_gate_input in;
	struct probe_budget budget;
	uint64_t allowed = 0;
	int r;

	cfg_device_for(c, row->model, row->serial, &cd);
	*plan = (struct probe_plan){
		.device_id = row->id,
		.preset = preset,
		.demo_index = demo_index,
		.nsid = cd.probe_nsid,
		.destructive = cd.probe_destructive,
		.file_size = cd.probe_file_size,
		.phase_ms = c->probe_phase_ms,
		.wctemp_k = row->wctemp_k,
		.min_free_pct = c->probe_min_free_pct,
		.sysfs = "/sys",
		.mountinfo = "/proc/self/mountinfo",
	};
	snprintf(plan->serial, sizeof(plan->serial), "%s", row->serial);
	snprintf(plan->model, sizeof(plan->model), "%s", row->model);
	snprintf(plan->trigger, sizeof(plan->trigger), "%s", trigger);
	snprintf(plan->probe_dir, sizeof(plan->probe_dir), "%s", cd.probe_dir);
	*run = (struct probe_run_row){.device_id = row->id, .started_ms = now_ms};
	snprintf(run->preset, sizeof(run->preset), "%s", pre->name);
	snprintf(run->trigger, sizeof(run->trigger), "%s", trigger);

	/* Without a probe directory the raw namespace is only read. */
	bool writes = preset_writes(pre);
	if (demo_index < 0 && !cd.probe_dir[0] && writes && !cd.probe_destructive &&
	    (pre->n_phases == 1)) {
		snprintf(reason, PROBE_REASON_MAX,
			 "%s writes, and no probe_dir is set for this drive (raw namespaces are "
			 "only read unless destructive = yes)",
			 pre->name);
		return -EPERM;
	}
	if (demo_index < 0 && !cd.probe_dir[0] && !cd.probe_destructive)
		writes = false;
	if (cd.probe_dir[0] && demo_index < 0) {
		r = store_probe_file_get(s, row->id, cd.probe_dir, &plan->file_id);
		if (r < 0 && r != -ENOENT)
			return r;
		plan->file_known = r == 0;
	}

	if (pre->sustained && c->probe_sustained_every_ms > 0) {
		int64_t last = 0;
		r = store_probe_last_started(s, row->id, pre->name, &last);
		if (r < 0)
			return r;
		if (last && now_ms - last < c->probe_sustained_every_ms) {
			char when[TIMEFMT_MAX];
			snprintf(reason, PROBE_REASON_MAX,
				 "sustained-write ran at %s; it runs at most every %lld h "
				 "([probes] sustained_every)",
				 timefmt_rfc3339(last, when),
				 (long long)(c->probe_sustained_every_ms / 3600000));
			return -EAGAIN;
		}
	}
	if (cd.probe_budget_day && cd.probe_budget_month) {
		budget = (struct probe_budget){cd.probe_budget_day, cd.probe_budget_month};
	} else {
		probe_budget_default(cd.rated_bytes, &budget);
		if (cd.probe_budget_day)
			budget.day = cd.probe_budget_day;
		if (cd.probe_budget_month)
			budget.month = cd.probe_budget_month;
	}
	in = (struct probe_gate_input){
		.scheduled = g->scheduled,
		.writes = writes,
		.budget = budget,
		.busy_known = g->busy_known,
		.busy_iops = g->busy_iops,
		.busy_bps = g->busy_bps,
		.busy_max_iops = c->probe_busy_iops,
		.busy_max_bps = (double)c->probe_busy_mbps * 1e6,
		.temp_k = g->temp_k,
		.wctemp_k = row->wctemp_k,
		/* Asked for by hand: only WCTEMP itself stops it (it would abort at once). */
		.margin_k = g->scheduled ? (uint16_t)c->probe_temp_margin_c : 0,
	};
	r = store_probe_written_since(s, row->id, now_ms - MS_PER_DAY, &in.used_day);
	if (r < 0)
		return r;
	r = store_probe_written_since(s, row->id, now_ms - 30 * MS_PER_DAY, &in.used_month);
	if (r < 0)
		return r;
	switch (probe_gate(&in, &allowed, reason)) {
	case PROBE_GO:
		break;
	case PROBE_SKIP_BUSY:
		return -EBUSY;
	case PROBE_SKIP_HOT:
		return -EAGAIN;
	case PROBE_OVER_BUDGET:
		return -EDQUOT;
	}
	if (pre->sustained && allowed > cd.probe_sustained_limit)
		allowed = cd.probe_sustained_limit;
	/* The reservation: what this run can write at most, layout included. */
	/* A recorded file that is gone (or another size) is made again. */
	char fpath[sizeof(cd.probe_dir) + 32];
	struct stat fst;
	snprintf(fpath, sizeof(fpath), "%s/%s", cd.probe_dir, PROBE_FILE_NAME);
	bool layout = writes && cd.probe_dir[0] && demo_index < 0 &&
		      !(plan->file_known && plan->file_id.size == cd.probe_file_size &&
			lstat(fpath, &fst) == 0 && (uint64_t)fst.st_size == cd.probe_file_size);
	uint64_t most = layout ? cd.probe_file_size : 0;
	for (size_t k = 0; k < pre->n_phases; k++) {
		uint64_t cap = pre->phase[k].op == PROBE_OP_COPY ? cd.probe_file_size / 2
			       : pre->sustained			 ? allowed
								 : cd.probe_file_size;
		if (pre->phase[k].op != PROBE_OP_READ)
			most += cap;
	}
	if (layout && allowed < cd.probe_file_size + (1u << 20)) {
		snprintf(reason, PROBE_REASON_MAX,
			 "making the %" PRIu64 " MB probe file needs more write budget than is "
			 "left (%" PRIu64 " MB)",
			 cd.probe_file_size / 1000000, allowed / 1000000);
		return -EDQUOT;
	}
	plan->allowed_write = writes ? (most < allowed ? most : allowed) : 0;
	run->bytes_charged = plan->allowed_write; /* charged up front, trued up at the end */
	run->nsid = plan->probe_dir[0] ? 0 : plan->nsid;
	return 0;
}

/* ---- the daemon ---- */

static struct probe_dev *dev_find(struct probe_svc *p, int64_t id, bool create)
{
	for (size_t i = 0; i < p->n_dev; i++)
		if (p->dev[i].device_id == id)
			return &p->dev[i];
	if (!create || p->n_dev == PROBE_SVC_DEVICES)
		return NULL;
	p->dev[p->n_dev] = (struct probe_dev){.device_id = id};
	return &p->dev[p->n_dev++];
}

struct smart_call {
	struct probe_svc *svc;
	const char *name;
	const struct dev_ident *who;
	int64_t now_ms;
	struct smart_log *ret;
};

static int smart_on_loop(void *arg)
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

	return mainq_call(j->svc->mainq, smart_on_loop, &c);
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
	struct probe_dev *d = dev_find(p, j->plan.device_id, false);
	int r = probe_outcome_save(p->store, &j->out);

	if (r < 0)
		log_error("probe %" PRId64 ": cannot store the result: %s (%s)", j->out.run.id,
			  strerror(-r), store_strerror(p->store));
	log_info("probe %" PRId64 " (%s on drive %s, %s): %s%s%s, %.1f MB written, %.1f MB charged",
		 j->out.run.id, j->out.run.preset, j->serial, j->out.run.target, j->out.run.state,
		 j->out.run.reason[0] ? ": " : "", j->out.run.reason,
		 (double)j->out.run.bytes_written / 1e6, (double)j->out.run.bytes_charged / 1e6);
	if (d) {
		d->demo = j->demo;
		d->job = NULL;
	}
	j->next = p->done;
	p->done = j;
	return 0;
}

static void *job_thread(void *arg)
{
	struct probe_job_ctx *j = arg;
	struct probe_hooks h = {
		.read_smart = job_read_smart,
		.progress = job_progress,
		.cancelled = job_cancelled,
		.charge = job_charge,
		.file_made = job_file_made,
		.ctx = j,
	};

	probe_execute(&j->plan, &h, &j->demo, &j->out);
	j->out.run.ended_ms = timefmt_now_ms();
	if (!strcmp(j->out.run.state, "aborted") && !strcmp(j->out.run.reason, "cancelled") &&
	    j->cancel_why[0])
		snprintf(j->out.run.reason, sizeof(j->out.run.reason), "%s", j->cancel_why);
	/* Shutting down: the main thread waits in probe_svc_free(), store now. */
	if (mainq_call(j->svc->mainq, finish_on_loop, j) == -ECANCELED)
		(void)probe_outcome_save(j->svc->store, &j->out);
	/* Only now may another process take the drive: the run is settled. */
	probe_lock_release(j->lock_fd);
	return NULL;
}

/*
 * Ask @j to stop, saying @why (kept as the run's reason); the first ask wins.
 * On the loop. Return: false when it was asked already.
 */
static bool job_cancel(struct probe_job_ctx *j, const char *why)
{
	if (atomic_load(&j->cancel))
		return false;
	snprintf(j->cancel_why, sizeof(j->cancel_why), "%s", why);
	atomic_store(&j->cancel, true);
	return true;
}

static void job_free(struct probe_job_ctx *j)
{
	pthread_join(j->thread, NULL);
	probe_outcome_clear(&j->out);
	probe_progress_clear(&j->prog);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

static void reap(struct probe_svc *p)
{
	while (p->done) {
		struct probe_job_ctx *j = p->done;
		p->done = j->next;
		job_free(j);
	}
}

/* Foreground I/O over the last minute from the poll-time snapshots. */
static void busy_of(const struct probe_dev *d, struct gate_facts *g)
{
	const struct busy_snap *last, *first = NULL;
	int64_t now;

	if (d->n_busy < 2)
		return;
	last = &d->busy[(d->busy_pos + BUSY_HIST - 1) % BUSY_HIST];
	now = last->mono_ms;
	for (size_t i = 0; i < d->n_busy; i++) {
		const struct busy_snap *b = &d->busy[(d->busy_pos + BUSY_HIST - 1 - i) % BUSY_HIST];
		first = b;
		if (now - b->mono_ms >= BUSY_WINDOW_MS)
			break;
	}
	if (!first || now - first->mono_ms < BUSY_WINDOW_MS / 2)
		return;
	double secs = (double)(now - first->mono_ms) / 1000.0;
	g->busy_known = true;
	g->busy_iops = (double)(last->ds.ios - first->ds.ios) / secs;
	g->busy_bps = (double)(last->ds.sectors - first->ds.sectors) * 512 / secs;
}

struct start_call {
	struct probe_svc *svc;
	int64_t device_id;
	enum probe_preset_id preset;
	const char *trigger;
	int64_t ret_id;
	char reason[PROBE_REASON_MAX];
};

static int start_on_loop(void *arg)
{
	struct start_call *c = arg;
	struct probe_svc *p = c->svc;
	struct fleet_device fd;
	struct gate_facts g = {.scheduled = strcmp(c->trigger, "schedule") == 0};
	struct probe_job_ctx *j;
	struct probe_dev *d;
	int64_t now = timefmt_now_ms();
	int r;

	reap(p);
	if (fleet_get(p->fleet, c->device_id, &fd) < 0) {
		snprintf(c->reason, sizeof(c->reason), "no such device");
		return -ENOENT;
	}
	if (!fd.row.online) {
		snprintf(c->reason, sizeof(c->reason), "the device is offline");
		return -ENODEV;
	}
	d = dev_find(p, c->device_id, true);
	if (!d)
		return -ENOMEM;
	if (d->job) {
		snprintf(c->reason, sizeof(c->reason), "probe %" PRId64 " is running on it",
			 d->job->out.run.id);
		return -EALREADY;
	}
	if (fd.has_sample)
		g.temp_k = fd.last.smart.temperature_k;
	busy_of(d, &g);
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->lock_fd = -1;
	int demo_index = -1;
	if (p->demo && sscanf(fd.row.name, "demo%d", &demo_index) != 1)
		demo_index = -1;
	r = drive_lock(&p->cfg, p->store, &fd.row, "the daemon", now, &j->lock_fd, c->reason);
	if (r == 0)
		r = plan_prepare(&p->cfg, p->store, &fd.row, c->preset, c->trigger, demo_index, &g,
				 now, &j->plan, &j->out.run, c->reason);
	if (r < 0) {
		if (g.scheduled && r != -ENOMEM) {
			/* A skipped scheduled probe is recorded, with why. */
			struct probe_run_row skip = {.device_id = fd.row.id, .started_ms = now};
			int64_t id;
			snprintf(skip.preset, sizeof(skip.preset), "%s",
				 probe_preset_get(c->preset)->name);
			snprintf(skip.trigger, sizeof(skip.trigger), "%s", c->trigger);
			snprintf(skip.state, sizeof(skip.state), "skipped");
			snprintf(skip.reason, sizeof(skip.reason), "%s", c->reason);
			skip.ended_ms = now;
			(void)store_probe_run_insert(p->store, &skip, &id);
		}
		probe_lock_release(j->lock_fd);
		free(j);
		return r;
	}
	snprintf(j->serial, sizeof(j->serial), "%s", fd.row.serial);
	snprintf(j->out.run.state, sizeof(j->out.run.state), "running");
	r = store_probe_run_insert(p->store, &j->out.run, &j->out.run.id);
	if (r < 0) {
		snprintf(c->reason, sizeof(c->reason), "database: %s", store_strerror(p->store));
		probe_lock_release(j->lock_fd);
		free(j);
		return r;
	}
	j->svc = p;
	j->demo = d->demo;
	atomic_init(&j->cancel, false);
	pthread_mutex_init(&j->lock, NULL);
	probe_progress_init(&j->prog, j->plan.preset, j->plan.phase_ms, j->plan.allowed_write);
	r = -pthread_create(&j->thread, NULL, job_thread, j);
	if (r < 0) {
		pthread_mutex_destroy(&j->lock);
		j->out.run.ended_ms = now;
		snprintf(j->out.run.state, sizeof(j->out.run.state), "failed");
		snprintf(j->out.run.reason, sizeof(j->out.run.reason), "cannot start a thread");
		j->out.run.bytes_charged = 0;
		(void)store_probe_run_update(p->store, &j->out.run);
		probe_lock_release(j->lock_fd);
		free(j);
		return r;
	}
	d->job = j;
	c->ret_id = j->out.run.id;
	log_info("probe %" PRId64 ": %s on drive %s (%s)", c->ret_id, j->out.run.preset,
		 fd.row.serial, c->trigger);
	return 0;
}

static int svc_load_schedules(struct probe_svc *p, struct probe_dev *d,
			      const struct device_row *row, char err[PROBE_SVC_ERR_MAX])
{
	struct cfg_device cd;
	char e[PROBE_SCHED_ERR];

	cfg_device_for(&p->cfg, row->model, row->serial, &cd);
	if (strcmp(cd.probe_schedule, d->sched_text) == 0 && d->sched_text[0])
		return 0;
	if (probe_sched_parse(cd.probe_schedule, d->sched, &d->n_sched, e) < 0) {
		snprintf(err, PROBE_SVC_ERR_MAX, "[device \"%s\"] probe_schedule: %s", cd.match, e);
		d->n_sched = 0;
		return -EINVAL;
	}
	snprintf(d->sched_text, sizeof(d->sched_text), "%s", cd.probe_schedule);
	for (size_t i = 0; i < PROBE_SCHED_MAX; i++)
		d->next_due[i] = 0;
	return 0;
}

static int64_t utc_offset_s(int64_t now_ms)
{
	time_t t = (time_t)(now_ms / 1000);
	struct tm tm;

	return localtime_r(&t, &tm) ? tm.tm_gmtoff : 0;
}

static int64_t on_sched_tick(struct loop *l, void *userdata)
{
	struct probe_svc *p = userdata;
	struct fleet_device *v = NULL;
	size_t n = 0;
	int64_t now = timefmt_now_ms();

	reap(p);
	if (fleet_snapshot(p->fleet, &v, &n) < 0)
		return SCHED_TICK_MS;
	for (size_t i = 0; i < n; i++) {
		char err[PROBE_SVC_ERR_MAX];
		struct probe_dev *d = dev_find(p, v[i].row.id, true);
		if (!d || svc_load_schedules(p, d, &v[i].row, err) < 0)
			continue;
		for (size_t k = 0; k < d->n_sched; k++) {
			uint64_t seed = (uint64_t)v[i].row.id * 0x9e3779b97f4a7c15ull + k;
			if (!d->next_due[k]) {
				d->next_due[k] =
					probe_sched_next(&d->sched[k], now, utc_offset_s(now),
							 p->cfg.probe_jitter_ms, seed);
				continue;
			}
			if (now < d->next_due[k])
				continue;
			d->next_due[k] = probe_sched_next(&d->sched[k], now, utc_offset_s(now),
							  p->cfg.probe_jitter_ms, seed);
			if (!v[i].row.online || d->job)
				continue; /* one at a time; the next occurrence will do */
			struct start_call c = {.svc = p,
					       .device_id = v[i].row.id,
					       .preset = d->sched[k].preset,
					       .trigger = "schedule"};
			int r = start_on_loop(&c);
			if (r < 0)
				log_info("scheduled probe %s on %s skipped: %s",
					 probe_preset_get(c.preset)->name, v[i].row.name, c.reason);
		}
	}
	free(v);
	return SCHED_TICK_MS;
}

static void on_sample(void *ctx, const struct device_row *dev, const struct sample *s)
{
	struct probe_svc *p = ctx;
	struct probe_dev *d;
	struct probe_diskstat ds;

	if (p->demo)
		return;
	d = dev_find(p, dev->id, true);
	/* The whole drive: every namespace (and so every partition) of it. */
	if (!d || probe_drive_diskstat("/sys", dev->name, &ds) < 0)
		return;
	d->busy[d->busy_pos] = (struct busy_snap){.mono_ms = timefmt_mono_ms(), .ds = ds};
	d->busy_pos = (d->busy_pos + 1) % BUSY_HIST;
	if (d->n_busy < BUSY_HIST)
		d->n_busy++;
}

/* ---- HTTP ---- */

struct budget_call {
	struct probe_svc *svc;
	int64_t device_id;
	json_t *ret;
};

static int budget_on_loop(void *arg)
{
	struct budget_call *c = arg;
	struct fleet_device fd;
	struct cfg_device cd;
	struct probe_budget b;
	uint64_t day = 0, month = 0;
	int64_t now = timefmt_now_ms();
	struct probe_dev *d;

	if (fleet_get(c->svc->fleet, c->device_id, &fd) < 0)
		return -ENOENT;
	cfg_device_for(&c->svc->cfg, fd.row.model, fd.row.serial, &cd);
	probe_budget_default(cd.rated_bytes, &b);
	if (cd.probe_budget_day)
		b.day = cd.probe_budget_day;
	if (cd.probe_budget_month)
		b.month = cd.probe_budget_month;
	if (store_probe_written_since(c->svc->store, c->device_id, now - MS_PER_DAY, &day) < 0 ||
	    store_probe_written_since(c->svc->store, c->device_id, now - 30 * MS_PER_DAY, &month) <
		    0)
		return -EIO;
	d = dev_find(c->svc, c->device_id, false);
	c->ret = json_pack("{s:{s:I, s:I, s:I, s:I}, s:o, s:s}", "budget", "day_bytes",
			   (json_int_t)b.day, "month_bytes", (json_int_t)b.month, "used_day_bytes",
			   (json_int_t)day, "used_month_bytes", (json_int_t)month, "running",
			   d && d->job ? json_integer(d->job->out.run.id) : json_null(),
			   "probe_dir", cd.probe_dir);
	return c->ret ? 0 : -ENOMEM;
}

static void handle_list(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct probe_svc *p = ctx;
	struct budget_call bc = {.svc = p, .device_id = req->id};
	struct probe_run_row *v = NULL;
	size_t n = 0, limit;
	int64_t lim = 50;
	const struct api_param params[] = {
		{.name = "limit", .kind = API_PARAM_INT, .min = 1, .max = 1000, .dest.i64 = &lim},
	};
	int r;

	if (api_params_parse(req, params, sizeof(params) / sizeof(params[0]), ret) < 0)
		return;
	limit = (size_t)lim;
	r = mainq_call(p->mainq, budget_on_loop, &bc);
	if (r == -ENOENT)
		return api_reply_error(ret, 404, "no such device");
	if (r < 0)
		return api_reply_error(ret, r == -ECANCELED ? 503 : 500, "%s", strerror(-r));
	r = store_probe_runs_list(req->store, req->id, limit, &v, &n);
	if (r < 0) {
		json_decref(bc.ret);
		return api_reply_error(ret, 500, "database error");
	}
	json_t *runs = json_array();
	for (size_t i = 0; runs && i < n; i++)
		json_array_append_new(runs, probe_run_json(&v[i]));
	free(v);
	json_t *presets = json_array();
	for (size_t i = 0; presets && i < _PROBE_PRESET_MAX; i++)
		json_array_append_new(presets, json_string(probe_preset_get(i)->name));
	json_object_set_new(bc.ret, "device_id", json_integer(req->id));
	json_object_set_new(bc.ret, "presets", presets);
	json_object_set_new(bc.ret, "probes", runs);
	ret->json = bc.ret;
}

static struct probe_job_ctx *job_find(struct probe_svc *p, int64_t run_id)
{
	for (size_t i = 0; i < p->n_dev; i++)
		if (p->dev[i].job && p->dev[i].job->out.run.id == run_id)
			return p->dev[i].job;
	return NULL;
}

struct progress_call {
	struct probe_svc *svc;
	int64_t run_id;
	struct probe_progress ret;
};

/* A copy of a running probe's progress: -ESRCH when it runs no more. */
static int progress_on_loop(void *arg)
{
	struct progress_call *c = arg;
	struct probe_job_ctx *j = job_find(c->svc, c->run_id);
	int r;

	if (!j)
		return -ESRCH;
	pthread_mutex_lock(&j->lock);
	r = probe_progress_copy(&j->prog, &c->ret);
	pthread_mutex_unlock(&j->lock);
	return r;
}

static void handle_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct probe_svc *p = ctx;
	struct progress_call pc = {.svc = p, .run_id = req->id};
	json_t *o = NULL;
	int r = probe_run_detail_json(req->store, req->id, true, &o);

	if (r == -ENOENT)
		return api_reply_error(ret, 404, "no such probe");
	if (r < 0)
		return api_reply_error(ret, 500, "database error");
	/* Its phases are stored when it ends; until then, where it is. */
	if (!strcmp(json_string_value(json_object_get(o, "state")) ?: "", "running") &&
	    mainq_call(p->mainq, progress_on_loop, &pc) == 0) {
		json_t *prog = probe_progress_json(&pc.ret);
		probe_progress_clear(&pc.ret);
		if (prog)
			json_object_set_new(o, "progress", prog);
	}
	ret->json = o;
}

struct cancel_call {
	struct probe_svc *svc;
	int64_t run_id;
};

static int cancel_on_loop(void *arg)
{
	struct cancel_call *c = arg;
	struct probe_job_ctx *j = job_find(c->svc, c->run_id);

	if (!j)
		return -ESRCH;
	if (job_cancel(j, "cancelled through the API"))
		log_info("probe %" PRId64 ": cancel requested through the API", c->run_id);
	return 0;
}

static void handle_cancel(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct probe_svc *p = ctx;
	struct cancel_call c = {.svc = p, .run_id = req->id};
	json_t *o = NULL;
	int r = mainq_call(p->mainq, cancel_on_loop, &c);

	if (r == 0) {
		ret->status = 202;
		ret->json =
			json_pack("{s:I, s:s}", "id", (json_int_t)req->id, "state", "cancelling");
		return;
	}
	if (r == -ECANCELED)
		return api_reply_error(ret, 503, "shutting down");
	r = probe_run_detail_json(req->store, req->id, false, &o);
	if (r == -ENOENT)
		return api_reply_error(ret, 404, "no such probe");
	if (r < 0)
		return api_reply_error(ret, 500, "database error");
	api_reply_error(ret, 409, "probe %" PRId64 " is not running (%s)", req->id,
			json_string_value(json_object_get(o, "state")) ?: "?");
	json_decref(o);
}

static void handle_post(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct probe_svc *p = ctx;
	struct start_call c = {.svc = p, .device_id = req->id, .trigger = "api"};
	json_error_t jerr;
	json_t *body = json_loadb(req->body, req->body_len, 0, &jerr);
	const char *preset = json_string_value(json_object_get(body, "preset"));
	int r;

	if (!body || !json_is_object(body)) {
		json_decref(body);
		return api_reply_error(ret, 400, "body: a JSON object {\"preset\": \"…\"}");
	}
	if (!preset || !probe_preset_find(preset, &c.preset)) {
		json_decref(body);
		return api_reply_error(ret, 400,
				       "preset: one of seq1m-q8, seq1m-q1, rnd4k-q32, rnd4k-q1, "
				       "copy-self, sustained-write");
	}
	json_decref(body);
	r = mainq_call(p->mainq, start_on_loop, &c);
	switch (r) {
	case 0:
		ret->status = 202;
		ret->json = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)c.ret_id, "state",
				      "running", "preset", probe_preset_get(c.preset)->name);
		return;
	case -ENOENT:
		return api_reply_error(ret, 404, "%s", c.reason);
	case -EALREADY:
	case -ENODEV:
	case -EAGAIN:
		if (r == -EAGAIN && probe_preset_get(c.preset)->sustained &&
		    strstr(c.reason, "sustained_every"))
			return api_reply_error(ret, 429, "%s", c.reason);
		return api_reply_error(ret, 409, "%s", c.reason);
	case -EDQUOT:
		return api_reply_error(ret, 429, "%s", c.reason);
	case -EPERM:
		return api_reply_error(ret, 403, "%s", c.reason);
	case -ECANCELED:
		return api_reply_error(ret, 503, "shutting down");
	default:
		return api_reply_error(ret, 500, "%s", c.reason[0] ? c.reason : strerror(-r));
	}
}

/* Every schedule must parse: a typo should stop the start (or reload), not a probe at 3 am. */
static int schedules_check(const struct cfg *c, char ret_err[PROBE_SVC_ERR_MAX])
{
	for (size_t i = 0; i < c->n_devices; i++) {
		struct probe_sched v[PROBE_SCHED_MAX];
		size_t n;
		char e[PROBE_SCHED_ERR];
		if (probe_sched_parse(c->devices[i].probe_schedule, v, &n, e) < 0) {
			snprintf(ret_err, PROBE_SVC_ERR_MAX, "[device \"%s\"] probe_schedule: %s",
				 c->devices[i].match, e);
			return -EINVAL;
		}
	}
	return 0;
}

int probe_svc_new(const struct cfg *c, struct dev_backend *b, struct store *s, struct fleet *f,
		  struct mainq *q, struct probe_svc **ret, char ret_err[PROBE_SVC_ERR_MAX])
{
	struct probe_svc *p;
	int r;

	r = schedules_check(c, ret_err);
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
	p->demo = strcmp(b->ops->name, "demo") == 0;
	p->endpoints[0] = (struct api_endpoint){"GET", "/api/v1/devices/{id}/probes",
						API_EP_STORE | API_EP_QUERY, handle_list, p};
	p->endpoints[1] =
		(struct api_endpoint){"GET", "/api/v1/probes/{id}", API_EP_STORE, handle_get, p};
	p->endpoints[2] = (struct api_endpoint){"POST", "/api/v1/devices/{id}/probes", API_EP_AUTH,
						handle_post, p};
	p->endpoints[3] = (struct api_endpoint){"POST", "/api/v1/probes/{id}/cancel",
						API_EP_AUTH | API_EP_STORE, handle_cancel, p};
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
		int r = drive_lock(&p->cfg, p->store, &row, "the daemon", now, &fd, reason);
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
	struct poller_listener pl = {.on_sample = on_sample, .ctx = p};
	int r;

	recover_dead_runs(p);
	r = poller_add_listener(poller, &pl);
	if (r < 0)
		return r;
	p->loop = l;
	int64_t t = loop_add_timer(l, 1000, on_sched_tick, p);
	return t < 0 ? (int)t : 0;
}

int probe_svc_reconfigure(struct probe_svc *p, const struct cfg *c, char ret_err[PROBE_SVC_ERR_MAX])
{
	int r = schedules_check(c, ret_err);

	if (r < 0)
		return r;
	p->cfg = *c;
	for (size_t i = 0; i < p->n_dev; i++)
		p->dev[i].sched_text[0] = '\0'; /* reparsed at the next tick */
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
	for (size_t i = 0; i < p->n_dev; i++)
		if (p->dev[i].job)
			(void)job_cancel(p->dev[i].job, "the daemon stopped");
	for (size_t i = 0; i < p->n_dev; i++) {
		struct probe_job_ctx *j = p->dev[i].job;
		if (j)
			job_free(j);
	}
	reap(p);
	free(p);
	return NULL;
}

/* ---- nvmond probe ---- */

static volatile sig_atomic_t cli_interrupted;

static void cli_on_signal(int sig)
{
	(void)sig;
	cli_interrupted = 1;
}

struct cli_ctx {
	struct dev_backend *b;
	struct store *store;
	int64_t run_id;
	const struct probe_plan *plan;
	bool tty;
	struct probe_progress prog;
};

static int cli_read_smart(void *ctx, const char *ctrl, int64_t now_ms, struct smart_log *ret)
{
	struct cli_ctx *c = ctx;
	struct dev_ident who = {.model = c->plan->model, .serial = c->plan->serial};
	uint8_t page[SMART_LOG_SIZE];
	int r = dev_read_smart(c->b, ctrl, &who, now_ms, page);

	return r < 0 ? r : smart_decode(page, ret);
}

static int cli_charge(void *ctx, uint64_t lease, uint64_t written)
{
	struct cli_ctx *c = ctx;

	return store_probe_run_charge(c->store, c->run_id, lease, written);
}

static int cli_file_made(void *ctx, const char *dir, const struct probe_file_id *id)
{
	struct cli_ctx *c = ctx;

	return store_probe_file_put(c->store, c->plan->device_id, dir, id, timefmt_now_ms());
}

static bool cli_cancelled(void *ctx)
{
	(void)ctx;
	return cli_interrupted;
}

static void cli_progress(void *ctx, size_t phase, const struct probe_point *v, size_t n)
{
	struct cli_ctx *c = ctx;
	const struct probe_preset *pre = probe_preset_get(c->plan->preset);
	char bar[31];
	double frac;

	if (!c->tty || probe_progress_update(&c->prog, phase, v, n) < 0)
		return;
	frac = probe_progress_fraction(&c->prog);
	for (int i = 0; i < 30; i++)
		bar[i] = i < (int)(frac * 30) ? '#' : '.';
	bar[30] = '\0';
	fprintf(stderr, "\r%-16s %-5s [%s] %8.1f MB/s %6.1f s ", pre->name,
		phase < pre->n_phases ? pre->phase[phase].name : "", bar,
		probe_progress_mb_per_s(&c->prog), (double)v[n - 1].t_ms / 1000.0);
	fflush(stderr);
}

/* @want: a store id, controller name, namespace name or serial. */
static bool cli_match(const struct dev_info *d, const struct device_row *row, const char *want)
{
	char *end;
	long long id = strtoll(want, &end, 10);

	if (*want && !*end && row && row->id == id)
		return true;
	if (strcmp(d->name, want) == 0 || strcmp(d->id.serial, want) == 0)
		return true;
	for (size_t i = 0; i < d->n_ns; i++)
		if (strcmp(d->ns[i].name, want) == 0)
			return true;
	return false;
}

int probe_cli(const struct cfg *c, struct dev_backend *b, const char *device, const char *preset,
	      bool json)
{
	enum probe_preset_id pid;
	struct store *s = NULL;
	struct dev_info *v = NULL;
	struct device_row *rows = NULL, row;
	size_t n = 0, n_rows = 0;
	char err[STORE_ERR_MAX], reason[PROBE_REASON_MAX];
	struct probe_outcome out = {0};
	struct probe_demo_state demo = {0};
	struct gate_facts g = {0};
	int64_t now = timefmt_now_ms();
	int status = 1, r, lock_fd = -1;
	const struct dev_info *d = NULL;
	struct sigaction sa = {.sa_handler = cli_on_signal}, old_int, old_term, old_hup;
	bool signals_set = false;

	if (!probe_preset_find(preset, &pid)) {
		fprintf(stderr,
			"nvmond: unknown preset '%s' (seq1m-q8, seq1m-q1, rnd4k-q32, "
			"rnd4k-q1, copy-self, sustained-write)\n",
			preset);
		return 2;
	}
	r = store_open(c->database, &s, err);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", err);
		return 1;
	}
	r = dev_scan(b, now, &v, &n);
	if (r == 0)
		r = store_devices_list(s, &rows, &n_rows);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < n && !d; i++) {
		char key[DEV_KEY_MAX];
		const struct device_row *known = NULL;
		dev_key(&v[i].id, key, sizeof(key));
		for (size_t k = 0; k < n_rows; k++)
			if (strcmp(rows[k].key, key) == 0)
				known = &rows[k];
		if (cli_match(&v[i], known, device))
			d = &v[i];
	}
	if (!d) {
		fprintf(stderr,
			"nvmond: no device '%s' (a controller name, serial, namespace or id "
			"from `nvmond status`)\n",
			device);
		status = 2;
		goto out;
	}
	/* The device as the daemon stores it, so budgets are shared. */
	row = (struct device_row){.wctemp_k = d->id.wctemp_k,
				  .cctemp_k = d->id.cctemp_k,
				  .capacity_bytes = d->id.tnvmcap,
				  .first_seen_ms = now,
				  .last_seen_ms = now,
				  .online = 1};
	dev_key(&d->id, row.key, sizeof(row.key));
	snprintf(row.model, sizeof(row.model), "%s", d->id.model);
	snprintf(row.serial, sizeof(row.serial), "%s", d->id.serial);
	snprintf(row.firmware, sizeof(row.firmware), "%s", d->id.firmware);
	snprintf(row.name, sizeof(row.name), "%s", d->name);
	json_t *nsa = json_array();
	for (size_t i = 0; nsa && i < d->n_ns; i++)
		json_array_append_new(nsa,
				      json_pack("{s:I, s:s, s:I, s:I}", "nsid",
						(json_int_t)d->ns[i].nsid, "name", d->ns[i].name,
						"size_bytes", (json_int_t)d->ns[i].size_bytes,
						"lba_size", (json_int_t)d->ns[i].lba_size));
	char *nss = nsa ? json_dumps(nsa, JSON_COMPACT) : NULL;
	snprintf(row.namespaces, sizeof(row.namespaces), "%s", nss ? nss : "[]");
	free(nss);
	json_decref(nsa);
	r = store_device_upsert(s, &row, &row.id);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", store_strerror(s));
		goto out;
	}
	uint8_t page[SMART_LOG_SIZE];
	struct smart_log sl;
	struct dev_ident who = {.model = d->id.model, .serial = d->id.serial};
	if (dev_read_smart(b, d->name, &who, now, page) == 0 && smart_decode(page, &sl) == 0)
		g.temp_k = sl.temperature_k;
	int demo_index = -1;
	if (strcmp(b->ops->name, "demo") != 0 || sscanf(d->name, "demo%d", &demo_index) != 1)
		demo_index = -1;
	/* SIGINT, SIGTERM, SIGHUP: stop writing, store what was done, let go of the drive. */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	signals_set = true;
	struct probe_plan plan;
	r = drive_lock(c, s, &row, "nvmond probe", now, &lock_fd, reason);
	if (r == 0)
		r = plan_prepare(c, s, &row, pid, "cli", demo_index, &g, now, &plan, &out.run,
				 reason);
	if (r < 0) {
		fprintf(stderr, "nvmond: probe refused: %s\n",
			r == -EIO || r == -EBUSY ? store_strerror(s) : reason);
		goto out;
	}
	snprintf(out.run.state, sizeof(out.run.state), "running");
	r = store_probe_run_insert(s, &out.run, &out.run.id);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", store_strerror(s));
		goto out;
	}
	struct cli_ctx cc = {
		.b = b, .store = s, .run_id = out.run.id, .plan = &plan, .tty = isatty(2)};
	probe_progress_init(&cc.prog, plan.preset, plan.phase_ms, plan.allowed_write);
	struct probe_hooks h = {.read_smart = cli_read_smart,
				.progress = cli_progress,
				.cancelled = cli_cancelled,
				.charge = cli_charge,
				.file_made = cli_file_made,
				.ctx = &cc};
	probe_execute(&plan, &h, &demo, &out);
	probe_progress_clear(&cc.prog);
	if (cc.tty)
		fprintf(stderr, "\r%*s\r", 78, "");
	out.run.ended_ms = timefmt_now_ms();
	if (cli_interrupted && !strcmp(out.run.state, "aborted") &&
	    !strcmp(out.run.reason, "cancelled"))
		snprintf(out.run.reason, sizeof(out.run.reason), "interrupted (a signal)");
	r = probe_outcome_save(s, &out);
	if (r < 0) {
		fprintf(stderr, "nvmond: cannot store the result: %s\n", store_strerror(s));
		goto out;
	}
	probe_lock_release(lock_fd);
	lock_fd = -1;
	json_t *detail = NULL;
	r = probe_run_detail_json(s, out.run.id, json, &detail);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", strerror(-r));
		goto out;
	}
	if (json) {
		json_dumpf(detail, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		probe_print_table(stdout, detail);
	}
	json_decref(detail);
	status =
		strcmp(out.run.state, "done") == 0 || strcmp(out.run.state, "stopped") == 0 ? 0 : 1;
out:
	probe_lock_release(lock_fd);
	if (signals_set) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGHUP, &old_hup, NULL);
	}
	probe_outcome_clear(&out);
	free(v);
	free(rows);
	store_close(s);
	return status;
}
