/* SPDX-License-Identifier: MIT */
/*
 * One probe run: target, phases, safety checks while it runs, analysis, and
 * its stored form. See probe_run.h. Never logs: the outcome carries the reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nvmond/probe_run.h"
#include "nvmond/probe_safety.h"
#include "nvmond/store.h"
#include "nvmond/timefmt.h"

#define MiB (1ull << 20)

struct exec_ctx {
	const struct probe_plan *plan;
	const struct probe_hooks *h;
	struct probe_outcome *out;
	size_t phase;
	int64_t phase_offset_ms; /* phase start since the run started */
	int64_t next_smart_ms;	 /* run time of the next SMART sample */
	size_t thermal_cap;
	bool sustained;
	struct cliff_point *cp; /* sustained-write: the series as cliff points */
	size_t cp_cap;
	/* foreground I/O: the block device under the target */
	bool watch_disk;
	char disk[64];
	struct probe_diskstat ds;
	uint64_t ds_probe_bytes; /* the probe's bytes when ds was read */
	int64_t next_ds_ms;
	uint64_t phase_bytes; /* this phase's bytes so far */
	char reason[PROBE_REASON_MAX];
};

static void set_reason(struct exec_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_reason(struct exec_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->reason, sizeof(x->reason), fmt, ap);
	va_end(ap);
}

static uint64_t run_bytes_so_far(const struct exec_ctx *x)
{
	uint64_t b = x->phase_bytes;

	for (size_t k = 0; k < x->phase; k++)
		b += x->out->res[k].rd.bytes + x->out->res[k].wr.bytes;
	return b;
}

/* One SMART sample into the run's record; 1 when the drive reached WCTEMP. */
static int sample_smart(struct exec_ctx *x, int64_t run_ms)
{
	struct probe_outcome *o = x->out;
	struct smart_log s;

	if (!x->h->read_smart || x->h->read_smart(x->h->ctx, o->run.started_ms + run_ms, &s) < 0)
		return 0;
	if (o->n_thermal == x->thermal_cap) {
		size_t cap = x->thermal_cap ? 2 * x->thermal_cap : 64;
		struct cliff_thermal *v = realloc(o->thermal, cap * sizeof(*v));
		if (!v)
			return 0;
		o->thermal = v;
		x->thermal_cap = cap;
	}
	o->thermal[o->n_thermal++] = (struct cliff_thermal){
		.t_ms = run_ms,
		.temp_k = s.temperature_k,
		.t1_count = s.thm_temp1_trans_count,
		.t2_count = s.thm_temp2_trans_count,
		.t1_time_s = s.thm_temp1_total_time,
		.t2_time_s = s.thm_temp2_total_time,
		.warning_temp_time_min = s.warning_temp_time,
	};
	return probe_abort_check(0, 0, s.temperature_k, x->plan->wctemp_k, x->reason);
}

static int on_tick(void *ctx, const struct probe_point *v, size_t n)
{
	struct exec_ctx *x = ctx;
	int64_t run_ms = x->phase_offset_ms + v[n - 1].t_ms;

	x->phase_bytes += v[n - 1].rd_bytes + v[n - 1].wr_bytes;
	if (x->h->progress)
		x->h->progress(x->h->ctx, x->phase, v, n);
	if (x->h->cancelled && x->h->cancelled(x->h->ctx)) {
		set_reason(x, "cancelled");
		return 2;
	}
	if (run_ms >= x->next_smart_ms) {
		x->next_smart_ms = run_ms + 1000;
		if (sample_smart(x, run_ms))
			return 2;
	}
	if (x->watch_disk && run_ms >= x->next_ds_ms) {
		struct probe_diskstat now;
		uint64_t probe = run_bytes_so_far(x);
		if (probe_diskstat_read(x->plan->sysfs, x->disk, &now) == 0) {
			if (probe_abort_check(now.sectors - x->ds.sectors,
					      (probe - x->ds_probe_bytes) / 512, 0, 0, x->reason))
				return 2;
			x->ds = now;
			x->ds_probe_bytes = probe;
		}
		x->next_ds_ms = run_ms + 1000;
	}
	if (x->sustained) {
		if (n > x->cp_cap) {
			size_t cap = n * 2;
			struct cliff_point *cp = realloc(x->cp, cap * sizeof(*cp));
			if (!cp)
				return 0;
			x->cp = cp;
			x->cp_cap = cap;
		}
		for (size_t i = 0; i < n; i++)
			x->cp[i] = (struct cliff_point){.t_ms = v[i].t_ms, .bytes = v[i].wr_bytes};
		if (cliff_sustained(x->cp, n, NULL, NULL))
			return 1;
	}
	return 0;
}

