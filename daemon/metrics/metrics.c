/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus text format. Pure: no clock, no files, no logging. Names and
 * units follow the Prometheus conventions: base units (bytes, seconds, Celsius,
 * ratios 0..1), _total for counters, one HELP/TYPE block per family.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/metrics/metrics.h"
#include "nvmond/metrics/metrics_stored.h"
#include "nvmond/analysis/selftest_sched.h"
#include "nvmond/decode/selftest.h"
#include "nvmond/decode/smart.h"
#include "nvmond/monitor/fleet_health.h"
#include "nvmond/util/u128.h"
#include "nvmond/util/utf8.h"
#include "metrics_drive.h"

#define LABELS_MAX 512

char *metrics_escape_label(const char *s, char *buf, size_t len)
{
	size_t o = 0, in_len = strlen(s);

	for (size_t i = 0; i < in_len;) {
		const char *rep = NULL;
		size_t k = utf8_char_len(s + i, in_len - i);

		if (s[i] == '\\')
			rep = "\\\\";
		else if (s[i] == '"')
			rep = "\\\"";
		else if (s[i] == '\n')
			rep = "\\n";
		else if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || k == 0)
			rep = "?"; /* Prometheus rejects invalid UTF-8: a drive's garbage */
		/* else a whole UTF-8 sequence (a label's "–") as it is */
		size_t rn = rep ? strlen(rep) : k;
		if (o + rn + 1 > len)
			break;
		memcpy(buf + o, rep ? rep : s + i, rn);
		o += rn;
		i += rep ? 1 : k;
	}
	buf[o] = '\0';
	return buf;
}

char *metrics_label_clean(const char *s, char *buf, size_t len)
{
	size_t o = 0, in_len = strlen(s);

	for (size_t i = 0; i < in_len;) {
		size_t k = utf8_char_len(s + i, in_len - i);
		bool bad = ((unsigned char)s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f || k == 0;
		size_t rn = bad ? 1 : k;

		if (o + rn + 1 > len)
			break;
		memcpy(buf + o, bad ? "?" : s + i, rn);
		o += rn;
		i += bad ? 1 : k;
	}
	buf[o] = '\0';
	return buf;
}

/* device="nvme0",model="…",serial="…" */
static void device_labels(const struct device_row *row, char buf[LABELS_MAX])
{
	char name[DEV_NAME_MAX * 2], model[sizeof(row->model) * 2], serial[sizeof(row->serial) * 2];

	snprintf(buf, LABELS_MAX, "device=\"%s\",model=\"%s\",serial=\"%s\"",
		 metrics_escape_label(row->name, name, sizeof(name)),
		 metrics_escape_label(row->model, model, sizeof(model)),
		 metrics_escape_label(row->serial, serial, sizeof(serial)));
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_u128(FILE *f, const char *name, const char *labels, u128 v)
{
	char dec[U128_DEC_MAX];

	fprintf(f, "%s{%s} %s\n", name, labels, u128_to_dec(v, dec));
}

static void put_ms(FILE *f, const char *name, const char *labels, int64_t ms)
{
	/* Unix seconds with millisecond precision, written exactly. */
	const char *sign = ms < 0 ? "-" : "";
	uint64_t a = ms < 0 ? (uint64_t) - (ms + 1) + 1 : (uint64_t)ms;

	fprintf(f, "%s{%s} %s%" PRIu64 ".%03" PRIu64 "\n", name, labels, sign, a / 1000, a % 1000);
}

/* A sample of the temperatures at least (the health log, or hwmon without privileges). */
static bool has_temps(const struct metrics_device *m)
{
	return m->fd.row.online && m->fd.has_sample;
}

/* The whole health log: a hwmon sample knows no counter, and none is exported as 0. */
static bool has_health(const struct metrics_device *m)
{
	return has_temps(m) && m->fd.last.source == SAMPLE_SOURCE_SMART;
}

/* Sleep, access and the PCIe link (issue 11). */
static void render_facts(FILE *f, const struct metrics_input *in, char (*labels)[LABELS_MAX])
{
	static const char *const kinds[] = {"current", "max"};

	family(f, "nvmond_device_asleep", "gauge",
	       "1 while the controller is runtime-suspended and not polled (wake_sleeping = no).");
	for (size_t i = 0; i < in->n_devs; i++)
		if (in->devs[i].fd.row.online)
			fprintf(f, "nvmond_device_asleep{%s} %d\n", labels[i],
				in->devs[i].fd.facts.asleep ? 1 : 0);
	family(f, "nvmond_device_unresponsive", "gauge",
	       "1 while a command to the controller is stuck past [daemon] device_timeout: "
	       "nothing more is sent to it until that command returns.");
	for (size_t i = 0; i < in->n_devs; i++)
		if (in->devs[i].fd.row.online)
			fprintf(f, "nvmond_device_unresponsive{%s} %d\n", labels[i],
				in->devs[i].fd.facts.unresponsive ? 1 : 0);
	family(f, "nvmond_health_log_readable", "gauge",
	       "1 when nvmond may read the health log; 0 when it lacks the privileges and "
	       "exports the hwmon temperatures only.");
	for (size_t i = 0; i < in->n_devs; i++)
		if (in->devs[i].fd.facts.known)
			fprintf(f, "nvmond_health_log_readable{%s} %d\n", labels[i],
				in->devs[i].fd.facts.hwmon_only ? 0 : 1);
	family(f, "nvmond_pcie_link_speed_gts", "gauge",
	       "PCIe link speed in GT/s: the one negotiated (kind=\"current\") and the "
	       "fastest the drive supports (kind=\"max\").");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct nvme_pcie_link *l = &in->devs[i].fd.facts.link;
		const unsigned v[] = {l->cur_speed_dgts, l->max_speed_dgts};

		for (size_t k = 0; k < 2; k++)
			if (v[k])
				fprintf(f, "nvmond_pcie_link_speed_gts{%s,kind=\"%s\"} %u.%u\n",
					labels[i], kinds[k], v[k] / 10, v[k] % 10);
	}
	family(f, "nvmond_pcie_link_width", "gauge",
	       "PCIe link width in lanes: negotiated (kind=\"current\") and supported "
	       "(kind=\"max\").");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct nvme_pcie_link *l = &in->devs[i].fd.facts.link;
		const unsigned v[] = {l->cur_width, l->max_width};

		for (size_t k = 0; k < 2; k++)
			if (v[k])
				fprintf(f, "nvmond_pcie_link_width{%s,kind=\"%s\"} %u\n", labels[i],
					kinds[k], v[k]);
	}
	family(f, "nvmond_pcie_link_degraded", "gauge",
	       "1 while the link runs slower or narrower than the drive supports.");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct nvme_pcie_link *l = &in->devs[i].fd.facts.link;

		if (nvme_pcie_link_known(l))
			fprintf(f, "nvmond_pcie_link_degraded{%s} %d\n", labels[i],
				nvme_pcie_link_degraded(l) ? 1 : 0);
	}
}

