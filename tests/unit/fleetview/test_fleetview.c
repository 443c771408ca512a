/* SPDX-License-Identifier: MIT */
/*
 * The fleet view (fleetview.h; docs/fleet.md): the instant query's answer joined into
 * hosts and drives, the reporting rule, hosts that went, verdicts, the order, and the
 * JSON of GET /api/v1/fleet. The answers are written as rows "label=value … | value"
 * and go through the real parser.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <zlib.h>

#include "nvmond/fleetview/fleetview.h"

#define E 1000.0 /* the engine's evaluation time of every answer here */

/* Rows "k=v k=v | value" (NULL-terminated) as an instant vector evaluated at E. */
static struct promq_result vec(const char *const *rows)
{
	char *text = NULL, err[PROMQ_ERR_MAX];
	size_t len;
	FILE *f = open_memstream(&text, &len);
	struct promq_result r;

	fputs("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[", f);
	for (size_t i = 0; rows[i]; i++) {
		char *row = strdup(rows[i]), *bar = strchr(row, '|'), *save = NULL;
		cr_assert(bar, "row %s", rows[i]);
		*bar = '\0';
		fprintf(f, "%s{\"metric\":{", i ? "," : "");
		int n = 0;
		for (char *tok = strtok_r(row, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(tok, '=');
			cr_assert(eq, "label %s", tok);
			*eq = '\0';
			fprintf(f, "%s\"%s\":\"%s\"", n++ ? "," : "", tok, eq + 1);
		}
		char *v = bar + 1;
		while (*v == ' ')
			v++;
		fprintf(f, "},\"value\":[%.3f,\"%s\"]}", E, v);
		free(row);
	}
	fputs("]}}", f);
	fclose(f);
	cr_assert_eq(promq_parse_vector(text, len, &r, err), 0, "%s: %s", err, text);
	free(text);
	return r;
}

/* The same rows as a /series answer (the value is ignored). */
static struct promq_result series(const char *const *rows)
{
	struct promq_result r = vec(rows);
	for (size_t i = 0; i < r.n; i++)
		r.v[i].value = r.v[i].ts = NAN;
	r.eval_ts = 0;
	return r;
}

/* The parts of the instant query, from rows each tagged "__q=PART" (the tag is left out). */
struct parts {
	struct promq_result r[FV_PARTS];
};

static struct parts parts_of(const char *const *rows)
{
	struct parts p;

	for (int k = 0; k < FV_PARTS; k++) {
		const char *mine[64];
		size_t n = 0;
		char tag[32];
		snprintf(tag, sizeof(tag), "__q=%s ", fleetview_part_name((enum fv_part)k));
		for (size_t i = 0; rows[i]; i++)
			if (strncmp(rows[i], tag, strlen(tag)) == 0) {
				cr_assert_lt(n, 63);
				mine[n++] = rows[i] + strlen(tag);
			}
		mine[n] = NULL;
		p.r[k] = vec(mine);
	}
	return p;
}

static void parts_free(struct parts *p)
{
	for (int k = 0; k < FV_PARTS; k++)
		promq_result_free(&p->r[k]);
}

/* Part results @p in @a. */
static void set_parts(struct fv_answer *a, struct parts *p)
{
	for (int k = 0; k < FV_PARTS; k++)
		a->now[k] = &p->r[k];
}

/* An answer of @p evaluated at E. */
static struct fv_answer answer(struct parts *p)
{
	struct fv_answer a = {.eval_ts = E, .stale_after_s = 60};

	for (int k = 0; k < FV_PARTS; k++)
		a.now[k] = &p->r[k];
	return a;
}

static struct fv_view merge(const struct fv_answer *a)
{
	struct fv_view v;