static const char *op_name(enum probe_op op)
{
	return op == PROBE_OP_READ ? "read" : op == PROBE_OP_WRITE ? "write" : "copy";
}

static const char *stop_name(enum probe_stop s)
{
	return s == PROBE_STOP_DONE ? "done" : s == PROBE_STOP_EARLY ? "early" : "aborted";
}

/* The block device under @fd's filesystem, or @fd itself when it is one. */
static bool disk_of_fd(const char *sysfs, int fd, char *ret, size_t len)
{
	char link[PATH_MAX], real[PATH_MAX];
	struct stat st;
	dev_t d;

	if (fstat(fd, &st) < 0)
		return false;
	d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs, major(d), minor(d));
	if (!realpath(link, real))
		return false;
	snprintf(ret, len, "%s", strrchr(real, '/') + 1);
	return true;
}

/* Open the target: probe file, or raw namespace. @ret_writable: writes allowed. */
static int open_target(const struct probe_plan *p, struct probe_outcome *o, int *ret_fd,
		       uint64_t *ret_area, bool *ret_writable)
{
	char why[PROBE_REASON_MAX];
	int fd, r;

	if (p->probe_dir[0]) {
		uint64_t laid = 0;
		struct stat st;
		char path[sizeof(p->probe_dir) + 32];
		snprintf(path, sizeof(path), "%s/%s", p->probe_dir, PROBE_FILE_NAME);
		bool exists = lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			      (uint64_t)st.st_size == p->file_size;
		snprintf(o->run.target, sizeof(o->run.target), "%s", path);
		if (!exists && p->allowed_write < p->file_size) {
			snprintf(o->run.reason, sizeof(o->run.reason),
				 "making the %" PRIu64 " MB probe file needs more write budget "
				 "than is left (%" PRIu64 " MB)",
				 p->file_size / 1000000, p->allowed_write / 1000000);
			return -EDQUOT;
		}
		r = probe_file_open(p->sysfs, p->probe_dir, p->ctrl, p->file_size, &fd, &laid, why);
		if (r < 0) {
			snprintf(o->run.reason, sizeof(o->run.reason), "%s", why);
			return r;
		}
		o->run.bytes_written += laid;
		*ret_fd = fd;
		*ret_area = p->file_size;
		*ret_writable = true;
		return 0;
	}
	/* The raw namespace: read-only unless destructive and unused. */
	struct probe_raw_facts f;
	char dev[128];
	snprintf(dev, sizeof(dev), "/dev/%s", p->raw_ns);
	snprintf(o->run.target, sizeof(o->run.target), "%s", dev);
	if (!p->raw_ns[0]) {
		snprintf(o->run.reason, sizeof(o->run.reason),
			 "no probe_dir configured and no namespace to read");
		return -ENOENT;
	}
	r = probe_raw_facts_read(p->sysfs, p->mountinfo, p->raw_ns, &f);
	if (r < 0) {
		snprintf(o->run.reason, sizeof(o->run.reason), "%s: %s", dev, strerror(-r));
		return r;
	}
	bool writable = probe_raw_verdict(&f, p->raw_ns, true, p->destructive, why) == 0;
	fd = open(dev, (writable ? O_RDWR : O_RDONLY) | O_DIRECT | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		r = -errno;
		snprintf(o->run.reason, sizeof(o->run.reason), "%s: %s", dev, strerror(-r));
		return r;
	}
	off_t size = lseek(fd, 0, SEEK_END);
	if (size < (off_t)MiB) {
		close(fd);
		snprintf(o->run.reason, sizeof(o->run.reason), "%s: too small", dev);
		return -EINVAL;
	}
	*ret_fd = fd;
	*ret_area = (uint64_t)size < p->file_size ? (uint64_t)size / MiB * MiB : p->file_size;
	*ret_writable = writable;
	if (!writable)
		snprintf(o->run.reason, sizeof(o->run.reason), "%s", why);
	return 0;
}

