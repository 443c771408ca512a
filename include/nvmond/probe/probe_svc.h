/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "nvmond/api/api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/dev/dev.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/core/loop.h"
#include "nvmond/core/mainq.h"
#include "nvmond/monitor/poller.h"
#include "nvmond/store/store.h"

/*
 * Throughput probes in the daemon: schedules, the safety gates before a probe
 * starts, one probe thread per running probe (at most one per device), and the
 * HTTP endpoints. All its state lives on the main loop; probe threads reach it
 * through mainq_call().
 */
struct probe_svc;

#define PROBE_SVC_ERR_MAX 256

/**
 * probe_svc_new() - Borrow everything; check every device's probe_schedule.
 * Return: 0, -EINVAL (a bad schedule, @ret_err filled), or -ENOMEM.
 */
int probe_svc_new(const struct cfg *c, struct dev_backend *b, struct store *s, struct fleet *f,
		  struct mainq *q, struct probe_svc **ret, char ret_err[PROBE_SVC_ERR_MAX]);

/**
 * probe_svc_start() - Listen to the poller (busy history) and arm the
 * scheduler on @l. Marks runs left "running" by a previous daemon as failed.
 * Return: 0 or negative errno.
 */
int probe_svc_start(struct probe_svc *p, struct loop *l, struct poller *poller);

/** probe_svc_reconfigure() - Apply a reloaded configuration (schedules, budgets). */
int probe_svc_reconfigure(struct probe_svc *p, const struct cfg *c,
			  char ret_err[PROBE_SVC_ERR_MAX]);

/**
 * probe_svc_drive_blocked() - Whether the probes keep a device self-test off
 * drive @row now (main loop): a probe runs on it in this daemon or in another
 * nvmond process (its probe lock is held), or, for a @scheduled test, the
 * drive is busy by the probes' rule (foreground I/O over [probes] busy_iops or
 * busy_mbps in the last minute).
 * Return: 0 free; 1 blocked, with @ret_reason filled.
 */
int probe_svc_drive_blocked(struct probe_svc *p, const struct device_row *row, bool scheduled,
			    char ret_reason[PROBE_SVC_ERR_MAX]);

/*
 * Called on the loop when a repeated series on drive @row ended with at least
 * two measured runs of a spec-checked preset and a known rating: @v is its
 * verdict (below_rated). The daemon feeds the alert rule with it.
 */
struct rated_verdict;
typedef void (*probe_rated_fn)(void *ctx, const struct device_row *row,
			       const struct rated_verdict *v, int64_t now_ms);

/** probe_svc_on_rated() - Set the spec check's listener (one; NULL for none). */
void probe_svc_on_rated(struct probe_svc *p, probe_rated_fn fn, void *ctx);

/** probe_svc_endpoints() - The probe endpoints, for api_config.endpoints. */
const struct api_endpoint *probe_svc_endpoints(struct probe_svc *p, size_t *ret_n);

/**
 * probe_svc_free() - Cancel running probes, wait for their threads (each
 * stores what it measured) and free. Call after mainq_shutdown(). Accepts NULL.
 * Return: NULL.
 */
struct probe_svc *probe_svc_free(struct probe_svc *p);

/**
 * probe_cli() - `nvmond probe --device ID --preset P [--json]`: run one probe
 * in this process (budgets and the record in the database @c->database), with
 * a progress bar when stderr is a terminal, then print the result.
 * Return: an exit status (0 ok, 1 failed or refused, 2 usage).
 */
int probe_cli(const struct cfg *c, struct dev_backend *b, const char *device, const char *preset,
	      bool json);

/**
 * probe_cli_group() - `nvmond probe --device A --device B … --preset P`: one
 * probe per drive of @devices (2 … PROBE_GROUP_MAX), run together in this
 * process: every drive's lock, gates and budget, or none starts; the phases
 * start together. Prints each drive and the total (or JSON).
 * Return: an exit status (0 every drive ran, 1 not or refused, 2 usage).
 */
int probe_cli_group(const struct cfg *c, struct dev_backend *b, const char *const *devices,
		    size_t n, const char *preset, bool json);

/**
 * probe_cli_copyto() - `nvmond probe --device A --preset copy-to --to B`: probe_cli()
 * of a copy from drive @from's probe area onto drive @to's (the run's drive):
 * both drives' locks, B's plan and budget, A's read-only plan and gates. @preset
 * must be copy-to (else a usage error), as --to goes with it only.
 * Return: an exit status (0 ok, 1 failed or refused, 2 usage).
 */
int probe_cli_copyto(const struct cfg *c, struct dev_backend *b, const char *from, const char *to,
		     const char *preset, bool json);

/**
 * probe_cli_repeat() - probe_cli() @repeat times (1 … 10) with @cooldown_ms of
 * idle between, the runs linked as a series; then the series' summary. A run
 * that does not finish (refused, aborted, failed; Ctrl-C) ends the series.
 * cache-recovery (a study, @repeat 1): its schedule, its fill, a line per
 * burst at each [probes] recovery_intervals after the cliff, then the verdict.
 * Return: an exit status (0 every run ran, 1 not, 2 usage).
 */
int probe_cli_repeat(const struct cfg *c, struct dev_backend *b, const char *device,
		     const char *preset, bool json, uint32_t repeat, int64_t cooldown_ms);
