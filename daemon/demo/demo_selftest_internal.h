/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Private to the demo backend (demo_backend.c keeps one per drive under its mutex;
 * demo_selftest.c answers with it): what a demo drive's controller was told
 * by Device Self-test commands. Pure functions of it, the drive and a time.
 */
#include <stddef.h>
#include <stdint.h>

#include "nvmond/demo/demo.h"

struct demo_st_live {
	/* The test it was told to run (r.code 0: none) and when it will end. */
	struct demo_selftest run;
	uint32_t nsid;
	/* The tests it was told to run or abort that ended, oldest first. */
	size_t n_done;
	struct demo_selftest done[SELFTEST_RESULTS];
	/*
	 * From this time on (0: never) the drive starts no test of its own: the
	 * daemon that opened the backend runs its schedule instead (the self-test
	 * service gives a demo drive without a configured schedule its own).
	 */
	int64_t own_until_ms;
};

/**
 * demo_st_command() - Device Self-test with code @stc for namespace @nsid,
 * received at @now_ms: 1h or 2h starts a test, Fh aborts the one running (its
 * own or one it was told to run; none running: nothing to do).
 * Return: 0, or the NVMe status the controller answers (SELFTEST_ST_*):
 * Invalid Command Opcode without self-test, Device Self-test in Progress while
 * one runs, Invalid Field for another code, Invalid Namespace or Format for a
 * namespace other than 0h, 1 or FFFFFFFFh.
 */
uint16_t demo_st_command(struct demo_st_live *s, const struct dev_demo_drive *d, int64_t now_ms,
			 uint32_t nsid, uint8_t stc);

/**
 * demo_st_log() - The Device Self-test log at @now_ms: the test in progress
 * and its completion, then the 20 newest results of the tests the drive ran
 * on its own (demo_selftest_history()) and of those it was told to run, a test
 * of its own that would have started while one it was told to run ran left
 * out (it would have found one in progress).
 * Return: 0, or Invalid Log Page (SELFTEST_ST_INVALID_LOG_PAGE) without
 * self-test.
 */
uint16_t demo_st_log(const struct demo_st_live *s, const struct dev_demo_drive *d, int64_t now_ms,
		     struct selftest_log *ret);
