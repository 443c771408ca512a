/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The bodies of the probe endpoints, parsed and checked (pure: JSON text in,
 * values or the 400 message out), so that the HTTP handlers and the fuzz
 * harness (tests/fuzz/fuzz_body.c) share one parser:
 *   POST /api/v1/devices/{id}/probes  {"preset": P, "repeat": N, "cooldown": "30s", "to": ID}
 *   POST /api/v1/probes               {"preset": P, "devices": [ID, ID, …]}
 */
#include <stddef.h>
#include <stdint.h>

#include "nvmond/api/api.h"
#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_group.h"

struct probe_body {
	enum probe_preset_id preset;
	uint32_t repeat;     /* 1 … PROBE_REPEAT_MAX; 1 when not given */
	int64_t cooldown_ms; /* 0 … PROBE_COOLDOWN_MAX_MS; PROBE_COOLDOWN_DEFAULT_MS when not given */
	int64_t to_device_id; /* copy-to: the drive written (> 0, not @device_id); else 0 */
};

/**
 * probe_body_parse() - The body of POST /api/v1/devices/{@device_id}/probes.
 * Return: 0 with @ret filled, or -EINVAL with @ret_err (the 400 message).
 */
int probe_body_parse(const char *body, size_t len, int64_t device_id, struct probe_body *ret,
		     char ret_err[API_ERR_MAX]);

struct probe_group_body {
	enum probe_preset_id preset; /* never a study */
	int64_t device_id[PROBE_GROUP_MAX];
	size_t n; /* 2 … PROBE_GROUP_MAX */
};

/**
 * probe_group_body_parse() - The body of POST /api/v1/probes. The ids are as given
 * (the service refuses unknown, repeated or offline drives).
 * Return: 0 with @ret filled, or -EINVAL with @ret_err (the 400 message).
 */
int probe_group_body_parse(const char *body, size_t len, struct probe_group_body *ret,
			   char ret_err[API_ERR_MAX]);