/* Device self-tests (issue 12), from the fleet: the capability from Identify,
 * the test running as the log 06h last showed it, and the newest stored
 * result of each type. */
static void render_selftests(FILE *f, const struct metrics_input *in, char (*labels)[LABELS_MAX])
{
	static const struct {
		const char *label;
		uint8_t code;
	} types[SELFTEST_SCHED_TYPES] = {
		[SELFTEST_SCHED_SHORT] = {"short", SELFTEST_CODE_SHORT},
		[SELFTEST_SCHED_EXTENDED] = {"extended", SELFTEST_CODE_EXTENDED},
	};
	char l[LABELS_MAX + 32];

	family(f, "nvmond_selftest_supported", "gauge",
	       "1 when the controller supports the Device Self-test command (Identify OACS bit "
	       "4), else 0; absent while nvmond has not read its Identify data.");
	for (size_t i = 0; i < in->n_devs; i++)
		if (in->devs[i].fd.facts.id_known)
			fprintf(f, "nvmond_selftest_supported{%s} %d\n", labels[i],
				in->devs[i].fd.facts.selftest_supported ? 1 : 0);
	family(f, "nvmond_selftest_running", "gauge",
	       "1 while a device self-test of that type runs, else 0; absent until nvmond read the "
	       "drive's Device Self-test log.");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_selftest *st = &in->devs[i].fd.selftest;
		bool known = false;

		if (!st->log_read)
			continue;
		for (size_t k = 0; k < SELFTEST_SCHED_TYPES; k++) {
			known |= st->running == types[k].code;
			fprintf(f, "nvmond_selftest_running{%s,type=\"%s\"} %d\n", labels[i],
				types[k].label, st->running == types[k].code ? 1 : 0);
		}
		/* A vendor-specific test (Eh) only while it runs: no drive need have one. */
		if (st->running && !known)
			fprintf(f, "nvmond_selftest_running{%s,type=\"vendor_specific\"} 1\n",
				labels[i]);
	}
	family(f, "nvmond_selftest_progress_ratio", "gauge",
	       "Completion of the running device self-test, 0..1 (the drive reports whole "
	       "percents); 0 when none runs.");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_selftest *st = &in->devs[i].fd.selftest;

		if (st->log_read)
			fprintf(f, "nvmond_selftest_progress_ratio{%s} %g\n", labels[i],
				st->running ? st->percent / 100.0 : 0.0);
	}

	const struct {
		const char *name, *help;
		int what; /* 0 result code, 1 passed, 2 seen */
	} last[] = {
		{"nvmond_selftest_last_result",
		 "Self-test Result code (0 no error ... 9 aborted by sanitize) of the newest "
		 "stored "
		 "result of that type.",
		 0},
		{"nvmond_selftest_last_passed", "1 when that result is 0h (no error), else 0.", 1},
		{"nvmond_selftest_last_timestamp_seconds",
		 "When nvmond first read that result in the drive's log (unix time).", 2},
	};
	for (size_t m = 0; m < sizeof(last) / sizeof(last[0]); m++) {
		family(f, last[m].name, "gauge", last[m].help);
		for (size_t i = 0; i < in->n_devs; i++) {
			const struct fleet_selftest *st = &in->devs[i].fd.selftest;

			for (size_t k = 0; k < SELFTEST_SCHED_TYPES; k++) {
				if (!st->has_last[k])
					continue;
				snprintf(l, sizeof(l), "%s,type=\"%s\"", labels[i], types[k].label);
				if (last[m].what == 0)
					fprintf(f, "%s{%s} %u\n", last[m].name, l,
						st->last[k].result);
				else if (last[m].what == 1)
					fprintf(f, "%s{%s} %d\n", last[m].name, l,
						st->last[k].result == SELFTEST_RES_NO_ERROR ? 1
											    : 0);
				else
					put_ms(f, last[m].name, l, st->last_seen_ms[k]);
			}
		}
	}
}

