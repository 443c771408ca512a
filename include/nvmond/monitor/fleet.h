/* SPDX-License-Identifier: MIT */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/analysis/errclass.h"
#include "nvmond/analysis/risk.h"
#include "nvmond/analysis/sensors.h"
#include "nvmond/core/cfg.h"
#include "nvmond/dev/dev.h"
#include "nvmond/decode/sample.h"
#include "nvmond/decode/selftest.h"

/*
 * The in-memory view of every known device: identity, online state and latest
 * sample. The poller writes it; HTTP threads read consistent copies. It is the
 * only state shared between threads, guarded by one mutex.
 */
/* What the poller knows of a device besides its samples (issue 11). */
struct fleet_facts {
	bool known;	 /* the poller has seen the device in this run */
	bool asleep;	 /* runtime-suspended: not polled ([daemon] wake_sleeping = no) */
	bool hwmon_only; /* no permission for admin commands: temperatures from hwmon */
	/* A command to it passed [daemon] device_timeout and has not returned
	 * (dev_unresponsive()): not polled, no command sent, not offline. */
	bool unresponsive;
	int64_t unresponsive_since_ms;	      /* wall clock, while unresponsive */
	struct nvme_pcie_link link;	      /* as last read; all 0 = unknown */
	char firmware[FWLOG_REV_MAX];	      /* the running revision last recorded */
	char firmware_pending[FWLOG_REV_MAX]; /* staged for the next reset; "" none */
	char firmware_prev[FWLOG_REV_MAX];    /* before the last change; "" none seen */
	int64_t firmware_changed_ms;	      /* when nvmond saw that change; 0 none */
	/* Identify Controller, at the last scan with admin access (issue 12). */
	bool id_known;		 /* Identify was read: the two below are known */
	bool selftest_supported; /* OACS bit 4: Device Self-test */
	uint16_t edstt_min;	 /* Extended Device Self-test Time, minutes; 0 = not reported */
};

/* Device self-tests as the self-test service last saw them (issue 12). */
struct fleet_selftest {
	bool log_read;		  /* the log 06h was read since the start */
	uint8_t running;	  /* enum selftest_code of the test in progress, 0 = none */
	uint8_t percent;	  /* its completion, 0 … 100 */
	int64_t running_since_ms; /* when nvmond first saw it running; 0 none */
	uint32_t running_nsid;	  /* as nvmond started it; 0 = unknown (not nvmond) */
	/* The newest stored result of each type (index: selftest_sched_type). */
	bool has_last[2];
	struct selftest_result last[2];
	int64_t last_seen_ms[2];
	/* The next scheduled test; next_ms 0 = none scheduled. */
	int64_t next_ms;
	uint8_t next_code;
};

/* The sensors 1-8 of the latest sample, judged (monitor/temps.h). */
struct fleet_temps {
	bool judged; /* false: no verdict yet (no sample since start) */
	/* The drive's over-temperature threshold of each sensor (Get Features
	 * 04h), in K; 0 or FFFFh = none. */
	uint16_t drive_limit_k[SMART_NUM_SENSORS];
	struct sensors_verdict v;
};

/* What the operator calls a drive ([device "X"] label, location; issue 24); "" = not set. */
struct fleet_names {
	char label[CFG_DEVICE_TEXT_MAX];
	char location[CFG_DEVICE_TEXT_MAX];
};

/*
 * What the drive knows beyond its health log (issue 27), as the poller last
 * read it.
 */
struct fleet_ocp {
	bool probed;  /* nvmond knows whether the drive has the OCP log C0h */
	bool present; /* it answers C0h with the OCP GUID */
	char why[64]; /* when not present: "another vendor's C0h page", "refused", … */
	bool have;    /* a page was read (in this run, or the newest stored) */
	int64_t read_ms;
	struct ocp_log log;
	u128 host_written_units; /* the health log's Data Units Written at that read */
	int64_t wa_x100;	 /* lifetime write amplification × 100; -1 unknown */
};

