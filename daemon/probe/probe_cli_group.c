/* SPDX-License-Identifier: MIT */
/*
 * `nvmond probe --device A --device B … --preset P`: a group run in this
 * process, one thread per drive, under the same locks, gates and budgets as
 * the daemon's. Every drive's lock is taken first (by serial), then every
 * plan prepared; one refusal refuses the group before anything starts. The
 * threads meet at a barrier before every phase (probe_group.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/probe/probe_group.h"
#include "nvmond/probe/probe_lock.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_probe_group.h"
#include "nvmond/util/timefmt.h"

#include "probe_cli_internal.h"

static volatile sig_atomic_t group_interrupted;

static void group_on_signal(int sig)
{
	(void)sig;
	group_interrupted = 1;
}

struct cli_group;

struct cli_member {
	struct cli_group *grp;
	struct device_row row;
	struct gate_facts g;
	bool own_probes; /* DEV_CAP_OWN_PROBES */
	int lock_fd;
	struct probe_plan plan;
	struct probe_outcome out;
	struct store *store; /* its thread's own handle (a handle is never shared) */
	pthread_t thread;
	bool started;
	int64_t skew_ns;
};

struct cli_group {
	struct dev_backend *b;
	pthread_mutex_t smart_lock; /* the backend is the main thread's: one caller at a time */
	struct probe_group_sync sync;
};

static int m_read_smart(void *ctx, const char *ctrl, int64_t now_ms, struct smart_log *ret)
{
	struct cli_member *m = ctx;
	struct dev_ident who = {.model = m->plan.model, .serial = m->plan.serial};
	uint8_t page[SMART_LOG_SIZE];

	pthread_mutex_lock(&m->grp->smart_lock);
	int r = dev_read_smart(m->grp->b, ctrl, &who, now_ms, page);
	pthread_mutex_unlock(&m->grp->smart_lock);
	return r < 0 ? r : smart_decode(page, ret);
}

static int m_charge(void *ctx, uint64_t lease, uint64_t written)
{
	struct cli_member *m = ctx;

	return store_probe_run_charge(m->store, m->out.run.id, lease, written);
}

static int m_file_made(void *ctx, const char *dir, const struct probe_file_id *id)
{
	struct cli_member *m = ctx;

	return store_probe_file_put(m->store, m->plan.device_id, dir, id, timefmt_now_ms());
}

static bool m_cancelled(void *ctx)
{
	(void)ctx;
	return group_interrupted;
}

static void m_phase_start(void *ctx, size_t step)
{
	struct cli_member *m = ctx;
	int64_t late = probe_group_sync_arrive(&m->grp->sync);

	(void)step;
	if (late > m->skew_ns)
		m->skew_ns = late;
}

static void *m_thread(void *arg)
{
	struct cli_member *m = arg;
	struct probe_hooks h = {.read_smart = m_read_smart,
				.cancelled = m_cancelled,
				.charge = m_charge,
				.file_made = m_file_made,
				.phase_start = m_phase_start,
				.ctx = m};

	probe_execute(&m->plan, &h, &m->out);
	probe_group_sync_leave(&m->grp->sync);
	m->out.run.ended_ms = timefmt_now_ms();
	if (group_interrupted && !strcmp(m->out.run.state, "aborted") &&
	    !strcmp(m->out.run.reason, "cancelled"))
		snprintf(m->out.run.reason, sizeof(m->out.run.reason), "interrupted (a signal)");
	return NULL;
}

static int by_serial(const void *a, const void *b)
{
	const struct cli_member *x = a, *y = b;

	return strcmp(x->row.serial, y->row.serial);
}

/* The group as JSON: its runs and the group (per drive, the total). */
static int group_result(struct store *s, struct cli_member *mv, size_t n, json_t **ret)
{
	json_t *detail = NULL, *runs = json_array();
	int r = probe_run_detail_json(s, mv[0].out.run.id, false, &detail);

	if (r == 0)
		r = probe_group_json_add(s, detail);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct probe_run_row row;
		r = store_probe_run_get(s, mv[i].out.run.id, &row);
		if (r == 0)
			json_array_append_new(runs, probe_run_json(&row));
	}
	if (r < 0 || !runs) {
		json_decref(detail);
		json_decref(runs);
		return r < 0 ? r : -ENOMEM;
	}
	*ret = json_pack("{s:O, s:o}", "group", json_object_get(detail, "group"), "runs", runs);
	json_decref(detail);
	return *ret ? 0 : -ENOMEM;
}