/* One line per reported sensor of a judged sample (monitor/temps.h): the note
 * (over WCTEMP with a cool composite) or, with @implausible, that flag. */
static void put_sensor_flags(FILE *f, const char *name, const char *labels,
			     const struct metrics_device *m, bool implausible)
{
	if (!has_health(m) || !m->fd.temps.judged)
		return;
	for (unsigned k = 0; k < SMART_NUM_SENSORS; k++) {
		const struct sensor_verdict *v = &m->fd.temps.v.sensor[k];
		if (v->reported)
			fprintf(f, "%s{%s,sensor=\"%u\"} %d\n", name, labels, k + 1,
				implausible ? v->implausible != SENSOR_PLAUSIBLE : v->note);
	}
}

/*
 * The families a stored health sample makes (metrics_stored.c), from each
 * drive's latest: the same table remote write sends every stored sample
 * through. With in->omit_stored (a push's live part) they are left to the
 * store, but for a drive whose sample comes from hwmon (never stored).
 */
static void render_stored(FILE *f, const struct metrics_input *in, char (*labels)[LABELS_MAX])
{
	struct metrics_point pts[METRICS_POINTS_MAX];
	char v[U128_DEC_MAX];

	for (size_t fam = 0; fam < METRICS_STORED_FAMILIES; fam++) {
		const struct metrics_stored_family *mf = &metrics_stored_families[fam];
		bool temps = strcmp(mf->name, "nvmond_temperature_celsius") == 0;

		family(f, mf->name, mf->type, mf->help);
		for (size_t i = 0; i < in->n_devs; i++) {
			const struct metrics_device *m = &in->devs[i];

			/* The temperatures of a hwmon sample too; the rest: the health log. */
			if (!(temps ? has_temps(m) : has_health(m)))
				continue;
			if (in->omit_stored && m->fd.last.source == SAMPLE_SOURCE_SMART)
				continue;
			size_t n = metrics_stored_points(fam, &m->fd.last.smart, pts);
			for (size_t k = 0; k < n; k++) {
				if (pts[k].label)
					fprintf(f, "%s{%s,%s=\"%s\"} %s\n", mf->name, labels[i],
						pts[k].label, pts[k].label_value,
						metrics_point_text(&pts[k], v));
				else
					fprintf(f, "%s{%s} %s\n", mf->name, labels[i],
						metrics_point_text(&pts[k], v));
			}
		}
	}
}

