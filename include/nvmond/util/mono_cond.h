/* SPDX-License-Identifier: MIT */
#pragma once

#include <pthread.h>

/**
 * mono_cond_init() - Initialize @cv for timed waits against CLOCK_MONOTONIC (the
 * deadlines of pthread_cond_timedwait() on it are monotonic times), so that a step
 * of the wall clock neither wakes a wait early nor holds it for the step's length.
 * Return: 0 or negative errno (pthread_cond_init()'s).
 */
int mono_cond_init(pthread_cond_t *cv);