	cr_assert_eq(fleetview_merge(a, &v), 0);
	return v;
}

static const struct fv_host *host(const struct fv_view *v, const char *instance)
{
	for (size_t i = 0; i < v->n_hosts; i++)
		if (strcmp(v->hosts[i].instance, instance) == 0)
			return &v->hosts[i];
	cr_assert_fail("no host %s in the view", instance);
	return NULL;
}

static const char *label(const struct fv_host *h, const char *name)
{
	for (size_t i = 0; i < h->n_labels; i++)
		if (strcmp(h->label_names[i], name) == 0)
			return h->label_values[i];
	return NULL;
}

/* Host a is scraped (its drive series carry no host labels), b pushes (they do). */
#define HOST_A                                                                                     \
	"__q=host job=nvmond instance=a:9470 host=alpha host_id=0a public_url=http://alpha/ "      \
	"__tenant=t "                                                                              \
	"rack=r1"
#define DRIVE_A "job=nvmond instance=a:9470 device=nvme0 serial=S1"
#define HOST_B	"__q=host job=nvmond instance=beta host=beta host_id=0b env=prod"
#define DRIVE_B "job=nvmond instance=beta host=beta env=prod device=nvme0 serial=S2"

static const char *const fleet_ab[] = {
	HOST_A " | 995",
	"__q=info " DRIVE_A " model=Samsung firmware=F1 label=boot location=slot1 | 1",
	"__q=health " DRIVE_A " state=ok | 1",
	"__q=temp " DRIVE_A " | 41",
	"__q=wctemp " DRIVE_A " | 70",
	"__q=cctemp " DRIVE_A " | 85",
	"__q=used " DRIVE_A " | 0.03",
	"__q=tbw " DRIVE_A " | 0.125",
	"__q=seen " DRIVE_A " | 990.5",
	"__q=up " DRIVE_A " | 1",
	HOST_B " | 998",
	"__q=info " DRIVE_B " model=WD firmware=F2 | 1",
	"__q=health " DRIVE_B " state=warning | 1",
	"__q=alert " DRIVE_B " rule=temperature_warning severity=warning | 1",
	"__q=temp " DRIVE_B " | 71",
	"__q=up " DRIVE_B " | 1",
	NULL,
};

/* docs/fleet.md: a drive joins its host by (job, instance), pulled or pushed alike. */
Test(fleetview, join_pulled_and_pushed)
{
	struct parts now = parts_of(fleet_ab);
	struct fv_answer a = answer(&now);
	struct fv_view v = merge(&a);
	const struct fv_host *ha = host(&v, "a:9470"), *hb = host(&v, "beta");

	cr_assert_eq(v.n_hosts, 2);
	cr_assert_eq(v.n_drives, 2);
	cr_assert_str_eq(ha->host, "alpha");
	cr_assert_str_eq(ha->host_id, "0a");
	cr_assert_str_eq(ha->public_url, "http://alpha/");
	cr_assert_eq(ha->n_labels, 1,
		     "host labels leave out job, instance, host, host_id, public_url");
	cr_assert_str_eq(label(ha, "rack"), "r1");
	cr_assert_str_eq(label(hb, "env"), "prod");
	cr_assert(ha->reporting && hb->reporting);
	cr_assert_float_eq(ha->last_seen, 995, 1e-9);
	cr_assert_eq(ha->n_drives, 1);
	const struct fv_drive *d = &ha->drives[0];
	cr_assert_str_eq(d->device, "nvme0");
	cr_assert_str_eq(d->serial, "S1");
	cr_assert_str_eq(d->model, "Samsung");
	cr_assert_str_eq(d->firmware, "F1");
	cr_assert_str_eq(d->label, "boot");
	cr_assert_str_eq(d->location, "slot1");
	cr_assert_float_eq(d->temperature_c, 41, 0);
	cr_assert_float_eq(d->wctemp_c, 70, 0);
	cr_assert_float_eq(d->cctemp_c, 85, 0);
	cr_assert(isnan(hb->drives[0].wctemp_c), "a threshold not exported: unknown");
	cr_assert_float_eq(d->used_ratio, 0.03, 1e-12);
	cr_assert_float_eq(d->tbw_ratio, 0.125, 1e-12);
	cr_assert_float_eq(d->last_sample, 990.5, 1e-9);
	cr_assert_eq(d->up, 1);
	cr_assert_eq(d->verdict, FV_OK);
	cr_assert(d->verdict_reported);
	cr_assert_eq(hb->drives[0].verdict, FV_WARNING);
	cr_assert_eq(hb->drives[0].n_alerts, 1);
	cr_assert_str_eq(hb->drives[0].alerts[0].rule, "temperature_warning");
	cr_assert(isnan(hb->drives[0].tbw_ratio), "no rating: no share of it");
	cr_assert_eq(v.hosts[0].worst, FV_WARNING, "the host with a problem comes first");
	cr_assert_eq(v.n_problems, 1);
	fleetview_view_free(&v);
	parts_free(&now);
}

/*
 * docs/fleet.md#hosts-that-stop-reporting: a host reports while E - last_seen <=
 * stale_after; one millisecond more and it does not, its drives being what it said last.
 */
Test(fleetview, stale_after_boundary)
{
	static const char *const at[] = {HOST_B " | 940", "__q=up " DRIVE_B " | 1", NULL};
	static const char *const past[] = {HOST_B " | 939.999", "__q=up " DRIVE_B " | 1", NULL};
	struct parts n1 = parts_of(at), n2 = parts_of(past);
	struct fv_answer a = answer(&n1);
	struct fv_view v = merge(&a);

	cr_assert(v.hosts[0].reporting, "60 s old, stale_after 60 s: reporting");
	cr_assert_not(v.hosts[0].drives_stale);
	cr_assert_eq(v.n_not_reporting, 0);
	fleetview_view_free(&v);
	set_parts(&a, &n2);
	v = merge(&a);
	cr_assert_not(v.hosts[0].reporting, "60.001 s old: not reporting");
	cr_assert(v.hosts[0].drives_stale);
	cr_assert_float_eq(v.hosts[0].last_seen, 939.999, 1e-9);
	cr_assert_eq(v.hosts[0].n_drives, 1);
	cr_assert_eq(v.n_not_reporting, 1);
	cr_assert_eq(v.n_problems, 1, "the drives of a host not reporting are problems");
	fleetview_view_free(&v);
	parts_free(&n1);
	parts_free(&n2);
}

/*
 * A host that left the instant query (lookback passed, or a failed scrape's staleness
 * marker) but is in the index within forget_after: not reporting since the last_seen
 * of the previous view, with the drives that view had.
 */
Test(fleetview, gone_host_keeps_previous_drives)
{
	static const char *const known_rows[] = {
		"__name__=nvmond_host_info job=nvmond instance=a:9470 host=alpha host_id=0a "
		"rack=r1 | 1",
		"__name__=nvmond_host_info job=nvmond instance=beta host=beta env=prod | 1", NULL};
	static const char *const only_b[] = {HOST_B " | 998", "__q=up " DRIVE_B " | 1", NULL};
	struct parts n1 = parts_of(fleet_ab), n2 = parts_of(only_b);
	struct promq_result known = series(known_rows);
	struct fv_answer a = answer(&n1);
	a.known = &known;
	struct fv_view first = merge(&a), second;

	set_parts(&a, &n2);
	a.prev = &first;
	a.eval_ts = E + 10;
	second = merge(&a);
	const struct fv_host *ha = host(&second, "a:9470");
	cr_assert_not(ha->reporting);
	cr_assert(ha->drives_stale);
	cr_assert_float_eq(ha->last_seen, 995, 1e-9, "since the previous view's last_seen");
	cr_assert_eq(ha->n_drives, 1);
	cr_assert_str_eq(ha->drives[0].model, "Samsung");
	cr_assert_float_eq(ha->drives[0].temperature_c, 41, 0);
	cr_assert_str_eq(label(ha, "rack"), "r1", "host labels from the index");
	cr_assert_str_eq(second.hosts[0].instance, "a:9470",
			 "not reporting sorts above a warning (fleetview_host_rank)");
	fleetview_view_free(&first);
	fleetview_view_free(&second);
	parts_free(&n1);
	parts_free(&n2);
	promq_result_free(&known);
}

/* Without a previous view (nvmond restarted): the gone query's drives and their newest sample. */
Test(fleetview, gone_host_from_its_last_samples)
{
	static const char *const known_rows[] = {"__name__=nvmond_host_info job=nvmond instance=d "
						 "host=delta public_url=http://d/ | 1",
						 NULL};
	static const char *const gone_rows[] = {
		"job=nvmond instance=d device=nvme0 model=M0 serial=D0 | 850",
		"job=nvmond instance=d device=nvme1 model=M1 serial=D1 | 870",
		"job=nvmond instance=other device=nvme0 model=M serial=X | 990", NULL};
	static const char *const empty[] = {NULL};
	struct parts now = parts_of(empty);
	struct promq_result known = series(known_rows), gone = vec(gone_rows);
	struct fv_answer a = answer(&now);
	a.known = &known;
	a.gone = &gone;
	const char *jobs[4], *insts[4];

	cr_assert_eq(fleetview_gone_hosts(&a, jobs, insts, 4), 1);
	cr_assert_str_eq(insts[0], "d");
	struct fv_view v = merge(&a);
	cr_assert_eq(v.n_hosts, 1, "a gone-query row of a host not known is no host");
	cr_assert_not(v.hosts[0].reporting);
	cr_assert_str_eq(v.hosts[0].public_url, "http://d/");
	cr_assert_eq(v.hosts[0].n_labels, 0, "the __name__ of /series is no host label");
	cr_assert_float_eq(v.hosts[0].last_seen, 870, 1e-9, "its newest drive sample");
	cr_assert_eq(v.hosts[0].n_drives, 2);
	cr_assert_str_eq(v.hosts[0].drives[1].model, "M1");
	cr_assert_float_eq(v.hosts[0].drives[1].last_sample, 870, 1e-9);
	cr_assert_eq(v.hosts[0].drives[0].verdict, FV_UNKNOWN);
	fleetview_view_free(&v);
	parts_free(&now);
	promq_result_free(&known);
	promq_result_free(&gone);
}

/*
 * forget_after: a host the index no longer lists leaves the view; when the index
 * could not be asked (known NULL), the previous view's hosts stay.
 */
Test(fleetview, forgotten_and_kept_without_index)
{
	static const char *const only_b[] = {HOST_B " | 998", "__q=up " DRIVE_B " | 1", NULL};
	static const char *const known_b[] = {
		"__name__=nvmond_host_info job=nvmond instance=beta | 1", NULL};
	struct parts n1 = parts_of(fleet_ab), n2 = parts_of(only_b);
	struct promq_result known = series(known_b);
	struct fv_answer a = answer(&n1);
	struct fv_view first = merge(&a), v;

	set_parts(&a, &n2);
	a.prev = &first;
	a.known = &known;
	v = merge(&a);
	cr_assert_eq(v.n_hosts, 1, "a:9470 is forgotten");
	cr_assert_str_eq(v.hosts[0].instance, "beta");
	fleetview_view_free(&v);
	a.known = NULL;
	v = merge(&a);
	cr_assert_eq(v.n_hosts, 2, "a:9470 stays while the index cannot be asked");
	cr_assert_not(host(&v, "a:9470")->reporting);
	fleetview_view_free(&v);
	fleetview_view_free(&first);
	parts_free(&n1);
	parts_free(&n2);
	promq_result_free(&known);
}

/* An nvmond before nvmond_host_info: listed by instance, reporting while in the lookback. */
Test(fleetview, host_without_host_info)
{
	static const char *const rows[] = {
		"__q=temp job=nvmond instance=old:9470 device=nvme0 serial=S | 40", NULL};
	struct parts now = parts_of(rows);
	struct fv_answer a = answer(&now);
	struct fv_view v = merge(&a);

	cr_assert_eq(v.n_hosts, 1);
	cr_assert(v.hosts[0].reporting);
	cr_assert(isnan(v.hosts[0].last_seen));
	cr_assert_str_eq(v.hosts[0].host, "");
	cr_assert_eq(v.hosts[0].drives[0].verdict, FV_OK, "a figure and no alert: ok");
	fleetview_view_free(&v);
	parts_free(&now);
}

/*
 * The verdict: nvmond_device_health's state when exported (the worse of two within the
 * lookback); else the contract's rule from the alerts and nvmond_device_up.
 */
Test(fleetview, verdicts)
{
#define D(n) "job=j instance=h device=nvme" #n " serial=S" #n
	static const char *const rows[] = {
		"__q=alert " D(0) " rule=spare_low severity=critical | 1",
		"__q=up " D(0) " | 1",
		"__q=up " D(1) " | 0",
		"__q=alert " D(2) " rule=temperature_warning severity=warning | 1",
		"__q=up " D(2) " | 1",
		"__q=info " D(3) " model=M | 1",
		"__q=alert " D(4) " rule=firmware_changed severity=info | 1",
		"__q=health " D(5) " state=ok | 1",
		"__q=health " D(5) " state=critical | 1",
		"__q=health " D(6) " state=ok | 1",
		"__q=alert " D(6) " rule=firmware_changed severity=info | 1",
		"__q=health " D(7) " state=offline | 1",
		"__q=alert " D(7) " rule=offline severity=critical | 1",
		"__q=health " D(8) " state=bogus | 1",
		"__q=up " D(9) " | 0",
		"__q=alert " D(9) " rule=spare_low severity=critical | 1",
		"__q=health " D(10) " state=unknown | 1",
		"__q=info " D(10) " model=M | 1",
		"__q=up " D(10) " | 1",
		"__q=health " D(11) " state=unknown | 1",
		"__q=health " D(11) " state=warning | 1",
		"__q=up " D(11) " | 1",
		NULL,
	};
	static const struct {
		const char *device, *rule;
		enum fv_verdict want;
		bool problem;
	} want[] = {
		{"nvme0", "derived: a critical alert fires", FV_CRITICAL, true},
		{"nvme1", "derived: the drive is down", FV_OFFLINE, true},
		{"nvme2", "derived: a warning alert fires", FV_WARNING, true},
		{"nvme3", "derived: figures and no alert", FV_OK, false},
		{"nvme4", "derived: nothing but an info alert is no figure", FV_UNKNOWN, true},
		{"nvme5", "reported: the worse of two states in the lookback", FV_CRITICAL, true},
		{"nvme6", "reported ok, an info alert firing: a problem, verdict ok", FV_OK, true},
		{"nvme7", "reported offline beats the critical alert", FV_OFFLINE, true},
		{"nvme8", "an unknown state is not taken", FV_UNKNOWN, true},
		{"nvme9", "derived: down beats a critical alert, as the card shows it", FV_OFFLINE,
		 true},
		{"nvme10", "contract: state=\"unknown\" (no sample yet) is taken, not derived ok",
		 FV_UNKNOWN, true},
		{"nvme11", "reported: warning is worse than unknown in the lookback", FV_WARNING,
		 true},
	};
#undef D
	struct parts now = parts_of(rows);
	struct fv_answer a = answer(&now);
	struct fv_view v = merge(&a);

	cr_assert_eq(v.n_drives, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct fv_drive *d = NULL;
		for (size_t k = 0; k < v.hosts[0].n_drives; k++)
			if (strcmp(v.hosts[0].drives[k].device, want[i].device) == 0)
				d = &v.hosts[0].drives[k];
		cr_assert(d, "%s", want[i].device);
		cr_assert_eq(d->verdict, want[i].want, "%s (%s): %s, want %s", want[i].device,
			     want[i].rule, fleetview_verdict_name(d->verdict),
			     fleetview_verdict_name(want[i].want));
		cr_assert_eq(fleetview_drive_problem(d), want[i].problem, "%s: problem",
			     want[i].rule);
	}
	cr_assert_eq(v.hosts[0].worst, FV_CRITICAL);
	cr_assert_eq(v.hosts[0].problems, 11);
	fleetview_view_free(&v);
	parts_free(&now);
}

/*
 * Problems first (issue 24): hosts by rank (critical, not reporting, warning, offline,
 * unknown, ok), then by name in natural order (host2 before host10); drives by verdict,
 * then device in natural order.
 */
Test(fleetview, order)
{
	static const char *const rows[] = {
		"__q=host job=j instance=i1 host=host10 | 999",
		"__q=up job=j instance=i1 device=nvme0 serial=a | 1",
		"__q=host job=j instance=i2 host=host2 | 999",
		"__q=up job=j instance=i2 device=nvme10 serial=b | 1",
		"__q=up job=j instance=i2 device=nvme2 serial=c | 1",
		"__q=up job=j instance=i2 device=nvme9 serial=d | 0",
		"__q=host job=j instance=i3 host=warm | 999",
		"__q=health job=j instance=i3 device=nvme0 serial=e state=warning | 1",
		"__q=host job=j instance=i4 host=hot | 999",
		"__q=health job=j instance=i4 device=nvme0 serial=f state=critical | 1",
		"__q=host job=j instance=i5 host=silent | 100",
		"__q=up job=j instance=i5 device=nvme0 serial=g | 1",
		"__q=host job=j instance=i6 host=down | 999",
		"__q=up job=j instance=i6 device=nvme0 serial=h | 0",
		"__q=host job=j instance=i7 host=host1 | 999",
		"__q=up job=j instance=i7 device=nvme0 serial=k | 1",
		NULL,
	};
	static const char *const hosts[] = {"hot",   "silent", "warm",	"down",
					    "host2", "host1",  "host10"};
	struct parts now = parts_of(rows);
	struct fv_answer a = answer(&now);
	struct fv_view v = merge(&a);

	cr_assert_eq(v.n_hosts, 7);
	for (size_t i = 0; i < 7; i++)
		cr_assert_str_eq(v.hosts[i].host, hosts[i], "host %zu: %s, want %s", i,
				 v.hosts[i].host, hosts[i]);
	const struct fv_host *h2 = host(&v, "i2");
	cr_assert_str_eq(h2->drives[0].device, "nvme9", "offline first");
	cr_assert_str_eq(h2->drives[1].device, "nvme2");
	cr_assert_str_eq(h2->drives[2].device, "nvme10");
	cr_assert_eq(fleetview_host_rank(&v.hosts[0]), 8);
	cr_assert_eq(fleetview_host_rank(&v.hosts[1]), 7);
	fleetview_view_free(&v);
	parts_free(&now);
}

/* Figures the view cannot show are unknown, not wrong: a zero rating, a negative share. */
Test(fleetview, odd_values)
{
	static const char *const rows[] = {
		"__q=tbw job=j instance=h device=nvme0 serial=s | +Inf",
		"__q=used job=j instance=h device=nvme0 serial=s | -1",
		"__q=seen job=j instance=h device=nvme0 serial=s | 0",
		"__q=up job=j instance=h device=nvme0 serial=s | 2",
		"__q=temp job=j instance=h device=nvme0 serial=s | NaN",
		"__q=nonsense job=j instance=h device=nvme1 serial=s | 1",
		"__q=temp job=j device=nvme2 serial=s | 50",
		"__q=temp job=j instance=h serial=s | 50",
		NULL,
	};
	struct parts now = parts_of(rows);
	struct fv_answer a = answer(&now);
	struct fv_view v = merge(&a);

	cr_assert_eq(v.n_hosts, 1);
	cr_assert_eq(v.n_drives, 1,
		     "unknown parts, and rows without instance or device, are left out");
	const struct fv_drive *d = &v.hosts[0].drives[0];
	cr_assert(isnan(d->tbw_ratio));
	cr_assert(isnan(d->used_ratio));
	cr_assert(isnan(d->last_sample));
	cr_assert(isnan(d->temperature_c));
	cr_assert_eq(d->up, -1);
	fleetview_view_free(&v);
	parts_free(&now);
}

/* Two nvmond_host_info series of one host in the lookback (its labels changed): the newest. */
Test(fleetview, newest_host_info_wins)
{
	static const char *const rows[] = {
		"__q=host job=j instance=h host=h public_url=http://old/ | 900",
		"__q=host job=j instance=h host=h public_url=http://new/ | 990",
		"__q=host job=j instance=h host=h public_url=http://older/ | 800",
		NULL,
	};
	struct parts now = parts_of(rows);
	struct fv_answer a = answer(&now);
	struct fv_view v = merge(&a);

	cr_assert_eq(v.n_hosts, 1);
	cr_assert_str_eq(v.hosts[0].public_url, "http://new/");
	cr_assert_float_eq(v.hosts[0].last_seen, 990, 1e-9);
	fleetview_view_free(&v);
	parts_free(&now);
}

/* Only hosts whose last_seen nothing gives are looked up, once each. */
Test(fleetview, gone_hosts_to_look_up)
{
	static const char *const known_rows[] = {
		"__name__=nvmond_host_info job=nvmond instance=a:9470 | 1",
		"__name__=nvmond_host_info job=nvmond instance=beta | 1",
		"__name__=nvmond_host_info job=nvmond instance=d | 1",
		"__name__=nvmond_host_info job=nvmond instance=d env=new | 1",
		"__name__=nvmond_host_info job=other instance=d | 1",
		"__name__=nvmond_host_info job=nvmond instance=e | 1",
		NULL};
	static const char *const only_b[] = {HOST_B " | 998", NULL};
	struct parts n1 = parts_of(fleet_ab), n2 = parts_of(only_b);
	struct promq_result known = series(known_rows);
	struct fv_answer a = answer(&n1);
	struct fv_view first = merge(&a);
	const char *jobs[8], *insts[8];

	set_parts(&a, &n2);
	a.known = &known;
	a.prev = &first; /* knows a:9470's last_seen */
	size_t n = fleetview_gone_hosts(&a, jobs, insts, 8);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(insts[0], "d");
	cr_assert_str_eq(jobs[0], "nvmond");
	cr_assert_str_eq(insts[1], "d");
	cr_assert_str_eq(jobs[1], "other");
	cr_assert_str_eq(insts[2], "e");
	cr_assert_eq(fleetview_gone_hosts(&a, jobs, insts, 2), 2, "at most max");
	fleetview_view_free(&first);
	parts_free(&n1);
	parts_free(&n2);
	promq_result_free(&known);
}

/* The queries: what docs/fleet.md shows, aggregated by the drive's key. */
Test(fleetview, queries)
{
	const char *jobs[] = {"nvmond", "nvmond", "edge"};
	const char *insts[] = {"10.0.0.1:9470", "b", "c"};
	char *q = fleetview_query_gone(jobs, insts, 3, 604800);

	cr_assert_str_eq(q, "max by (job, instance, device, model, serial) (last_over_time("
			    "nvmond_last_sample_timestamp_seconds{job=~\"nvmond|edge\", "
			    "instance=~\"10\\\\.0\\\\.0\\\\.1:9470|b|c\"}[604800s]))");
	free(q);
	cr_assert_null(fleetview_query_gone(jobs, insts, 0, 60));
	cr_assert_str_eq(fleetview_query_part(FV_P_HOST), "timestamp(nvmond_host_info)");
	cr_assert_str_eq(fleetview_query_part(FV_P_TBW),
			 "max by (job, instance, device, serial) (nvmond_data_written_bytes_total) "
			 "/ max by (job, instance, device, serial) (nvmond_rated_endurance_bytes)");
	cr_assert_str_eq(fleetview_query_part(FV_P_HEALTH),
			 "max by (job, instance, device, serial, state) "
			 "(nvmond_device_health{state!=\"ok\"} == 1)");
	cr_assert_null(fleetview_query_part(FV_PARTS));
	for (int p = 0; p < FV_PARTS; p++) {
		const char *pq = fleetview_query_part((enum fv_part)p);
		cr_assert(pq && !strstr(pq, "["),
			  "%s: no range: the cost grows with drives, not history",
			  fleetview_part_name((enum fv_part)p));
		cr_assert(p == FV_P_HOST || strstr(pq, "max by (job, instance, device, serial"),
			  "%s: aggregated by the drive's key",
			  fleetview_part_name((enum fv_part)p));
	}
}

/* GET /api/v1/fleet's JSON (docs/api.md): figures, times, labels; the status around it. */
Test(fleetview, render)
{
	struct parts now = parts_of(fleet_ab);
	struct fv_answer a = answer(&now);
	struct fv_view v = merge(&a);
	char *hosts = fleetview_render_hosts(&v), *body;
	json_error_t je;
	size_t len;
	struct fv_status st = {.configured = true,
			       .engine = "http://vm:8428",
			       .updated_ms = 1000500,
			       .age_ms = 1234,
			       .interval_ms = 10000,
			       .stale_after_ms = 60000,
			       .query_ms = 42,
			       .view = &v};

	cr_assert(hosts);
	body = fleetview_render_body(&st, hosts, &len);
	cr_assert_eq(strlen(body), len);
	json_t *j = json_loads(body, 0, &je);
	cr_assert(j, "%s: %s", je.text, body);
	cr_assert(json_is_true(json_object_get(j, "ok")));
	cr_assert(json_is_null(json_object_get(j, "error")));
	cr_assert_eq(json_integer_value(json_object_get(j, "drives_count")), 2);
	cr_assert_eq(json_integer_value(json_object_get(j, "age_ms")), 1234);
	cr_assert_str_eq(json_string_value(json_object_get(j, "updated")),
			 "1970-01-01T00:16:40.500Z");
	json_t *hb = json_array_get(json_object_get(j, "hosts"), 0);
	json_t *ha = json_array_get(json_object_get(j, "hosts"), 1);
	cr_assert_str_eq(json_string_value(json_object_get(hb, "host")), "beta");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(hb, "labels"), "env")),
			 "prod");
	cr_assert_str_eq(json_string_value(json_object_get(hb, "worst")), "warning");
	cr_assert_eq(json_integer_value(json_object_get(hb, "silent_s")), 2);
	json_t *da = json_array_get(json_object_get(ha, "drives"), 0);
	cr_assert_eq(json_integer_value(json_object_get(da, "temperature_c")), 41);
	cr_assert_eq(json_integer_value(json_object_get(da, "wctemp_c")), 70);

	cr_assert_eq(json_integer_value(json_object_get(da, "percent_used")), 3,
		     "0.03 is 3 %%, not 3.0000000004");
	cr_assert_float_eq(json_real_value(json_object_get(da, "tbw_percent")), 12.5, 1e-9);
	cr_assert_str_eq(json_string_value(json_object_get(da, "last_seen")),
			 "1970-01-01T00:16:30.500Z");
	cr_assert(json_is_true(json_object_get(da, "up")));
	cr_assert_str_eq(json_string_value(json_object_get(da, "verdict")), "ok");
	json_t *db = json_array_get(json_object_get(hb, "drives"), 0);
	cr_assert(json_is_null(json_object_get(db, "tbw_percent")));
	cr_assert(json_is_null(json_object_get(db, "wctemp_c")));
	cr_assert(json_is_null(json_object_get(db, "last_seen")));
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(db, "alerts"), 0), "severity")),
			 "warning");
	json_decref(j);
	free(body);

	/* The client has this view already (?since=updated): the status, no hosts. */
	st.unchanged = true;
	body = fleetview_render_body(&st, hosts, &len);
	cr_assert_eq(strlen(body), len);
	j = json_loads(body, 0, &je);
	cr_assert(j, "%s", body);
	cr_assert(json_is_true(json_object_get(j, "unchanged")));
	cr_assert_null(json_object_get(j, "hosts"));
	cr_assert_eq(json_integer_value(json_object_get(j, "age_ms")), 1234);
	json_decref(j);
	free(body);
	st.unchanged = false;

	/* The engine down, the last good view kept; not configured. */
	st.error = "http://vm:8428: no answer within 5000 ms ([fleet] timeout)";
	st.error_since_ms = 2000000;
	body = fleetview_render_body(&st, hosts, &len);
	j = json_loads(body, 0, &je);
	cr_assert(json_is_false(json_object_get(j, "ok")));
	cr_assert_str_eq(json_string_value(json_object_get(j, "error_since")),
			 "1970-01-01T00:33:20.000Z");
	cr_assert_eq(json_array_size(json_object_get(j, "hosts")), 2, "the last good answer stays");
	json_decref(j);
	free(body);
	body = fleetview_render_body(&(struct fv_status){.interval_ms = 10000}, NULL, &len);
	j = json_loads(body, 0, &je);
	cr_assert(json_is_false(json_object_get(j, "configured")));
	cr_assert(json_is_null(json_object_get(j, "engine")));
	cr_assert_eq(json_array_size(json_object_get(j, "hosts")), 0);
	json_decref(j);
	free(body);
	free(hosts);
	fleetview_view_free(&v);
	parts_free(&now);
}

