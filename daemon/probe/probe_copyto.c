/* SPDX-License-Identifier: MIT */
/*
 * A copy-to run's result (issue 13 §5): both rates (the drive read's, the
 * drive written's) and each drive's latest copy-self beside them, as JSON
 * ("copy_to") and as the command's line. See probe_copyto.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/decode/sample.h"
#include "nvmond/probe/probe_copyto.h"
#include "nvmond/store/store.h"

#define LATEST_SCAN 200 /* how far back a drive's runs are searched for its copy-self */

/* 1250 → "1,250". */
static void thousands(double v, char *buf, size_t len)
{
	long long x = llround(v);

	if (x >= 1000)
		snprintf(buf, len, "%lld,%03lld", x / 1000, x % 1000);
	else
		snprintf(buf, len, "%lld", x);
}

/* The read and write MB/s of run @id's first phase (copy-self and copy-to have one). */
static int phase_rates(struct store *s, int64_t id, double *ret_rd, double *ret_wr)
{
	struct probe_phase_row *ph = NULL;
	size_t n = 0;
	int r = store_probe_phases_get(s, id, &ph, &n);

	if (r < 0)
		return r;
	if (n == 0 || ph[0].elapsed_ms <= 0) {
		free(ph);
		return -ENODATA;
	}
	double secs = (double)ph[0].elapsed_ms / 1000.0;
	*ret_rd = (double)ph[0].rd.bytes / secs / 1e6;
	*ret_wr = (double)ph[0].wr.bytes / secs / 1e6;
	free(ph);
	return 0;
}

/*
 * @device_id's latest measured copy-self started before @before_ms: its id and
 * its copy rate (what it wrote, the bytes copied). Return: 0, -ENOENT (none)
 * or negative errno.
 */
static int latest_copy_self(struct store *s, int64_t device_id, int64_t before_ms, int64_t *ret_id,
			    double *ret_mbps)
{
	struct probe_run_row *v = NULL;
	size_t n = 0;
	int r = store_probe_runs_list(s, device_id, LATEST_SCAN, &v, &n);

	if (r < 0)
		return r;
	r = -ENOENT;
	for (size_t i = 0; i < n && r == -ENOENT; i++) {
		double rd, wr;
		if (strcmp(v[i].preset, "copy-self") || v[i].device_id != device_id ||
		    v[i].started_ms > before_ms ||
		    (strcmp(v[i].state, "done") && strcmp(v[i].state, "stopped")))
			continue;
		if (phase_rates(s, v[i].id, &rd, &wr) < 0)
			continue;
		*ret_id = v[i].id;
		*ret_mbps = wr;
		r = 0;
	}
	free(v);
	return r;
}

/* One drive of the copy: its id, name and latest copy-self. */
static json_t *side_json(struct store *s, int64_t device_id, int64_t before_ms, char *name,
			 size_t name_len, double *ret_self)
{
	struct device_row row;
	int64_t self_id = 0;

	*ret_self = 0;
	snprintf(name, name_len, "drive %lld", (long long)device_id);
	if (store_device_get(s, device_id, &row) == 0)
		snprintf(name, name_len, "%s", row.name);
	bool known = latest_copy_self(s, device_id, before_ms, &self_id, ret_self) == 0;
	return json_pack("{s:I, s:s, s:o, s:o}", "device_id", (json_int_t)device_id, "name", name,
			 "copy_self_id", known ? json_integer(self_id) : json_null(),
			 "copy_self_mb_s", known ? json_real(*ret_self) : json_null());
}

int probe_copyto_json_add(struct store *s, const struct probe_run_row *run, json_t *o)
{
	char from[64], to[64], text[320], a[32], b[32], c[32];
	double rd = 0, wr = 0, self_from, self_to;
	int r;

	if (!run->source_device_id)
		return 0;
	r = phase_rates(s, run->id, &rd, &wr);
	if (r < 0 && r != -ENODATA)
		return r;
	json_t *jf = side_json(s, run->source_device_id, run->started_ms, from, sizeof(from),
			       &self_from);
	json_t *jt = side_json(s, run->device_id, run->started_ms, to, sizeof(to), &self_to);
	thousands(wr, a, sizeof(a));
	int len = snprintf(text, sizeof(text), "copy-to %s (from %s): %s MB/s", to, from, a);
	if (self_from > 0 || self_to > 0) {
		/* "1,480 MB/s", or "none" for a drive without a copy-self */
		thousands(self_from, b, sizeof(b));
		thousands(self_to, c, sizeof(c));
		snprintf(text + len, sizeof(text) - (size_t)len,
			 "; copy-self on %s %s%s, on %s %s%s", from, self_from > 0 ? b : "none",
			 self_from > 0 ? " MB/s" : "", to, self_to > 0 ? c : "none",
			 self_to > 0 ? " MB/s" : "");
	}
	json_t *cj = json_pack("{s:f, s:f, s:o*, s:o*, s:s}", "read_mb_s", rd, "write_mb_s", wr,
			       "from", jf, "to", jt, "text", text);
	if (!cj || json_object_set_new(o, "copy_to", cj) < 0)
		return -ENOMEM;
	return 0;
}

void probe_copyto_print(FILE *out, const json_t *d)
{
	const json_t *c = json_object_get(d, "copy_to");

	if (c)
		fprintf(out, "%s\n", json_string_value(json_object_get(c, "text")));
}
