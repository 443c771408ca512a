/* SPDX-License-Identifier: MIT */
/*
 * mono_cond_init() (util/mono_cond.h): "the deadlines of pthread_cond_timedwait()
 * on it are monotonic times". A deadline 50 ms after the monotonic now is waited
 * for; read as a wall-clock time (decades ago) it would time out at once.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "nvmond/util/mono_cond.h"

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

Test(mono_cond, deadline_is_a_monotonic_time)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv;
	struct timespec dl;
	int r;

	cr_assert_eq(mono_cond_init(&cv), 0);
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_nsec += 50 * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	int64_t t0 = mono_ms();
	pthread_mutex_lock(&mu);
	do
		r = pthread_cond_timedwait(&cv, &mu, &dl);
	while (r == 0); /* a spurious wakeup waits on */
	pthread_mutex_unlock(&mu);
	int64_t waited = mono_ms() - t0;
	cr_assert_eq(r, ETIMEDOUT);
	cr_assert_geq(waited, 45, "waited %lld ms for a deadline 50 ms ahead", (long long)waited);
	cr_assert_lt(waited, 5000, "waited %lld ms for a deadline 50 ms ahead", (long long)waited);
	pthread_cond_destroy(&cv);
}