static void analyse(struct probe_outcome *o, size_t k)
{
	const struct probe_result *res = &o->res[k];
	struct cliff_point *cp = calloc(res->n_series ? res->n_series : 1, sizeof(*cp));
	bool writes = res->wr.bytes > 0;

	o->n_ev[k] = 0;
	if (!cp)
		return;
	for (size_t i = 0; i < res->n_series; i++)
		cp[i] = (struct cliff_point){
			.t_ms = res->series[i].t_ms,
			.bytes = writes ? res->series[i].wr_bytes : res->series[i].rd_bytes,
		};
	/* Thermal samples in the phase's own time. */
	struct cliff_thermal *th = calloc(o->n_thermal ? o->n_thermal : 1, sizeof(*th));
	if (th) {
		for (size_t i = 0; i < o->n_thermal; i++) {
			th[i] = o->thermal[i];
			th[i].t_ms -= o->phase[k].offset_ms;
		}
		(void)cliff_analyze(cp, res->n_series, th, o->n_thermal, NULL, o->ev[k],
				    CLIFF_MAX_EVENTS, &o->n_ev[k]);
	}
	free(th);
	free(cp);
}

int probe_execute(const struct probe_plan *plan, const struct probe_hooks *h,
		  struct probe_demo_state *demo, struct probe_outcome *out)
{
	const struct probe_preset *pre = probe_preset_get(plan->preset);
	struct exec_ctx x = {.plan = plan, .h = h, .out = out};
	uint64_t area = plan->file_size;
	bool writable = true;
	int fd = -1, r;

	out->n_phases = 0;
	out->thermal = NULL;
	out->n_thermal = 0;
	out->run.bytes_written = 0;
	out->run.bytes_read = 0;
	out->run.reason[0] = '\0';
	snprintf(out->run.state, sizeof(out->run.state), "failed");
	if (!pre) {
		snprintf(out->run.reason, sizeof(out->run.reason), "unknown preset");
		goto done;
	}
	if (plan->demo_index >= 0) {
		snprintf(out->run.target, sizeof(out->run.target), "demo:%d", plan->demo_index);
		snprintf(out->run.engine, sizeof(out->run.engine), "demo");
	} else {
		r = open_target(plan, out, &fd, &area, &writable);
		if (r < 0)
			goto done;
		x.watch_disk = disk_of_fd(plan->sysfs, fd, x.disk, sizeof(x.disk)) &&
			       probe_diskstat_read(plan->sysfs, x.disk, &x.ds) == 0;
	}
	(void)sample_smart(&x, 0);
	x.next_smart_ms = 1000;
	x.next_ds_ms = 1000;

