/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Private to the poller (poller.c, poll_drive.c, poll_errlog.c, poll_facts.c):
 * its state, one struct pdev per known controller, and the functions one file
 * of it calls in another. Nothing outside daemon/monitor includes this.
 */
#include <stdbool.h>
#include <stdint.h>

#include "nvmond/analysis/sensors.h"
#include "nvmond/dev/dev.h"
#include "nvmond/dev/dev_async.h"
#include "nvmond/decode/fwlog.h"
#include "nvmond/decode/smart.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/monitor/poller.h"
#include "nvmond/monitor/pollplan.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/monitor/sbuf.h"
#include "nvmond/store/store_errlog.h"

#define MAX_LISTENERS 16

struct poller;

/*
 * One drive's poll while its commands are out (poll_drive.c): they go one
 * after the other to its controller's worker, and the loop goes on meanwhile.
 * Allocated apart from its struct pdev, so that the callbacks' pointer
 * outlives a rescan's realloc of the poller's devs.
 */
struct pdev_poll {
	struct poller *p;
	size_t idx;	     /* of the drive in p->devs */
	bool busy;	     /* a command of this poll is out: no new poll of the drive */
	int64_t now;	     /* the round's time: the sample's */
	struct sample s;     /* being taken */
	size_t el_want;	     /* the entries of the error log read out */
	uint8_t limits_want; /* the sensors whose thresholds are asked */
};

struct pdev {
	int64_t id;
	char key[DEV_KEY_MAX];
	char model[41], serial[21]; /* checked on every read: names move */
	char name[DEV_NAME_MAX];
	bool online;
	bool online_stored; /* what the database believes; fixed up when it can */
	/* Answered again at this wall time: its facts go to the listeners at every
	 * poll until [alerts] resolve_after has passed, so the unresponsive alert
	 * resolves then rather than at the next scan. 0 = none. */
	int64_t answered_ms;
	bool was_online; /* online when the last run ended: missing at the first scan = gone */
	/* The error log (log page 01h). */
	unsigned el_kept;	  /* entries the controller keeps (ELPE + 1), from the scan */
	bool el_ext;		  /* LPA bit 2: Get Log Page takes offsets */
	bool el_loaded;		  /* el_have / el were read from the store */
	bool el_have;		  /* the log was read before (el holds where) */
	struct errlog_state el;	  /* where it was last read */
	int64_t el_retry_mono_ms; /* no read before this (after a failure) */
	uint64_t el_failed_count; /* the count of the failed read (logged once per count) */
	enum dev_access access;
	bool ident_partial; /* stored from sysfs only (asleep, or no access): upsert when full */
	bool facts_loaded;  /* the last recorded firmware and link are read from the store */
	bool link_recorded; /* link holds the newest link_history row */
	char fw[FWLOG_REV_MAX];	    /* the firmware last recorded; "" none yet */
	char row_fw[FWLOG_REV_MAX]; /* devices.firmware as last stored */
	struct fleet_facts facts;
	uint16_t wctemp_k, cctemp_k;
	/* Sensors 1-8: their history (the stuck rule) and the drive's own
	 * thresholds, asked once per appearance for the sensors it reports. */
	struct sensor_hist hist[SMART_NUM_SENSORS];
	uint16_t drive_limit_k[SMART_NUM_SENSORS];
	uint8_t limits_asked; /* sensors whose threshold was asked since it came online */
	struct pdev_poll *poll;
	struct pdev_logs *logs; /* issue 27: C0h, power, the event log (poll_logs.c) */
};

struct poller {
	struct cfg cfg;
	struct dev_backend *backend;
	struct store *store;
	struct fleet *fleet;
	struct loop *loop;
	struct pdev *devs;
	size_t n_devs;
	struct sbuf buf;
	int64_t retry_at_ms;	     /* monotonic: no store attempt before this */
	struct timefmt_steady clock; /* the samples' times: never backwards (timefmt.h) */
	int64_t pending_since_ms;    /* monotonic: when the oldest buffered sample came */
	int64_t retry_delay_ms;
	int last_store_err;
	bool rescan_soon;
	int64_t poll_timer, rescan_timer;
	struct poller_listener listeners[MAX_LISTENERS];
	size_t n_listeners;
	bool told_no_permission; /* the one log line about missing privileges went out */
	bool rescans_paused;	 /* a drive is unresponsive: no scan (it would reach it) */
	struct dev_async *async; /* the commands of polls and rescans, answered on the loop */
	bool scan_busy;		 /* a rescan is out */
	bool poll_soon;		 /* a round waits for the rescan's answer */
	int64_t scan_now;	 /* and its time */
	size_t n_busy;		 /* drives whose poll is out */
	bool in_tick;		 /* the poll timer's callback runs: it ends the round itself */
	uint64_t n_polls, n_poll_errors, n_store_errors, n_stored;
	uint64_t n_errlog_reads, n_errlog_errors;
};

/* poller.c */
void poller_notify_sample(struct poller *p, const struct pdev *d, const struct sample *s,
			  int64_t now);
void poller_poll_failed(struct poller *p, struct pdev *d, int r, int64_t now);
void poller_round_end(struct poller *p);

/* poll_drive.c */
void poller_poll_drive(struct poller *p, struct pdev *d, enum poll_action act, int64_t now);
void poller_poll_end(struct pdev_poll *q);
void poller_poll_timed_out(struct pdev_poll *q);
/*
 * An answer no longer to read: the drive went offline meanwhile (the poll ends,
 * poller_poll_end()) or the command timed out (poller_poll_timed_out()).
 * Return: true when the poll is over so, false when the answer is to be read.
 */
bool poller_answer_moot(struct pdev_poll *q, int r);

/* poll_logs.c (issue 27): after the sample, the drive's other logs; then poller_poll_end(). */
struct pdev_logs *poller_logs_new(void);
void poller_logs_free(struct pdev_logs *l);
void poller_logs_poll(struct pdev_poll *q);
void poller_logs_scan(struct poller *p, struct pdev *d, const struct dev_info *info, int64_t now);

/* poll_errlog.c */
void poller_errlog_counts_to_fleet(struct poller *p, struct pdev *d);
size_t poller_errlog_want(struct poller *p, struct pdev *d, const struct smart_log *smart,
			  int64_t now);
void poller_errlog_take(struct poller *p, struct pdev *d, const struct smart_log *smart,
			size_t want, int r, const uint8_t *page, int64_t now);

/* poll_facts.c */
void poller_notify_facts(struct poller *p, const struct pdev *d, int64_t now_ms);
void poller_tell_no_permission(struct poller *p, const struct pdev *d);
void poller_facts_update(struct poller *p, struct pdev *d, const struct dev_info *info,
			 int64_t now);
void poller_hwmon_sample(const struct pdev *d, int64_t now, const struct nvme_hwmon_temps *t,
			 struct sample *ret);
void poller_set_asleep(struct poller *p, struct pdev *d, bool asleep, int64_t now);
void poller_set_unresponsive(struct poller *p, struct pdev *d, bool hung, int64_t now);