/* gunzip @gz: one member, all of it. */
static char *gunzip(const void *gz, size_t len, size_t *ret_len)
{
	z_stream z = {0};
	size_t cap = 1 << 22;
	char *out = malloc(cap);

	cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)cap;
	cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END, "not one whole gzip member: %s",
		     z.msg ? z.msg : "");
	cr_assert_eq(z.avail_in, 0, "bytes after the member");
	*ret_len = cap - z.avail_out;
	inflateEnd(&z);
	return out;
}

/*
 * A request's gzip is its head deflated, the hosts deflated once per view, the tail, one
 * member (RFC 1952): it inflates to exactly the identity body, whose CRC-32 and length
 * its trailer holds (zlib checks both).
 */
Test(fleetview, gzip_made_of_parts)
{
	struct parts now = parts_of(fleet_ab);
	struct fv_answer a = answer(&now);
	struct fv_view v = merge(&a);
	char *hosts = fleetview_render_hosts(&v), *head, *body, *back;
	struct fv_status st = {
		.configured = true, .engine = "http://e", .interval_ms = 1, .view = &v};
	size_t hlen, blen, glen, back_len;
	struct fv_deflated z;
	void *gz;

	cr_assert_eq(fleetview_deflate_part(hosts, strlen(hosts), &z), 0);
	cr_assert_eq(z.raw_len, strlen(hosts));
	head = fleetview_render_head(&st, &hlen);
	body = fleetview_render_body(&st, hosts, &blen);
	cr_assert_eq(hlen + strlen(hosts) + 1, blen);
	cr_assert_eq(memcmp(head, body, hlen), 0, "the body begins with the head");
	cr_assert_eq(fleetview_gzip_join(head, hlen, &z, FLEETVIEW_BODY_TAIL, 1, &gz, &glen), 0);
	back = gunzip(gz, glen, &back_len);
	cr_assert_eq(back_len, blen);
	cr_assert_eq(memcmp(back, body, blen), 0, "the gzip is of the identity body");
	free(back);
	free(gz);
	/* A big part (8,000 drives make 3 MB): the same. */
	size_t big_len = 3u << 20;
	char *big = malloc(big_len + 1);
	for (size_t i = 0; i < big_len; i++)
		big[i] = "{\"device\":\"nvme0\",\"temperature_c\":41}"[i % 38] + (char)(i % 7 == 0);
	big[big_len] = '\0';
	fleetview_deflated_free(&z);
	cr_assert_eq(fleetview_deflate_part(big, big_len, &z), 0);
	cr_assert_eq(fleetview_gzip_join("[", 1, &z, "]", 1, &gz, &glen), 0);
	back = gunzip(gz, glen, &back_len);
	cr_assert_eq(back_len, big_len + 2);
	cr_assert(back[0] == '[' && back[big_len + 1] == ']' &&
		  memcmp(back + 1, big, big_len) == 0);
	free(back);
	free(gz);
	free(big);
	fleetview_deflated_free(&z);
	free(head);
	free(body);
	free(hosts);
	fleetview_view_free(&v);
	parts_free(&now);
}