/* The preset of a group (no study: a study is one drive's) and its size. Return: 0, or 2 (usage). */
static int group_args(const char *preset, size_t n, enum probe_preset_id *ret_pid)
{
	if (!probe_preset_find(preset, ret_pid) || probe_preset_get(*ret_pid)->study) {
		char names[PROBE_PRESET_NAMES_MAX];

		fprintf(stderr, "nvmond: unknown preset '%s' for a group (%s)\n", preset,
			probe_preset_names(names, sizeof(names),
					   PROBE_NAMES_NO_COPY_TO | PROBE_NAMES_NO_STUDY));
		return 2;
	}
	if (n < 2 || n > PROBE_GROUP_MAX) {
		fprintf(stderr, "nvmond: a group run takes 2 … %d drives\n", PROBE_GROUP_MAX);
		return 2;
	}
	return 0;
}

/*
 * The drives @devices name, into @mv (on record in @s), each once.
 * Return: 0; else the exit status (2: no such drive, or one named twice; 1).
 */
static int group_drives(struct dev_backend *b, struct store *s, const char *const *devices,
			size_t n, int64_t now, struct cli_member *mv)
{
	struct dev_info *v = NULL;
	struct device_row *rows = NULL;
	size_t n_dev = 0, n_rows = 0;
	int r, status = probe_cli_inventory(b, s, now, &v, &n_dev, &rows, &n_rows);

	for (size_t i = 0; status == 0 && i < n; i++) {
		r = probe_cli_drive(b, s, v, n_dev, rows, n_rows, devices[i], now, &mv[i].row,
				    &mv[i].g, &mv[i].own_probes);
		if (r < 0)
			status = r == -ENOENT ? 2 : 1;
		for (size_t k = 0; status == 0 && k < i; k++)
			if (mv[k].row.id == mv[i].row.id) {
				fprintf(stderr, "nvmond: drive %s is named twice\n",
					mv[i].row.name);
				status = 2;
			}
	}
	free(v);
	free(rows);
	return status;
}

/*
 * Every lock first, in one order (by serial); then every plan: one refusal
 * refuses the group, nothing started. Return: 0, or negative errno (said).
 */
static int group_prepare(const struct cfg *c, struct store *s, enum probe_preset_id pid,
			 int64_t now, struct cli_member *mv, size_t n)
{
	char reason[PROBE_REASON_MAX];
	size_t i, bad = 0;
	int r;

	qsort(mv, n, sizeof(mv[0]), by_serial);
	for (i = 0, r = 0; i < n && r == 0; i++, bad++)
		r = probe_drive_lock(c, s, &mv[i].row, "nvmond probe", now, &mv[i].lock_fd, reason);
	for (i = 0, bad = r < 0 ? bad : 0; i < n && r == 0; i++, bad++)
		r = probe_plan_prepare(c, s, &mv[i].row, pid, "cli", mv[i].own_probes, &mv[i].g,
				       now, &mv[i].plan, &mv[i].out.run, reason);
	if (r < 0)
		fprintf(stderr, "nvmond: group refused, nothing started: drive %s: %s\n",
			mv[bad - 1].row.name,
			r == -EIO || r == -EBUSY ? store_strerror(s) : reason);
	return r;
}

/*
 * On record, linked: a group is known by its first member's id. Each member
 * gets its thread's own store handle. Return: 0, or negative errno (said).
 */
static int group_record(const struct cfg *c, struct store *s, struct cli_member *mv, size_t n)
{
	char err[STORE_ERR_MAX];

	for (size_t i = 0; i < n; i++) {
		snprintf(mv[i].out.run.state, sizeof(mv[i].out.run.state), "running");
		int r = store_probe_run_insert(s, &mv[i].out.run, &mv[i].out.run.id);
		if (r == 0)
			r = store_probe_group_add(s, mv[0].out.run.id, mv[i].out.run.id);
		if (r == 0)
			r = store_open(c->database, &mv[i].store, err);
		if (r < 0) {
			fprintf(stderr, "nvmond: %s\n", store_strerror(s));
			return r;
		}
		mv[i].plan.together = (unsigned)n;
	}
	return 0;
}

/*
 * Every member's thread; one that cannot start stops the others.
 * Return: 0, or negative errno (said): no result is printed.
 */
