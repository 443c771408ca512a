/* SPDX-License-Identifier: MIT */
/*
 * `nvmond status`: read every controller once, without the daemon; the
 * self-test results stored by the daemon come from its database, when given.
 */
#define _GNU_SOURCE /* strverscmp */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "nvmond/monitor/devrow.h"
#include "nvmond/monitor/fleet_health.h"
#include "nvmond/monitor/temps.h"
#include "nvmond/api/render.h"
#include "nvmond/api/selftest_render.h"
#include "nvmond/api/status.h"
#include "status_drive.h"
#include "nvmond/store/store_alert.h"
#include "nvmond/store/store_selftest.h"
#include "nvmond/util/timefmt.h"

/* nvme2 before nvme10: the order people read device names in. */
static int by_name(const void *a, const void *b)
{
	return strverscmp(((const struct dev_info *)a)->name, ((const struct dev_info *)b)->name);
}

/* The facts a scan found, as the daemon's fleet holds them (no history here). */
static void status_facts(const struct dev_info *info, struct fleet_facts *ret)
{
	struct fw_change ch;

	*ret = (struct fleet_facts){
		.known = true,
		.asleep = info->asleep,
		.hwmon_only = info->access == DEV_ACCESS_SYSFS,
		.link = info->facts.link,
	};
	fwlog_change(NULL, info->id.firmware, info->facts.has_fwlog ? &info->facts.fwlog : NULL,
		     &ch);
	snprintf(ret->firmware, sizeof(ret->firmware), "%s", ch.current);
	snprintf(ret->firmware_pending, sizeof(ret->firmware_pending), "%s", ch.pending);
}

/* One sample's sensors judged as the daemon would (no history: never "stuck"). */
static void judge(struct dev_backend *b, const struct cfg *c, const struct dev_info *info,
		  const struct dev_ident *who, int64_t now_ms, struct fleet_device *fd)
{
	struct sensor_hist hist[SMART_NUM_SENSORS] = {0};
	uint16_t limits[SMART_NUM_SENSORS] = {0};
	uint8_t want = temps_reported(&fd->last.smart);
	struct cfg defaults;

	if (!c) {
		cfg_defaults(&defaults);
		c = &defaults;
	}
	if (want && dev_read_sensor_limits(b, info->name, who, want, limits) < 0)
		memset(limits, 0, sizeof(limits));
	struct temps_drive td = {
		.model = info->id.model,
		.serial = info->id.serial,
		.wctemp_k = info->id.wctemp_k,
		.cctemp_k = info->id.cctemp_k,
		.drive_limit_k = limits,
	};
	temps_judge(c, &td, hist, &fd->last.smart, now_ms, &fd->temps);
}

/*
 * The newest stored result of each type of the device keyed @key, from the
 * database's @rows: {"short": RESULT|null, "extended": RESULT|null}.
 * Return: 0, or negative errno (*ret untouched).
 */
static int stored_last(struct store *s, const struct device_row *rows, size_t n_rows,
		       const char *key, json_t **ret)
{
	static const struct {
		const char *name;
		uint8_t code;
	} types[] = {{"short", SELFTEST_CODE_SHORT}, {"extended", SELFTEST_CODE_EXTENDED}};
	json_t *last = json_object();
	size_t i = 0;

	if (!last)
		return -ENOMEM;
	while (i < n_rows && strcmp(rows[i].key, key) != 0)
		i++;
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		struct store_selftest_row one;
		json_t *v = json_null();
		int r = i < n_rows ? store_selftest_last_of(s, rows[i].id, types[k].code, &one)
				   : -ENOENT;

		if (r == 0)
			v = render_selftest_result(&one.r, one.id, one.seen_ms, one.origin);
		else if (r != -ENOENT) {
			json_decref(last);
			return r;
		}
		if (json_object_set_new(last, types[k].name, v) < 0) {
			json_decref(last);
			return -ENOMEM;
		}
	}
	*ret = last;
	return 0;
}

/*
 * Self-tests: whether the drive takes them (Identify, when this scan read it)
 * and, from the database, the last result of each type ("last" null without
 * a database or when it could not be read: @db_err then says why).
 */
static json_t *status_selftests(const struct dev_info *info, struct store *s,
				const struct device_row *rows, size_t n_rows, const char *key,
				char *db_err, size_t db_errlen)
{
	bool id_known = info->access == DEV_ACCESS_ADMIN && !info->asleep;
	bool supported = id_known && dev_selftest_supported(&info->id);
	json_t *last = json_null();

	if (s) {
		int r = stored_last(s, rows, n_rows, key, &last);
		if (r < 0 && !db_err[0])
			snprintf(db_err, db_errlen, "reading the self-test results: %s",
				 r == -ENOMEM ? strerror(ENOMEM) : store_strerror(s));
	}
	return json_pack("{s:o, s:o, s:o, s:o}", "supported",
			 id_known ? json_boolean(supported) : json_null(), "unsupported_reason",
			 !id_known    ? json_string(SELFTEST_WHY_UNKNOWN)
			 : !supported ? json_string(SELFTEST_WHY_UNSUPPORTED)
				      : json_null(),
			 "edstt_min",
			 id_known && info->id.edstt ? json_integer(info->id.edstt) : json_null(),
			 "last", last);
}

