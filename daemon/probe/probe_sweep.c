/* SPDX-License-Identifier: MIT */
/*
 * The transfer-size sweep's points, from its stored phases: as JSON and as the
 * CLI table. See probe_sweep.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/probe/probe_sweep.h"

static json_t *point_json(const struct probe_phase_row *ph, const struct probe_dir_stats *d)
{
	double secs = ph->elapsed_ms > 0 ? (double)ph->elapsed_ms / 1000.0 : 1;

	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:s}", "block_size",
			 (json_int_t)ph->block_size, "mb_s", (double)d->bytes / secs / 1e6, "iops",
			 (double)d->ios / secs, "lat_p50_us", (double)d->lat_p50_ns / 1e3,
			 "lat_p99_us", (double)d->lat_p99_ns / 1e3, "lat_p999_us",
			 (double)d->lat_p999_ns / 1e3, "lat_max_us", (double)d->lat_max_ns / 1e3,
			 "elapsed_ms", (json_int_t)ph->elapsed_ms, "bytes", (json_int_t)d->bytes,
			 "stop", ph->stop);
}

json_t *probe_sweep_json(const struct probe_phase_row *ph, size_t n)
{
	json_t *rd = json_array(), *wr = json_array();
	json_t *o = rd && wr ? json_pack("{s:I, s:o, s:o}", "depth",
					 (json_int_t)(n ? ph[0].depth : 0), "read", rd, "write", wr)
			     : NULL;

	if (!o) {
		json_decref(rd);
		json_decref(wr);
		return NULL;
	}
	/* Phases run reads first, each direction by growing size. */
	for (size_t k = 0; k < n; k++) {
		bool write = strcmp(ph[k].op, "write") == 0;
		json_t *p = point_json(&ph[k], write ? &ph[k].wr : &ph[k].rd);
		if (!p || json_array_append_new(write ? wr : rd, p) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static const json_t *point_at(const json_t *v, json_int_t bs)
{
	size_t i;
	const json_t *p;

	json_array_foreach(v, i, p) if (json_integer_value(json_object_get(p, "block_size")) ==
					bs) return p;
	return NULL;
}

static void size_str(json_int_t bs, char *buf, size_t len)
{
	if (bs >= (1 << 20))
		snprintf(buf, len, "%lld MiB", (long long)(bs >> 20));
	else if (bs >= 1024)
		snprintf(buf, len, "%lld KiB", (long long)(bs >> 10));
	else
		snprintf(buf, len, "%lld B", (long long)bs);
}

void probe_sweep_print(FILE *out, const json_t *sweep)
{
	const json_t *rd = json_object_get(sweep, "read"), *wr = json_object_get(sweep, "write");

	fprintf(out, "transfer-size sweep, queue depth %lld\n",
		(long long)json_integer_value(json_object_get(sweep, "depth")));
	fprintf(out, "%8s %10s %10s %10s %10s %12s %12s\n", "size", "read MB/s", "read IOPS",
		"write MB/s", "write IOPS", "rd p99 µs", "wr p99 µs");
	for (json_int_t bs = 512; bs <= (json_int_t)64 << 20; bs *= 2) {
		const json_t *r = point_at(rd, bs), *w = point_at(wr, bs);
		char size[16];
		if (!r && !w)
			continue;
		size_str(bs, size, sizeof(size));
		fprintf(out, "%8s", size);
		const json_t *pts[2] = {r, w};
		for (int i = 0; i < 2; i++) {
			if (pts[i])
				fprintf(out, " %10.1f %10.0f",
					json_number_value(json_object_get(pts[i], "mb_s")),
					json_number_value(json_object_get(pts[i], "iops")));
			else
				fprintf(out, " %10s %10s", "-", "-");
		}
		for (int i = 0; i < 2; i++) {
			if (pts[i])
				fprintf(out, " %12.1f",
					json_number_value(json_object_get(pts[i], "lat_p99_us")));
			else
				fprintf(out, " %12s", "-");
		}
		fputc('\n', out);
	}
}