/* One power state of the drive's descriptors, as the API shows it. */
struct fleet_psd {
	uint32_t max_uw;
	bool non_operational;
	uint32_t enlat_us, exlat_us;
};

struct fleet_power {
	bool have; /* the state was read */
	int64_t read_ms;
	int64_t since_ms; /* in this state since (as nvmond saw it) */
	uint8_t ps, wh;
	uint8_t n_ps; /* states the drive has (NPSS + 1); 0 = Identify not read */
	struct fleet_psd psd[POWER_STATES_MAX];
	bool apst_supported, apst_known, apst_enabled;
	struct apst_idle apst_idle; /* from the current state */
	bool polls_keep_awake;	    /* nvmond polls more often than apst_idle.idle_ms */
	bool hctm_supported, hctm_known;
	uint16_t tmt1_k, tmt2_k;   /* 0 = off */
	uint16_t mntmt_k, mxtmt_k; /* the range the host may set; 0 = not reported */
};

#define FLEET_NS_MAX 8

struct fleet_ns {
	uint32_t nsid;
	char name[DEV_NAME_MAX];
	bool has_usage;
	uint64_t nsze, ncap, nuse; /* logical blocks */
	uint32_t lba_size;
	char ana_state[NVME_ANA_STATE_MAX]; /* "" = no ANA */
};

struct fleet_pel {
	bool supported; /* Identify LPA bit 4 */
	bool read;	/* read at least once */
	int64_t read_ms;
	uint32_t tnev; /* the header's Total Number of Events at the last read */
	uint64_t tll;
	uint64_t stored; /* entries nvmond keeps */
};

struct fleet_drive {
	struct fleet_ocp ocp;
	struct fleet_power power;
	size_t n_ns;
	struct fleet_ns ns[FLEET_NS_MAX];
	struct fleet_pel pel;
};

/* The alerts of a drive firing now, as the store lists them (newest first); the
 * alerts service keeps them (issue 24: the health rule, analysis/health.h). */
#define FLEET_ALERTS_MAX _ALERT_RULE_MAX /* one per rule */
struct fleet_alert {
	int64_t id; /* the store's */
	enum alert_rule rule;
	enum alert_severity severity;
	char message[160];
};

struct fleet_alerts {
	size_t n;
	struct fleet_alert v[FLEET_ALERTS_MAX];
};

struct fleet_device {
	struct device_row row; /* identity, as stored */
	struct fleet_names names;
	bool has_sample;
	struct sample last;		/* newest sample, stored or still buffered */
	bool errors_read;		/* the error log has been read (errors[] is known) */
	uint64_t errors[_ERRCLASS_MAX]; /* error log entries stored, by class */
	struct fleet_facts facts;
	struct fleet_temps temps;
	struct fleet_selftest selftest;
	struct fleet_drive drive; /* issue 27: C0h, power, namespaces, events */
	struct risk_verdict risk; /* issue 27: the risk verdict (docs/health.md) */
	/* The rated endurance configured for it ([device] rated_tbw); 0 = none. */
	uint64_t rated_bytes_cfg;
	struct fleet_alerts alerts;
};

struct fleet;

/** fleet_new() - Return: a fleet, or NULL on ENOMEM. */
struct fleet *fleet_new(void);

/** fleet_free() - Accepts NULL. Return: NULL. */
struct fleet *fleet_free(struct fleet *f);

/** fleet_put_device() - Add or replace the device with row->id. Return: 0 or -ENOMEM. */
int fleet_put_device(struct fleet *f, const struct device_row *row);

/**
 * fleet_device_state() - What the API shows as the device's state: "offline",
 * "unresponsive" (a command stuck past [daemon] device_timeout), "asleep" or
 * "online".
 */
const char *fleet_device_state(const struct fleet_device *d);

/** fleet_set_online() - Return: 0, or -ENOENT for an unknown id. */
int fleet_set_online(struct fleet *f, int64_t id, bool online, int64_t now_ms);