int status_collect(struct dev_backend *b, const struct cfg *c, struct store *s, int64_t now_ms,
		   json_t **ret, char *err, size_t errlen)
{
	struct dev_info *v = NULL;
	struct device_row *rows = NULL;
	struct alert_row *alerts = NULL;
	size_t n = 0, n_rows = 0, n_alerts = 0;
	char db_err[STORE_ERR_MAX + 64] = "";
	int r;

	r = dev_scan(b, now_ms, &v, &n);
	if (r < 0) {
		snprintf(err, errlen, "scanning for NVMe controllers failed: %s", strerror(-r));
		return r;
	}
	qsort(v, n, sizeof(*v), by_name);
	if (s && store_devices_list(s, &rows, &n_rows) < 0) {
		snprintf(db_err, sizeof(db_err), "reading the devices: %s", store_strerror(s));
		s = NULL;
	}
	/* The alerts the daemon has firing count in the health, as in its API. */
	if (s && store_alerts_list(s, true, 0, &alerts, &n_alerts) < 0 && !db_err[0])
		snprintf(db_err, sizeof(db_err), "reading the alerts firing: %s",
			 store_strerror(s));
	json_t *devices = json_array();
	if (!devices) {
		free(alerts);
		free(rows);
		free(v);
		return -ENOMEM;
	}
	bool no_permission = false;
	for (size_t i = 0; i < n; i++) {
		struct fleet_device fd = {0};
		uint8_t page[SMART_LOG_SIZE];

		/* Same identity fields as the daemon; no store, so no id. */
		devrow_from_scan(b, &v[i], now_ms, &fd.row);
		status_facts(&v[i], &fd.facts);
		if (c) { /* NULL: no configuration, no names */
			struct cfg_device cd;
			cfg_device_for(c, v[i].id.model, v[i].id.serial, &cd);
			memcpy(fd.names.label, cd.label, sizeof(fd.names.label));
			memcpy(fd.names.location, cd.location, sizeof(fd.names.location));
			fd.rated_bytes_cfg = cd.rated_bytes;
		}
		for (size_t k = 0; k < n_rows; k++)
			if (strcmp(rows[k].key, fd.row.key) == 0)
				fleet_alerts_from_rows(alerts, n_alerts, rows[k].id, &fd.alerts);

		struct dev_ident who = {.model = v[i].id.model, .serial = v[i].id.serial};
		r = 0;
		if (!v[i].asleep && v[i].access == DEV_ACCESS_ADMIN) {
			r = dev_read_smart(b, v[i].name, &who, now_ms, page);
			if (r == 0) {
				fd.has_sample = true;
				fd.last.ts_ms = now_ms;
				smart_decode(page, &fd.last.smart);
				judge(b, c, &v[i], &who, now_ms, &fd);
			}
			if (dev_no_permission(r))
				fd.facts.hwmon_only = true;
		}
		if (fd.facts.hwmon_only && !v[i].asleep) {
			struct nvme_hwmon_temps t;
			r = dev_read_hwmon(b, v[i].name, now_ms, &t);
			if (r == 0) {
				fd.has_sample = true;
				fd.last = (struct sample){.ts_ms = now_ms,
							  .source = SAMPLE_SOURCE_HWMON};
				fd.last.smart.temperature_k = t.composite_k;
				memcpy(fd.last.smart.temp_sensor_k, t.sensor_k, sizeof(t.sensor_k));
			}
		}
		no_permission |= fd.facts.hwmon_only;
		bool one_read = false; /* issue 27: power, C0h, namespaces, the verdict */
		status_drive_collect(b, s, rows, n_rows, &v[i], now_ms, &fd, &one_read);
		json_t *o = render_fleet_device(&fd);
		if (o && one_read)
			json_object_set_new(json_object_get(o, "risk"), "one_read", json_true());
		json_t *st = status_selftests(&v[i], s, rows, n_rows, fd.row.key, db_err,
					      sizeof(db_err));
		if (!o || !st || json_object_set_new(o, "selftests", json_incref(st)) < 0) {
			json_decref(o);
			json_decref(st);
			json_decref(devices);
			free(alerts);
			free(rows);
			free(v);
			return -ENOMEM;
		}
		json_decref(st);
		json_object_del(o, "id");
		json_object_del(o, "first_seen");
		json_object_del(o, "last_seen");
		json_object_set_new(o, "path", json_string(v[i].path));
		if (r < 0)
			json_object_set_new(o, "error", json_string(strerror(-r)));
		json_array_append_new(devices, o);
	}
	free(alerts);
	free(rows);
	free(v);
	*ret = json_pack("{s:o}", "devices", devices);
	if (*ret && no_permission)
		json_object_set_new(*ret, "hint", json_string(STATUS_HINT_NO_PERMISSION));
	if (*ret && db_err[0])
		json_object_set_new(*ret, "database_error", json_string(db_err));
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

/* The drive's health (analysis/health.h) as "health" says; "-" without one. */
static const char *health_state_of(const json_t *d)
{
	const char *s = json_string_value(json_object_get(json_object_get(d, "health"), "state"));

	return s ? s : "-";
}

/* "         health: warning: 97 % used; at WCTEMP" under a row whose health is not ok. */
static void print_health_line(FILE *out, const json_t *d)
{
	json_t *why = json_object_get(json_object_get(d, "health"), "why"), *w;
	const char *state = health_state_of(d);
	size_t i;

	if (strcmp(state, "ok") == 0 || strcmp(state, "-") == 0 || json_array_size(why) == 0)
		return;
	fprintf(out, "%-8s health: %s: ", "", state);
	json_array_foreach(why, i, w) fprintf(out, "%s%s", i ? "; " : "", json_string_value(w));
	fputc('\n', out);
}

/* "         bay 3 – scratch · rack 12 U4 slot 3" under a row: the drive's [device] names. */
static void print_names_line(FILE *out, const json_t *d)
{
	const char *label = json_string_value(json_object_get(d, "label"));
	const char *loc = json_string_value(json_object_get(d, "location"));

	if (label && loc)
		fprintf(out, "%-8s label: %s · location: %s\n", "", label, loc);
	else if (label || loc)
		fprintf(out, "%-8s %s: %s\n", "", label ? "label" : "location",
			label ? label : loc);
}

/* "         PCIe 8.0 GT/s x2 (max 16.0 GT/s x4): degraded; firmware …" under a row. */
static void print_facts_line(FILE *out, const json_t *d, bool color)
{
	json_t *link = json_object_get(d, "link"), *pend = json_object_get(d, "firmware_pending");
	bool degraded = json_is_true(json_object_get(link, "degraded"));
	char line[256] = "";
	size_t l;

	if (json_is_object(link))
		snprintf(line, sizeof(line), "%s%s",
			 json_string_value(json_object_get(link, "text")),
			 degraded ? ": degraded" : "");
	l = strlen(line);
	snprintf(line + l, sizeof(line) - l, "%sfirmware %s", l ? "; " : "",
		 json_string_value(json_object_get(d, "firmware")));
	l = strlen(line);
	if (json_is_string(pend))
		snprintf(line + l, sizeof(line) - l, " (%s staged for the next reset)",
			 json_string_value(pend));
	fprintf(out, "%-8s %s%s%s\n", "", color && degraded ? "\033[33m" : "", line,
		color && degraded ? "\033[0m" : "");
}

/* ", segment 3, first failing LBA 123456 in namespace 1": where a failure is. */
static void fmt_where(const json_t *res, char *buf, size_t len)
{
	json_t *seg = json_object_get(res, "segment"), *lba = json_object_get(res, "lba"),
	       *nsid = json_object_get(res, "nsid");
	size_t l;

	buf[0] = '\0';
	if (json_is_integer(seg))
		snprintf(buf, len, ", segment %lld", (long long)json_integer_value(seg));
	l = strlen(buf);
	if (json_is_integer(lba))
		snprintf(buf + l, len - l, ", first failing LBA %lld",
			 (long long)json_integer_value(lba));
	else if (json_is_string(lba))
		snprintf(buf + l, len - l, ", first failing LBA %s", json_string_value(lba));
	l = strlen(buf);
	if (json_is_integer(nsid))
		snprintf(buf + l, len - l, "%s namespace %lld", json_is_null(lba) ? "," : " in",
			 (long long)json_integer_value(nsid));
}

/*
 * Under a row: "self-tests: not supported", and the last result of each type
 * the database holds ("last short self-test: no error (2026-11-30T02:14:05.000Z)"),
 * a failure in red and an abort in yellow; nothing while the capability is
 * unknown and nothing is stored.
 */
static void print_selftests(FILE *out, const json_t *d, bool color)
{
	json_t *st = json_object_get(d, "selftests"), *sup = json_object_get(st, "supported");
	json_t *last = json_object_get(st, "last");
	bool any = false;

	if (json_is_false(sup))
		fprintf(out, "%-8s self-tests: not supported\n", "");
	for (size_t k = 0; k < 2; k++) {
		const char *type = k ? "extended" : "short";
		json_t *res = json_object_get(last, type);
		const char *on = "", *off = "";
		char where[160];

		if (!json_is_object(res))
			continue;
		any = true;
		where[0] = '\0';
		if (json_is_true(json_object_get(res, "failed")))
			fmt_where(res, where, sizeof(where));
		if (color && json_is_true(json_object_get(res, "failed")))
			on = "\033[1;31m";
		else if (color && !json_is_true(json_object_get(res, "passed")))
			on = "\033[33m";
		if (on[0])
			off = "\033[0m";
		fprintf(out, "%-8s %slast %s self-test: %s%s (%s)%s\n", "", on, type,
			json_string_value(json_object_get(res, "result")), where,
			json_string_value(json_object_get(res, "seen")), off);
	}
	if (any || !json_is_true(sup))
		return;
	fprintf(out, "%-8s self-tests: supported, %s\n", "",
		json_is_object(last) ? "none stored yet" : "results not read (no database)");
}

int status_print_table(FILE *out, const json_t *status, bool color)
{
	json_t *devices = json_object_get(status, "devices"), *d;
	size_t i;

	if (json_array_size(devices) == 0) {
		fprintf(out, "no NVMe controllers found\n");
		return 0;
	}
	fprintf(out, "%s%-8s %-28s %-20s %8s %6s %11s  %-8s  %s%s\n", color ? "\033[1m" : "",
		"DEVICE", "MODEL", "SERIAL", "TEMP", "USED", "WRITTEN", "HEALTH", "WARNINGS",
		color ? "\033[0m" : "");
	json_array_foreach(devices, i, d)
	{
		json_t *latest = json_object_get(d, "latest");
		char temp[32], written[64], used[16], warn[128] = "";
		const char *on = "", *off = "";
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
		bool hwmon =
			json_is_string(json_object_get(latest, "source")) &&
			strcmp(json_string_value(json_object_get(latest, "source")), "hwmon") == 0;
		if (json_is_true(json_object_get(d, "asleep")))
			snprintf(warn, sizeof(warn), "asleep (not woken)");
		else if (!json_is_object(latest))
			snprintf(warn, sizeof(warn), "read failed: %s",
				 json_string_value(json_object_get(d, "error")));
		else if (hwmon)
			snprintf(warn, sizeof(warn), "unknown (hwmon only)");
		else if (!warn[0])
			snprintf(warn, sizeof(warn), "none");
		if (hwmon)
			snprintf(used, sizeof(used), "-");
		/* red: failed, or a bit beyond temperature; yellow: temperature only */
		if (color && strcmp(warn, "none") != 0 && !hwmon &&
		    !json_is_true(json_object_get(d, "asleep"))) {
			on = strcmp(warn, "temperature") == 0 ? "\033[33m" : "\033[1;31m";
			off = "\033[0m";
		}
		const char *state = health_state_of(d);
		const char *h_on = "", *h_off = "";
		if (color && (strcmp(state, "critical") == 0 || strcmp(state, "warning") == 0)) {
			h_on = strcmp(state, "critical") == 0 ? "\033[1;31m" : "\033[33m";
			h_off = "\033[0m";
		}
		fprintf(out, "%-8s %-28.28s %-20.20s %8s %6s %11s  %s%-8s%s  %s%s%s\n",
			json_string_value(json_object_get(d, "name")),
			json_string_value(json_object_get(d, "model")),
			json_string_value(json_object_get(d, "serial")), temp, used, written, h_on,
			state, h_off, on, warn, off);
		print_health_line(out, d);
		print_names_line(out, d);
		print_facts_line(out, d, color);
		print_selftests(out, d, color);
		status_print_drive(out, d, color);
	}
	/* Notes on the drives (a sensor above WCTEMP with a cool composite, an
	 * implausible sensor) under the table: facts, not warnings. */
	json_array_foreach(devices, i, d)
	{
		json_t *notes = json_object_get(d, "notes"), *n;
		size_t k;

		json_array_foreach(notes, k, n) fprintf(
			out, "note: %s: %s\n", json_string_value(json_object_get(d, "name")),
			json_string_value(json_object_get(n, "message")));
	}
	json_t *hint = json_object_get(status, "hint"),
	       *db_err = json_object_get(status, "database_error");
	if (json_is_string(db_err))
		fprintf(out, "\nnote: self-test results not shown: %s\n",
			json_string_value(db_err));
	if (json_is_string(hint))
		fprintf(out, "\nhint: %s\n", json_string_value(hint));
	return 0;
}
