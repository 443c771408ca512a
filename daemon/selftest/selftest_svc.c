/* SPDX-License-Identifier: MIT */
/*
 * Device self-tests in the daemon: following the log, storing results, the
 * alerts, starting and aborting. See selftest_svc.h. The schedules are in
 * selftest_plan.c, the endpoints in selftest_api.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/analysis/selftest_alert.h"
#include "nvmond/core/log.h"
#include "nvmond/dev/dev_async.h"
#include "nvmond/store/store_selftest.h"
#include "nvmond/util/timefmt.h"

#include "selftest_internal.h"

static const char *const origin_names[] = {
	[SELFTEST_ORIGIN_SCHEDULE] = "schedule",
	[SELFTEST_ORIGIN_CATCHUP] = "catch-up",
	[SELFTEST_ORIGIN_API] = "api",
	[SELFTEST_ORIGIN_CLI] = "cli",
};

const char *selftest_origin_name(enum selftest_origin o)
{
	return (unsigned)o <= SELFTEST_ORIGIN_CLI ? origin_names[o] : "unknown";
}

/* The index of per-type arrays for a test code; -1 for others (vendor). */
int selftest_type_index(uint8_t code)
{
	return code == SELFTEST_CODE_SHORT ? 0 : code == SELFTEST_CODE_EXTENDED ? 1 : -1;
}

struct stdev *selftest_dev_find(struct selftest_svc *t, int64_t id)
{
	for (size_t i = 0; i < t->n_dev; i++)
		if (t->dev[i].id == id)
			return &t->dev[i];
	return NULL;
}

static struct stdev *dev_get(struct selftest_svc *t, const struct device_row *row)
{
	struct stdev *d = selftest_dev_find(t, row->id);

	if (!d) {
		if (t->n_dev == t->cap_dev) {
			size_t cap = t->cap_dev ? 2 * t->cap_dev : 8;
			struct stdev *v = realloc(t->dev, cap * sizeof(*v));
			if (!v)
				return NULL;
			t->dev = v;
			t->cap_dev = cap;
		}
		d = &t->dev[t->n_dev++];
		*d = (struct stdev){.id = row->id};
	}
	d->row = *row; /* the name may have moved */
	return d;
}

/* Load the newest results from the store, once per device. */
static int dev_load(struct selftest_svc *t, struct stdev *d)
{
	struct store_selftest_row row, *two = NULL;
	size_t n = 0;
	int r;

	/* The newest results (as many as the log holds), and when the one before
	 * the newest was seen. */
	r = store_selftest_list(t->store, d->id, SELFTEST_RESULTS, &two, &n);
	if (r < 0)
		return r;
	d->has_newest = n > 0;
	if (d->has_newest) {
		d->newest_r = two[0].r;
		d->newest_seen_ms = two[0].seen_ms;
	}
	d->n_seen = n < SELFTEST_RESULTS ? n : SELFTEST_RESULTS;
	for (size_t i = 0; i < d->n_seen; i++)
		selftest_key_of(&two[i].r, &d->seen[i]);
	int64_t before_ms = n > 1 ? two[1].seen_ms : 0;
	int64_t two_seen[2] = {n > 0 ? two[0].seen_ms : 0, before_ms};
	free(two);
	for (int k = 0; k < 2; k++) {
		uint8_t code = k ? SELFTEST_CODE_EXTENDED : SELFTEST_CODE_SHORT;
		r = store_selftest_last_of(t->store, d->id, code, &row);
		if (r < 0 && r != -ENOENT)
			return r;
		d->st.has_last[k] = r == 0;
		d->st.last[k] = r == 0 ? row.r : (struct selftest_result){0};
		d->st.last_seen_ms[k] = r == 0 ? row.seen_ms : 0;
	}
	/* Read alone, after an earlier result: else it was in the drive's log
	 * before nvmond watched (or came with others after a downtime). */
	bool alone = n > 1 && two_seen[1] < two_seen[0];
	d->aborted_by_nvmond = !alone || selftest_abort_was_ours(t, d, before_ms);
	selftest_plan_load(t, d);
	d->loaded = true;
	return 0;
}

/*
 * The newest action of @kind (and @code, 0 = any) nvmond recorded for @d at or
 * after @after_ms. At, too: a start or abort is recorded with the time of the
 * log read that comes before it (req_run()), and that read may store the result
 * before, seen at the same millisecond; the command went out after that read, so
 * its test cannot be among what the read saw. (A short test aborted within a
 * second of its start was stored with origin null, issue 28 §1.)
 * Return: 1 found (*ret), 0 none, negative errno.
 */