static void render_devices(FILE *f, const struct metrics_input *in, char (*labels)[LABELS_MAX])
{
	char fw[sizeof(in->devs[0].fd.row.firmware) * 2];
	char label[CFG_DEVICE_TEXT_MAX * 2], loc[CFG_DEVICE_TEXT_MAX * 2];

	family(f, "nvmond_device_info", "gauge",
	       "Every known NVMe controller (value 1), with its firmware revision and the label "
	       "and location of its [device] section (empty when unset).");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_device *d = &in->devs[i].fd;

		fprintf(f,
			"nvmond_device_info{%s,firmware=\"%s\",label=\"%s\",location=\"%s\"} 1\n",
			labels[i], metrics_escape_label(d->row.firmware, fw, sizeof(fw)),
			metrics_escape_label(d->names.label, label, sizeof(label)),
			metrics_escape_label(d->names.location, loc, sizeof(loc)));
	}
	family(f, "nvmond_device_up", "gauge",
	       "1 when the controller is present and its health log readable, else 0.");
	for (size_t i = 0; i < in->n_devs; i++)
		fprintf(f, "nvmond_device_up{%s} %d\n", labels[i],
			in->devs[i].fd.row.online ? 1 : 0);
	render_facts(f, in, labels);
	family(f, "nvmond_capacity_bytes", "gauge", "Total NVM capacity of the controller.");
	for (size_t i = 0; i < in->n_devs; i++)
		if (in->devs[i].fd.row.capacity_bytes)
			put_u128(f, "nvmond_capacity_bytes", labels[i],
				 in->devs[i].fd.row.capacity_bytes);
	family(f, "nvmond_last_sample_timestamp_seconds", "gauge",
	       "When the newest health sample was taken (unix time).");
	for (size_t i = 0; i < in->n_devs; i++)
		if (in->devs[i].fd.has_sample)
			put_ms(f, "nvmond_last_sample_timestamp_seconds", labels[i],
			       in->devs[i].fd.last.ts_ms);

	render_stored(f, in, labels);
	static const struct {
		const char *name, *help;
		size_t offset;
	} thresholds[] = {
		{"nvmond_temperature_warning_threshold_celsius",
		 "Warning composite temperature threshold (WCTEMP).",
		 offsetof(struct device_row, wctemp_k)},
		{"nvmond_temperature_critical_threshold_celsius",
		 "Critical composite temperature threshold (CCTEMP).",
		 offsetof(struct device_row, cctemp_k)},
	};
	for (size_t t = 0; t < sizeof(thresholds) / sizeof(thresholds[0]); t++) {
		family(f, thresholds[t].name, "gauge", thresholds[t].help);
		for (size_t i = 0; i < in->n_devs; i++) {
			uint16_t k;
			int c;

			memcpy(&k, (const char *)&in->devs[i].fd.row + thresholds[t].offset,
			       sizeof(k));
			if (smart_kelvin_to_c(k, &c))
				fprintf(f, "%s{%s} %d\n", thresholds[t].name, labels[i], c);
		}
	}

	family(f, "nvmond_sensor_over_wctemp", "gauge",
	       "1 while the sensor reads at or above WCTEMP and the composite is below it "
	       "(a note: WCTEMP applies to the composite), else 0.");
	for (size_t i = 0; i < in->n_devs; i++)
		put_sensor_flags(f, "nvmond_sensor_over_wctemp", labels[i], &in->devs[i], false);
	family(f, "nvmond_sensor_implausible", "gauge",
	       "1 when the sensor looks implausible (unchanged 6 h while the composite moved "
	       "5 degrees C or more, or CCTEMP + 15 degrees C with the composite below WCTEMP): "
	       "it never alerts; else 0.");
	for (size_t i = 0; i < in->n_devs; i++)
		put_sensor_flags(f, "nvmond_sensor_implausible", labels[i], &in->devs[i], true);

	family(f, "nvmond_rated_endurance_bytes", "gauge",
	       "Rated endurance: rated_tbw from the configuration, else the known rating of "
	       "the model; absent when unknown.");
	for (size_t i = 0; i < in->n_devs; i++)
		if (in->devs[i].rated_bytes)
			fprintf(f, "nvmond_rated_endurance_bytes{%s} %" PRIu64 "\n", labels[i],
				in->devs[i].rated_bytes);

	family(f, "nvmond_wear_projected_end_timestamp_seconds", "gauge",
	       "When the drive is projected to reach its rated TBW (basis=\"rated_tbw\") or "
	       "100 % Percentage Used (basis=\"percent_used\") at its recent write rate.");
	for (size_t i = 0; i < in->n_devs; i++) {
		char l[LABELS_MAX + 32];

		if (in->devs[i].wear_tbw_end_ms > 0) {
			snprintf(l, sizeof(l), "%s,basis=\"rated_tbw\"", labels[i]);
			put_ms(f, "nvmond_wear_projected_end_timestamp_seconds", l,
			       in->devs[i].wear_tbw_end_ms);
		}
		if (in->devs[i].wear_used_end_ms > 0) {
			snprintf(l, sizeof(l), "%s,basis=\"percent_used\"", labels[i]);
			put_ms(f, "nvmond_wear_projected_end_timestamp_seconds", l,
			       in->devs[i].wear_used_end_ms);
		}
	}

	/* Stored entries, so also for a drive that is offline now. */
	family(f, "nvmond_error_entries_total", "counter",
	       "Error Information log entries nvmond read and stored, by class (benign ones never "
	       "alert); nvmond_error_log_entries_total is the drive's own count.");
	for (size_t i = 0; i < in->n_devs; i++) {
		if (!in->devs[i].fd.errors_read)
			continue;
		for (int k = 0; k < _ERRCLASS_MAX; k++)
			fprintf(f, "nvmond_error_entries_total{%s,class=\"%s\"} %" PRIu64 "\n",
				labels[i], errclass_name(k), in->devs[i].fd.errors[k]);
	}
	render_selftests(f, in, labels);
}