	bool aborted = false, stopped = false, skipped_writes = false;
	int64_t offset = 0;
	for (size_t k = 0; k < pre->n_phases && !aborted; k++) {
		struct probe_job j;
		uint64_t left = plan->allowed_write > out->run.bytes_written
					? plan->allowed_write - out->run.bytes_written
					: 0;
		uint64_t max_write = left / MiB * MiB;
		probe_preset_job(pre, k, area, plan->phase_ms, max_write, &j);
		if (j.op != PROBE_OP_READ && (!writable || max_write < j.block_size)) {
			if (pre->n_phases > 1) {
				skipped_writes = true;
				continue;
			}
			if (!out->run.reason[0])
				snprintf(out->run.reason, sizeof(out->run.reason),
					 "no write budget left");
			goto done;
		}
		x.phase = out->n_phases;
		x.phase_offset_ms = offset;
		x.phase_bytes = 0;
		x.sustained = pre->sustained;
		struct probe_result *res = &out->res[x.phase];
		if (plan->demo_index >= 0)
			r = probe_demo_run(plan->demo_index, demo, &j, out->run.started_ms + offset,
					   true, on_tick, &x, res);
		else
			r = probe_engine_run(fd, &j, on_tick, &x, res);
		if (r < 0) {
			snprintf(out->run.reason, sizeof(out->run.reason), "%s phase: %s",
				 pre->phase[k].name, strerror(-r));
			goto done;
		}
		struct probe_phase_row *ph = &out->phase[x.phase];
		*ph = (struct probe_phase_row){
			.phase = x.phase,
			.random = j.random,
			.block_size = j.block_size,
			.depth = j.depth,
			.elapsed_ms = res->elapsed_ns / 1000000,
			.offset_ms = offset,
			.interval_ms = j.interval_ms,
			.rd = res->rd,
			.wr = res->wr,
			.cpu_user_us = res->cpu_user_us,
			.cpu_sys_us = res->cpu_sys_us,
		};
		snprintf(ph->name, sizeof(ph->name), "%s", pre->phase[k].name);
		snprintf(ph->op, sizeof(ph->op), "%s", op_name(j.op));
		snprintf(ph->stop, sizeof(ph->stop), "%s", stop_name(res->stop));
		if (plan->demo_index < 0)
			snprintf(out->run.engine, sizeof(out->run.engine), "%s", res->engine);
		out->run.bytes_written += res->wr.bytes;
		out->run.bytes_read += res->rd.bytes;
		out->n_phases++;
		offset += ph->elapsed_ms;
		aborted = res->stop == PROBE_STOP_ABORTED;
		stopped = res->stop == PROBE_STOP_EARLY;
	}
	for (size_t k = 0; k < out->n_phases; k++)
		analyse(out, k);
	if (aborted) {
		snprintf(out->run.state, sizeof(out->run.state), "aborted");
		snprintf(out->run.reason, sizeof(out->run.reason), "%s", x.reason);
	} else {
		snprintf(out->run.state, sizeof(out->run.state), stopped ? "stopped" : "done");
		if (stopped)
			snprintf(out->run.reason, sizeof(out->run.reason),
				 "the write rate fell and stayed down");
		else if (skipped_writes && !out->run.reason[0])
			snprintf(out->run.reason, sizeof(out->run.reason),
				 "write phase skipped: no write budget left");
		else if (skipped_writes)
			strncat(out->run.reason, " (write phase skipped)",
				sizeof(out->run.reason) - strlen(out->run.reason) - 1);
	}
done:
	if (fd >= 0)
		close(fd);
	free(x.cp);
	return 0;
}

void probe_outcome_clear(struct probe_outcome *o)
{
	for (size_t k = 0; k < o->n_phases; k++)
		probe_result_clear(&o->res[k]);
	o->n_phases = 0;
	free(o->thermal);
	o->thermal = NULL;
	o->n_thermal = 0;
}

int probe_outcome_save(struct store *s, const struct probe_outcome *o)
{
	int r;

	for (size_t k = 0; k < o->n_phases; k++) {
		r = store_probe_phase_insert(s, o->run.id, &o->phase[k], o->res[k].series,
					     o->res[k].n_series, o->ev[k], o->n_ev[k]);
		if (r < 0)
			return r;
	}
	r = store_probe_thermal_insert(s, o->run.id, o->thermal, o->n_thermal);
	if (r < 0)
		return r;
	return store_probe_run_update(s, &o->run);
}

/* ---- JSON ---- */

static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v);
}

static json_t *time_json(int64_t ms)
{
	char buf[TIMEFMT_MAX];

	return ms ? json_string(timefmt_rfc3339(ms, buf)) : json_null();
}

json_t *probe_run_json(const struct probe_run_row *r)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	int e = set(o, "id", json_integer(r->id)) |
		set(o, "device_id", json_integer(r->device_id)) |
		set(o, "preset", json_string(r->preset)) |
		set(o, "trigger", json_string(r->trigger)) |
		set(o, "state", json_string(r->state)) | set(o, "reason", json_string(r->reason)) |
		set(o, "target", json_string(r->target)) |
		set(o, "engine", json_string(r->engine)) |
		set(o, "started", time_json(r->started_ms)) |
		set(o, "started_ms", json_integer(r->started_ms)) |
		set(o, "ended", time_json(r->ended_ms)) |
		set(o, "bytes_written", json_integer((json_int_t)r->bytes_written)) |
		set(o, "bytes_read", json_integer((json_int_t)r->bytes_read));
	if (e) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *dir_json(const struct probe_dir_stats *d, int64_t elapsed_ms)
{
	double secs = elapsed_ms > 0 ? (double)elapsed_ms / 1000.0 : 1;

	return json_pack("{s:I, s:I, s:f, s:f, s:{s:I, s:I, s:I}}", "bytes", (json_int_t)d->bytes,
			 "ios", (json_int_t)d->ios, "mb_per_s", (double)d->bytes / secs / 1e6,
			 "iops", (double)d->ios / secs, "latency_ns", "p50",
			 (json_int_t)d->lat_p50_ns, "p99", (json_int_t)d->lat_p99_ns, "p99_9",
			 (json_int_t)d->lat_p999_ns);
}

