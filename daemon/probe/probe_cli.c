/* SPDX-License-Identifier: MIT */
/*
 * `nvmond probe`: one probe run in this process, under the same drive lock,
 * gates and budget as the daemon's, with a progress bar; then the result.
 * Repeated runs and studies are in probe_cli_series.c, a group in
 * probe_cli_group.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "nvmond/probe/probe_lock.h"
#include "nvmond/probe/probe_study.h"
#include "nvmond/probe/probe_series.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/util/timefmt.h"

#include "probe_cli_internal.h"

/* ---- nvmond probe ---- */

static volatile sig_atomic_t cli_interrupted;

void probe_cli_on_signal(int sig)
{
	(void)sig;
	cli_interrupted = 1;
}

bool probe_cli_interrupted(void)
{
	return cli_interrupted;
}

static const int cli_signals[PROBE_CLI_NSIG] = {SIGINT, SIGTERM, SIGHUP};

void probe_cli_signals_catch(struct sigaction old[PROBE_CLI_NSIG])
{
	struct sigaction sa = {.sa_handler = probe_cli_on_signal};

	for (size_t i = 0; i < PROBE_CLI_NSIG; i++)
		sigaction(cli_signals[i], &sa, &old[i]);
}

void probe_cli_signals_restore(const struct sigaction old[PROBE_CLI_NSIG])
{
	for (size_t i = 0; i < PROBE_CLI_NSIG; i++)
		sigaction(cli_signals[i], &old[i], NULL);
}

struct cli_ctx {
	struct dev_backend *b;
	struct store *store;
	int64_t run_id;
	const struct probe_plan *plan;
	const struct probe_plan *src_plan; /* copy-to: the drive read, else NULL */
	bool tty;
	struct probe_progress prog;
};

/* The health log of @ctrl, the drive that @plan names (model and serial). */
static int read_smart_of(struct cli_ctx *c, const struct probe_plan *plan, const char *ctrl,
			 int64_t now_ms, struct smart_log *ret)
{
	struct dev_ident who = {.model = plan->model, .serial = plan->serial};
	uint8_t page[SMART_LOG_SIZE];
	int r = dev_read_smart(c->b, ctrl, &who, now_ms, page);

	return r < 0 ? r : smart_decode(page, ret);
}

static int cli_read_smart(void *ctx, const char *ctrl, int64_t now_ms, struct smart_log *ret)
{
	struct cli_ctx *c = ctx;

	return read_smart_of(c, c->plan, ctrl, now_ms, ret);
}

