/* SPDX-License-Identifier: MIT */
/*
 * The alert service without its threads: the notification it builds
 * (alert_svc_note_fill()) and the service made on a real database and fed
 * before a drive's first sample. The sample path (poller listeners, sinks) is
 * reached by the integration tests (test_alerts, test_wear_alerts, test_sinks).
 */
#include "../store/store_fixture.h"

#include <errno.h>
#include <string.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/loop.h"
#include "nvmond/core/mainq.h"
#include "nvmond/monitor/fleet.h"

#include "../../../daemon/alert/alert_svc_internal.h"

#define NOW_MS 1796000000000LL

static struct cfg cfg_with(const char *label, const char *location)
{
	struct cfg c;
	char err[CFG_ERR_MAX];

	cfg_defaults(&c);
	cr_assert_eq(cfg_set(&c, "daemon", "host_name", "nas-7", err), 0, "%s", err);
	cr_assert_eq(cfg_set(&c, "device \"S1\"", "label", label, err), 0, "%s", err);
	cr_assert_eq(cfg_set(&c, "device \"S1\"", "location", location, err), 0, "%s", err);
	return c;
}

/*
 * A notification names the drive, its [device] label and location and the
 * host_name of the daemon that sent it (docs/alerts.md), and everything in it
 * is valid UTF-8 (alert_svc.c: "Valid UTF-8, cut at a character: the JSON
 * sinks, the outbox and the API refuse anything else. A drive's strings and an
 * older database's message may not be.").
 */
Test(alert_svc, note_names_the_drive_its_section_and_host_in_valid_utf8)
{
	struct cfg c = cfg_with("bay 3 – scratch", "rack A");
	struct device_row dev = {.id = 7, .name = "nvme0", .serial = "S1"};
	struct alert_note n;
	char msg[400];

	/* A model with a byte that starts no character (0xff), a message too long for
	 * the note that ends in the middle of a 2-byte character at its cut. */
	snprintf(dev.model, sizeof(dev.model), "ACME \xff NVMe");
	memset(msg, 'a', sizeof(msg));
	memcpy(msg + sizeof(((struct alert_note *)0)->message) - 2, "\xc3\xa9", 2);
	msg[sizeof(msg) - 1] = '\0';
	alert_svc_note_fill(&n, &c, &dev, "tbw_80", "info", "firing", msg, NOW_MS - 1000, NOW_MS);

	cr_expect_eq(n.device_id, 7);
	cr_expect_str_eq(n.device, "nvme0");
	cr_expect_str_eq(n.serial, "S1");
	cr_expect_str_eq(n.model, "ACME \xef\xbf\xbd NVMe", "0xff became U+FFFD: %s", n.model);
	cr_expect_str_eq(n.label, "bay 3 – scratch");
	cr_expect_str_eq(n.location, "rack A");
	cr_expect_str_eq(n.host, "nas-7");
	cr_expect_str_eq(n.rule, "tbw_80");
	cr_expect_str_eq(n.severity, "info");
	cr_expect_str_eq(n.state, "firing");
	cr_expect_eq(n.started_ms, NOW_MS - 1000);
	cr_expect_eq(n.ts_ms, NOW_MS);
	cr_expect_eq(n.alert_id, 0);
	/* Cut before the character that did not fit whole, never inside it. */
	size_t len = strlen(n.message);
	cr_expect_eq(len, sizeof(n.message) - 2, "%zu", len);
	cr_expect_neq((unsigned char)n.message[len - 1], 0xc3, "no half character at the cut");

	/* A drive the section does not match: no label, no location. */
	snprintf(dev.serial, sizeof(dev.serial), "S2");
	alert_svc_note_fill(&n, &c, &dev, "tbw_80", "info", "firing", "m", 0, NOW_MS);
	cr_expect_str_eq(n.label, "");
	cr_expect_str_eq(n.location, "");

	/* The test notification (POST /api/v1/alerts/test) has no drive. */
	alert_svc_note_fill(&n, &c, NULL, "test", "info", "test", "a test", 0, NOW_MS);
	cr_expect_eq(n.device_id, 0);
	cr_expect_str_eq(n.device, "");
	cr_expect_str_eq(n.serial, "");
	cr_expect_str_eq(n.host, "nas-7");
	cr_expect_str_eq(n.message, "a test");
}

TestSuite(alert_svc_db, .init = store_fixture_setup, .fini = store_fixture_teardown);

/*
 * alert_svc.h, alert_svc_feed(): "-EAGAIN before the device's first sample
 * (its alert state is not loaded yet)": the wear check feeds a drive the
 * poller has not sampled yet, and must try again rather than fire from an
 * empty state (wear_mon.c checks again soon).
 */
Test(alert_svc_db, feed_before_the_first_sample_is_eagain)
{
	struct cfg c;
	struct loop *l = loop_new();
	struct mainq *q = NULL;
	struct fleet *f = fleet_new();
	struct alert_svc *a = NULL;
	char err[256] = "";
	struct alert_cond conds[_ALERT_RULE_MAX] = {0};
	struct device_row dev = {
		.id = dev_a, .name = "nvme0", .model = "ACME NVMe 2TB", .serial = "A1"};
	size_t n_ep = 0;

	cfg_defaults(&c);
	cr_assert_not_null(l);
	cr_assert_not_null(f);
	cr_assert_eq(mainq_new(l, &q), 0);
	cr_assert_eq(alert_svc_new(&c, s, f, q, &a, err), 0, "%s", err);

	conds[ALERT_TBW_80] =
		(struct alert_cond){.known = true, .active = true, .severity = ALERT_SEV_INFO};
	cr_expect_eq(alert_svc_feed(a, &dev, conds, NOW_MS), -EAGAIN);
	cr_expect_eq(alert_svc_feed(a, &dev, conds, NOW_MS + 1000), -EAGAIN, "and again");
	cr_expect_not_null(alert_svc_endpoints(a, &n_ep));
	cr_expect_eq(n_ep, ALERT_SVC_N_ENDPOINTS);

	alert_svc_free(a);
	mainq_free(q);
	fleet_free(f);
	loop_free(l);
}