static int action_after(struct selftest_svc *t, const struct stdev *d, int kind, uint8_t code,
			int64_t after_ms, struct store_selftest_action *ret)
{
	struct store_selftest_action *v = NULL;
	size_t n = 0;
	int r = store_selftest_actions(t->store, d->id, kind, 8, &v, &n);

	if (r < 0)
		return r;
	r = 0;
	for (size_t i = 0; i < n && v[i].ts_ms >= after_ms; i++)
		if (!code || v[i].code == code) {
			*ret = v[i];
			r = 1;
			break;
		}
	free(v);
	return r;
}

bool selftest_abort_was_ours(struct selftest_svc *t, const struct stdev *d, int64_t after_ms)
{
	struct store_selftest_action a;

	if (!d->has_newest || d->newest_r.result != SELFTEST_RES_ABORTED_CMD)
		return false;
	/* An abort nvmond sent after the result before it, and before it was seen. */
	int r = action_after(t, d, STORE_SELFTEST_ABORT, 0, after_ms, &a);
	return r == 1 && a.ts_ms <= d->newest_seen_ms;
}

/* Feed the self-test rules to the alert service. */
static void dev_alerts(struct selftest_svc *t, struct stdev *d, int64_t now)
{
	struct alert_cond conds[_ALERT_RULE_MAX];
	struct selftest_alert_input in = {
		.last = {d->st.has_last[0] ? &d->st.last[0] : NULL,
			 d->st.has_last[1] ? &d->st.last[1] : NULL},
		.newest = d->has_newest ? &d->newest_r : NULL,
		.newest_seen_ms = d->newest_seen_ms,
		.newest_aborted_by_nvmond = d->aborted_by_nvmond,
		.now_ms = now,
	};

	if (!t->alerts)
		return;
	selftest_alert_conditions(&t->acfg, &in, conds);
	int r = alert_svc_feed(t->alerts, &d->row, conds, now);
	if (r < 0 && r != -EAGAIN)
		log_errno(LOG_LVL_ERROR, -r, "self-test: %s: alerts", d->row.key);
}

/* Store the results of @log nvmond has not stored yet, oldest first. */
static int dev_store_new(struct selftest_svc *t, struct stdev *d, const struct selftest_log *log,
			 int64_t now)
{
	size_t idx[SELFTEST_RESULTS];
	size_t n = selftest_new_results(d->seen, d->n_seen, log, idx);
	struct store_selftest_row rows[SELFTEST_RESULTS];
	int64_t prev_seen = d->has_newest ? d->newest_seen_ms : 0;
	int r;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct store_selftest_action a;
		const struct selftest_result *res = &log->r[idx[i]];
		rows[i] =
			(struct store_selftest_row){.device_id = d->id, .seen_ms = now, .r = *res};
		/* Started by nvmond: its start of that code since the last result seen. */
		if (i == n - 1 &&
		    action_after(t, d, STORE_SELFTEST_START, res->code, prev_seen, &a) == 1)
			snprintf(rows[i].origin, sizeof(rows[i].origin), "%s", a.origin);
	}
	r = store_selftest_add(t->store, rows, n);
	if (r < 0) {
		log_error("self-test: %s: cannot store %zu result(s): %s", d->row.key, n,
			  store_strerror(t->store));
		return r; /* read again at the next poll */
	}
	for (size_t i = 0; i < n; i++) {
		const struct selftest_result *res = &rows[i].r;
		int k = selftest_type_index(res->code);
		char what[128];
		if (k >= 0) {
			d->st.has_last[k] = true;
			d->st.last[k] = *res;
			d->st.last_seen_ms[k] = now;
		}
		selftest_result_describe(res, what, sizeof(what));
		if (selftest_result_failed(res))
			log_warn("self-test: %s (%s): %s self-test failed at %" PRIu64
				 " power-on hours: %s",
				 d->row.key, d->row.name, selftest_code_name(res->code), res->poh,
				 what);
		else if (i == n - 1 || n <= 3)
			log_info("self-test: %s (%s): %s self-test: %s (%s)", d->row.key,
				 d->row.name, selftest_code_name(res->code), what,
				 rows[i].origin[0] ? rows[i].origin : "not started by nvmond");
	}
	if (n > 3)
		log_info("self-test: %s: %zu results from the drive's log stored", d->row.key, n);
	d->n_seen = selftest_log_keys(log, d->seen);
	d->newest_r = rows[n - 1].r;
	d->newest_seen_ms = now;
	d->has_newest = true;
	/* An abort that was in the log before nvmond watched, or came with
	 * others after a downtime, is history: it does not alert. */
	d->aborted_by_nvmond = n > 1 || !prev_seen || selftest_abort_was_ours(t, d, prev_seen);
	return 1;
}

