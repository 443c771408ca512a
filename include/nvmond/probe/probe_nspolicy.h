/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The raw-namespace policy: which namespace of which drive the configuration
 * lets a probe open, and how. The device process holds it from its own
 * reading of the configuration and applies it to every DEV_OP_OPEN_NS before
 * it opens anything, so a daemon taken over through an HTTP bug cannot write
 * to a namespace nobody configured (docs/security.md#privilege-separation).
 * Pure: it reads the configuration given and nothing else.
 */
#include <stddef.h>
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/dev/dev.h"

/**
 * probe_ns_policy() - Whether @c lets namespace @nsid of drive @who be opened
 * in @mode. The drive's settings are cfg_device_for(@who->model,
 * @who->serial); both must be given (a model's section may set what its
 * serial's does not). Any mode needs: no probe_dir (a drive probed through a
 * file has its raw namespace never opened) and @nsid its probe_namespace.
 * DEV_NS_WRITE further needs destructive = yes. The checks on the namespace
 * itself (unused, blank, that drive's) are probe_nsopen.h's, after this one.
 * Return: 0, or -EPERM with @ret_reason ("…: refused").
 */
int probe_ns_policy(const struct cfg *c, const struct dev_ident *who, uint32_t nsid,
		    enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX]);

/**
 * probe_ns_policy_writable() - How many [device "X"] sections of @c let a raw
 * namespace be written (destructive = yes without probe_dir), for the
 * device process's log line at start and on reload.
 */
size_t probe_ns_policy_writable(const struct cfg *c);