static json_t *event_json(const struct cliff_event *e)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:f, s:f, s:f, s:b}", "kind",
			 cliff_kind_name(e->kind), "cause", cliff_cause_name(e->cause), "start_ms",
			 (json_int_t)e->start_ms, "end_ms", (json_int_t)e->end_ms, "bytes_before",
			 (json_int_t)e->bytes_before, "mb_per_s_before", e->rate_before / 1e6,
			 "mb_per_s_during", e->rate_during / 1e6, "mb_per_s_after",
			 e->rate_after / 1e6, "recovered", e->recovered);
}

int probe_run_detail_json(struct store *s, int64_t id, bool with_series, json_t **ret)
{
	struct probe_run_row run;
	struct probe_phase_row *ph = NULL;
	struct probe_event_row *ev = NULL;
	struct cliff_thermal *th = NULL;
	size_t n_ph = 0, n_ev = 0, n_th = 0;
	json_t *o = NULL, *phases;
	int r;

	r = store_probe_run_get(s, id, &run);
	if (r < 0)
		return r;
	r = store_probe_phases_get(s, id, &ph, &n_ph);
	if (r < 0)
		goto out;
	r = store_probe_events_get(s, id, &ev, &n_ev);
	if (r < 0)
		goto out;
	if (with_series) {
		r = store_probe_thermal_get(s, id, &th, &n_th);
		if (r < 0)
			goto out;
	}
	r = -ENOMEM;
	o = probe_run_json(&run);
	phases = json_array();
	if (!o || !phases || set(o, "phases", phases) < 0)
		goto out;
	const struct probe_preset *pre = probe_preset_find(run.preset, NULL);
	if (pre && set(o, "label", json_string(pre->label)) < 0)
		goto out;
	for (size_t k = 0; k < n_ph; k++) {
		json_t *p = json_pack(
			"{s:I, s:s, s:s, s:b, s:I, s:I, s:s, s:I, s:I, s:I, s:o, s:o, "
			"s:{s:I, s:I}, s:[]}",
			"phase", (json_int_t)ph[k].phase, "name", ph[k].name, "op", ph[k].op,
			"random", ph[k].random, "block_size", (json_int_t)ph[k].block_size, "depth",
			(json_int_t)ph[k].depth, "stop", ph[k].stop, "elapsed_ms",
			(json_int_t)ph[k].elapsed_ms, "offset_ms", (json_int_t)ph[k].offset_ms,
			"interval_ms", (json_int_t)ph[k].interval_ms, "read",
			dir_json(&ph[k].rd, ph[k].elapsed_ms), "write",
			dir_json(&ph[k].wr, ph[k].elapsed_ms), "cpu", "user_us",
			(json_int_t)ph[k].cpu_user_us, "sys_us", (json_int_t)ph[k].cpu_sys_us,
			"events");
		if (!p || json_array_append_new(phases, p) < 0)
			goto out;
		json_t *evs = json_object_get(p, "events");
		for (size_t i = 0; i < n_ev; i++)
			if (ev[i].phase == ph[k].phase &&
			    json_array_append_new(evs, event_json(&ev[i].ev)) < 0)
				goto out;
		if (!with_series)
			continue;
		struct probe_point *v = NULL;
		size_t n = 0;
		r = store_probe_series_get(s, id, ph[k].phase, &v, &n);
		if (r < 0)
			goto out;
		r = -ENOMEM;
		json_t *series = json_array();
		if (!series || set(p, "series", series) < 0) {
			free(v);
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			json_t *pt =
				json_pack("[I, I, I]", (json_int_t)v[i].t_ms,
					  (json_int_t)v[i].rd_bytes, (json_int_t)v[i].wr_bytes);
			if (!pt || json_array_append_new(series, pt) < 0) {
				free(v);
				goto out;
			}
		}
		free(v);
	}
	if (with_series) {
		json_t *smart = json_array();
		if (!smart || set(o, "smart", smart) < 0)
			goto out;
		for (size_t i = 0; i < n_th; i++) {
			json_t *t =
				json_pack("{s:I, s:i, s:I, s:I, s:I, s:I, s:I}", "t_ms",
					  (json_int_t)th[i].t_ms, "temp_k", th[i].temp_k,
					  "tmt1_count", (json_int_t)th[i].t1_count, "tmt2_count",
					  (json_int_t)th[i].t2_count, "tmt1_time_s",
					  (json_int_t)th[i].t1_time_s, "tmt2_time_s",
					  (json_int_t)th[i].t2_time_s, "warning_temp_time_min",
					  (json_int_t)th[i].warning_temp_time_min);
			if (!t || json_array_append_new(smart, t) < 0)
				goto out;
		}
	}
	*ret = o;
	o = NULL;
	r = 0;
out:
	json_decref(o);
	free(ph);
	free(ev);
	free(th);
	return r;
}

