/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/fleetview/promq.h"

/*
 * The fleet view (issue 24): every drive of every host that reports to a
 * Prometheus-compatible engine, made from a few instant queries of the series
 * nvmond exports (docs/fleet.md, the series contract). Pure: the parsed answers,
 * the previous view and the engine's evaluation time in, hosts with their drives
 * out; no I/O, no clock, no logging.
 *
 * When a host stops reporting (docs/fleet.md#hosts-that-stop-reporting):
 *  - its last_seen is the time of its newest nvmond_host_info sample the engine
 *    holds (timestamp() of the series, evaluated at the engine's time E);
 *  - it reports while E - last_seen <= stale_after;
 *  - past that, or once its series left the instant query (the engine's lookback,
 *    5 min by default, or a staleness marker of a failed scrape), it is "not
 *    reporting since last_seen"; the view keeps it while its nvmond_host_info
 *    series is in the engine's index within forget_after (the /series query), with
 *    the drives it had in the previous view, else the drives of the lookup of its
 *    last samples (fleetview_query_gone());
 *  - last_seen of a host no longer in the instant query: the previous view's, else
 *    the newest last_over_time(nvmond_last_sample_timestamp_seconds) of its drives.
 */

/* Ranked as the dashboard ranks a drive's health (web/dashboard.js HEALTH_RANK). */
enum fv_verdict {
	FV_OK,
	FV_UNKNOWN,
	FV_OFFLINE,
	FV_WARNING,
	FV_CRITICAL,
};

struct fv_alert {
	char *rule;
	char *severity;
};

struct fv_drive {
	char *device, *serial, *model, *firmware, *label, *location; /* "" when unknown */
	double temperature_c;					     /* composite; NaN: unknown */
	double wctemp_c, cctemp_c; /* the drive's own warning / critical thresholds; NaN */
	double used_ratio;	   /* Percentage Used / 100; NaN */
	double tbw_ratio;	   /* bytes written / rated endurance; NaN (no rating) */
	double last_sample;	   /* when the drive's newest sample was taken (s); NaN */
	int up;			   /* nvmond_device_up: 1, 0, or -1 unknown */
	enum fv_verdict verdict;
	bool verdict_reported; /* from nvmond_device_health (else derived, see fleetview_drive.c) */
	struct fv_alert *alerts;
	size_t n_alerts;
};

struct fv_host {
	char *job, *instance;		    /* the engine's target labels: the host's key */
	char *host, *host_id, *public_url;  /* nvmond_host_info's; "" when unknown */
	char **label_names, **label_values; /* the host labels, sorted by name */
	size_t n_labels;
	double last_seen; /* the newest nvmond_host_info sample (s); NaN: none seen */
	bool reporting;
	bool drives_stale; /* the drives are what the host reported last, not now */
	struct fv_drive *drives;
	size_t n_drives;
	enum fv_verdict worst; /* of its drives; FV_OK without drives */
	size_t problems;       /* drives not ok, or with an alert firing */
};

struct fv_view {
	struct fv_host *hosts; /* problems first (fleetview_host_rank()), then by name */
	size_t n_hosts;
	size_t n_drives;
	size_t n_problems; /* drives with a problem, plus those of hosts not reporting */
	size_t n_not_reporting;
	double eval_ts; /* the engine's evaluation time of the answer (s) */
	size_t *by_key; /* the hosts' indexes by (job, instance): the next merge's lookups */
};

/*
 * The instant queries of the fleet (fleetview_query_part()), each a part of the view,
 * each aggregated by the drive's key (job, instance, device, serial), so that its cost
 * grows with the number of drives and its answer carries no label the view does not
 * use. None has a range: the cost does not grow with the history the engine keeps.
 * Separate queries, asked together: VictoriaMetrics took 2 to 3 times as long for the
 * same parts joined by "or" (8,000 drives).
 */
enum fv_part {
	FV_P_HOST,   /* timestamp(nvmond_host_info): each host's newest sample time */
	FV_P_INFO,   /* nvmond_device_info: model, firmware, label, location */
	FV_P_HEALTH, /* nvmond_device_health == 1 but ok: a drive not listed is ok */
	FV_P_ALERT,  /* nvmond_alert_firing: rule, severity */
	FV_P_TEMP,   /* the composite temperature */
	FV_P_WCTEMP, /* its warning threshold */
	FV_P_CCTEMP, /* its critical threshold */
	FV_P_USED,   /* nvmond_endurance_used_ratio */
	FV_P_TBW,    /* bytes written / rated endurance */
	FV_P_SEEN,   /* nvmond_last_sample_timestamp_seconds */
	FV_P_UP,     /* nvmond_device_up */
	FV_PARTS,
};

struct fv_answer {
	const struct promq_result *now[FV_PARTS]; /* each part's answer; NULL: none */
	const struct promq_result *known;	  /* /series of nvmond_host_info; NULL: not asked */
	const struct promq_result *gone;	  /* fleetview_query_gone()'s answer; NULL */
	const struct fv_view *prev;		  /* the previous view; NULL */
	double eval_ts;				  /* the engine's time of @now (s) */
	double stale_after_s;
};

/** fleetview_query_part() - The PromQL of part @p. Return: a constant string, NULL past FV_PARTS. */
const char *fleetview_query_part(enum fv_part p);

/** fleetview_part_name() - "host", "info", "health", … for messages. */
const char *fleetview_part_name(enum fv_part p);

/** FLEETVIEW_KNOWN_MATCH - The /api/v1/series selector of the hosts known. */
#define FLEETVIEW_KNOWN_MATCH "nvmond_host_info"

