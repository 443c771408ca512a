/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/alert/alert_svc.h"
#include "nvmond/api/api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/core/loop.h"
#include "nvmond/core/mainq.h"
#include "nvmond/dev/dev.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/monitor/poller.h"
#include "nvmond/probe/probe_svc.h"
#include "nvmond/store/store.h"

/*
 * Device self-tests in the daemon (issue 12). On the main loop, which never
 * waits for a drive (its commands go through dev_async.h), it:
 * - reads each capable drive's Device Self-test log (06h) at every poll while
 *   a test runs (and every SELFTEST_SVC_IDLE_READ_MS otherwise, so tests
 *   started by nvme-cli or smartd show too), keeps the fleet's view (running,
 *   %, the last result of each type), stores every new result once, and feeds
 *   the selftest_failed / selftest_aborted alert rules;
 * - starts the scheduled tests ([device] selftest_schedule, [selftests]
 *   default_schedule), skipping (with the reason recorded) while a probe runs,
 *   the drive is busy or asleep, or another self-test runs; one catch-up per
 *   type at start for what was missed while nvmond was down;
 * - serves GET/POST /api/v1/devices/{id}/selftests and POST …/selftests/abort.
 */
struct selftest_svc;

#define SELFTEST_SVC_ERR_MAX	  256
#define SELFTEST_SVC_IDLE_READ_MS (60 * 1000LL) /* the log, while no test runs */
#define SELFTEST_SVC_N_ENDPOINTS  3

/**
 * selftest_svc_new() - Borrow everything; check every drive's schedule.
 * Return: 0, -EINVAL (a bad schedule, @ret_err names it), or -ENOMEM.
 */
int selftest_svc_new(const struct cfg *c, struct dev_backend *b, struct store *s, struct fleet *f,
		     struct mainq *q, struct alert_svc *alerts, struct probe_svc *probes,
		     struct selftest_svc **ret, char ret_err[SELFTEST_SVC_ERR_MAX]);

/**
 * selftest_svc_start() - Listen to @p's samples and arm the scheduler on @l;
 * the drives' commands answered on @l when the backend has a guard
 * (dev_async_new()), else sent on the loop's thread.
 */
int selftest_svc_start(struct selftest_svc *t, struct loop *l, struct poller *p);

/** selftest_svc_reconfigure() - Apply reloaded schedules. Return: 0, or -EINVAL with @ret_err. */
int selftest_svc_reconfigure(struct selftest_svc *t, const struct cfg *c,
			     char ret_err[SELFTEST_SVC_ERR_MAX]);

/** selftest_svc_endpoints() - The endpoints, valid while @t lives. */
const struct api_endpoint *selftest_svc_endpoints(struct selftest_svc *t, size_t *ret_n);

/**
 * selftest_svc_stop() - Once the loop stopped: drop the commands still out,
 * and end their requests with -ECANCELED (an HTTP thread waiting for one
 * answers 503 at once). Before the loop and the backend are freed. Accepts
 * NULL.
 */
void selftest_svc_stop(struct selftest_svc *t);

/** selftest_svc_free() - selftest_svc_stop(), then free. Accepts NULL. Return: NULL. */
struct selftest_svc *selftest_svc_free(struct selftest_svc *t);

/* Who asks for a test: recorded with it ("schedule", "catch-up", "api", "cli"). */
enum selftest_origin {
	SELFTEST_ORIGIN_SCHEDULE,
	SELFTEST_ORIGIN_CATCHUP,
	SELFTEST_ORIGIN_API,
	SELFTEST_ORIGIN_CLI,
};

/** selftest_origin_name() - "schedule", "catch-up", "api", "cli". */
const char *selftest_origin_name(enum selftest_origin o);

/*
 * The end of a selftest_svc_request(), on the main loop: @r, with @reason
 * (valid during the call) in every failure; @ended, for an abort that
 * succeeded, the code of the test it ended (else 0).
 */
typedef void (*selftest_svc_done_fn)(void *arg, int r, uint8_t ended, const char *reason);

/**
 * selftest_svc_request() - On the main loop: start a test with code @stc (1h
 * short, 2h extended) or abort the running one (Fh) on device @id, for
 * namespace @nsid (DEV_SELFTEST_NSID_ALL: the controller). The loop never
 * waits for the drive: the log read and Device Self-test go to its
 * controller's worker (dev_async.h), and @done(@arg, …) follows on the loop,
 * exactly once (before this returns when nothing had to be sent, or without
 * a guard); selftest_svc_free() ends those still out with -ECANCELED. One
 * request per drive is out at a time, the others wait their turn.
 * @r: 0; -ENOENT no such device; -EOPNOTSUPP the drive has no self-test;
 * -EBUSY a test already runs, or a probe runs; -EALREADY (abort) no test
 * runs; -ENODEV offline or unresponsive; -EINVAL a bad @nsid or @stc;
 * -ETIMEDOUT no answer within device_timeout; other negative errno from the
 * drive.
 */
void selftest_svc_request(struct selftest_svc *t, int64_t id, uint8_t stc, uint32_t nsid,
			  enum selftest_origin origin, selftest_svc_done_fn done, void *arg);