static double jnum(const json_t *o, const char *path1, const char *path2)
{
	const json_t *v = json_object_get(o, path1);

	if (path2)
		v = json_object_get(v, path2);
	return json_number_value(v);
}

void probe_print_table(FILE *out, const json_t *d)
{
	const json_t *phases = json_object_get(d, "phases"), *p;
	size_t k;

	fprintf(out, "probe %lld  %s (%s) on %s  engine %s  %s\n",
		(long long)json_integer_value(json_object_get(d, "id")),
		json_string_value(json_object_get(d, "preset")),
		json_string_value(json_object_get(d, "label")) ?: "",
		json_string_value(json_object_get(d, "target")),
		json_string_value(json_object_get(d, "engine")),
		json_string_value(json_object_get(d, "state")));
	const char *reason = json_string_value(json_object_get(d, "reason"));
	if (reason && reason[0])
		fprintf(out, "  %s\n", reason);
	fprintf(out, "%-6s %-5s %10s %10s %10s %10s %10s %8s\n", "phase", "dir", "MB/s", "IOPS",
		"p50 µs", "p99 µs", "p99.9 µs", "CPU s");
	json_array_foreach(phases, k, p)
	{
		const char *dirs[2] = {"read", "write"};
		double cpu = (jnum(p, "cpu", "user_us") + jnum(p, "cpu", "sys_us")) / 1e6;
		for (int i = 0; i < 2; i++) {
			const json_t *dj = json_object_get(p, dirs[i]);
			if (json_integer_value(json_object_get(dj, "bytes")) == 0)
				continue;
			const json_t *lat = json_object_get(dj, "latency_ns");
			fprintf(out, "%-6s %-5s %10.1f %10.0f %10.1f %10.1f %10.1f %8.2f\n",
				json_string_value(json_object_get(p, "name")), dirs[i],
				jnum(dj, "mb_per_s", NULL), jnum(dj, "iops", NULL),
				(double)json_integer_value(json_object_get(lat, "p50")) / 1e3,
				(double)json_integer_value(json_object_get(lat, "p99")) / 1e3,
				(double)json_integer_value(json_object_get(lat, "p99_9")) / 1e3,
				cpu);
		}
		const json_t *evs = json_object_get(p, "events"), *e;
		size_t i;
		json_array_foreach(evs, i, e)
		{
			fprintf(out, "  %s (%s) at %.1f s after %.1f GB: %.0f → %.0f MB/s%s\n",
				json_string_value(json_object_get(e, "kind")),
				json_string_value(json_object_get(e, "cause")),
				(double)json_integer_value(json_object_get(e, "start_ms")) / 1e3,
				(double)json_integer_value(json_object_get(e, "bytes_before")) /
					1e9,
				jnum(e, "mb_per_s_before", NULL), jnum(e, "mb_per_s_during", NULL),
				json_is_true(json_object_get(e, "recovered")) ? ", recovered" : "");
		}
	}
	fprintf(out, "written by the probe: %.1f MB\n",
		(double)json_integer_value(json_object_get(d, "bytes_written")) / 1e6);
}