/* The latest finished run of each probe preset. */
static void render_probes(FILE *f, const struct metrics_input *in, char (*labels)[LABELS_MAX])
{
	static const struct {
		const char *name;
		size_t offset;
	} quantiles[] = {
		{"50", offsetof(struct metrics_probe, lat_p50_ns)},
		{"99", offsetof(struct metrics_probe, lat_p99_ns)},
		{"99.9", offsetof(struct metrics_probe, lat_p999_ns)},
	};
	char l[LABELS_MAX + 160], preset[64], phase[32];

	family(f, "nvmond_probe_written_bytes_total", "counter",
	       "Bytes written to the drive by nvmond's own throughput probes.");
	for (size_t i = 0; i < in->n_devs; i++)
		if (in->devs[i].has_probe_bytes)
			fprintf(f, "nvmond_probe_written_bytes_total{%s} %" PRIu64 "\n", labels[i],
				in->devs[i].probe_bytes_written);
	family(f, "nvmond_probe_last_timestamp_seconds", "gauge",
	       "When the latest finished run of each probe preset ended.");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct metrics_device *d = &in->devs[i];

		for (size_t k = 0; k < d->n_probes; k++) {
			if (k > 0 && strcmp(d->probes[k].preset, d->probes[k - 1].preset) == 0)
				continue;
			snprintf(l, sizeof(l), "%s,preset=\"%s\"", labels[i],
				 metrics_escape_label(d->probes[k].preset, preset, sizeof(preset)));
			put_ms(f, "nvmond_probe_last_timestamp_seconds", l, d->probes[k].ended_ms);
		}
	}
	const struct {
		const char *name, *help;
		int what; /* 0 throughput, 1 iops, 2 latency */
	} fams[] = {
		{"nvmond_probe_throughput_bytes_per_second",
		 "Throughput of each phase of the latest run of a preset.", 0},
		{"nvmond_probe_iops", "I/O operations per second of that phase.", 1},
		{"nvmond_probe_latency_seconds",
		 "Completion latency percentiles (50, 99, 99.9) of that phase.", 2},
	};
	for (size_t fi = 0; fi < sizeof(fams) / sizeof(fams[0]); fi++) {
		family(f, fams[fi].name, "gauge", fams[fi].help);
		for (size_t i = 0; i < in->n_devs; i++) {
			const struct metrics_device *d = &in->devs[i];

			for (size_t k = 0; k < d->n_probes; k++) {
				const struct metrics_probe *p = &d->probes[k];

				snprintf(l, sizeof(l),
					 "%s,preset=\"%s\",phase=\"%s\",direction=\"%s\"",
					 labels[i],
					 metrics_escape_label(p->preset, preset, sizeof(preset)),
					 metrics_escape_label(p->phase, phase, sizeof(phase)),
					 p->direction);
				if (fams[fi].what == 0)
					fprintf(f, "%s{%s} %.17g\n", fams[fi].name, l,
						p->bytes_per_second);
				else if (fams[fi].what == 1)
					fprintf(f, "%s{%s} %.17g\n", fams[fi].name, l, p->iops);
				else
					for (size_t q = 0; q < 3; q++) {
						uint64_t ns;

						memcpy(&ns, (const char *)p + quantiles[q].offset,
						       sizeof(ns));
						fprintf(f,
							"%s{%s,percentile=\"%s\"} %" PRIu64
							".%09" PRIu64 "\n",
							fams[fi].name, l, quantiles[q].name,
							ns / 1000000000, ns % 1000000000);
					}
			}
		}
	}
}

