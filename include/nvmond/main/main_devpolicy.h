/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The device process's own configuration (main_devpolicy.c): what it applies
 * to the daemon's requests, read by itself and never taken from the daemon
 * (docs/security.md#privilege-separation). Private to the nvmond executable.
 */
#include "nvmond/dev/dev_remote.h"

#include "nvmond/main/main_cli.h"

/**
 * devpolicy_new() - The policy of the device process, holding @c (the
 * configuration this process read before forking it, as root) and reading
 * @o's configuration file again on each reload and each write open.
 * Return: 0 with *@ret filled (its ctx owned by the device process for its
 * life), or -ENOMEM.
 */
int devpolicy_new(const struct opts *o, const struct cfg *c, struct dev_serve_policy *ret);
