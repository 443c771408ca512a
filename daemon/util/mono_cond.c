/* SPDX-License-Identifier: MIT */
/* A condition variable whose timed waits use the monotonic clock. */
#include <pthread.h>
#include <time.h>

#include "nvmond/util/mono_cond.h"

int mono_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t a;
	int r;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	r = -pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
	return r;
}