static void render_alerts(FILE *f, const struct metrics_input *in)
{
	struct alert_sink_stats v[ALERT_SINKS_MAX + 2];
	const struct alert_sink_stats *webhook = NULL;
	size_t n = 0;

	if (!in->has_alert_sinks)
		return;
	for (size_t i = 0; i < in->n_alert_sinks && i < ALERT_SINKS_MAX; i++)
		v[n++] = in->alert_sinks[i];
	/* "exec" and "webhook" were the only sinks once: their series stay, 0 when absent. */
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "webhook" : "exec";
		bool found = false;
		for (size_t i = 0; i < n; i++)
			found |= strcmp(v[i].name, name) == 0;
		if (!found) {
			v[n] = (struct alert_sink_stats){.enabled = false};
			snprintf(v[n].name, sizeof(v[n].name), "%s", name);
			n++;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, "webhook"))
			webhook = &v[i];
	/* Sink names are [A-Za-z0-9._-] (cfg_sink.c): no label escaping needed. */
	family(f, "nvmond_alert_sink_enabled", "gauge", "1 when the alert sink is configured.");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "nvmond_alert_sink_enabled{sink=\"%s\"} %d\n", v[i].name,
			v[i].enabled ? 1 : 0);
	family(f, "nvmond_alert_notifications_queued_total", "counter",
	       "Alert notifications accepted into a sink's queue.");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "nvmond_alert_notifications_queued_total{sink=\"%s\"} %" PRIu64 "\n",
			v[i].name, v[i].queued);
	family(f, "nvmond_alert_deliveries_total", "counter",
	       "Alert notifications delivered (hook exited 0, server answered 2xx) or "
	       "given up on after every attempt.");
	for (size_t i = 0; i < n; i++) {
		fprintf(f,
			"nvmond_alert_deliveries_total{sink=\"%s\",result=\"delivered\"} %" PRIu64
			"\n",
			v[i].name, v[i].delivered);
		fprintf(f,
			"nvmond_alert_deliveries_total{sink=\"%s\",result=\"failed\"} %" PRIu64
			"\n",
			v[i].name, v[i].failed);
	}
	family(f, "nvmond_alert_notifications_dropped_total", "counter",
	       "Alert notifications refused because the sink's queue was full.");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "nvmond_alert_notifications_dropped_total{sink=\"%s\"} %" PRIu64 "\n",
			v[i].name, v[i].dropped);
	family(f, "nvmond_alert_retries_total", "counter", "Delivery attempts after the first.");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "nvmond_alert_retries_total{sink=\"%s\"} %" PRIu64 "\n", v[i].name,
			v[i].retries);
	family(f, "nvmond_alert_resent_total", "counter",
	       "Firing alerts sent again while active (Alertmanager sinks).");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "nvmond_alert_resent_total{sink=\"%s\"} %" PRIu64 "\n", v[i].name,
			v[i].resent);
	family(f, "nvmond_alert_webhook_retries_total", "counter",
	       "Attempts after the first of the sink \"webhook\" (deprecated: "
	       "nvmond_alert_retries_total).");
	fprintf(f, "nvmond_alert_webhook_retries_total %" PRIu64 "\n",
		webhook ? webhook->retries : 0);
	family(f, "nvmond_alert_queue_depth", "gauge",
	       "Alert notifications waiting in a sink's queue.");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "nvmond_alert_queue_depth{sink=\"%s\"} %zu\n", v[i].name, v[i].pending);
}

/*
 * Who is who (issue 24): the host (its target labels on one series, never
 * repeated on every drive's, as Prometheus wants target labels), the alerts
 * firing and each drive's health, so an engine shows what the dashboard shows.
 */
