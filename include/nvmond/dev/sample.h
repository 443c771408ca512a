/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "nvmond/dev/smart.h"

/* One poll of one device. */
struct sample {
	int64_t device_id; /* store id of the device */
	int64_t ts_ms;	   /* unix milliseconds, wall clock */
	struct smart_log smart;
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
};
