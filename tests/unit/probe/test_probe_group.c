/* SPDX-License-Identifier: MIT */
/* Group runs: the barrier of the members' threads, the group's text, the demo's shared bandwidth. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvmond/probe/probe_group.h"
#include "nvmond/probe/probe_run.h"

struct member {
	struct probe_group_sync *g;
	size_t phases;	     /* it runs this many, then leaves */
	int64_t work_ms;     /* each phase's work before the next barrier */
	atomic_int *started; /* phases started, over every member */
	int64_t late_max;
};

static void sleep_ms(int64_t ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void *member_thread(void *arg)
{
	struct member *m = arg;

	for (size_t k = 0; k < m->phases; k++) {
		int64_t late = probe_group_sync_arrive(m->g);
		if (late > m->late_max)
			m->late_max = late;
		atomic_fetch_add(m->started, 1);
		sleep_ms(m->work_ms);
	}
	probe_group_sync_leave(m->g);
	return NULL;
}

/* probe_group.h: "a drive whose phase ends early waits there for the others". */
Test(probe_group, a_fast_member_waits_at_the_barrier)
{
	struct probe_group_sync g;
	atomic_int started = 0;
	struct member fast = {&g, 2, 0, &started, 0}, slow = {&g, 2, 200, &started, 0};
	pthread_t a, b;

	cr_assert_eq(probe_group_sync_init(&g, 2), 0);
	pthread_create(&a, NULL, member_thread, &fast);
	pthread_create(&b, NULL, member_thread, &slow);
	/* Both pass the first barrier; the fast one then waits for the slow one's phase. */
	for (int i = 0; i < 1000 && atomic_load(&started) < 2; i++)
		sleep_ms(1);
	cr_assert_eq(atomic_load(&started), 2);
	sleep_ms(50);
	cr_assert_eq(atomic_load(&started), 2,
		     "the second phase started before the slow one's end");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	cr_assert_eq(atomic_load(&started), 4);
	/* The phases start together: well within 10 ms of the release. */
	cr_assert_lt(fast.late_max, 10000000);
	cr_assert_lt(slow.late_max, 10000000);
	probe_group_sync_destroy(&g);
}

/* probe_group.h: "a member that stops leaves the barrier, and the others go on without it". */
Test(probe_group, a_member_that_stops_releases_the_others)
{
	struct probe_group_sync g;
	atomic_int started = 0;
	struct member quits = {&g, 1, 100, &started, 0}, goes_on = {&g, 3, 0, &started, 0};
	pthread_t a, b;

	cr_assert_eq(probe_group_sync_init(&g, 2), 0);
	pthread_create(&a, NULL, member_thread, &quits);
	pthread_create(&b, NULL, member_thread, &goes_on);
	pthread_join(b, NULL); /* would hang if the leave did not release it */
	pthread_join(a, NULL);
	cr_assert_eq(atomic_load(&started), 4);
	probe_group_sync_destroy(&g);
}

/* The issue: "each at 75 % of solo, together 1.5× one drive". */
Test(probe_group, says_each_and_together)
{
	char buf[256];
	struct probe_group_fig same[] = {{"demo1", 1500, 2000}, {"demo2", 1500, 2000}};
	struct probe_group_fig apart[] = {{"demo1", 1480, 2000}, {"demo2", 1520, 2000}};
	struct probe_group_fig none[] = {{"demo1", 1500, 0}, {"demo2", 1500, 2000}};

	cr_assert_str_eq(probe_group_phase_text(same, 2, buf, sizeof(buf)),
			 "each at 75 % of solo, together 3000 MB/s = 1.50× one drive");
	cr_assert_str_eq(probe_group_phase_text(apart, 2, buf, sizeof(buf)),
			 "each at 74–76 % of solo, together 3000 MB/s = 1.50× one drive");
	cr_assert_str_eq(probe_group_phase_text(none, 2, buf, sizeof(buf)),
			 "together 3000 MB/s (not every drive has a solo run to compare)");
	cr_assert_str_eq(probe_group_phase_text(none, 1, buf, sizeof(buf)),
			 "together 1500 MB/s (no solo run to compare)");
}

/* probe_demo.c: n drives together move 1.5× one drive: two get 75 % each. */
Test(probe_group, demo_drives_share_the_bandwidth)
{
	cr_assert_float_eq(probe_demo_share(0), 1.0, 1e-12);
	cr_assert_float_eq(probe_demo_share(1), 1.0, 1e-12);
	cr_assert_float_eq(probe_demo_share(2), 0.75, 1e-12);
	cr_assert_float_eq(probe_demo_share(3), 0.5, 1e-12);
}