static void render_fleet(FILE *f, const struct metrics_input *in, char (*labels)[LABELS_MAX])
{
	char a[CFG_URL_MAX * 2], b[CFG_HOST_NAME_MAX * 2];

	if (in->host) {
		const struct metrics_host *h = in->host;

		family(f, "nvmond_host_info", "gauge",
		       "This nvmond's host (value 1): host_id (from the machine id), host "
		       "([daemon] host_name), public_url and [daemon] host_labels.");
		fprintf(f, "nvmond_host_info{host_id=\"%s\",host=\"%s\"", h->id,
			metrics_escape_label(h->name, b, sizeof(b)));
		fprintf(f, ",public_url=\"%s\"", metrics_escape_label(h->public_url, a, sizeof(a)));
		for (size_t i = 0; i < h->labels.n; i++)
			/* Names are checked as Prometheus wants them (cfg_parse_labels()). */
			fprintf(f, ",%s=\"%s\"", h->labels.v[i].name,
				metrics_escape_label(h->labels.v[i].value, a, sizeof(a)));
		fputs("} 1\n", f);
	}
	family(f, "nvmond_alert_firing", "gauge",
	       "1 for each alert firing now, by rule and severity (absent otherwise).");
	for (size_t k = 0; k < in->n_alerts; k++)
		for (size_t i = 0; i < in->n_devs; i++)
			if (in->devs[i].fd.row.id == in->alerts[k].device_id)
				/* Rule names are [a-z0-9_] (alert_rule_name()). */
				fprintf(f,
					"nvmond_alert_firing{%s,rule=\"%s\",severity=\"%s\"} 1\n",
					labels[i], in->alerts[k].rule, in->alerts[k].severity);
	family(f, "nvmond_device_health", "gauge",
	       "The drive's health as the API and the dashboard show it "
	       "(docs/dashboard.md#health), "
	       "one series per state (1 for the current one): ok, warning, critical, offline, "
	       "unknown (no sample yet).");
	for (size_t i = 0; i < in->n_devs; i++) {
		struct health_verdict h;

		fleet_health(&in->devs[i].fd, &h); /* the API's rule (GET /api/v1/devices) */
		for (enum health_state k = 0; k < _HEALTH_STATE_MAX; k++)
			fprintf(f, "nvmond_device_health{%s,state=\"%s\"} %d\n", labels[i],
				health_state_name(k), h.state == k);
	}
}

/* Remote write (issue 24, export/): each export's lag, backlog, errors and drops. */
static void render_exports(FILE *f, const struct metrics_input *in)
{
	const struct {
		const char *name, *type, *help;
		int what;
	} fams[] = {
		{"nvmond_export_up", "gauge",
		 "1 when the export's last request was accepted by the engine, else 0.", 0},
		{"nvmond_export_lag_seconds", "gauge",
		 "Age of the oldest stored sample the export has not sent yet; 0 when caught up.",
		 1},
		{"nvmond_export_backlog_samples", "gauge",
		 "Stored samples (one per drive and poll) the export has not sent yet.", 2},
		{"nvmond_export_samples_total", "counter",
		 "Series samples the engine accepted (2xx).", 3},
		{"nvmond_export_samples_dropped_total", "counter",
		 "Series samples dropped: the engine refused their request (4xx but 429).", 4},
		{"nvmond_export_requests_total", "counter", "Requests the engine accepted.", 5},
		{"nvmond_export_request_failures_total", "counter",
		 "Requests that failed (network, TLS, 5xx, 429: retried; other 4xx: dropped).", 6},
		{"nvmond_export_last_success_timestamp_seconds", "gauge",
		 "When a request was last accepted (unix time); absent before the first.", 7},
		{"nvmond_export_last_error_timestamp_seconds", "gauge",
		 "When a request last failed (unix time); absent before the first.", 8},
	};
	char l[CFG_SINK_NAME_MAX + 16];

	if (!in->has_exports)
		return;
	for (size_t fi = 0; fi < sizeof(fams) / sizeof(fams[0]); fi++) {
		family(f, fams[fi].name, fams[fi].type, fams[fi].help);
		for (size_t i = 0; i < in->n_exports; i++) {
			const struct metrics_export *e = &in->exports[i];

			/* Export names are [A-Za-z0-9._-] (cfg_sink.c): no escaping needed. */
			snprintf(l, sizeof(l), "export=\"%s\"", e->name);
			switch (fams[fi].what) {
			case 0:
				fprintf(f, "%s{%s} %d\n", fams[fi].name, l, e->up ? 1 : 0);
				break;
			case 1:
				put_ms(f, fams[fi].name, l, e->lag_ms);
				break;
			case 2:
				fprintf(f, "%s{%s} %" PRIu64 "\n", fams[fi].name, l, e->backlog);
				break;
			case 3:
				fprintf(f, "%s{%s} %" PRIu64 "\n", fams[fi].name, l,
					e->samples_sent);
				break;
			case 4:
				fprintf(f, "%s{%s} %" PRIu64 "\n", fams[fi].name, l,
					e->samples_dropped);
				break;
			case 5:
				fprintf(f, "%s{%s} %" PRIu64 "\n", fams[fi].name, l, e->requests);
				break;
			case 6:
				fprintf(f, "%s{%s} %" PRIu64 "\n", fams[fi].name, l,
					e->requests_failed);
				break;
			case 7:
				if (e->last_success_ms)
					put_ms(f, fams[fi].name, l, e->last_success_ms);
				break;
			default:
				if (e->last_error_ms)
					put_ms(f, fams[fi].name, l, e->last_error_ms);
				break;
			}
		}
	}
}

