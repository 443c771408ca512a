/* SPDX-License-Identifier: MIT */
#pragma once

/* Shared by the self-test service's files; not a public interface. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/analysis/selftest_sched.h"
#include "nvmond/dev/dev_async.h"
#include "nvmond/selftest/selftest_svc.h"

/* Whether the self-test alert rules are on ([alerts] selftest). */
#define SELFTEST_ALERTS_ON(c) ((c)->alert_selftest != 0)

/* One drive as the service follows it. */
struct stdev {
	int64_t id;
	struct device_row row; /* as the poller last told it */
	bool loaded;	       /* the store's newest results are loaded */
	bool supported;	       /* Identify OACS bit 4, at the last sample */
	bool has_newest;       /* a result is stored */
	/* the keys of the results stored, newest first, as the log held them */
	struct selftest_key seen[SELFTEST_RESULTS];
	size_t n_seen;
	struct selftest_result newest_r;
	int64_t newest_seen_ms;
	/* the newest result is an abort nvmond sent, or one from before nvmond
	 * watched (no selftest_aborted for either) */
	bool aborted_by_nvmond;
	struct fleet_selftest st;
	int64_t last_read_mono; /* the last read of the log (sent) */
	int n_log_out;		/* reads of the log not answered yet */
	bool read_failed;	/* logged once until it reads again */
	bool alerts_fed;	/* the rules were evaluated since the start */
	bool told_fleet;	/* an unsupported drive's stored results are in the fleet */
	/* schedule (selftest_plan.c) */
	char sched_str[256];
	struct selftest_sched sched[SELFTEST_SCHED_MAX];
	size_t n_sched;
	bool caught_up;	    /* the catch-up at start is done */
	int64_t checked_ms; /* occurrences up to here are handled */
};

/* What the service has out on the loop: a read of a log, or a start or abort. */
enum st_op_kind { ST_OP_LOG, ST_OP_REQ };

struct st_op {
	struct st_op *prev, *next;
	enum st_op_kind kind;
};

struct selftest_svc {
	struct cfg cfg;
	struct alert_cfg acfg;
	struct dev_backend *backend;
	struct store *store;
	struct fleet *fleet;
	struct mainq *mainq;
	struct alert_svc *alerts;
	struct probe_svc *probes;
	bool own_selftests; /* DEV_CAP_OWN_SELFTESTS: unconfigured drives run their own schedule */
	struct loop *loop;
	int64_t plan_timer;	 /* selftest_plan.c's tick, 0 before it starts */
	struct dev_async *async; /* NULL: no guard, commands on the loop's thread (tests) */
	struct st_op *ops;	 /* out or waiting, newest first */
	struct stdev *dev;
	size_t n_dev, cap_dev;
	struct api_endpoint endpoints[SELFTEST_SVC_N_ENDPOINTS];
};

int selftest_type_index(uint8_t code);
struct stdev *selftest_dev_find(struct selftest_svc *t, int64_t id);
/* Whether the newest result of @d is an abort nvmond sent after @after_ms. */
bool selftest_abort_was_ours(struct selftest_svc *t, const struct stdev *d, int64_t after_ms);

/* Queue a start (1h, 2h) or abort (Fh) of a test: selftest_svc_request() without the code
 * check (not dev_selftest_start(), the backend's command it leads to). */
void selftest_req_queue(struct selftest_svc *t, int64_t id, uint8_t stc, uint32_t nsid,
			enum selftest_origin origin, selftest_svc_done_fn done, void *arg);

/* selftest_plan.c: schedules */
int selftest_plan_check(const struct cfg *c, char ret_err[SELFTEST_SVC_ERR_MAX]);
char *selftest_plan_schedule_of(const struct cfg *c, const struct device_row *row, char *buf,
				size_t len);
void selftest_plan_load(struct selftest_svc *t, struct stdev *d);
void selftest_plan_catch_up(struct selftest_svc *t, struct stdev *d, int64_t now);
int selftest_plan_start(struct selftest_svc *t, struct loop *l);

/* selftest_api.c */
void selftest_api_init(struct selftest_svc *t);
