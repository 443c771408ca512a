/* SPDX-License-Identifier: MIT */
/*
 * The notification outbox in a real SQLite file (migrations/0014_notify_outbox.sql):
 * a note is kept per sink until that sink is done with it; a
 * rolled-back transaction keeps neither the alert nor its note; pending notes come
 * back oldest first; pruning forgets old ones.
 */
#include "store_fixture.h"

#include <errno.h>
#include <stdlib.h>

#include "nvmond/store/store_alert.h"
#include "nvmond/store/store_outbox.h"

TestSuite(store_outbox, .init = store_fixture_setup, .fini = store_fixture_teardown);

static int64_t alert(void)
{
	struct alert_row a = {.device_id = dev_a,
			      .rule = 0,
			      .severity = 1,
			      .firing = true,
			      .started_ms = 1000,
			      .updated_ms = 1000};
	int64_t id;

	snprintf(a.message, sizeof(a.message), "hot");
	cr_assert_eq(store_alert_insert(s, &a, &id), 0, "%s", store_strerror(s));
	return id;
}

static size_t pending(struct outbox_row **ret)
{
	size_t n = 0;

	cr_assert_eq(store_outbox_pending(s, 100, ret, &n), 0, "%s", store_strerror(s));
	return n;
}

/* "A sink's row goes once that sink delivered the notification or gave up on it" */
Test(store_outbox, a_row_per_sink_stays_until_that_sink_is_done)
{
	struct outbox_row *v;
	int64_t a = alert(), id1, id2;

	cr_assert_eq(store_outbox_add(s, a, "exec", 2000, "{\"a\":1}", &id1), 0);
	cr_assert_eq(store_outbox_add(s, a, "webhook", 2000, "{\"a\":1}", &id2), 0);
	cr_assert_eq(store_outbox_done(s, id2), 0);
	cr_assert_eq(pending(&v), 1);
	cr_assert_eq(v[0].id, id1);
	cr_assert_str_eq(v[0].sink, "exec");
	cr_assert_str_eq(v[0].note, "{\"a\":1}");
	store_outbox_free(v, 1);
	cr_assert_eq(store_outbox_done(s, id1), 0);
	cr_assert_eq(pending(&v), 0);
	store_outbox_free(v, 0);
	cr_assert_eq(store_outbox_done(s, id1), 0, "a note already gone is no error");
}

/* "written here in the same transaction as the alert row it reports" */
Test(store_outbox, a_rolled_back_alert_keeps_no_note)
{
	struct outbox_row *v;
	int64_t id;

	cr_assert_eq(store_begin(s), 0);
	cr_assert_eq(store_outbox_add(s, alert(), "webhook", 2000, "{}", &id), 0);
	cr_assert_eq(store_end(s, -EIO), -EIO);
	cr_assert_eq(pending(&v), 0);
	store_outbox_free(v, 0);
	cr_assert_eq(store_begin(s), 0);
	cr_assert_eq(store_outbox_add(s, alert(), "webhook", 2000, "{}", &id), 0);
	cr_assert_eq(store_end(s, 0), 0);
	cr_assert_eq(pending(&v), 1);
	store_outbox_free(v, 1);
}

/* "At start the rows still pending are queued again", oldest first; old ones pruned. */
Test(store_outbox, pending_oldest_first_and_pruned_by_age)
{
	struct outbox_row *v;
	int64_t a = alert(), id1, id2;

	cr_assert_eq(store_outbox_add(s, a, "exec", 1000, "{\"n\":1}", &id1), 0);
	cr_assert_eq(store_outbox_add(s, a, "exec", 5000, "{\"n\":2}", &id2), 0);
	cr_assert_eq(pending(&v), 2);
	cr_assert_eq(v[0].id, id1);
	cr_assert_eq(v[1].id, id2);
	cr_assert_eq(v[1].alert_id, a);
	store_outbox_free(v, 2);
	cr_assert_eq(store_outbox_prune(s, 2000), 0);
	cr_assert_eq(pending(&v), 1);
	cr_assert_eq(v[0].id, id2);
	store_outbox_free(v, 1);
}