static void render_daemon(FILE *f, const struct metrics_input *in)
{
	const struct poller_stats *p = &in->poller;
	char ver[64];

	family(f, "nvmond_build_info", "gauge", "The running nvmond (value 1).");
	fprintf(f, "nvmond_build_info{version=\"%s\"} 1\n",
		metrics_escape_label(in->version ? in->version : "", ver, sizeof(ver)));
	family(f, "nvmond_start_time_seconds", "gauge", "When the daemon started (unix time).");
	fprintf(f, "nvmond_start_time_seconds %" PRId64 ".%03" PRId64 "\n", in->start_ms / 1000,
		in->start_ms % 1000);

	const struct {
		const char *name, *type, *help;
		uint64_t v;
	} own[] = {
		{"nvmond_polls_total", "counter", "Health logs read successfully.", p->polls},
		{"nvmond_poll_errors_total", "counter", "Health log reads that failed.",
		 p->poll_errors},
		{"nvmond_store_errors_total", "counter",
		 "Failed attempts to write samples to the database (each is retried).",
		 p->store_errors},
		{"nvmond_samples_stored_total", "counter", "Samples written to the database.",
		 p->samples_stored},
		{"nvmond_samples_dropped_total", "counter",
		 "Samples lost because the buffer was full while the database failed.",
		 p->samples_dropped},
		{"nvmond_samples_buffered", "gauge",
		 "Samples waiting in memory for the database (the store queue depth).",
		 p->samples_pending},
		{"nvmond_sample_buffer_capacity", "gauge",
		 "Samples the buffer holds before dropping the oldest ([store] buffer_samples).",
		 p->buffer_capacity},
		{"nvmond_error_log_reads_total", "counter",
		 "Error Information log reads (only when a drive's error count moved).",
		 p->errlog_reads},
		{"nvmond_error_log_read_errors_total", "counter",
		 "Error Information log reads, or stores of what they read, that failed.",
		 p->errlog_errors},
	};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		family(f, own[i].name, own[i].type, own[i].help);
		fprintf(f, "%s %" PRIu64 "\n", own[i].name, own[i].v);
	}
	if (!in->has_memory)
		return;
	family(f, "nvmond_malloc_in_use_bytes", "gauge",
	       "Memory the daemon has allocated and not freed (a leak grows it).");
	fprintf(f, "nvmond_malloc_in_use_bytes %" PRIu64 "\n", in->memory_in_use);
	family(f, "nvmond_malloc_kept_free_bytes", "gauge",
	       "Memory the daemon has freed that its allocator keeps for reuse.");
	fprintf(f, "nvmond_malloc_kept_free_bytes %" PRIu64 "\n", in->memory_kept_free);
}

int metrics_render(const struct metrics_input *in, char **ret, size_t *ret_len)
{
	char(*labels)[LABELS_MAX] = NULL;
	char *text = NULL;
	size_t len = 0;
	int r = -ENOMEM;

	labels = calloc(in->n_devs ? in->n_devs : 1, sizeof(*labels));
	if (!labels)
		return -ENOMEM;
	for (size_t i = 0; i < in->n_devs; i++)
		device_labels(&in->devs[i].fd.row, labels[i]);
	FILE *f = open_memstream(&text, &len);
	if (!f)
		goto out;
	render_fleet(f, in, labels);
	render_devices(f, in, labels);
	metrics_render_drive(f, in, labels[0], sizeof(labels[0])); /* issue 27 */
	render_probes(f, in, labels);
	render_alerts(f, in);
	render_exports(f, in);
	render_daemon(f, in);
	bool bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		free(text);
		goto out;
	}
	*ret = text;
	*ret_len = len;
	r = 0;
out:
	free(labels);
	return r;
}
