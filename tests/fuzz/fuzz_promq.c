/* SPDX-License-Identifier: MIT */
/*
 * An engine's answer, as GET /api/v1/fleet's service reads it off the network: parsed
 * as an instant vector and as /api/v1/series label sets (promq_parse_*), then the whole
 * pure path of the fleet view on what was taken: the merge (once fresh, once with the
 * first view as the previous one and the hosts gone), the hosts to look up and their
 * query, and the JSON. Rules: a taken answer has every sample within the documented
 * bounds and its evaluation time at least every sample's; the view counts what it holds,
 * sorts problems first, and renders as JSON that parses.
 */
#include <math.h>

#include <jansson.h>

#include "fuzz.h"
#include "nvmond/fleetview/fleetview.h"

static void check_result(const struct promq_result *r, bool vector)
{
	FUZZ_CHECK(r->n <= PROMQ_SAMPLES_MAX);
	for (size_t i = 0; i < r->n; i++) {
		const struct promq_sample *s = &r->v[i];
		FUZZ_CHECK(s->n_labels <= PROMQ_LABELS_MAX);
		for (size_t k = 0; k < s->n_labels; k++) {
			size_t nl = strlen(s->labels[k].name), vl = strlen(s->labels[k].value);
			FUZZ_CHECK(nl > 0 && nl <= PROMQ_LABEL_LEN_MAX &&
				   vl <= PROMQ_LABEL_LEN_MAX);
			FUZZ_CHECK(promq_get(s, s->labels[k].name) != NULL);
		}
		if (vector)
			FUZZ_CHECK(isfinite(s->ts) && s->ts <= r->eval_ts);
		else
			FUZZ_CHECK(isnan(s->value) && isnan(s->ts));
	}
}

static void check_json(const char *text)
{
	json_error_t je;
	json_t *j;

	FUZZ_CHECK(text != NULL);
	j = json_loads(text, 0, &je);
	FUZZ_CHECK(j != NULL);
	json_decref(j);
}

static void check_view(const struct fv_view *v)
{
	size_t drives = 0, not_reporting = 0;
	char *hosts, *body;
	size_t len;

	for (size_t i = 0; i < v->n_hosts; i++) {
		const struct fv_host *h = &v->hosts[i];
		drives += h->n_drives;
		not_reporting += !h->reporting;
		FUZZ_CHECK(h->problems <= h->n_drives);
		if (i)
			FUZZ_CHECK(fleetview_host_rank(&v->hosts[i - 1]) >= fleetview_host_rank(h));
		for (size_t k = 1; k < h->n_drives; k++)
			FUZZ_CHECK(h->drives[k - 1].verdict >= h->drives[k].verdict);
		for (size_t k = 0; k < h->n_drives; k++)
			FUZZ_CHECK(h->drives[k].verdict <= h->worst);
	}
	FUZZ_CHECK(drives == v->n_drives);
	FUZZ_CHECK(not_reporting == v->n_not_reporting);
	FUZZ_CHECK(v->n_problems <= v->n_drives);
	hosts = fleetview_render_hosts(v);
	check_json(hosts);
	struct fv_status st = {.configured = true, .engine = "http://e", .view = v};
	body = fleetview_render_body(&st, hosts, &len);
	check_json(body);
	FUZZ_CHECK(strlen(body) == len);
	free(body);
	free(hosts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct promq_result vec = {0}, ser = {0};
	char err[PROMQ_ERR_MAX];
	bool have_vec, have_ser;

	have_vec = promq_parse_vector((const char *)data, size, &vec, err) == 0;
	if (have_vec)
		check_result(&vec, true);
	else
		FUZZ_CHECK(err[0] != '\0');
	have_ser = promq_parse_series((const char *)data, size, &ser, err) == 0;
	if (have_ser)
		check_result(&ser, false);
	if (!have_vec && !have_ser)
		return 0;

	/* The answer as every part of the instant query at once: each sample is read as a
	 * host, a drive's info, health, alert, figures… */
	struct fv_answer a = {.known = have_ser ? &ser : NULL,
			      .gone = have_vec ? &vec : NULL,
			      .eval_ts = have_vec && vec.eval_ts > 0 ? vec.eval_ts : 1796291449,
			      .stale_after_s = 60};
	for (int p = 0; p < FV_PARTS; p++)
		a.now[p] = have_vec ? &vec : NULL;
	struct fv_view first, second;
	FUZZ_CHECK(fleetview_merge(&a, &first) == 0);
	check_view(&first);

	/* Everything gone from the instant query: the previous view and the lookups. */
	const char *jobs[8], *insts[8];
	for (int p = 0; p < FV_PARTS; p++)
		a.now[p] = NULL;
	a.prev = &first;
	a.known = have_ser ? &ser : NULL;
	size_t n = fleetview_gone_hosts(&a, jobs, insts, 8);
	FUZZ_CHECK(n <= 8);
	if (n) {
		char *q = fleetview_query_gone(jobs, insts, n, 604800);
		FUZZ_CHECK(q != NULL);
		free(q);
	}
	FUZZ_CHECK(fleetview_merge(&a, &second) == 0);
	check_view(&second);
	FUZZ_CHECK(second.n_not_reporting == second.n_hosts);
	fleetview_view_free(&second);
	fleetview_view_free(&first);
	promq_result_free(&vec);
	promq_result_free(&ser);
	return 0;
}
