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
#include "nvmond/dev/smart.h"

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
	struct alert_sinks *sinks;
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
void alert_svc_note_fill(struct alert_note *n, const struct device_row *dev, const char *rule,
			 const char *severity, const char *state, const char *message,
			 int64_t started_ms, int64_t now_ms);

/* alert_http.c */
/* Fill a->endpoints: /events, /alerts, ack and test, each with @a as its context. */
void alert_svc_endpoints_init(struct alert_svc *a);
