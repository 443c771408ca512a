/* SPDX-License-Identifier: MIT */
/* `nvmond status`: read every controller once, without the daemon or a database. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "nvmond/render.h"
#include "nvmond/status.h"
#include "nvmond/timefmt.h"

int status_collect(struct dev_backend *b, int64_t now_ms, json_t **ret, char *err, size_t errlen)
{
	struct dev_info *v = NULL;
	size_t n = 0;
	int r;

	r = dev_scan(b, now_ms, &v, &n);
	if (r < 0) {
		snprintf(err, errlen, "scanning for NVMe controllers failed: %s", strerror(-r));
		return r;
	}
	json_t *devices = json_array();
	if (!devices) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct fleet_device fd = {0};
		uint8_t page[SMART_LOG_SIZE];

		/* Same identity fields as the daemon; no store, so no id. */
		struct device_row *row = &fd.row;
		dev_key(&v[i].id, row->key, sizeof(row->key));
		snprintf(row->model, sizeof(row->model), "%s", v[i].id.model);
		snprintf(row->serial, sizeof(row->serial), "%s", v[i].id.serial);
		snprintf(row->firmware, sizeof(row->firmware), "%s", v[i].id.firmware);
		snprintf(row->name, sizeof(row->name), "%s", v[i].name);
		row->wctemp_k = v[i].id.wctemp_k;
		row->cctemp_k = v[i].id.cctemp_k;
		row->capacity_bytes = v[i].id.tnvmcap;
		row->first_seen_ms = row->last_seen_ms = now_ms;
		row->online = 1;
		json_t *ns = json_array();
		for (size_t k = 0; ns && k < v[i].n_ns; k++)
			json_array_append_new(
				ns, json_pack("{s:I, s:s, s:I, s:I}", "nsid",
					      (json_int_t)v[i].ns[k].nsid, "name", v[i].ns[k].name,
					      "size_bytes", (json_int_t)v[i].ns[k].size_bytes,
					      "lba_size", (json_int_t)v[i].ns[k].lba_size));
		char *nss = ns ? json_dumps(ns, JSON_COMPACT) : NULL;
		snprintf(row->namespaces, sizeof(row->namespaces), "%s",
			 nss && strlen(nss) < sizeof(row->namespaces) ? nss : "[]");
		free(nss);
		json_decref(ns);

		r = dev_read_smart(b, v[i].name, now_ms, page);
		if (r == 0) {
			fd.has_sample = true;
			fd.last.ts_ms = now_ms;
			smart_decode(page, &fd.last.smart);
		}
		json_t *o = render_fleet_device(&fd);
		if (!o) {
			json_decref(devices);
			free(v);
			return -ENOMEM;
		}
		json_object_del(o, "id");
		json_object_del(o, "first_seen");
		json_object_del(o, "last_seen");
		json_object_set_new(o, "path", json_string(v[i].path));
		if (r < 0)
			json_object_set_new(o, "error", json_string(strerror(-r)));
		json_array_append_new(devices, o);
	}
	free(v);
	*ret = json_pack("{s:o}", "devices", devices);
	return *ret ? 0 : -ENOMEM;
}

static void fmt_temp(const json_t *latest, char *buf, size_t len)
{
	json_t *c = json_object_get(latest, "temperature_c");
	if (json_is_integer(c))
		snprintf(buf, len, "%lld °C", (long long)json_integer_value(c));
	else
		snprintf(buf, len, "-");
}

static void fmt_written(const json_t *latest, char *buf, size_t len)
{
	json_t *b = json_object_get(latest, "data_written_bytes");
	if (json_is_integer(b))
		/* Display only: a rounded TB figure from an exact byte count. */
		snprintf(buf, len, "%.2f TB", (double)json_integer_value(b) / 1e12);
	else if (json_is_string(b))
		snprintf(buf, len, "%s B", json_string_value(b));
	else
		snprintf(buf, len, "-");
}

int status_print_table(FILE *out, const json_t *status)
{
	json_t *devices = json_object_get(status, "devices"), *d;
	size_t i;

	if (json_array_size(devices) == 0) {
		fprintf(out, "no NVMe controllers found\n");
		return 0;
	}
	fprintf(out, "%-8s %-28s %-20s %8s %6s %11s  %s\n", "DEVICE", "MODEL", "SERIAL", "TEMP",
		"USED", "WRITTEN", "WARNINGS");
	json_array_foreach(devices, i, d)
	{
		json_t *latest = json_object_get(d, "latest");
		char temp[32], written[64], used[16], warn[128] = "";
		json_t *bits = json_object_get(latest, "critical_warning_bits"), *bit;
		size_t k;

		fmt_temp(latest, temp, sizeof(temp));
		fmt_written(latest, written, sizeof(written));
		if (json_is_object(latest))
			snprintf(used, sizeof(used), "%lld%%",
				 (long long)json_integer_value(
					 json_object_get(latest, "percent_used")));
		else
			snprintf(used, sizeof(used), "-");
		json_array_foreach(bits, k, bit)
		{
			size_t l = strlen(warn);
			snprintf(warn + l, sizeof(warn) - l, "%s%s", l ? "," : "",
				 json_string_value(bit));
		}
		if (!json_is_object(latest))
			snprintf(warn, sizeof(warn), "read failed: %s",
				 json_string_value(json_object_get(d, "error")));
		else if (!warn[0])
			snprintf(warn, sizeof(warn), "none");
		fprintf(out, "%-8s %-28.28s %-20.20s %8s %6s %11s  %s\n",
			json_string_value(json_object_get(d, "name")),
			json_string_value(json_object_get(d, "model")),
			json_string_value(json_object_get(d, "serial")), temp, used, written, warn);
	}
	return 0;
}