/* Link @op into the service's list of what is out (selftest_svc_free() ends it). */
static void op_link(struct selftest_svc *t, struct st_op *op, enum st_op_kind kind)
{
	op->kind = kind;
	op->prev = NULL;
	op->next = t->ops;
	if (t->ops)
		t->ops->prev = op;
	t->ops = op;
}

static void op_unlink(struct selftest_svc *t, struct st_op *op)
{
	if (op->prev)
		op->prev->next = op->next;
	else
		t->ops = op->next;
	if (op->next)
		op->next->prev = op->prev;
}

/* The answer @r (@page for 0) of a read of @d's log: running state, new results stored, alerts. */
static int log_apply(struct selftest_svc *t, struct stdev *d, int r, const uint8_t *page,
		     int64_t now)
{
	struct selftest_log log;

	if (r == 0)
		r = selftest_decode(page, SELFTEST_LOG_SIZE, &log);
	if (r < 0) {
		if (!d->read_failed)
			log_errno(LOG_LVL_WARNING, -r,
				  "self-test: %s (%s): cannot read the Device Self-test log",
				  d->row.key, d->row.name);
		d->read_failed = true;
		return r;
	}
	if (d->read_failed)
		log_info("self-test: %s: the Device Self-test log reads again", d->row.key);
	d->read_failed = false;
	bool was = d->st.running != 0;
	r = dev_store_new(t, d, &log, now);
	d->st.log_read = true;
	d->st.running = log.current;
	d->st.percent = log.current ? log.percent : 0;
	if (!log.current) {
		d->st.running_since_ms = 0;
		d->st.running_nsid = 0;
	} else if (!was || !d->st.running_since_ms) {
		/* nvmond's start, when it sent one for this test; else now. */
		struct store_selftest_action a;
		int64_t after = d->has_newest ? d->newest_seen_ms : 0;
		if (action_after(t, d, STORE_SELFTEST_START, log.current, after, &a) == 1) {
			d->st.running_since_ms = a.ts_ms;
			d->st.running_nsid = a.nsid;
		} else {
			d->st.running_since_ms = now;
			d->st.running_nsid = 0;
			log_info("self-test: %s (%s): a self-test (%s) is running, not started "
				 "by nvmond",
				 d->row.key, d->row.name, selftest_code_name(log.current));
		}
	}
	(void)fleet_put_selftest(t->fleet, d->id, &d->st);
	if (r != 0 || !d->alerts_fed) {
		dev_alerts(t, d, now);
		d->alerts_fed = true;
	} else if (d->has_newest && selftest_result_aborted(&d->newest_r)) {
		dev_alerts(t, d, now); /* selftest_aborted ends after a day */
	}
	return 0;
}

/* The end of a read of the log: @r of log_apply(), on the loop. */
typedef void (*log_read_fn)(struct selftest_svc *t, int64_t id, int r, int64_t now, void *arg);

/* A read of a drive's log out: who it is for by id (the stdev may move, dev_get()). */
struct log_read {
	struct st_op op;
	struct selftest_svc *t;
	int64_t id, now;
	log_read_fn fn;
	void *arg;
};

static void log_answer(void *userdata, int r, void *answer)
{
	struct log_read *lr = userdata;
	struct selftest_svc *t = lr->t;
	struct stdev *d = selftest_dev_find(t, lr->id);

	op_unlink(t, &lr->op);
	if (d) {
		d->n_log_out--;
		r = log_apply(t, d, r, answer, lr->now);
	} else if (r == 0) {
		r = -ENODEV; /* never: a stdev is never removed */
	}
	lr->fn(t, lr->id, r, lr->now, lr->arg);
	free(lr);
}

/*
 * Read @d's log: the answer is applied (log_apply()) and @fn called on the
 * loop, never before the command answers or reaches its deadline; without a
 * guard (t->async NULL), before this returns.
 */
