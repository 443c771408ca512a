/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/alert/alert_sink.h"
#include "nvmond/api/api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/core/host_id.h"
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

/* This host in a fleet (issue 24): nvmond_host_info. */
struct metrics_host {
	char id[HOST_ID_LEN + 1]; /* host_id(); "" when the machine id is unknown */
	char name[CFG_HOST_NAME_MAX];
	struct cfg_labels labels;
	char public_url[CFG_URL_MAX];
};

/* An alert firing now (the store's alerts table): nvmond_alert_firing. */
struct metrics_alert {
	int64_t device_id;
	char rule[48];
	const char *severity; /* "info", "warning", "critical"; static */
};

/* One remote-write export's state (issue 24; export/): nvmond_export_*. */
struct metrics_export {
	char name[CFG_SINK_NAME_MAX];
	bool up;		  /* the last request was accepted */
	int64_t lag_ms;		  /* age of the oldest stored sample not yet sent; 0 = none */
	uint64_t backlog;	  /* stored samples (drive readings) not yet sent */
	uint64_t samples_sent;	  /* series samples the engine accepted */
	uint64_t samples_dropped; /* series samples it refused (4xx): never sent again */
	uint64_t requests;	  /* requests answered 2xx */
	uint64_t requests_failed; /* attempts that failed (retried or dropped) */
	int64_t last_success_ms;  /* 0 = none yet */
	int64_t last_error_ms;	  /* 0 = none yet */
};

struct metrics_input {
	const struct metrics_device *devs;
	size_t n_devs;
	const struct metrics_host *host; /* NULL: no nvmond_host_info */
	const struct metrics_alert *alerts;
	size_t n_alerts;
	bool has_exports; /* the export families, even with none configured */
	const struct metrics_export *exports;
	size_t n_exports;
	/* A push's live part: leave out what the store holds (metrics_stored.h). */
	bool omit_stored;
	struct poller_stats poller;
	bool has_alert_sinks;
	/* each sink by name; "exec" and "webhook" are rendered (disabled) when absent */
	struct alert_sink_stats alert_sinks[ALERT_SINKS_MAX];
	size_t n_alert_sinks;
	int64_t start_ms; /* when the daemon started, unix ms */
	const char *version;
	/*
	 * The daemon's own heap, as its allocator counts it (metrics_memory_read()):
	 * what it has handed out and not had back (in_use), and what it holds freed for
	 * reuse (kept_free). A leak shows in in_use; the allocator's keeping in the RSS.
	 */
	bool has_memory;
	uint64_t memory_in_use, memory_kept_free;
};

/**
 * metrics_memory_read() - The process's allocator's figures into @in (glibc's
 * mallinfo2(), summed over its arenas); has_memory stays false elsewhere.
 */
void metrics_memory_read(struct metrics_input *in);

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

/**
 * metrics_label_clean() - A label value as Prometheus reads it back from
 * metrics_escape_label()'s text: the same bytes replaced by '?' (control
 * characters but the newline, bytes that are not UTF-8), nothing escaped, cut
 * at a whole character to fit @len. What a push sends as the value.
 * Return: @buf.
 */
char *metrics_label_clean(const char *s, char *buf, size_t len);

struct mainq;
struct alert_svc;
struct store;

/* What the /metrics handler reads; owned by main, outlives the HTTP server. */
struct metrics_source {
	struct mainq *mainq;
	struct poller *poller;	  /* read on the main loop only */
	struct alert_svc *alerts; /* NULL = no alert counters */
	const struct cfg *cfg;	  /* the running configuration; main loop only */
	int64_t start_ms;
	char host_id[HOST_ID_LEN + 1]; /* "" = unknown */
	/* The exports' states (export/ is above metrics: main wires it); NULL = none. */
	size_t (*export_stats)(void *ctx, struct metrics_export *ret, size_t max);
	void *export_ctx;
};

/**
 * metrics_collect() - What GET /metrics serves, gathered on the calling thread
 * (not the main loop's): @fleet copied, the counters and configuration through
 * @src->mainq, history from @store (a read-only handle of the caller's; NULL:
 * without wear, probes and alerts). @omit_stored: a push's live part.
 * Return: 0 with *ret malloc()ed, -ECANCELED (shutting down) or -ENOMEM.
 */
int metrics_collect(struct metrics_source *src, struct fleet *fleet, struct store *store,
		    int64_t now_ms, bool omit_stored, char **ret, size_t *ret_len);

/* The main loop's part of a collect: the fleet, the counters, the configuration's. */
struct metrics_gathered;

/**
 * metrics_gather() - On the main loop: what metrics_collect() asks it for
 * through mainq (and @fleet copied), taken now, for a thread that collects
 * later without waking the loop (a push following a poll: docs/architecture.md#idle-wakeups).
 * Return: 0 with *ret to pass to metrics_collect_gathered() once and to
 * metrics_gathered_free(), or -ENOMEM.
 */
int metrics_gather(struct metrics_source *src, struct fleet *fleet, struct metrics_gathered **ret);

/**
 * metrics_collect_gathered() - metrics_collect() from @g (metrics_gather()'s),
 * on the calling thread, without mainq. Return: as metrics_collect().
 */
int metrics_collect_gathered(struct metrics_gathered *g, struct store *store, int64_t now_ms,
			     bool omit_stored, char **ret, size_t *ret_len);

/** metrics_gathered_free() - Accepts NULL. Return: NULL. */
struct metrics_gathered *metrics_gathered_free(struct metrics_gathered *g);

/**
 * metrics_endpoint() - The GET /metrics endpoint serving @src.
 * Return: the table entry (for api_config.endpoints).
 */
struct api_endpoint metrics_endpoint(struct metrics_source *src);
