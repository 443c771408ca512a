/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * The rules of the device-command guard (dev_guard.h), pure: one slot per
 * controller, fed events and explicit times, so tables test it. A controller
 * runs at most one command at a time; a command past its deadline leaves the
 * controller "stuck" (unresponsive) until that same command returns, and no
 * other command is sent to it meanwhile.
 */
struct dev_guard_slot {
	bool busy;		/* a command is on the controller's worker */
	bool stuck;		/* that command passed its deadline and has not returned */
	int64_t stuck_since_ms; /* monotonic, while stuck */
	uint64_t n_timeouts;	/* commands that passed their deadline */
};

/* What a caller that wants to send a command may do now. */
enum dev_guard_admit {
	DEV_GUARD_RUN,	  /* the worker is free: hand it the command */
	DEV_GUARD_WAIT,	  /* another command runs, within its deadline: wait (up to ours) */
	DEV_GUARD_REFUSE, /* a command is stuck in the kernel: nothing more to this controller */
};

/** dev_guard_admit() - Free → RUN, busy → WAIT, stuck → REFUSE. */
enum dev_guard_admit dev_guard_admit(const struct dev_guard_slot *s);

/**
 * dev_guard_expired() - Whether a wait that began at @start_ms (monotonic) with
 * @timeout_ms has passed its deadline at @now_ms: now − start ≥ timeout.
 */
bool dev_guard_expired(int64_t now_ms, int64_t start_ms, int64_t timeout_ms);

/** dev_guard_on_start() - The worker was handed a command: busy. */
void dev_guard_on_start(struct dev_guard_slot *s);

/**
 * dev_guard_on_timeout() - The caller's deadline passed before the command
 * returned: stuck since @now_ms (the first time only), the controller is
 * unresponsive. The command stays on the worker (busy).
 */
void dev_guard_on_timeout(struct dev_guard_slot *s, int64_t now_ms);

/**
 * dev_guard_on_done() - The command returned (answer or error): free again.
 * Return: true when it had been stuck, i.e. the controller recovered.
 */
bool dev_guard_on_done(struct dev_guard_slot *s);

/** dev_guard_slot_unresponsive() - Whether a command is stuck on the controller. */
bool dev_guard_slot_unresponsive(const struct dev_guard_slot *s);
