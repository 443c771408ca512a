/* SPDX-License-Identifier: MIT */
/*
 * Whether a probe may run, and how much it may write: the drive's probe lock,
 * the gates (budget, busy, temperature, sustained_every), the plan and its
 * reservation. See probe_plan_internal.h. The daemon's schedules are in
 * probe_svc_sched.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "nvmond/core/log.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/probe/probe_lock.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/util/units.h"

#include "probe_plan_internal.h"

/* ---- shared by the daemon and the command ---- */

static bool preset_writes(const struct probe_preset *p)
{
	for (size_t k = 0; k < p->n_phases; k++)
		if (p->phase[k].op != PROBE_OP_READ)
			return true;
	return false;
}

const char *probe_lock_dir_of(const struct cfg *c, char *buf, size_t len)
{
	if (probe_conf(c)->lock_dir[0])
		return probe_conf(c)->lock_dir;
	return probe_lock_dir_default(buf, len);
}

/*
 * Take @row's probe lock for @who, then settle runs of it whose process died:
 * they are charged what they may have written. Return: 0 with *ret_fd;
 * -EALREADY (another process probes it) or other errno, with @reason.
 */
int probe_drive_lock(const struct cfg *c, struct store *s, const struct device_row *row,
		     const char *who, int64_t now_ms, int *ret_fd, char reason[PROBE_REASON_MAX])
{
	char dir[CFG_PATH_MAX];
	char why[PROBE_LOCK_ERR_MAX];
	int r = probe_lock_take(probe_lock_dir_of(c, dir, sizeof(dir)), row->serial, who, ret_fd,
				why);

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

/* probe_drive_lock() of one of the pair; the drive a copy-to reads (@source) named in @reason. */
static int lock_one(const struct cfg *c, struct store *s, const struct device_row *row,
		    const char *who, bool source, int64_t now_ms, int *ret_fd,
		    char reason[PROBE_REASON_MAX])
{
	int r = probe_drive_lock(c, s, row, who, now_ms, ret_fd, reason);

	if (r < 0 && source) {
		char why[PROBE_REASON_MAX];
		snprintf(why, sizeof(why), "%s", reason);
		snprintf(reason, PROBE_REASON_MAX, "drive copied from (%s): %.200s", row->serial,
			 why);
	}
	return r;
}

int probe_drive_locks(const struct cfg *c, struct store *s, const char *who,
		      const struct device_row *tgt, const struct device_row *src, int64_t now_ms,
		      int *ret_tgt_fd, int *ret_src_fd, char reason[PROBE_REASON_MAX])
{
	bool src_first = src && probe_lock_order(src->serial, tgt->serial);
	int r = src_first ? lock_one(c, s, src, who, true, now_ms, ret_src_fd, reason) : 0;

	if (r == 0)
		r = lock_one(c, s, tgt, who, false, now_ms, ret_tgt_fd, reason);
	if (r == 0 && src && !src_first)
		r = lock_one(c, s, src, who, true, now_ms, ret_src_fd, reason);
	return r;
}

/*
 * Decide whether @preset may run on @row now and fill @plan and @run; hold the
 * drive's probe lock (the budget is read and reserved under it).
 * Return: 0 go; -EBUSY (busy: scheduled only) / -EAGAIN (too hot, too soon) /
 * -EDQUOT (budget) / -EPERM (refused target) / -EINVAL with @reason; other errno.
 */
int probe_plan_prepare(const struct cfg *c, struct store *s, const struct device_row *row,
		       enum probe_preset_id preset, const char *trigger, bool own_probes,
		       const struct gate_facts *g, int64_t now_ms, struct probe_plan *plan,
		       struct probe_run_row *run, char reason[PROBE_REASON_MAX])
{
	return probe_plan_prepare_step(c, s, row, preset, trigger, own_probes, g, NULL, now_ms,
				       plan, run, reason);
}

/* The plan and the run's row of @preset on @row, before any gate: the drive's configuration. */
static void plan_base(const struct cfg *c, const struct device_row *row,
		      const struct cfg_device *cd, enum probe_preset_id preset, const char *trigger,
		      bool own_probes, int64_t now_ms, struct probe_plan *plan,
		      struct probe_run_row *run)
{
	*plan = (struct probe_plan){
		.device_id = row->id,
		.preset = preset,
		.own_probes = own_probes,
		.nsid = cd->probe_nsid,
		.destructive = cd->probe_destructive,
		.file_size = cd->probe_file_size,
		.phase_ms = probe_conf(c)->phase_ms,
		.wctemp_k = row->wctemp_k,
		.min_free_pct = probe_conf(c)->min_free_pct,
		.sweep_depth = probe_conf(c)->sweep_depth,
		.sysfs = "/sys",
		.mountinfo = "/proc/self/mountinfo",
	};
	snprintf(plan->serial, sizeof(plan->serial), "%s", row->serial);
	snprintf(plan->model, sizeof(plan->model), "%s", row->model);
	snprintf(plan->trigger, sizeof(plan->trigger), "%s", trigger);
	snprintf(plan->probe_dir, sizeof(plan->probe_dir), "%s", cd->probe_dir);
	*run = (struct probe_run_row){.device_id = row->id, .started_ms = now_ms};
	snprintf(run->preset, sizeof(run->preset), "%s", probe_preset_get(preset)->name);
	snprintf(run->trigger, sizeof(run->trigger), "%s", trigger);
}

/*
 * What the run may write on: without a probe directory the raw namespace is
 * only read (a preset that only writes is refused), and a probe file nvmond
 * recorded making is known. Return: 0 with *@ret_writes; -EPERM with @reason;
 * other negative errno.
 */
static int plan_target(struct store *s, const struct device_row *row, const struct cfg_device *cd,
		       const struct probe_preset *pre, struct probe_plan *plan, bool *ret_writes,
		       char reason[PROBE_REASON_MAX])
{
	bool writes = preset_writes(pre), own_probes = plan->own_probes;
	int r;

	if (!own_probes && !cd->probe_dir[0] && writes && !cd->probe_destructive &&
	    (pre->n_phases == 1)) {
		snprintf(reason, PROBE_REASON_MAX,
			 "%s writes, and no probe_dir is set for this drive (raw namespaces are "
			 "only read unless destructive = yes)",
			 pre->name);
		return -EPERM;
	}
	if (!own_probes && !cd->probe_dir[0] && !cd->probe_destructive)
		writes = false;
	if (cd->probe_dir[0] && !own_probes) {
		r = store_probe_file_get(s, row->id, cd->probe_dir, &plan->file_id);
		if (r < 0 && r != -ENOENT)
			return r;
		plan->file_known = r == 0;
	}
	*ret_writes = writes;
	return 0;
}

/* [probes] sustained_every: sustained-write not again so soon. Return: 0, -EAGAIN, or errno. */
static int plan_sustained_every(const struct cfg *c, struct store *s, const struct device_row *row,
				const struct probe_preset *pre, int64_t now_ms,
				char reason[PROBE_REASON_MAX])
{
	int64_t last = 0;
	int r;

	if (!pre->sustained || probe_conf(c)->sustained_every_ms <= 0)
		return 0;
	r = store_probe_last_started(s, row->id, pre->name, &last);
	if (r < 0)
		return r;
	if (last && now_ms - last < probe_conf(c)->sustained_every_ms) {
		char when[TIMEFMT_MAX];
		snprintf(reason, PROBE_REASON_MAX,
			 "sustained-write ran at %s; it runs at most every %lld h "
			 "([probes] sustained_every)",
			 timefmt_rfc3339(last, when),
			 (long long)(probe_conf(c)->sustained_every_ms / 3600000));
		return -EAGAIN;
	}
	return 0;
}

/* The gates' facts of @row that every run has: busy, temperature, their limits. */
static void gate_input_of(const struct cfg *c, const struct device_row *row,
			  const struct gate_facts *g, struct probe_gate_input *in)
{
	*in = (struct probe_gate_input){
		.scheduled = g->scheduled,
		.busy_known = g->busy_known,
		.busy_iops = g->busy_iops,
		.busy_bps = g->busy_bps,
		.busy_max_iops = probe_conf(c)->busy_iops,
		.busy_max_bps = (double)probe_conf(c)->busy_mbps * 1e6,
		.temp_k = g->temp_k,
		.wctemp_k = row->wctemp_k,
		/* Asked for by hand: only WCTEMP itself stops it (it would abort at once). */
		.margin_k = g->scheduled ? (uint16_t)probe_conf(c)->temp_margin_c : 0,
	};
}

/*
 * The gates (probe_gate()) with the budget's use over its two windows, the
 * last day and the last 30 days. Return: 0 with *@ret_allowed; -EBUSY,
 * -EAGAIN, -EDQUOT with @reason; other negative errno.
 */
static int plan_gates(const struct cfg *c, struct store *s, const struct device_row *row,
		      const struct cfg_device *cd, const struct gate_facts *g, bool writes,
		      int64_t now_ms, uint64_t *ret_allowed, char reason[PROBE_REASON_MAX])
{
	struct probe_gate_input in;
	int r;

	gate_input_of(c, row, g, &in);
	in.writes = writes;
	probe_budget_for(cd, row->model, &in.budget);
	r = store_probe_written_since(s, row->id, now_ms - MS_PER_DAY, &in.used_day);
	if (r < 0)
		return r;
	r = store_probe_written_since(s, row->id, now_ms - 30 * MS_PER_DAY, &in.used_month);
	if (r < 0)
		return r;
	switch (probe_gate(&in, ret_allowed, reason)) {
	case PROBE_GO:
		break;
	case PROBE_SKIP_BUSY:
		return -EBUSY;
	case PROBE_SKIP_HOT:
		return -EAGAIN;
	case PROBE_OVER_BUDGET:
		return -EDQUOT;
	}
	return 0;
}

/*
 * The reservation: what this run can write at most, its probe file's layout
 * included, within @allowed. A study's write is all or nothing. Return: 0
 * with plan->allowed_write; -EDQUOT with @reason.
 */
static int plan_reserve(const struct cfg_device *cd, const struct probe_preset *pre,
			const struct probe_study_step *step, bool writes, uint64_t allowed,
			struct probe_plan *plan, char reason[PROBE_REASON_MAX])
{
	bool own_probes = plan->own_probes;

	if ((pre->sustained || pre->study) && allowed > cd->probe_sustained_limit)
		allowed = cd->probe_sustained_limit;
	/* A study's write is all or nothing: a short fill makes no cliff, and a short
	 * burst would not be the burst the others were. */
	if (pre->study && writes && allowed < step->bytes) {
		snprintf(reason, PROBE_REASON_MAX,
			 "the study's %s writes %" PRIu64 " MB; the write budget (or "
			 "probe_sustained_limit) leaves %" PRIu64 " MB",
			 step->fill ? "fill" : "burst", step->bytes / 1000000, allowed / 1000000);
		return -EDQUOT;
	}
	/* The reservation: what this run can write at most, layout included. */
	/* A recorded file that is gone (or another size) is made again. */
	char fpath[sizeof(cd->probe_dir) + 32];
	struct stat fst;
	snprintf(fpath, sizeof(fpath), "%s/%s", cd->probe_dir, PROBE_FILE_NAME);
	bool layout = writes && cd->probe_dir[0] && !own_probes &&
		      !(plan->file_known && plan->file_id.size == cd->probe_file_size &&
			lstat(fpath, &fst) == 0 && (uint64_t)fst.st_size == cd->probe_file_size);
	uint64_t most = layout ? cd->probe_file_size : 0;
	for (size_t k = 0; k < pre->n_phases; k++) {
		uint64_t cap = pre->phase[k].op == PROBE_OP_COPY && !pre->copy_to
				       ? cd->probe_file_size / 2
			       : pre->sustained ? allowed
			       : pre->study	? step->bytes
						: cd->probe_file_size;
		if (pre->sweep && cap > PROBE_SWEEP_WRITE_BYTES)
			cap = PROBE_SWEEP_WRITE_BYTES; /* a write point's byte limit */
		if (pre->phase[k].op != PROBE_OP_READ)
			most += cap;
	}
	if (layout && allowed < cd->probe_file_size + (1u << 20)) {
		snprintf(reason, PROBE_REASON_MAX,
			 "making the %" PRIu64 " MB probe file needs more write budget than is "
			 "left (%" PRIu64 " MB)",
			 cd->probe_file_size / 1000000, allowed / 1000000);
		return -EDQUOT;
	}
	plan->allowed_write = writes ? (most < allowed ? most : allowed) : 0;
	return 0;
}

int probe_plan_prepare_step(const struct cfg *c, struct store *s, const struct device_row *row,
			    enum probe_preset_id preset, const char *trigger, bool own_probes,
			    const struct gate_facts *g, const struct probe_study_step *step,
			    int64_t now_ms, struct probe_plan *plan, struct probe_run_row *run,
			    char reason[PROBE_REASON_MAX])
{
	const struct probe_preset *pre = probe_preset_get(preset);
	struct cfg_device cd;
	uint64_t allowed = 0;
	bool writes = false;
	int r;

	cfg_device_for(c, row->model, row->serial, &cd);
	plan_base(c, row, &cd, preset, trigger, own_probes, now_ms, plan, run);
	if (pre->study && (!step || !step->bytes)) {
		snprintf(reason, PROBE_REASON_MAX,
			 "%s runs only as a study (its fill, then its bursts)", pre->name);
		return -EINVAL;
	}
	plan->study_fill = pre->study && step->fill;
	r = plan_target(s, row, &cd, pre, plan, &writes, reason);
	if (r == 0)
		r = plan_sustained_every(c, s, row, pre, now_ms, reason);
	if (r == 0)
		r = plan_gates(c, s, row, &cd, g, writes, now_ms, &allowed, reason);
	if (r == 0)
		r = plan_reserve(&cd, pre, step, writes, allowed, plan, reason);
	if (r < 0)
		return r;
	run->bytes_charged = plan->allowed_write; /* charged up front, trued up at the end */
	run->nsid = plan->probe_dir[0] ? 0 : plan->nsid;
	return 0;
}

int probe_plan_prepare_source(const struct cfg *c, struct store *s, const struct device_row *row,
			      bool own_probes, const struct gate_facts *g, struct probe_plan *plan,
			      char reason[PROBE_REASON_MAX])
{
	struct cfg_device cd;
	struct probe_gate_input in;
	uint64_t allowed = 0;
	int r;

	cfg_device_for(c, row->model, row->serial, &cd);
	*plan = (struct probe_plan){
		.device_id = row->id,
		.preset = PROBE_COPY_TO,
		.own_probes = own_probes,
		.nsid = cd.probe_nsid,
		.file_size = cd.probe_file_size,
		.phase_ms = probe_conf(c)->phase_ms,
		.wctemp_k = row->wctemp_k,
		.min_free_pct = probe_conf(c)->min_free_pct,
		.sysfs = "/sys",
		.mountinfo = "/proc/self/mountinfo",
	};
	snprintf(plan->serial, sizeof(plan->serial), "%s", row->serial);
	snprintf(plan->model, sizeof(plan->model), "%s", row->model);
	snprintf(plan->probe_dir, sizeof(plan->probe_dir), "%s", cd.probe_dir);
	/* Read, never written: no budget, and its probe file only as nvmond made it. */
	if (cd.probe_dir[0] && !own_probes) {
		r = store_probe_file_get(s, row->id, cd.probe_dir, &plan->file_id);
		if (r == -ENOENT) {
			snprintf(reason, PROBE_REASON_MAX,
				 "drive copied from (%s): nvmond has made no probe file in %.120s "
				 "(run a probe that writes on it first)",
				 row->serial, cd.probe_dir);
			return -EPERM;
		}
		if (r < 0)
			return r;
		plan->file_known = true;
	}
	gate_input_of(c, row, g, &in);
	char why[PROBE_REASON_MAX];
	switch (probe_gate(&in, &allowed, why)) {
	case PROBE_GO:
		return 0;
	case PROBE_SKIP_BUSY:
		snprintf(reason, PROBE_REASON_MAX, "drive copied from (%s): %.200s", row->serial,
			 why);
		return -EBUSY;
	case PROBE_SKIP_HOT:
	default:
		snprintf(reason, PROBE_REASON_MAX, "drive copied from (%s): %.200s", row->serial,
			 why);
		return -EAGAIN;
	}
}
