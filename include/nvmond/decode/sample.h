/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "nvmond/decode/smart.h"

/* Where a sample's values come from. */
enum sample_source {
	SAMPLE_SOURCE_SMART, /* the SMART / health log (02h): every field */
	/*
	 * The driver's hwmon device (no permission for admin commands): only
	 * the temperatures (composite, sensors) are known; every other field is
	 * 0 and means "unknown". Such samples are shown, never stored.
	 */
	SAMPLE_SOURCE_HWMON,
};

/* One poll of one device. */
struct sample {
	int64_t device_id; /* store id of the device */
	int64_t ts_ms;	   /* unix milliseconds, wall clock */
	struct smart_log smart;
	enum sample_source source;
};

/* A device as the store knows it: identity plus where it was last seen. */
struct device_row {
	int64_t id;
	char key[128]; /* "model/serial" */
	char model[41];
	char serial[21];
	char firmware[9];
	uint16_t wctemp_k;
	uint16_t cctemp_k;
	u128 capacity_bytes;
	char name[64];	       /* controller name when last seen, e.g. "nvme0" */
	char namespaces[2048]; /* JSON array as stored, "[]" when none */
	int64_t first_seen_ms;
	int64_t last_seen_ms;
	int online;
	/* found by a backend of simulated drives (DEV_CAP_SIMULATED: the demo); the
	 * API's "demo" */
	int simulated;
};
