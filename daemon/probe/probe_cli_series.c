/* SPDX-License-Identifier: MIT */
/*
 * `nvmond probe --repeat N` and `--preset cache-recovery`: a series of runs,
 * each one run of probe_cli.c's, with the idle time between them; then the
 * series' summary or the study's verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "nvmond/probe/probe_series.h"
#include "nvmond/probe/probe_study.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/util/timefmt.h"

#include "probe_cli_internal.h"

/* Idle for @ms, or until a signal. Return: false when interrupted. */
static bool cli_cooldown(int64_t ms)
{
	int64_t end = timefmt_mono_ms() + ms;

	while (!probe_cli_interrupted() && timefmt_mono_ms() < end) {
		int64_t left = end - timefmt_mono_ms();
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (left < 100 ? left : 100) * 1000000L};
		nanosleep(&ts, NULL);
	}
	return !probe_cli_interrupted();
}

/* The end of a series the CLI ran, read back: the summary's detail. */
static int cli_series_detail(const struct cfg *c, struct cli_series *ser, json_t **ret)
{
	struct store *s = NULL;
	char err[STORE_ERR_MAX];
	struct probe_run_row *runs = NULL;
	size_t n = 0;
	int r = store_open(c->database, &s, err);

	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", err);
		return r;
	}
	r = store_probe_series_runs(s, ser->series_id, &runs, &n);
	if (r == 0 && !n)
		r = -ENOENT;
	if (r == 0)
		r = probe_run_detail_json(s, runs[n - 1].id, false, ret);
	if (r == 0)
		r = probe_series_json_add(s, &ser->ret_rated, *ret);
	if (r < 0)
		fprintf(stderr, "nvmond: cannot read the series back: %s\n", store_strerror(s));
	free(runs);
	store_close(s);
	return r;
}

/*
 * The end of a series the CLI ran: the command's exit status, @status (1 when no
 * run was recorded); the series read back and printed as JSON, or by @text.
 */
static int cli_series_end(const struct cfg *c, struct cli_series *ser, int status, bool json,
			  void (*text)(const json_t *detail))
{
	json_t *detail = NULL;

	if (!ser->series_id || !ser->ret_device_id)
		return status ? status : 1;
	if (cli_series_detail(c, ser, &detail) < 0)
		return 1;
	if (json) {
		json_dumpf(detail, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		text(detail);
	}
	json_decref(detail);
	return status;
}

/* A study's end in words: its verdict, or its state while it has none. */
static void study_text(const json_t *detail)
{
	const json_t *rec = json_object_get(detail, "recovery");
	const char *v = json_string_value(json_object_get(rec, "verdict"));

	fprintf(stdout, "%s\n", v ? v : json_string_value(json_object_get(rec, "state")));
}

/* A series' summary in words: the series as its last run sees it, and the data sheet's note. */
static void repeat_text(const json_t *detail)
{
	const char *note =
		json_string_value(json_object_get(json_object_get(detail, "spec"), "message"));

	probe_print_series(stdout, detail);
	if (note)
		fprintf(stdout, "note: %s\n", note);
}

/* A run the CLI's series did not run (a signal while it waited), on record. */
static void cli_skip_record(const struct cfg *c, const struct cli_series *ser, const char *preset,
			    uint32_t index, const char *reason)
{
	struct store *s = NULL;
	char err[STORE_ERR_MAX];
	int64_t now = timefmt_now_ms(), id;
	struct probe_run_row skip = {.device_id = ser->ret_device_id,
				     .started_ms = now,
				     .ended_ms = now,
				     .series_id = ser->series_id,
				     .series_index = index,
				     .series_of = ser->of};

	snprintf(skip.preset, sizeof(skip.preset), "%s", preset);
	snprintf(skip.trigger, sizeof(skip.trigger), "cli");
	snprintf(skip.state, sizeof(skip.state), "skipped");
	snprintf(skip.reason, sizeof(skip.reason), "%s", reason);
	if (store_open(c->database, &s, err) == 0)
		(void)store_probe_run_insert(s, &skip, &id);
	store_close(s);
}

/*
 * `nvmond probe --preset cache-recovery`: the study's schedule, its fill, then
 * a burst at each idle interval after the cliff, a line each as it comes, until
 * one runs as fast as before the cliff; then the verdict. A signal while it
 * waits ends it, the burst that would have come recorded as skipped.
 */
static int cli_study(const struct cfg *c, struct dev_backend *b, const char *device,
		     const char *preset, bool json)
{
	struct probe_study study = {0};
	struct cli_series ser = {.of = 1, .study = &study};
	struct sigaction old[PROBE_CLI_NSIG];
	int status = 0;

	probe_cli_signals_catch(old);
	for (uint32_t i = 1; i <= ser.of; i++) {
		ser.index = i;
		ser.ret_run_id = 0;
		status = probe_cli_one(c, b, device, NULL, preset, json, &ser);
		if (i == 1 && ser.ret_run_id)
			ser.series_id = ser.ret_run_id;
		if (status != 0 || !ser.series_id || ser.ret_over || i == ser.of)
			break;
		int64_t due = study.cliff_ms + study.interval_ms[i - 1];
		int64_t wait = due - timefmt_now_ms();
		if (!cli_cooldown(wait > 0 ? wait : 0)) {
			cli_skip_record(c, &ser, preset, i + 1,
					"interrupted (a signal) while idle");
			if (!json)
				fprintf(stdout, "interrupted: the study ends\n");
			status = 1;
			break;
		}
	}
	probe_cli_signals_restore(old);
	return cli_series_end(c, &ser, status, json, study_text);
}

int probe_cli_repeat(const struct cfg *c, struct dev_backend *b, const char *device,
		     const char *preset, bool json, uint32_t repeat, int64_t cooldown_ms)
{
	struct cli_series ser = {.of = repeat};
	struct sigaction old[PROBE_CLI_NSIG];
	const struct probe_preset *pre = probe_preset_find(preset, NULL);
	int status = 0;

	if (pre && pre->study) {
		if (repeat > 1) {
			fprintf(stderr,
				"nvmond: %s is a study: its runs follow [probes] "
				"recovery_intervals, not --repeat\n",
				preset);
			return 2;
		}
		return cli_study(c, b, device, preset, json);
	}
	if (repeat <= 1)
		return probe_cli(c, b, device, preset, json);
	if (repeat > PROBE_REPEAT_MAX) {
		fprintf(stderr, "nvmond: --repeat: 1 … %d\n", PROBE_REPEAT_MAX);
		return 2;
	}
	/* A signal during a cooldown ends the series as one during a run does. */
	probe_cli_signals_catch(old);
	for (uint32_t i = 1; i <= repeat; i++) {
		ser.index = i;
		ser.ret_run_id = 0;
		ser.ret_state[0] = '\0';
		status = probe_cli_one(c, b, device, NULL, preset, json, &ser);
		if (i == 1 && ser.ret_run_id)
			ser.series_id = ser.ret_run_id;
		if (status != 0 || !ser.series_id)
			break;
		if (i < repeat && !cli_cooldown(cooldown_ms)) {
			cli_skip_record(c, &ser, preset, i + 1,
					"interrupted (a signal) during the cooldown");
			status = 1;
			break;
		}
	}
	probe_cli_signals_restore(old);
	return cli_series_end(c, &ser, status, json, repeat_text);
}