/* copy-to: the drive read, looked up by its own identity. */
static int cli_read_smart_source(void *ctx, const char *ctrl, int64_t now_ms, struct smart_log *ret)
{
	struct cli_ctx *c = ctx;

	return read_smart_of(c, c->src_plan, ctrl, now_ms, ret);
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

static bool probe_outcome_measured(const struct probe_outcome *o)
{
	return !strcmp(o->run.state, "done") || !strcmp(o->run.state, "stopped");
}

/* One line of a study as it runs: the fill's cliff, or a burst's rate (and the verdict). */
static void cli_study_line(FILE *f, const struct cli_series *ser, const struct probe_outcome *o,
			   const char *verdict)
{
	const struct probe_study *st = ser->study;
	double secs = o->n_phases && o->phase[0].elapsed_ms > 0
			      ? (double)o->phase[0].elapsed_ms / 1000.0
			      : 0;
	double rate = secs > 0 ? (double)o->phase[0].wr.bytes / secs : 0;

	if (ser->index == 1) {
		fprintf(f, "fill: probe %lld, %.1f GB written, %.0f MB/s before the cliff\n",
			(long long)o->run.id, (double)o->run.bytes_written / 1e9,
			st->pre_rate / 1e6);
	} else {
		int64_t idle = o->run.started_ms - st->cliff_ms;
		fprintf(f,
			"burst %u of %u: probe %lld after %.0f s idle: %.0f MB/s = %.0f %%%s%s\n",
			ser->index - 1, ser->of - 1, (long long)o->run.id, (double)idle / 1000.0,
			rate / 1e6, st->pre_rate > 0 ? rate / st->pre_rate * 100 : 0.0,
			ser->ret_over ? ": " : "", ser->ret_over ? verdict : "");
	}
	fflush(f);
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

int probe_cli_inventory(struct dev_backend *b, struct store *s, int64_t now,
			struct dev_info **ret_v, size_t *ret_n, struct device_row **ret_rows,
			size_t *ret_n_rows)
{
	int r = dev_scan(b, now, ret_v, ret_n);

	if (r == 0)
		r = store_devices_list(s, ret_rows, ret_n_rows);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}

int probe_cli_drive(struct dev_backend *b, struct store *s, const struct dev_info *v, size_t n,
		    const struct device_row *rows, size_t n_rows, const char *device, int64_t now,
		    struct device_row *ret_row, struct gate_facts *g, bool *ret_own_probes)
{
	const struct dev_info *d = NULL;
	struct device_row row;
	int r;

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
		return -ENOENT;
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
		return r;
	}
	uint8_t page[SMART_LOG_SIZE];
	struct smart_log sl;
	struct dev_ident who = {.model = d->id.model, .serial = d->id.serial};
	if (dev_read_smart(b, d->name, &who, now, page) == 0 && smart_decode(page, &sl) == 0)
		g->temp_k = sl.temperature_k;
	*ret_own_probes = dev_has(b, DEV_CAP_OWN_PROBES);
	*ret_row = row;
	return 0;
}

/*
 * One run of @preset on @device; for copy-to, from @device onto @to (the run's
 * drive, the one written), else @to is NULL.
 */
/* The preset and --to as `nvmond probe` takes them: 0, or exit status 2 said on stderr. */
static int cli_check_args(const char *preset, const char *to, enum probe_preset_id *pid)
{
	char names[PROBE_PRESET_NAMES_MAX];

	if (!probe_preset_find(preset, pid)) {
		fprintf(stderr, "nvmond: unknown preset '%s' (%s)\n", preset,
			probe_preset_names(names, sizeof(names), PROBE_NAMES_NO_COPY_TO));
		return 2;
	}
	if (probe_preset_get(*pid)->copy_to != (to != NULL)) {
		fprintf(stderr, to ? "nvmond: --to goes with --preset copy-to only\n"
				   : "nvmond: copy-to needs the drive to copy to (--to ID)\n");
		return 2;
	}
	return 0;
}

/*
 * A drive of `nvmond probe`: the run's own (the one written, or read by a
 * read preset), and for copy-to (--to) the drive read.
 */
struct cli_drive {
	struct device_row row;
	struct gate_facts g; /* its temperature; busy is not known here */
	bool own_probes;     /* DEV_CAP_OWN_PROBES */
	int lock_fd;	     /* its probe lock, or -1 */
	struct probe_plan plan;
};

/*
 * The drives' locks (@src: copy-to's drive read, NULL for any other preset),
 * two in the one order every process takes them.
 */
static int cli_take_locks(const struct cfg *c, struct store *s, struct cli_drive *tgt,
			  struct cli_drive *src, int64_t now, char reason[PROBE_REASON_MAX])
{
	return probe_drive_locks(c, s, "nvmond probe", &tgt->row, src ? &src->row : NULL, now,
				 &tgt->lock_fd, src ? &src->lock_fd : NULL, reason);
}

/* A study's step of this run: its first run plans the study (its fill, then a burst per interval). */
static int cli_study_step(const struct cfg *c, struct store *s, const struct device_row *row,
			  int64_t now, bool json, struct cli_series *ser,
			  struct probe_study_step *step, char reason[PROBE_REASON_MAX])
{
	int r = 0;

	if (ser->index == 1) {
		r = probe_study_setup(c, s, row, now, ser->study, reason);
		if (r == 0) {
			ser->of = 1 + (uint32_t)ser->study->n_intervals;
			probe_study_print_plan(json ? stderr : stdout, ser->study);
			fflush(json ? stderr : stdout);
		}
		*step = (struct probe_study_step){.fill = true, .bytes = ser->study->fill_bytes};
	} else {
		*step = (struct probe_study_step){.bytes = ser->study->burst_bytes};
	}
	return r;
}

/* A run of a series that was refused: the series says why it ended. */
static void cli_record_skip(struct store *s, const struct device_row *row,
			    const struct cli_series *ser, const char *preset, int64_t now,
			    const char *why)
{
	struct probe_run_row skip = {.device_id = row->id,
				     .series_id = ser->series_id,
				     .series_index = ser->index,
				     .series_of = ser->of};

	(void)probe_series_skip_insert(s, &skip, preset, "cli", why, now);
}

/* The run as running, of its series (a series is known by its first run's id). */
static int cli_insert_run(struct store *s, const struct cli_series *ser, struct probe_outcome *out)
{
	int r;

	snprintf(out->run.state, sizeof(out->run.state), "running");
	out->run.series_id = ser->series_id;
	out->run.series_index = ser->index;
	out->run.series_of = ser->of;
	r = store_probe_run_insert(s, &out->run, &out->run.id);
	if (r == 0 && ser->of && !ser->series_id) {
		out->run.series_id = out->run.id;
		r = store_probe_run_update(s, &out->run);
	}
	return r;
}

/* What the run gives on stdout: a study's line, a series' line, its JSON or its tables. */
static void cli_print_result(struct cli_series *ser, const struct probe_outcome *out, bool json,
			     json_t *detail)
{
	if (ser->study && probe_outcome_measured(out)) {
		char verdict[PROBE_REASON_MAX] = "";
		ser->ret_over = probe_study_after(ser->study, out, ser->index, verdict);
		cli_study_line(json ? stderr : stdout, ser, out, verdict);
	} else if (!ser->print) {
		/* a run of a series: one line; the summary comes at its end */
		if (!json)
			fprintf(stdout, "run %u of %u: probe %lld %s%s%s\n", ser->index, ser->of,
				(long long)out->run.id, out->run.state,
				out->run.reason[0] ? ": " : "", out->run.reason);
	} else if (json) {
		json_dumpf(detail, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		probe_print_table(stdout, detail);
		probe_print_series(stdout, detail);
	}
}

/* Run @plan with the command line's hooks (progress on a terminal, Ctrl-C), into @out. */
static void cli_execute(struct dev_backend *b, struct store *s, const struct probe_plan *plan,
			const struct probe_plan *src_plan, struct probe_outcome *out)
{
	struct cli_ctx cc = {.b = b,
			     .store = s,
			     .run_id = out->run.id,
			     .plan = plan,
			     .src_plan = src_plan,
			     .tty = isatty(2)};
	probe_progress_init(&cc.prog, plan->preset, plan->phase_ms, plan->allowed_write);
	struct probe_hooks h = {.read_smart = cli_read_smart,
				.read_smart_source = cli_read_smart_source,
				.progress = cli_progress,
				.cancelled = cli_cancelled,
				.charge = cli_charge,
				.file_made = cli_file_made,
				.ctx = &cc};
	probe_execute(plan, &h, out);
	probe_progress_clear(&cc.prog);
	if (cc.tty)
		fprintf(stderr, "\r%*s\r", 78, "");
	out->run.ended_ms = timefmt_now_ms();
	if (cli_interrupted && !strcmp(out->run.state, "aborted") &&
	    !strcmp(out->run.reason, "cancelled"))
		snprintf(out->run.reason, sizeof(out->run.reason), "interrupted (a signal)");
}

/* The stored run's detail, printed as cli_print_result() says. */
static int cli_report(struct store *s, struct cli_series *ser, const struct probe_outcome *out,
		      bool json)
{
	json_t *detail = NULL;
	int r = probe_run_detail_json(s, out->run.id, json, &detail);

	if (r == 0)
		r = probe_series_json_add(s, &ser->ret_rated, detail);
	if (r == 0)
		cli_print_result(ser, out, json, detail);
	json_decref(detail);
	return r;
}

/*
 * The drives @device and, for copy-to, @to name (the run's is @to's then),
 * on record in @s; @src->row.id stays 0 without @to. Return: 0, or the exit
 * status (2: no such drive, or --to the same drive; 1), said on stderr.
 */
static int cli_drives(struct dev_backend *b, struct store *s, const char *device, const char *to,
		      int64_t now, struct cli_drive *tgt, struct cli_drive *src)
{
	struct dev_info *v = NULL;
	struct device_row *rows = NULL;
	size_t n = 0, n_rows = 0;
	int r, status = probe_cli_inventory(b, s, now, &v, &n, &rows, &n_rows);

	if (status)
		goto out;
	r = probe_cli_drive(b, s, v, n, rows, n_rows, to ? to : device, now, &tgt->row, &tgt->g,
			    &tgt->own_probes);
	if (r == 0 && to)
		r = probe_cli_drive(b, s, v, n, rows, n_rows, device, now, &src->row, &src->g,
				    &src->own_probes);
	if (r < 0) {
		status = r == -ENOENT ? 2 : 1;
		goto out;
	}
	if (to && src->row.id == tgt->row.id) {
		fprintf(stderr, "nvmond: copy-to: --to must name another drive (copy-self copies "
				"a drive onto itself)\n");
		status = 2;
	}
out:
	free(v);
	free(rows);
	return status;
}

/*
 * The run's gates and plans: the locks, a study's step, the drive's plan and
 * a copy-to's source's (@src: NULL for any other preset). Return: 0, or
 * negative errno (said on stderr; a series' run refused on record).
 */
static int cli_prepare(const struct cfg *c, struct store *s, enum probe_preset_id pid,
		       const char *preset, int64_t now, bool json, struct cli_series *ser,
		       struct cli_drive *tgt, struct cli_drive *src, struct probe_outcome *out)
{
	char reason[PROBE_REASON_MAX];
	struct probe_study_step step = {0};
	int r = cli_take_locks(c, s, tgt, src, now, reason);

	if (r == 0 && ser->study)
		r = cli_study_step(c, s, &tgt->row, now, json, ser, &step, reason);
	if (r == 0)
		r = probe_plan_prepare_step(c, s, &tgt->row, pid, "cli", tgt->own_probes, &tgt->g,
					    ser->study ? &step : NULL, now, &tgt->plan, &out->run,
					    reason);
	if (r == 0 && src) {
		r = probe_plan_prepare_source(c, s, &src->row, src->own_probes, &src->g, &src->plan,
					      reason);
		tgt->plan.source = &src->plan;
		out->run.source_device_id = src->row.id;
	}
	if (r < 0) {
		fprintf(stderr, "nvmond: probe refused: %s\n",
			r == -EIO || r == -EBUSY ? store_strerror(s) : reason);
		if (ser->of && ser->series_id)
			cli_record_skip(s, &tgt->row, ser, preset, now,
					r == -EIO || r == -EBUSY ? store_strerror(s) : reason);
	}
	return r;
}

/*
 * The run on record, run, stored and reported; the locks let go of once its
 * result is stored. Return: the exit status: 0 done (or stopped at a cliff), 1.
 */
static int cli_run(const struct cfg *c, struct dev_backend *b, struct store *s, bool json,
		   struct cli_series *ser, struct cli_drive *tgt, struct cli_drive *src,
		   struct probe_outcome *out)
{
	int r = cli_insert_run(s, ser, out);

	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", store_strerror(s));
		return 1;
	}
	ser->ret_run_id = out->run.id;
	ser->ret_device_id = tgt->row.id;
	probe_rated_for(c, tgt->row.model, tgt->row.serial, &ser->ret_rated);
	cli_execute(b, s, &tgt->plan, src ? &src->plan : NULL, out);
	r = probe_outcome_save(s, out);
	if (r < 0) {
		fprintf(stderr, "nvmond: cannot store the result: %s\n", store_strerror(s));
		return 1;
	}
	probe_lock_release(tgt->lock_fd);
	probe_lock_release(src ? src->lock_fd : -1);
	tgt->lock_fd = -1;
	if (src)
		src->lock_fd = -1;
	snprintf(ser->ret_state, sizeof(ser->ret_state), "%s", out->run.state);
	r = cli_report(s, ser, out, json);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", strerror(-r));
		return 1;
	}
	return strcmp(out->run.state, "done") == 0 || strcmp(out->run.state, "stopped") == 0 ? 0
											     : 1;
}