static void log_read(struct selftest_svc *t, struct stdev *d, int64_t now, log_read_fn fn,
		     void *arg)
{
	struct dev_ident who = {.model = d->row.model, .serial = d->row.serial};
	struct log_read *lr = malloc(sizeof(*lr));
	int r;

	d->last_read_mono = timefmt_mono_ms();
	if (!lr) {
		fn(t, d->id, log_apply(t, d, -ENOMEM, NULL, now), now, arg);
		return;
	}
	*lr = (struct log_read){.t = t, .id = d->id, .now = now, .fn = fn, .arg = arg};
	op_link(t, &lr->op, ST_OP_LOG);
	d->n_log_out++;
	if (!t->async) {
		uint8_t page[SELFTEST_LOG_SIZE];
		r = dev_read_selftest(t->backend, d->row.name, &who, now, page);
		log_answer(lr, r, r == 0 ? page : NULL);
		return;
	}
	r = dev_read_selftest_async(t->async, d->row.name, &who, now, log_answer, lr);
	if (r < 0)
		log_answer(lr, r, NULL); /* -ETIMEDOUT at once: a command to it is stuck */
}

/* Whether the scan found namespace @nsid on @row (its namespaces, as JSON). */
static bool has_namespace(const struct device_row *row, uint32_t nsid)
{
	json_t *v = json_loads(row->namespaces, 0, NULL), *ns;
	bool found = false;
	size_t i;

	json_array_foreach(v, i, ns)
	{
		if (json_integer_value(json_object_get(ns, "nsid")) == (json_int_t)nsid)
			found = true;
	}
	json_decref(v);
	return found;
}

