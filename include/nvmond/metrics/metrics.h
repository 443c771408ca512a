/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/alert/alert_sink.h"
#include "nvmond/api/api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/monitor/poller.h"

/*
 * GET /metrics: the Prometheus text exposition format (version 0.0.4).
 *
 * metrics_render() is pure: it takes a copy of the fleet, what the main loop
 * knows (counters, configured endurance) and an explicit now, and returns the
 * text. The endpoint (metrics_endpoint()) gathers those on an HTTP thread: the
 * fleet through its lock, the rest through mainq_call().
 */

#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* One phase and direction of the latest finished run of a probe preset. */
struct metrics_probe {
	char preset[32];
	char phase[16];
	const char *direction; /* "read" or "write"; static */
	int64_t ended_ms;
	double bytes_per_second, iops;
	uint64_t lat_p50_ns, lat_p99_ns, lat_p999_ns;
};

/* One device as exported: the fleet's copy plus the configuration and the store. */
struct metrics_device {
	struct fleet_device fd;
	uint64_t rated_bytes;	  /* configured or known rated endurance; 0 = unknown */
	int64_t wear_tbw_end_ms;  /* projected: rated TBW reached; 0 = unknown */
	int64_t wear_used_end_ms; /* projected: Percentage Used reaches 100; 0 = unknown */
	bool has_probe_bytes;
	uint64_t probe_bytes_written; /* by nvmond's probes, all time */
	const struct metrics_probe *probes;
	size_t n_probes;
};

struct metrics_input {
	const struct metrics_device *devs;
	size_t n_devs;
	struct poller_stats poller;
	bool has_alert_sinks;
	/* each sink by name; "exec" and "webhook" are rendered (disabled) when absent */
	struct alert_sink_stats alert_sinks[ALERT_SINKS_MAX];
	size_t n_alert_sinks;
	int64_t start_ms; /* when the daemon started, unix ms */
	const char *version;
};

/**
 * metrics_render() - Render @in as Prometheus text.
 * @ret: malloc()ed, NUL-terminated text; free() it
 * @ret_len: its length without the NUL
 *
 * Health metrics are exported for online devices with a sample; every known
 * device gets nvmond_device_info and nvmond_device_up. 128-bit counters are
 * written as exact decimal integers.
 * Return: 0, or -ENOMEM.
 */
int metrics_render(const struct metrics_input *in, char **ret, size_t *ret_len);

/**
 * metrics_escape_label() - Escape a label value (\\, \" and \n) into @buf; other
 * bytes outside printable ASCII become '?' (a drive's garbage must not break a scrape).
 * Return: @buf; the value is cut to fit @len (always NUL-terminated).
 */
char *metrics_escape_label(const char *s, char *buf, size_t len);

struct mainq;
struct alert_svc;

/* What the /metrics handler reads; owned by main, outlives the HTTP server. */
struct metrics_source {
	struct mainq *mainq;
	struct poller *poller;	  /* read on the main loop only */
	struct alert_svc *alerts; /* NULL = no alert counters */
	const struct cfg *cfg;	  /* the running configuration; main loop only */
	int64_t start_ms;
};

/**
 * metrics_endpoint() - The GET /metrics endpoint serving @src.
 * Return: the table entry (for api_config.endpoints).
 */
struct api_endpoint metrics_endpoint(struct metrics_source *src);
