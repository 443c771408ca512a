/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/dev/dev.h"

/**
 * selftest_cli() - `nvmond selftest --device ID --short|--extended|--abort
 * [--nsid N] [--wait] [--json]`: ask the running daemon (its [daemon] listen
 * address and [http] token from @c) to start a test with code @stc (1h, 2h)
 * or abort the running one (Fh); @stc 0 with @wait follows a running test.
 * With @wait it follows the test to its result: a progress bar on stderr when
 * it is a terminal, then the result (JSON with @json).
 * Return: an exit status: 0 started, aborted or passed; 1 refused (the drive
 * has no self-test, a test or probe runs, …), failed, aborted, or the daemon
 * cannot be reached.
 */
int selftest_cli(const struct cfg *c, const char *device, uint8_t stc, uint32_t nsid, bool wait,
		 bool json);
