/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * `nvmond probe`: what its series (probe_cli_series.c) and group run
 * (probe_cli_group.c) take from the single run's file (probe_cli.c, the
 * owner). No state is shared but the signal flag: each command keeps its own.
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/dev/dev.h"
#include "nvmond/probe/probe_progress.h"
#include "nvmond/probe/probe_series.h"
#include "nvmond/probe/probe_svc.h"
#include "nvmond/store/store.h"

#include "probe_plan_internal.h"

/*
 * The drives the backend @b finds now (@ret_v, @ret_n) and those on record in @s
 * (@ret_rows, @ret_n_rows), for probe_cli_drive(); the caller frees both, also on
 * failure. Return: 0; or 1, the exit status, with the error said on stderr.
 */
int probe_cli_inventory(struct dev_backend *b, struct store *s, int64_t now,
			struct dev_info **ret_v, size_t *ret_n, struct device_row **ret_rows,
			size_t *ret_n_rows);

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

/*
 * The series a run of `nvmond probe --repeat` belongs to, and the run's end:
 * the series' fields are probe_cli_series.c's, the ret_ ones probe_cli_one()'s.
 */
struct cli_series {
	int64_t series_id;  /* 0: the first run (its id becomes the series') */
	uint32_t index, of; /* 0 of 0: a single run */
	bool print;	    /* print the run's own result */
	int64_t ret_run_id; /* the run, once inserted */
	int64_t ret_device_id;
	char ret_state[16];
	struct probe_rated ret_rated;
	/* cache-recovery: the study (planned by its first run) */
	struct probe_study *study;
	bool ret_over; /* the study is over: a burst ran as fast as before the cliff */
};

/*
 * One run of `nvmond probe` on @device (copy-to: read, @to written) as run
 * @ser->index of @ser (0 of 0: alone). Return: the exit status (0 done, 1,
 * 2 usage), said on stderr.
 */
int probe_cli_one(const struct cfg *c, struct dev_backend *b, const char *device, const char *to,
		  const char *preset, bool json, struct cli_series *ser);

/* The commands' handler of SIGINT, SIGTERM, SIGHUP: the run stops writing, stores what it did. */
void probe_cli_on_signal(int sig);

/* A signal came (probe_cli_on_signal()). */
bool probe_cli_interrupted(void);

/* How many signals the commands catch: SIGINT, SIGTERM, SIGHUP. */
#define PROBE_CLI_NSIG 3

/* probe_cli_on_signal() for SIGINT, SIGTERM and SIGHUP; the handlers before into @old. */
void probe_cli_signals_catch(struct sigaction old[PROBE_CLI_NSIG]);

/* The handlers probe_cli_signals_catch() put in @old back. */
void probe_cli_signals_restore(const struct sigaction old[PROBE_CLI_NSIG]);