/**
 * fleetview_gone_hosts() - The hosts of @a->known that are not in @a->now and whose
 * last_seen @a->prev does not give: the ones fleetview_query_gone() must look up.
 * @ret_instances, @ret_jobs: borrowed from @a's results, @max at most each.
 * Return: how many (at most @max).
 */
size_t fleetview_gone_hosts(const struct fv_answer *a, const char **ret_jobs,
			    const char **ret_instances, size_t max);

/**
 * fleetview_query_gone() - The instant query of the drives of @n hosts that left
 * the lookback: each drive's newest nvmond_last_sample_timestamp_seconds within
 * @window_s seconds, by (job, instance, device, model, serial).
 * Return: a malloc()ed string, or NULL (out of memory).
 */
char *fleetview_query_gone(const char *const *jobs, const char *const *instances, size_t n,
			   long long window_s);

/**
 * fleetview_merge() - The view of @a: hosts and their drives joined by (job, instance),
 * the verdicts, the reporting state, sorted problems first.
 * Return: 0 with @ret filled (free with fleetview_view_free()), or -ENOMEM.
 */
int fleetview_merge(const struct fv_answer *a, struct fv_view *ret);

/** fleetview_view_free() - Free @v and empty it. Accepts an emptied view. */
void fleetview_view_free(struct fv_view *v);

/** fleetview_verdict_name() - "ok", "unknown", "offline", "warning", "critical". */
const char *fleetview_verdict_name(enum fv_verdict v);

/**
 * fleetview_host_rank() - How high @h sorts: critical drives first, then a host not
 * reporting, then warning, offline, unknown and ok (the rank of its worst drive).
 * Return: 0 (all ok) … 8.
 */
int fleetview_host_rank(const struct fv_host *h);

/** fleetview_drive_problem() - Whether @d needs a look: not ok, or an alert firing. */
bool fleetview_drive_problem(const struct fv_drive *d);

/*
 * GET /api/v1/fleet's body (docs/api.md#get-apiv1fleet): what the service knows of
 * its engine, and the view. The hosts are rendered once per refresh
 * (fleetview_render_hosts()); each request wraps them in its own status
 * (fleetview_render_body()), so a request costs a copy, not a rendering.
 */
struct fv_status {
	bool configured;
	const char *engine;	    /* query_url without credentials */
	const char *error;	    /* why the last refresh failed; NULL: it did not */
	int64_t error_since_ms;	    /* when refreshes began to fail (wall clock); 0 */
	int64_t updated_ms;	    /* when the view shown was taken (wall clock); 0: none */
	int64_t age_ms;		    /* how old it is now */
	int64_t interval_ms;	    /* how often it is refreshed while someone looks */
	int64_t stale_after_ms;	    /* [fleet] stale_after */
	int64_t query_ms;	    /* how long the refresh of that view took */
	int64_t engine_ms;	    /* of which waiting for the engine's answers */
	const struct fv_view *view; /* for the counts; NULL: none yet */
	bool unchanged;		    /* the client has this view: no "hosts" */
	bool refreshing;	    /* a new view is being taken */
};

/**
 * fleetview_render_hosts() - The "hosts" array of @v as JSON text.
 * Return: a malloc()ed string, or NULL (out of memory).
 */
char *fleetview_render_hosts(const struct fv_view *v);

/* The body is the head, the hosts and this. */
#define FLEETVIEW_BODY_TAIL "}"

/**
 * fleetview_render_head() - The body up to the hosts: @s as JSON, ending in ,"hosts":
 * (the hosts and FLEETVIEW_BODY_TAIL follow); with @s->unchanged the whole body
 * ("unchanged": true, no "hosts").
 * Return: a malloc()ed string with its length in @ret_len, or NULL (out of memory).
 */
char *fleetview_render_head(const struct fv_status *s, size_t *ret_len);

/*
 * The hosts deflated once per view, so that each request's gzip is its head's few bytes
 * and a copy: raw deflate ending on a byte boundary (Z_SYNC_FLUSH), not final, with the
 * CRC-32 and the length of what it holds.
 */
struct fv_deflated {
	void *data;
	size_t len;
	unsigned long crc;
	size_t raw_len;
};

/** fleetview_deflate_part() - @text (@len bytes) as such a part. Return: 0, or -ENOMEM. */
int fleetview_deflate_part(const char *text, size_t len, struct fv_deflated *ret);

/** fleetview_deflated_free() - Free @d and empty it. */
void fleetview_deflated_free(struct fv_deflated *d);

/**
 * fleetview_gzip_join() - One gzip member (RFC 1952) of @head, what @mid holds and @tail:
 * three deflate streams, the first two ended on a byte boundary, the last one final,
 * read as one; the CRC-32 combined (zlib's crc32_combine()).
 * Return: 0 with a malloc()ed @ret of @ret_len bytes, or -ENOMEM.
 */
int fleetview_gzip_join(const char *head, size_t head_len, const struct fv_deflated *mid,
			const char *tail, size_t tail_len, void **ret, size_t *ret_len);

/**
 * fleetview_render_body() - The whole body: @s and @hosts_json (a
 * fleetview_render_hosts() text; NULL: an empty array). With @s->unchanged, "unchanged":
 * true and no "hosts" at all.
 * Return: a malloc()ed string with its length in @ret_len, or NULL (out of memory).
 */
char *fleetview_render_body(const struct fv_status *s, const char *hosts_json, size_t *ret_len);
