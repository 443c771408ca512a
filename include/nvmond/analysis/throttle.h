/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/smart.h"

/*
 * Thermal throttling detection. Pure: fed one device's samples in order (and
 * that drive's own WCTEMP / CCTEMP), it opens, updates and closes events. It
 * never reads the clock, files or the store; the caller persists events and
 * gives the state back after a restart.
 */
enum throttle_kind {
	THROTTLE_LIGHT,	      /* thermal management T1 count or time rose */
	THROTTLE_HEAVY,	      /* thermal management T2 count or time rose */
	THROTTLE_WARN_TIME,   /* warning composite temperature time rose */
	THROTTLE_CRIT_TIME,   /* critical composite temperature time rose */
	THROTTLE_CRIT_BIT,    /* critical warning bit 1 (temperature) set */
	THROTTLE_OVER_WCTEMP, /* composite at or above WCTEMP - warning margin */
	THROTTLE_OVER_CCTEMP, /* composite at or above CCTEMP - critical margin */
	_THROTTLE_KIND_MAX,
};

#define THROTTLE_MAX_UPDATES (2 * _THROTTLE_KIND_MAX)

struct throttle_cfg {
	uint16_t wctemp_k;     /* the drive's warning threshold; 0 = not reported */
	uint16_t cctemp_k;     /* the drive's critical threshold; 0 = not reported */
	int warning_margin_c;  /* the over-WCTEMP event starts at WCTEMP - this */
	int critical_margin_c; /* the over-CCTEMP event starts at CCTEMP - this */
	unsigned hysteresis_c; /* a temperature event ends below its threshold - this */
	int64_t gap_ms;	       /* samples further apart: what rose in between is "late" */
	int64_t settle_ms;     /* a seconds-counter event ends after this long without a rise */
	int64_t settle_min_ms; /* the same for the counters in minutes */
};

struct throttle_event {
	int64_t id; /* the caller's (store) id; the detector carries it along */
	enum throttle_kind kind;
	int64_t start_ms;
	int64_t end_ms;	      /* 0 while open */
	int64_t last_rise_ms; /* last sample that showed it (counter rose / condition held) */
	uint64_t duration_s;  /* counter kinds: from the counters; others: end - start */
	uint32_t transitions; /* T1/T2: transitions counted */
	/* Highest temperature seen while open: the composite for over_wctemp /
	 * over_cctemp, the hottest of composite and sensors for the others;
	 * 0 = none reported. */
	uint16_t peak_k;
	bool late;	    /* (partly) happened while no sample was taken */
	bool counter_reset; /* a counter went backwards (power cycle, reset) */
};

/* One device's detector state; zero-initialise it, or restore it after a restart. */
struct throttle_state {
	bool have_prev;
	int64_t prev_ts_ms;
	struct smart_log prev;
	bool open[_THROTTLE_KIND_MAX];
	struct throttle_event ev[_THROTTLE_KIND_MAX];
};

enum throttle_change {
	THROTTLE_OPENED,
	THROTTLE_UPDATED,
	THROTTLE_CLOSED,
};

struct throttle_update {
	enum throttle_change change;
	struct throttle_event ev; /* as it is after the change */
};

/**
 * throttle_feed() - Feed the next sample of one device.
 * @st:    the device's state, updated
 * @c:     thresholds and timings
 * @s:     the decoded health log
 * @ts_ms: when it was read
 * @ret:   the changes this sample caused, in kind order
 *
 * Counters never yield a negative delta: a counter that went down near the top
 * of its 32-bit range wrapped, anywhere else it was reset and what it shows now
 * is what happened since. Temperatures of 0 K ("not reported") are ignored.
 * A sample not newer than the previous one only updates the temperature kinds.
 * Return: the number of entries written to @ret.
 */
size_t throttle_feed(struct throttle_state *st, const struct throttle_cfg *c,
		     const struct smart_log *s, int64_t ts_ms,
		     struct throttle_update ret[THROTTLE_MAX_UPDATES]);

/**
 * throttle_close_all() - The device went away: end every open event when it was
 * last seen going on. The counters are kept, so what happens while the device
 * is gone shows as a late event when it returns.
 * Return: the number of entries written to @ret.
 */
size_t throttle_close_all(struct throttle_state *st,
			  struct throttle_update ret[THROTTLE_MAX_UPDATES]);

/**
 * throttle_restore() - Put an open event (from the store) back into @st.
 * Return: 0, or -EINVAL for an unknown kind or a closed event.
 */
int throttle_restore(struct throttle_state *st, const struct throttle_event *ev);

/** throttle_kind_name() - "light", "heavy", … Return: a static name, "unknown" if out of range. */
const char *throttle_kind_name(enum throttle_kind k);

/** throttle_kind_from_name() - Return: the kind, or -EINVAL. */
int throttle_kind_from_name(const char *name);