static int group_start(struct cli_group *grp, struct cli_member *mv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int r = -pthread_create(&mv[i].thread, NULL, m_thread, &mv[i]);
		if (r < 0) {
			fprintf(stderr, "nvmond: cannot start a thread: %s\n", strerror(-r));
			group_interrupted = 1; /* the others stop */
			for (size_t k = i; k < n; k++)
				probe_group_sync_leave(&grp->sync);
			return r;
		}
		mv[i].started = true;
	}
	return 0;
}

/*
 * Every member's end on record: its thread's outcome, or "failed" for one
 * that never started. Return: @r, or -EIO when one could not be stored.
 */
static int group_settle(struct store *s, struct cli_member *mv, size_t n, int r)
{
	for (size_t i = 0; i < n; i++) {
		if (mv[i].started) {
			pthread_join(mv[i].thread, NULL);
		} else if (mv[i].out.run.id) {
			mv[i].out.run.ended_ms = timefmt_now_ms();
			snprintf(mv[i].out.run.state, sizeof(mv[i].out.run.state), "failed");
			snprintf(mv[i].out.run.reason, sizeof(mv[i].out.run.reason),
				 "the group could not start");
			mv[i].out.run.bytes_charged = 0;
		}
		if (mv[i].out.run.id &&
		    (probe_outcome_save(s, &mv[i].out) < 0 ||
		     store_probe_group_skew(s, mv[i].out.run.id, mv[i].skew_ns / 1000) < 0)) {
			fprintf(stderr, "nvmond: cannot store the result: %s\n", store_strerror(s));
			r = -EIO;
		}
	}
	return r;
}

/* The group's result printed. Return: the exit status: 0 every run measured, else 1. */
static int group_report(struct store *s, struct cli_member *mv, size_t n, bool json)
{
	json_t *res = NULL;
	int status = 0, r = group_result(s, mv, n, &res);

	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", strerror(-r));
	} else if (json) {
		json_dumpf(res, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		probe_group_print(stdout, json_object_get(res, "group"));
	}
	json_decref(res);
	for (size_t i = 0; i < n; i++)
		if (strcmp(mv[i].out.run.state, "done") && strcmp(mv[i].out.run.state, "stopped"))
			status = 1;
	return status;
}

/* SIGINT, SIGTERM, SIGHUP: every member stops writing and stores what it did. */
static const int group_signals[3] = {SIGINT, SIGTERM, SIGHUP};

int probe_cli_group(const struct cfg *c, struct dev_backend *b, const char *const *devices,
		    size_t n, const char *preset, bool json)
{
	enum probe_preset_id pid;
	struct store *s = NULL;
	char err[STORE_ERR_MAX];
	struct cli_member mv[PROBE_GROUP_MAX] = {0};
	struct cli_group grp = {.b = b};
	int64_t now = timefmt_now_ms();
	int status, r;
	bool sync_made = false;
	struct sigaction sa = {.sa_handler = group_on_signal}, old[3];

	status = group_args(preset, n, &pid);
	if (status)
		return status;
	status = 1;
	for (size_t i = 0; i < n; i++)
		mv[i] = (struct cli_member){.grp = &grp, .lock_fd = -1};
	pthread_mutex_init(&grp.smart_lock, NULL);
	r = store_open(c->database, &s, err);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", err);
		goto out;
	}
	status = group_drives(b, s, devices, n, now, mv);
	if (status)
		goto out;
	status = 1;
	for (size_t i = 0; i < 3; i++)
		sigaction(group_signals[i], &sa, &old[i]);
	r = group_prepare(c, s, pid, now, mv, n);
	if (r == 0)
		r = probe_group_sync_init(&grp.sync, n);
	if (r == 0) {
		sync_made = true;
		r = group_record(c, s, mv, n);
		if (r == 0)
			r = group_start(&grp, mv, n);
		r = group_settle(s, mv, n, r);
		if (r == 0 && mv[0].out.run.id)
			status = group_report(s, mv, n, json);
	}
	for (size_t i = 0; i < 3; i++)
		sigaction(group_signals[i], &old[i], NULL);
out:
	for (size_t i = 0; i < n; i++) {
		probe_lock_release(mv[i].lock_fd);
		probe_outcome_clear(&mv[i].out);
		store_close(mv[i].store);
	}
	if (sync_made)
		probe_group_sync_destroy(&grp.sync);
	pthread_mutex_destroy(&grp.smart_lock);
	store_close(s);
	return status;
}
