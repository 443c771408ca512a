/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Whether a probe may run, and how much it may write: the drive's probe lock,
 * the gates, the plan and its budget reservation. Owned by probe_plan.c (it
 * keeps no state: each call reads the store and the configuration); used by
 * the daemon's starts (probe_svc.c, probe_svc_group.c) and `nvmond probe`
 * (probe_cli.c, probe_cli_group.c).
 */
#include <stdbool.h>
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/store/store.h"

#include "probe_study_internal.h"

/*
 * What the gates know of the drive now. Filled by the caller: the
 * temperature from its last sample, the busy facts by probe_svc_busy.c (the
 * daemon) or left unknown (the command line).
 */
struct gate_facts {
	bool scheduled;
	bool busy_known;
	double busy_iops, busy_bps;
	uint16_t temp_k;
};

/* The lock directory every nvmond process agrees on: [probes] lock_dir, else the default. */
const char *probe_lock_dir_of(const struct cfg *c, char *buf, size_t len);

/*
 * Take @row's probe lock for @who, then settle runs of it whose process died:
 * they are charged what they may have written. Return: 0 with *ret_fd;
 * -EALREADY (another process probes it) or other errno, with @reason.
 */
int probe_drive_lock(const struct cfg *c, struct store *s, const struct device_row *row,
		     const char *who, int64_t now_ms, int *ret_fd, char reason[PROBE_REASON_MAX]);

/*
 * The probe locks of a run's drive @tgt and, for copy-to, of the drive it reads
 * (@src, else NULL), each with probe_drive_lock(), two in the one order every
 * process takes them (probe_lock_order()). A failure to lock @src says so in
 * @reason. Return: 0 with *ret_tgt_fd (and *ret_src_fd); negative errno as
 * probe_drive_lock(), with @reason.
 */
int probe_drive_locks(const struct cfg *c, struct store *s, const char *who,
		      const struct device_row *tgt, const struct device_row *src, int64_t now_ms,
		      int *ret_tgt_fd, int *ret_src_fd, char reason[PROBE_REASON_MAX]);

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
