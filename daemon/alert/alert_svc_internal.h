/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Private to the alerts service (alert_svc.c, alert_http.c): its state, one
 * struct adev per device it has heard of, and the functions one file of it
 * calls in another. Nothing outside daemon/alert includes this.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/alert/alert_sink.h"
#include "nvmond/alert/alert_svc.h"
#include "nvmond/alert/mqtt_ha.h"
#include "nvmond/analysis/alert.h"
#include "nvmond/analysis/throttle.h"
#include "nvmond/api/api_route.h"
#include "nvmond/core/cfg.h"
#include "nvmond/decode/smart.h"

struct adev {
	int64_t id;
	bool loaded; /* open events and the last stored sample are in */
	struct throttle_state th;
	struct alert_slot slots[_ALERT_RULE_MAX];
	bool have_prev;
	struct smart_log prev;
	char last_active[_ALERT_RULE_MAX][160]; /* latest message while firing (for "resolved") */
	int64_t io_error_ms; /* newest media / io error log entry read, 0 = none */
	char io_error_desc[150];
	bool have_state;
	struct mqtt_drive_state state; /* the latest, for the sinks that publish states (mqtt) */
};

struct alert_svc {
	struct store *store; /* writer, main loop only */
	struct fleet *fleet;
	struct mainq *mainq;
	struct alert_sinks *sinks; /* NULL once stopped (alert_svc_stop_sinks) */
	struct alert_outbox *outbox;
	struct alert_cfg acfg;
	struct throttle_cfg tcfg; /* without the per-drive limits and margins */
	struct cfg cfg;		  /* for the [device] margins */
	struct adev *devs;
	size_t n_devs;
	struct api_endpoint endpoints[ALERT_SVC_N_ENDPOINTS];
	struct loop *loop;    /* of the poller: the states go out once per poll */
	int64_t states_timer; /* > 0: the hand-off of the states is due */
};

/* alert_svc.c */
/*
 * A notification of @dev (NULL: none) as @c names the drive and the host; its
 * strings valid UTF-8, cut at a character. Main loop only.
 */
void alert_svc_note_fill(struct alert_note *n, const struct cfg *c, const struct device_row *dev,
			 const char *rule, const char *severity, const char *state,
			 const char *message, int64_t started_ms, int64_t now_ms);

/* alert_outbox.c */
/* Queue the kept notifications of the last run again; hook the sinks' reports. */
int alert_outbox_start(struct alert_svc *a, int64_t now_ms);
/* The outbox rows of one notification: a sink's name and its row (notification_id). */
struct alert_outbox_kept {
	size_t n;
	char sink[ALERT_SINKS_MAX][CFG_SINK_NAME_MAX];
	int64_t id[ALERT_SINKS_MAX];
};
/* Keep @n (an alert's) in the outbox for each sink it is for, in the caller's transaction. */
int alert_outbox_keep(struct alert_svc *a, struct alert_note *n, struct alert_outbox_kept *ret);
/* Queue @n for the sinks: a kept one to each of its rows' sinks, else as alert_sinks_send(). */
void alert_outbox_send(struct alert_svc *a, const struct alert_note *n,
		       const struct alert_outbox_kept *kept);
/* Clear what the sinks reported as done (main loop). */
void alert_outbox_drain(struct alert_svc *a);
/* Stop the sinks, then record what they finished. */
void alert_outbox_stop(struct alert_svc *a);

/* alert_http.c */
/* Fill a->endpoints: /events, /alerts, ack and test, each with @a as its context. */
void alert_svc_endpoints_init(struct alert_svc *a);
