/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/util/u128.h"

/*
 * The risk verdict (issue 27 §3; docs/health.md): ok, watch, replace_soon
 * or failed, from documented rules, each with its threshold, what it needs
 * before it counts, and its source. No learned score: each rule that fires
 * says why in words. Pure: the inputs (the latest health log, counts over
 * windows of the history, the other drives' verdicts) and @now in, the
 * verdict out; the caller gathers the inputs and keeps the state.
 */

enum risk_level {
	RISK_OK,
	RISK_WATCH,
	RISK_REPLACE_SOON,
	RISK_FAILED,
	_RISK_LEVEL_MAX,
};

enum risk_rule {
	RISK_CRITICAL_WARNING, /* failed: reliability degraded, read-only, backup failed */
	RISK_SPARE_BELOW,      /* replace_soon: critical warning bit 0, spare below threshold */
	RISK_PERCENT_USED,     /* replace_soon: percentage used ≥ 90 */
	RISK_SPARE_PROJECTION, /* replace_soon: spare reaches its threshold within 90 days */
	RISK_RECENT_ERRORS,    /* watch: a media / integrity error in the last 90 days */
	RISK_YOUNG_ERRORS,     /* watch: errors on a drive under 90 days old */
	RISK_BAD_BLOCKS,       /* watch: OCP bad NAND blocks grew in the last 30 days */
	RISK_HW_ERROR,	       /* watch: a hardware error event in the last 90 days */
	RISK_NEIGHBOUR,	       /* watch: another drive of this host is replace_soon or failed */
	_RISK_RULE_MAX,
};

/* The thresholds (docs/health.md gives each with its source). */
#define RISK_USED_PCT		90   /* percentage used at which a drive is worn */
#define RISK_ERRORS_DAYS	90   /* errors count this long */
#define RISK_SPARE_FIT_DAYS	30   /* the spare fit looks back this far */
#define RISK_SPARE_MIN_DAYS	7    /* and needs at least this much history */
#define RISK_SPARE_MIN_POINTS	24   /* and this many points */
#define RISK_SPARE_HORIZON_DAYS 90   /* the threshold within this is replace_soon */
#define RISK_YOUNG_HOURS	2160 /* 90 days of power-on time */
#define RISK_BLOCKS_DAYS	30   /* bad block growth counts this long */
#define RISK_HW_DAYS		90   /* hardware error events count this long */
#define RISK_CONFIRM		2    /* consecutive evaluations a condition needs */
/* Critical warning bits that mean failed: 2 reliability, 3 read-only, 4 volatile backup, 5 PMR. */
#define RISK_CRIT_FAILED_BITS 0x3C

/* A rule as docs/health.md lists it. */
struct risk_rule_info {
	const char *name;      /* "percent_used", as in [risk] disable */
	enum risk_level level; /* what it raises the verdict to */
	const char *threshold; /* in words */
	const char *needs;     /* what it needs before it counts */
	const char *source;    /* where the rule comes from */
};

/** risk_rule_info() - The documented rule @r. Return: static data. */
const struct risk_rule_info *risk_rule_info(enum risk_rule r);

/** risk_level_name() - "ok", "watch", "replace_soon", "failed". */
const char *risk_level_name(enum risk_level l);

/** risk_level_from_name() - Return: the level, or -EINVAL. */
int risk_level_from_name(const char *name);

/** risk_rule_from_name() - Return: the rule, or -EINVAL. */
int risk_rule_from_name(const char *name);

/* Which rules count. */
struct risk_cfg {
	bool rule_on[_RISK_RULE_MAX];
};

/* Each input's time: when the read it comes from was taken (0 = unknown). */

/**
 * risk_rules_parse() - @c with every rule on but those named in @disable
 * ("a, b"; blanks around names ignored; "" = none).
 * Return: 0, or -EINVAL naming the first unknown word in @ret_err.
 */
int risk_rules_parse(const char *disable, struct risk_cfg *ret, char *ret_err, size_t err_len);

/* One hourly point of available spare. */
struct risk_spare_point {
	int64_t ts_ms;
	uint8_t spare; /* percent */
};