/* Whether Identify says @fd can run self-tests; @ret_reason when not. */
static int capable(const struct fleet_device *fd, char ret_reason[SELFTEST_SVC_ERR_MAX])
{
	if (!fd->facts.id_known) {
		snprintf(ret_reason, SELFTEST_SVC_ERR_MAX,
			 "%s: nvmond has not read its Identify data (%s), so it does not know "
			 "whether it supports device self-tests",
			 fd->row.name,
			 fd->facts.asleep	? "it was asleep at the scan"
			 : fd->facts.hwmon_only ? "no permission for admin commands"
						: "not scanned yet");
		return -EOPNOTSUPP;
	}
	if (!fd->facts.selftest_supported) {
		snprintf(ret_reason, SELFTEST_SVC_ERR_MAX,
			 "%s (%s) does not support device self-tests (Identify Controller OACS "
			 "bit 4 is 0): nothing was sent",
			 fd->row.name, fd->row.model);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * A start or abort, as steps on the loop: the checks, the log read (what runs
 * now, from the drive itself rather than the last poll), the checks on what
 * runs, Device Self-test, then what it did is recorded and @done told. One
 * request per drive is out at a time; the others wait in t->ops, in order.
 */
struct st_req {
	struct st_op op;
	struct selftest_svc *t;
	int64_t id, now;
	uint8_t stc;
	uint32_t nsid;
	enum selftest_origin origin;
	bool sent; /* its steps run (else it waits for the one before it) */
	struct fleet_device fd;
	selftest_svc_done_fn done;
	void *arg;
	char reason[SELFTEST_SVC_ERR_MAX];
};

static void req_run(struct st_req *q);

/* The end of @q: @done told, then the next request for the drive runs. */
static void req_finish(struct st_req *q, int r)
{
	struct selftest_svc *t = q->t;
	struct stdev *d = selftest_dev_find(t, q->id);
	uint8_t ended = 0;
	int64_t id = q->id;

	op_unlink(t, &q->op);
	if (r == 0 && q->stc == SELFTEST_CODE_ABORT && d)
		ended = d->st.running;
	q->done(q->arg, r, ended, q->reason);
	free(q);
	struct st_req *next = NULL;
	for (struct st_op *op = t->ops; op; op = op->next)
		if (op->kind == ST_OP_REQ && ((struct st_req *)op)->id == id &&
		    !((struct st_req *)op)->sent)
			next = (struct st_req *)op; /* the oldest: ops are newest first */
	if (next)
		req_run(next);
}

static void req_started(void *userdata, int r, void *answer)
{
	struct st_req *q = userdata;
	struct selftest_svc *t = q->t;
	const struct device_row *row = &q->fd.row;
	struct stdev *d = selftest_dev_find(t, q->id);

	(void)answer;
	if (r < 0) {
		snprintf(q->reason, SELFTEST_SVC_ERR_MAX, "%s: Device Self-test (%s): %s",
			 row->name, selftest_code_name(q->stc),
			 r == -EBUSY	    ? "the drive says a self-test is in progress"
			 : r == -EOPNOTSUPP ? "the drive refused it (not supported)"
			 : r == -ESTALE	    ? "the controller name now belongs to another drive"
			 : r == -ETIMEDOUT
				 ? "no answer within device_timeout: the drive is unresponsive "
				   "(whether the test started shows in its log once it answers)"
				 : strerror(-r));
		req_finish(q, r);
		return;
	}
	struct store_selftest_action a = {
		.device_id = q->id,
		.ts_ms = q->now,
		.kind = q->stc == SELFTEST_CODE_ABORT ? STORE_SELFTEST_ABORT : STORE_SELFTEST_START,
		.code = q->stc,
		.nsid = q->nsid,
	};
	snprintf(a.origin, sizeof(a.origin), "%s", selftest_origin_name(q->origin));
	if (store_selftest_action_add(t->store, &a) < 0)
		log_error("self-test: %s: cannot record the %s: %s", row->key,
			  q->stc == SELFTEST_CODE_ABORT ? "abort" : "start",
			  store_strerror(t->store));
	if (q->stc == SELFTEST_CODE_ABORT) {
		log_info("self-test: %s (%s): the %s self-test aborted (%s)", row->key, row->name,
			 selftest_code_name(d ? d->st.running : 0),
			 selftest_origin_name(q->origin));
	} else {
		if (d) {
			d->st.running = q->stc;
			d->st.percent = 0;
			d->st.running_since_ms = q->now;
			d->st.running_nsid = q->nsid;
			(void)fleet_put_selftest(t->fleet, q->id, &d->st);
		}
		log_info("self-test: %s (%s): %s self-test started (%s)%s", row->key, row->name,
			 selftest_code_name(q->stc), selftest_origin_name(q->origin),
			 q->nsid == DEV_SELFTEST_NSID_ALL ? "" : ", one namespace");
	}
	req_finish(q, 0);
}

static void req_log_read(struct selftest_svc *t, int64_t id, int r, int64_t now, void *arg)
{
	struct st_req *q = arg;
	const struct device_row *row = &q->fd.row;
	bool scheduled =
		q->origin == SELFTEST_ORIGIN_SCHEDULE || q->origin == SELFTEST_ORIGIN_CATCHUP;
	struct stdev *d = selftest_dev_find(t, id);

	(void)now;
	if (r < 0) {
		snprintf(q->reason, SELFTEST_SVC_ERR_MAX,
			 "cannot read the Device Self-test log: %s", strerror(-r));
		req_finish(q, r);
		return;
	}
	if (!d) { /* never: a stdev is never removed */
		req_finish(q, -ENOMEM);
		return;
	}
	if (q->stc == SELFTEST_CODE_ABORT) {
		if (!d->st.running) {
			snprintf(q->reason, SELFTEST_SVC_ERR_MAX, "no self-test is running on %s",
				 row->name);
			req_finish(q, -EALREADY);
			return;
		}
	} else {
		if (d->st.running) {
			snprintf(q->reason, SELFTEST_SVC_ERR_MAX,
				 "%s %s self-test is already running on %s (%u %%)",
				 d->st.running == SELFTEST_CODE_EXTENDED ? "an" : "a",
				 selftest_code_name(d->st.running), row->name, d->st.percent);
			req_finish(q, -EBUSY);
			return;
		}
		if (t->probes && probe_svc_drive_blocked(t->probes, row, scheduled, q->reason)) {
			req_finish(q, -EBUSY);
			return;
		}
	}
	struct dev_ident who = {.model = row->model, .serial = row->serial};
	if (!t->async) {
		req_started(
			q, dev_selftest_start(t->backend, row->name, &who, q->now, q->nsid, q->stc),
			NULL);
		return;
	}
	r = dev_selftest_start_async(t->async, row->name, &who, q->now, q->nsid, q->stc,
				     req_started, q);
	if (r < 0)
		req_started(q, r, NULL); /* -ETIMEDOUT at once: a command to it is stuck */
}

/* The checks before anything is sent, then the log read. */
static void req_run(struct st_req *q)
{
	struct selftest_svc *t = q->t;
	bool scheduled =
		q->origin == SELFTEST_ORIGIN_SCHEDULE || q->origin == SELFTEST_ORIGIN_CATCHUP;
	struct fleet_device *fd = &q->fd;
	struct stdev *d;
	int r;

	q->sent = true;
	q->now = timefmt_now_ms();
	if (fleet_get(t->fleet, q->id, fd) < 0) {
		snprintf(q->reason, SELFTEST_SVC_ERR_MAX, "no device %" PRId64, q->id);
		req_finish(q, -ENOENT);
		return;
	}
	if (!fd->row.online) {
		snprintf(q->reason, SELFTEST_SVC_ERR_MAX, "%s is offline", fd->row.name);
		req_finish(q, -ENODEV);
		return;
	}
	if (fd->facts.unresponsive) {
		snprintf(q->reason, SELFTEST_SVC_ERR_MAX,
			 "%s is unresponsive (a command to it is stuck past device_timeout)",
			 fd->row.name);
		req_finish(q, -ENODEV);
		return;
	}
	r = capable(fd, q->reason);
	if (r < 0) {
		req_finish(q, r);
		return;
	}
	if (q->nsid != DEV_SELFTEST_NSID_ALL && !has_namespace(&fd->row, q->nsid)) {
		snprintf(q->reason, SELFTEST_SVC_ERR_MAX,
			 "%s has no namespace %" PRIu32
			 " (the controller and all its namespaces: 4294967295, FFFFFFFFh)",
			 fd->row.name, q->nsid);
		req_finish(q, -EINVAL);
		return;
	}
	if (fd->facts.asleep && (scheduled || q->stc == SELFTEST_CODE_ABORT)) {
		snprintf(q->reason, SELFTEST_SVC_ERR_MAX,
			 "the drive is asleep (runtime-suspended): a scheduled test does not wake "
			 "it");
		req_finish(q, -EAGAIN);
		return;
	}
	d = dev_get(t, &fd->row);
	if (!d) {
		req_finish(q, -ENOMEM);
		return;
	}
	if (!d->loaded && (r = dev_load(t, d)) < 0) {
		snprintf(q->reason, SELFTEST_SVC_ERR_MAX, "database: %s", store_strerror(t->store));
		req_finish(q, r);
		return;
	}
	log_read(t, d, q->now, req_log_read, q);
}

void selftest_req_queue(struct selftest_svc *t, int64_t id, uint8_t stc, uint32_t nsid,
			enum selftest_origin origin, selftest_svc_done_fn done, void *arg)
{
	struct st_req *q = calloc(1, sizeof(*q));
	bool waits = false;

	if (!q) {
		done(arg, -ENOMEM, 0, "out of memory");
		return;
	}
	*q = (struct st_req){.t = t,
			     .id = id,
			     .stc = stc,
			     .nsid = nsid,
			     .origin = origin,
			     .done = done,
			     .arg = arg};
	for (struct st_op *op = t->ops; op; op = op->next)
		if (op->kind == ST_OP_REQ && ((struct st_req *)op)->id == id)
			waits = true;
	op_link(t, &q->op, ST_OP_REQ);
	if (!waits)
		req_run(q);
}

void selftest_svc_request(struct selftest_svc *t, int64_t id, uint8_t stc, uint32_t nsid,
			  enum selftest_origin origin, selftest_svc_done_fn done, void *arg)
{
	if (!selftest_code_sendable(stc)) {
		char reason[SELFTEST_SVC_ERR_MAX];
		snprintf(reason, sizeof(reason), "self-test code %u: 1 short, 2 extended", stc);
		done(arg, -EINVAL, 0, reason);
		return;
	}
	selftest_req_queue(t, id, stc, nsid, origin, done, arg);
}

/* The read on_sample() sent: the catch-up at start once the log reads. */
static void sample_log_read(struct selftest_svc *t, int64_t id, int r, int64_t now, void *arg)
{
	struct stdev *d = selftest_dev_find(t, id);

	(void)arg;
	if (r == 0 && d && !d->caught_up)
		selftest_plan_catch_up(t, d, now);
}

static void on_sample(void *ctx, const struct device_row *dev, const struct sample *s)
{
	struct selftest_svc *t = ctx;
	struct fleet_device fd;
	struct stdev *d = dev_get(t, dev);

	if (!d || fleet_get(t->fleet, dev->id, &fd) < 0)
		return;
	if (!d->loaded && dev_load(t, d) < 0) {
		log_error("self-test: %s: %s", dev->key, store_strerror(t->store));
		return;
	}
	d->supported = fd.facts.id_known && fd.facts.selftest_supported;
	if (!d->supported) {
		if (!d->told_fleet) /* the results it once had still show */
			(void)fleet_put_selftest(t->fleet, d->id, &d->st);
		d->told_fleet = true;
		return;
	}
	if (d->n_log_out)
		return; /* a read is out: its answer does the rest */
	bool due = !d->st.log_read || d->st.running ||
		   timefmt_mono_ms() - d->last_read_mono >= SELFTEST_SVC_IDLE_READ_MS;
	if (due) {
		log_read(t, d, s->ts_ms, sample_log_read, NULL);
		return;
	}
	if (!d->caught_up)
		selftest_plan_catch_up(t, d, s->ts_ms);
}

static void on_online(void *ctx, const struct device_row *dev, bool online, int64_t now_ms)
{
	struct selftest_svc *t = ctx;
	struct stdev *d = selftest_dev_find(t, dev->id);

	(void)now_ms;
	if (d && !online && d->st.running) {
		/* Gone: nothing runs that nvmond can see; the log tells the end. */
		d->st.running = 0;
		d->st.percent = 0;
		(void)fleet_put_selftest(t->fleet, d->id, &d->st);
	}
}

static void apply_cfg(struct selftest_svc *t, const struct cfg *c)
{
	t->cfg = *c;
	memset(&t->acfg, 0, sizeof(t->acfg));
	t->acfg.rule_on[ALERT_SELFTEST_FAILED] = SELFTEST_ALERTS_ON(c);
	t->acfg.rule_on[ALERT_SELFTEST_ABORTED] = SELFTEST_ALERTS_ON(c);
}

int selftest_svc_new(const struct cfg *c, struct dev_backend *b, struct store *s, struct fleet *f,
		     struct mainq *q, struct alert_svc *alerts, struct probe_svc *probes,
		     struct selftest_svc **ret, char ret_err[SELFTEST_SVC_ERR_MAX])
{
	struct selftest_svc *t;
	int r = selftest_plan_check(c, ret_err);

	if (r < 0)
		return r;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	apply_cfg(t, c);
	t->backend = b;
	t->store = s;
	t->fleet = f;
	t->mainq = q;
	t->alerts = alerts;
	t->probes = probes;
	t->own_selftests = dev_has(b, DEV_CAP_OWN_SELFTESTS);
	selftest_api_init(t);
	*ret = t;
	return 0;
}

int selftest_svc_start(struct selftest_svc *t, struct loop *l, struct poller *p)
{
	struct poller_listener pl = {.on_sample = on_sample, .on_online = on_online, .ctx = t};
	int r = dev_async_new(t->backend, l, &t->async);

	if (r == -EINVAL)
		t->async = NULL; /* no guard: commands on the loop's thread (tests) */
	else if (r < 0)
		return r;
	r = poller_add_listener(p, &pl);
	if (r < 0)
		return r;
	return selftest_plan_start(t, l);
}

int selftest_svc_reconfigure(struct selftest_svc *t, const struct cfg *c,
			     char ret_err[SELFTEST_SVC_ERR_MAX])
{
	int r = selftest_plan_check(c, ret_err);

	if (r < 0)
		return r;
	apply_cfg(t, c);
	for (size_t i = 0; i < t->n_dev; i++)
		if (t->dev[i].loaded)
			selftest_plan_load(t, &t->dev[i]);
	return 0;
}

const struct api_endpoint *selftest_svc_endpoints(struct selftest_svc *t, size_t *ret_n)
{
	*ret_n = SELFTEST_SVC_N_ENDPOINTS;
	return t->endpoints;
}

void selftest_svc_stop(struct selftest_svc *t)
{
	if (!t)
		return;
	/* The answers not in yet never come: end what waited for them. */
	t->async = dev_async_free(t->async);
	while (t->ops) {
		struct st_op *op = t->ops;
		op_unlink(t, op);
		if (op->kind == ST_OP_REQ) {
			struct st_req *q = (struct st_req *)op;
			q->done(q->arg, -ECANCELED, 0, "shutting down");
		}
		free(op);
	}
}

struct selftest_svc *selftest_svc_free(struct selftest_svc *t)
{
	selftest_svc_stop(t);
	if (t) {
		free(t->dev);
		free(t);
	}
	return NULL;
}