/** fleet_put_facts() - Replace the facts of device @id. Return: 0 or -ENOENT. */
int fleet_put_facts(struct fleet *f, int64_t id, const struct fleet_facts *facts);

/** fleet_put_sample() - Make @s the latest of its device. Return: 0 or -ENOENT. */
int fleet_put_sample(struct fleet *f, const struct sample *s);

/** fleet_put_errors() - The stored error log entries of @id by class. Return: 0 or -ENOENT. */
int fleet_put_errors(struct fleet *f, int64_t id, const uint64_t counts[_ERRCLASS_MAX]);

/**
 * fleet_put_names() - The configured label and location of device @id; the
 * generation moves only when they changed. Return: 0 or -ENOENT.
 */
int fleet_put_names(struct fleet *f, int64_t id, const struct fleet_names *names);

/**
 * fleet_put_rated() - The rated endurance configured for device @id (0 = none);
 * the generation moves only when it changed. Return: 0 or -ENOENT.
 */
int fleet_put_rated(struct fleet *f, int64_t id, uint64_t rated_bytes_cfg);

/**
 * fleet_put_alerts() - The alerts of device @id firing now; the generation
 * moves only when they changed. Return: 0 or -ENOENT.
 */
int fleet_put_alerts(struct fleet *f, int64_t id, const struct fleet_alerts *alerts);

/** fleet_put_selftest() - Replace the self-test state of device @id. Return: 0 or -ENOENT. */
int fleet_put_selftest(struct fleet *f, int64_t id, const struct fleet_selftest *st);

/**
 * fleet_put_judged() - Make @s the latest of its device, with @t the verdict on
 * its sensors, both at once. Return: 0 or -ENOENT.
 */
int fleet_put_judged(struct fleet *f, const struct sample *s, const struct fleet_temps *t);

/**
 * fleet_snapshot() - Copy every device (by id). *ret is malloc()ed, free() it.
 * Return: 0 or -ENOMEM.
 */
int fleet_snapshot(struct fleet *f, struct fleet_device **ret, size_t *ret_n);

/**
 * fleet_snapshot_gen() - fleet_snapshot(), and the generation it is a copy of
 * in *ret_gen (when not NULL). Return: 0 or -ENOMEM.
 */
int fleet_snapshot_gen(struct fleet *f, struct fleet_device **ret, size_t *ret_n,
		       uint64_t *ret_gen);

/**
 * fleet_generation() - A number that every change of the fleet (each fleet_put_*()
 * and fleet_set_online() call) makes larger: two equal generations mean equal copies.
 * Return: the current generation.
 */
uint64_t fleet_generation(struct fleet *f);

/**
 * fleet_memo_put() - Keep a copy of @text, a rendering of generation @gen, until
 * the next change (an HTTP answer served as the same bytes until the next poll).
 * Nothing is kept when @gen is no longer current.
 * Return: 0 or -ENOMEM.
 */
int fleet_memo_put(struct fleet *f, uint64_t gen, const char *text, size_t len);

/**
 * fleet_memo_get() - A malloc()ed copy of the text kept by fleet_memo_put() for
 * the current generation. Return: 0, -ENOENT (none: changed since) or -ENOMEM.
 */
int fleet_memo_get(struct fleet *f, char **ret, size_t *ret_len);

/** fleet_get() - Copy one device. Return: 0 or -ENOENT. */
int fleet_get(struct fleet *f, int64_t id, struct fleet_device *ret);

/** fleet_put_drive() - Replace what device @id knows beyond its health log. Return: 0 or -ENOENT. */
int fleet_put_drive(struct fleet *f, int64_t id, const struct fleet_drive *d);

/** fleet_put_risk() - Replace the risk verdict of device @id. Return: 0 or -ENOENT. */
int fleet_put_risk(struct fleet *f, int64_t id, const struct risk_verdict *v);