/*
 * What the rules look at. A count "then" is the value at the start of its
 * window (the oldest stored read inside it); "known" false leaves the rules
 * that need it unknown (they do not fire).
 */
struct risk_input {
	int64_t now_ms;
	bool smart_known; /* the latest health log, read at smart_ms */
	int64_t smart_ms;
	uint8_t critical_warning, percent_used, avail_spare, spare_thresh;
	u128 power_on_hours;
	/* Hourly available spare over the last RISK_SPARE_FIT_DAYS, oldest first,
	 * gathered at history_ms (the history's time: the windows below too). */
	const struct risk_spare_point *spare;
	size_t n_spare;
	int64_t history_ms;
	/* Errors in the last RISK_ERRORS_DAYS: error log entries of class media or io
	 * read (from when nvmond watched the drive); the health log's media errors now
	 * and at the window's start; OCP uncorrectable reads now and then. */
	uint64_t io_errors;
	bool media_known;
	u128 media_now, media_then;
	bool unc_known; /* from the C0h read at ocp_ms */
	uint64_t unc_now, unc_then;
	int64_t ocp_ms;
	/* OCP bad NAND blocks (user + system) now and RISK_BLOCKS_DAYS ago. */
	bool blocks_known;
	uint64_t blocks_now, blocks_then;
	/* Hardware error events of the Persistent Event Log in the last RISK_HW_DAYS. */
	uint64_t hw_errors;
	/* Other drives of this host whose verdict is replace_soon or failed; one named. */
	unsigned neighbours_bad;
	const char *neighbour;
};

/*
 * What one rule says now: active or not, why in words, and the time of the
 * newest read it rests on (a C0h read, a health log, an hourly fit): only a
 * newer read advances the rule's count toward RISK_CONFIRM.
 */
struct risk_cond {
	bool known;
	bool off; /* the rule is turned off ([risk] disable) */
	bool active;
	int64_t evidence_ms;
	char reason[200];
};

/**
 * risk_conditions() - Evaluate every rule on @in. Disabled rules are known
 * and inactive.
 */
void risk_conditions(const struct risk_cfg *c, const struct risk_input *in,
		     struct risk_cond ret[_RISK_RULE_MAX]);

/* A rule that counts in the verdict. */
struct risk_reason {
	uint8_t rule;  /* enum risk_rule */
	uint8_t level; /* enum risk_level */
	char reason[200];
};

struct risk_verdict {
	bool known;	  /* evaluated at least once */
	uint8_t level;	  /* enum risk_level: the highest of the reasons; ok without one */
	int64_t since_ms; /* at this level since */
	uint32_t off;	  /* bit r: rule r turned off ([risk] disable) */
	size_t n;
	struct risk_reason r[_RISK_RULE_MAX];
};

/* One drive's state between evaluations: how often each rule held (or not) in a row. */
struct risk_state {
	uint8_t held[_RISK_RULE_MAX];	 /* consecutive reads active */
	uint8_t absent[_RISK_RULE_MAX];	 /* consecutive reads inactive */
	int64_t last_ms[_RISK_RULE_MAX]; /* the evidence counted last */
	bool counts[_RISK_RULE_MAX];	 /* the rule counts in the verdict */
	struct risk_verdict v;
};

/**
 * risk_step() - Advance @st by one evaluation @conds at @now and write the
 * verdict into @ret: a rule starts counting after RISK_CONFIRM reads in a
 * row with its condition active (a read: a condition whose evidence_ms is
 * newer than the last one counted), and stops after RISK_CONFIRM reads
 * without, so one noisy read moves the verdict neither up nor down; an
 * unknown condition changes nothing. The level is the highest of the rules
 * that count.
 * Return: true when the level changed.
 */
bool risk_step(struct risk_state *st, const struct risk_cond conds[_RISK_RULE_MAX], int64_t now_ms,
	       struct risk_verdict *ret);

/**
 * risk_state_seed() - A state that goes on from verdict @v (the last one
 * stored, at a restart): its rules count, confirmed, until RISK_CONFIRM
 * reads without them.
 */
void risk_state_seed(struct risk_state *st, const struct risk_verdict *v);
