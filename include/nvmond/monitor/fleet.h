/* SPDX-License-Identifier: MIT */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "nvmond/analysis/errclass.h"
#include "nvmond/dev/dev.h"
#include "nvmond/dev/sample.h"

/*
 * The in-memory view of every known device: identity, online state and latest
 * sample. The poller writes it; HTTP threads read consistent copies. It is the
 * only state shared between threads, guarded by one mutex.
 */
struct fleet_device {
	struct device_row row; /* identity, as stored */
	bool has_sample;
	struct sample last;		/* newest sample, stored or still buffered */
	bool errors_read;		/* the error log has been read (errors[] is known) */
	uint64_t errors[_ERRCLASS_MAX]; /* error log entries stored, by class */
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

/** fleet_put_errors() - The stored error log entries of @id by class. Return: 0 or -ENOENT. */
int fleet_put_errors(struct fleet *f, int64_t id, const uint64_t counts[_ERRCLASS_MAX]);

/**
 * fleet_snapshot() - Copy every device (by id). *ret is malloc()ed, free() it.
 * Return: 0 or -ENOMEM.
 */
int fleet_snapshot(struct fleet *f, struct fleet_device **ret, size_t *ret_n);

/** fleet_get() - Copy one device. Return: 0 or -ENOENT. */
int fleet_get(struct fleet *f, int64_t id, struct fleet_device *ret);