/* SIGINT, SIGTERM, SIGHUP: stop writing, store what was done, let go of the drive. */

int probe_cli_one(const struct cfg *c, struct dev_backend *b, const char *device, const char *to,
		  const char *preset, bool json, struct cli_series *ser)
{
	enum probe_preset_id pid;
	struct store *s = NULL;
	char err[STORE_ERR_MAX];
	struct probe_outcome out = {0};
	struct cli_drive tgt = {.lock_fd = -1}, src = {.lock_fd = -1};
	int64_t now = timefmt_now_ms();
	int status, r;
	struct sigaction old[PROBE_CLI_NSIG];

	status = cli_check_args(preset, to, &pid);
	if (status)
		return status;
	r = store_open(c->database, &s, err);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", err);
		return 1;
	}
	status = cli_drives(b, s, device, to, now, &tgt, &src);
	if (status == 0) {
		probe_cli_signals_catch(old);
		status = 1;
		if (cli_prepare(c, s, pid, preset, now, json, ser, &tgt, to ? &src : NULL, &out) ==
		    0)
			status = cli_run(c, b, s, json, ser, &tgt, to ? &src : NULL, &out);
		probe_lock_release(tgt.lock_fd);
		probe_lock_release(src.lock_fd);
		probe_cli_signals_restore(old);
	}
	probe_outcome_clear(&out);
	store_close(s);
	return status;
}

int probe_cli(const struct cfg *c, struct dev_backend *b, const char *device, const char *preset,
	      bool json)
{
	struct cli_series ser = {.print = true};

	return probe_cli_one(c, b, device, NULL, preset, json, &ser);
}

int probe_cli_copyto(const struct cfg *c, struct dev_backend *b, const char *from, const char *to,
		     const char *preset, bool json)
{
	struct cli_series ser = {.print = true};

	return probe_cli_one(c, b, from, to, preset, json, &ser);
}
