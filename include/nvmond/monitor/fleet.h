/* SPDX-License-Identifier: MIT */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "nvmond/analysis/sensors.h"
#include "nvmond/dev/dev.h"
#include "nvmond/dev/sample.h"

/*
 * The in-memory view of every known device: identity, online state and latest
 * sample. The poller writes it; HTTP threads read consistent copies. It is the
 * only state shared between threads, guarded by one mutex.
 */
/* The sensors 1-8 of the latest sample, judged (monitor/temps.h). */
struct fleet_temps {
	bool judged; /* false: no verdict yet (no sample since start) */
	/* The drive's over-temperature threshold of each sensor (Get Features
	 * 04h), in K; 0 or FFFFh = none. */
	uint16_t drive_limit_k[SMART_NUM_SENSORS];
	struct sensors_verdict v;
};

struct fleet_device {
	struct device_row row; /* identity, as stored */
	bool has_sample;
	struct sample last; /* newest sample, stored or still buffered */
	struct fleet_temps temps;
};

struct fleet;

/** fleet_new() - Return: a fleet, or NULL on ENOMEM. */
struct fleet *fleet_new(void);

/** fleet_free() - Accepts NULL. Return: NULL. */
struct fleet *fleet_free(struct fleet *f);

/** fleet_put_device() - Add or replace the device with row->id. Return: 0 or -ENOMEM. */
int fleet_put_device(struct fleet *f, const struct device_row *row);

/** fleet_set_online() - Return: 0, or -ENOENT for an unknown id. */
int fleet_set_online(struct fleet *f, int64_t id, bool online, int64_t now_ms);

/** fleet_put_sample() - Make @s the latest of its device. Return: 0 or -ENOENT. */
int fleet_put_sample(struct fleet *f, const struct sample *s);

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

/** fleet_get() - Copy one device. Return: 0 or -ENOENT. */
int fleet_get(struct fleet *f, int64_t id, struct fleet_device *ret);
