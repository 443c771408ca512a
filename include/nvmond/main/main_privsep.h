/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Privilege separation (main_privsep.c, docs/security.md#privilege-separation):
 * the device process answers device commands; the daemon serves HTTP without
 * a capability. Private to the nvmond executable.
 */
#include <stdbool.h>
#include <sys/types.h>

#include "nvmond/core/cfg.h"
#include "nvmond/dev/dev.h"

#include "nvmond/main/main_cli.h"

struct privsep {
	pid_t pid; /* the device process, 0 = none */
	int pidfd; /* readable once it exited; -1 = none */
};

/**
 * privsep_start() - Fork the device process (it opens the backend as
 * open_backend() does, confines itself with dev_sandbox_apply() and answers
 * on a socket pair, holding @c and reading @o's configuration file again
 * itself: main_devpolicy.h), then drop every capability of this process (see
 * PRIVSEP_ENV; @o->argv restarts it) and, started as root with [daemon]
 * user, become that user (a negative errno, logged, when it cannot). Call it
 * before any thread starts. @ret_backend: the device process's backend as
 * seen from here (dev_remote.h).
 * Return: 0, or negative errno (logged).
 */
int privsep_start(const struct cfg *c, const struct opts *o, struct dev_backend **ret_backend,
		  struct privsep *ret);

/*
 * Where capset() is refused (the unit's SystemCallFilter=~@privileged),
 * privsep_start() empties the bounding set, sets no_new_privs and starts the
 * program again (@argv), which leaves root no capability; this variable
 * hands the channel and the device process ("FD PID") to the new image.
 */
#define PRIVSEP_ENV "NVMOND_PRIVSEP_CHANNEL"

/**
 * privsep_reap() - After the backend was freed (the channel closed), wait up
 * to 2 s for the device process to exit; one stuck in the kernel is left to
 * the service manager. Return: whether it exited cleanly.
 */
bool privsep_reap(struct privsep *p);

/** privsep_caps_drop() - Drop every capability (bounding, ambient, effective, permitted, inheritable) and set no_new_privs. Return: 0 or -errno. */
int privsep_caps_drop(void);
