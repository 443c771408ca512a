/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/dev/idctl.h"
#include "nvmond/dev/smart.h"

#define DEV_MAX_NS   32
#define DEV_NAME_MAX 64
#define DEV_KEY_MAX  128 /* "model/serial", as struct device_row.key */

struct dev_ns {
	uint32_t nsid;
	char name[DEV_NAME_MAX]; /* block device name, e.g. "nvme0n1" */
	uint64_t size_bytes;
	uint32_t lba_size;
};

/* One controller as a scan found it. */
struct dev_info {
	char name[DEV_NAME_MAX];     /* "nvme0" — changes across boots, never an identity */
	char path[DEV_NAME_MAX + 8]; /* "/dev/nvme0", or "demo:0" */
	struct idctl id;
	size_t n_ns;
	struct dev_ns ns[DEV_MAX_NS];
};

/*
 * Who a controller must be. A read through a name that now belongs to another
 * drive (the driver bound the controllers again and the names moved) is
 * refused with -ESTALE instead of answering for the wrong drive.
 */
struct dev_ident {
	const char *model, *serial;
};

/*
 * A backend answers scans and SMART reads. Two exist: the real one (libnvme) and
 * the demo drives. @now_ms is wall-clock unix milliseconds, passed in so that the
 * demo drives are a pure function of time and tests control it.
 */
struct dev_backend_ops {
	const char *name;
	/* Allocate *ret (free()) with every controller present now. */
	int (*scan)(void *ctx, int64_t now_ms, struct dev_info **ret, size_t *ret_n);
	/*
	 * Read the SMART / health log (02h, controller scope) of controller
	 * @name, after checking on the opened node that it is @who (NULL: the
	 * demo model's own reads only).
	 */
	int (*read_smart)(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			  uint8_t ret_page[SMART_LOG_SIZE]);
	void (*free)(void *ctx);
	/*
	 * Optional. The over-temperature threshold of each sensor in @sensors
	 * (bit N-1 = sensor N): Get Features 04h, THSEL 0, TMPSEL N, in Kelvin as
	 * the drive answers (0 or FFFFh = none); sensors not asked stay 0.
	 */
	int (*read_sensor_limits)(void *ctx, const char *name, const struct dev_ident *who,
				  uint8_t sensors, uint16_t ret_k[SMART_NUM_SENSORS]);
};

struct dev_backend {
	const struct dev_backend_ops *ops;
	void *ctx;
};

/**
 * dev_nvme_open() - The libnvme backend (the only code that includes <libnvme.h>).
 * Return: 0, or negative errno.
 */
int dev_nvme_open(struct dev_backend **ret);

/**
 * dev_demo_open() - Two simulated drives (see dev_demo.c), a pure function of time.
 * Return: 0, or negative errno.
 */
int dev_demo_open(struct dev_backend **ret);

/** dev_backend_free() - Accepts NULL. Return: NULL. */
struct dev_backend *dev_backend_free(struct dev_backend *b);

/** dev_scan() - See &dev_backend_ops.scan. Return: 0 or negative errno. */
int dev_scan(struct dev_backend *b, int64_t now_ms, struct dev_info **ret, size_t *ret_n);

/**
 * dev_read_smart() - See &dev_backend_ops.read_smart.
 * Return: 0; -ESTALE when @name is now another drive than @who; -ENODEV when
 * it is gone; or negative errno.
 */
int dev_read_smart(struct dev_backend *b, const char *name, const struct dev_ident *who,
		   int64_t now_ms, uint8_t ret_page[SMART_LOG_SIZE]);

/**
 * dev_read_sensor_limits() - See &dev_backend_ops.read_sensor_limits. Ask only
 * for sensors the health log reports: a drive may log an error for a
 * threshold of a sensor it does not have.
 * Return: 0; -EOPNOTSUPP when the backend cannot; -ESTALE / -ENODEV as
 * dev_read_smart(); or negative errno.
 */
int dev_read_sensor_limits(struct dev_backend *b, const char *name, const struct dev_ident *who,
			   uint8_t sensors, uint16_t ret_k[SMART_NUM_SENSORS]);

/**
 * dev_key() - The stable identity of a controller: "model/serial".
 * Return: @buf.
 */
char *dev_key(const struct idctl *id, char *buf, size_t len);
