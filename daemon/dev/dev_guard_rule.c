/* SPDX-License-Identifier: MIT */
/*
 * The device-command guard's rules: pure. See dev_guard_rule.h.
 */
#include "nvmond/dev/dev_guard_rule.h"

enum dev_guard_admit dev_guard_admit(const struct dev_guard_slot *s)
{
	if (s->stuck)
		return DEV_GUARD_REFUSE;
	return s->busy ? DEV_GUARD_WAIT : DEV_GUARD_RUN;
}

bool dev_guard_expired(int64_t now_ms, int64_t start_ms, int64_t timeout_ms)
{
	return now_ms - start_ms >= timeout_ms;
}

void dev_guard_on_start(struct dev_guard_slot *s)
{
	s->busy = true;
}

void dev_guard_on_timeout(struct dev_guard_slot *s, int64_t now_ms)
{
	if (!s->busy || s->stuck)
		return;
	s->stuck = true;
	s->stuck_since_ms = now_ms;
	s->n_timeouts++;
}

bool dev_guard_on_done(struct dev_guard_slot *s)
{
	bool recovered = s->stuck;

	s->busy = false;
	s->stuck = false;
	s->stuck_since_ms = 0;
	return recovered;
}

bool dev_guard_slot_unresponsive(const struct dev_guard_slot *s)
{
	return s->stuck;
}
