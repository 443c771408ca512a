/* SPDX-License-Identifier: MIT */
/*
 * The rules of an HTTP connection's life (api_conn_rule.h): deadlines by phase, the
 * answer's progress, what counts as open, and the admission of a new connection
 * (docs/security.md#http-limits, docs/configuration.md [http]).
 */
#include <criterion/criterion.h>
#include <netinet/tcp.h>

#include "nvmond/api/api_conn_rule.h"

static const struct api_conn_limits lim = {
	.request_ms = 3000, .body_ms = 1000, .send_ms = 2000, .reserve_ms = 2500};

Test(api_conn_rule, request_and_body_deadlines)
{
	struct api_conn_slot s;

	api_conn_rule_open(&s, false, 10000);
	cr_expect_not(api_conn_rule_due(&s, &lim, 12999, NULL),
		      "request_timeout: headers may come until 3 s after the opening");
	cr_expect(api_conn_rule_due(&s, &lim, 13000, NULL), "... and are late at 3 s");
	api_conn_rule_enter(&s, API_CONN_BODY, 11000);
	cr_expect_not(api_conn_rule_due(&s, &lim, 11999, NULL),
		      "body_timeout runs from the headers, not the opening");
	cr_expect(api_conn_rule_due(&s, &lim, 12000, NULL), "the whole body within body_timeout");
	api_conn_rule_enter(&s, API_CONN_REQUEST, 12000);
	cr_expect_not(api_conn_rule_due(&s, &lim, 14999, NULL),
		      "after an answer, the next request has request_timeout from then");
	cr_expect(api_conn_rule_due(&s, &lim, 15000, NULL), "... and no longer");
}

Test(api_conn_rule, answer_progress)
{
	static const struct {
		int64_t t;
		uint64_t acked;
		uint32_t waiting;
		bool want;
		const char *rule;
	} t[] = {
		{0, 100, 5000, false, "the first look: progress from now"},
		{1999, 100, 5000, false, "no byte taken, but not yet send_timeout"},
		{2000, 100, 5000, true, "no byte taken for send_timeout while bytes wait: cut"},
	};
	struct api_conn_slot s;

	api_conn_rule_open(&s, false, 0);
	api_conn_rule_enter(&s, API_CONN_ANSWER, 0);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct api_conn_sock k = {.acked = t[i].acked, .waiting = t[i].waiting};

		cr_expect_eq(api_conn_rule_due(&s, &lim, t[i].t, &k), t[i].want, "%s", t[i].rule);
	}

	/* A client that takes a byte now and then keeps its answer going. */
	api_conn_rule_enter(&s, API_CONN_ANSWER, 0);
	for (int64_t now = 0; now <= 10000; now += 1500) {
		struct api_conn_sock k = {.acked = 100 + (uint64_t)now, .waiting = 4096};

		cr_expect_not(api_conn_rule_due(&s, &lim, now, &k), "progress at %lld ms",
			      (long long)now);
	}
	/* Nothing waits for the client (the handler takes its time): not the client's fault. */
	api_conn_rule_enter(&s, API_CONN_ANSWER, 0);
	for (int64_t now = 0; now <= 10000; now += 1000) {
		struct api_conn_sock k = {.acked = 7, .waiting = 0};

		cr_expect_not(api_conn_rule_due(&s, &lim, now, &k), "nothing waits at %lld ms",
			      (long long)now);
	}
	struct api_conn_sock stuck = {.acked = 7, .waiting = 1};
	cr_expect_not(api_conn_rule_due(&s, &lim, 11999, &stuck),
		      "send_timeout runs from the last time nothing waited");
	cr_expect(api_conn_rule_due(&s, &lim, 12000, &stuck), "... and cuts at send_timeout");
	/* The socket could not be read: an answer is never cut on a guess. */
	api_conn_rule_enter(&s, API_CONN_ANSWER, 0);
	cr_expect_not(api_conn_rule_due(&s, &lim, 1000000, NULL), "unknown socket: not cut");
	/*
	 * A new answer starts afresh: its first look is its baseline, whatever the
	 * previous answer on the connection left (the same count, here).
	 */
	struct api_conn_sock same = {.acked = 7, .waiting = 1};
	api_conn_rule_enter(&s, API_CONN_ANSWER, 40000);
	cr_expect_not(api_conn_rule_due(&s, &lim, 40100, &same), "the first answer's baseline");
	cr_expect(api_conn_rule_due(&s, &lim, 42100, &same), "... cut send_timeout after it");
	api_conn_rule_enter(&s, API_CONN_ANSWER, 50000);
	cr_expect_not(api_conn_rule_due(&s, &lim, 51999, &same),
		      "the next answer's first look, late: its own baseline");
	cr_expect_not(api_conn_rule_due(&s, &lim, 52100, &same),
		      "entering a phase forgets the count: send_timeout from that look");
	cr_expect(api_conn_rule_due(&s, &lim, 53999, &same), "... and cuts then");
}

Test(api_conn_rule, reserve_life)
{
	struct api_conn_slot s;
	struct api_conn_sock k = {.acked = 1, .waiting = 0};

	api_conn_rule_open(&s, true, 1000);
	cr_expect_not(api_conn_rule_due(&s, &lim, 3499, NULL), "a reserve connection lives");
	cr_expect(api_conn_rule_due(&s, &lim, 3500, NULL),
		  "... API_RESERVE_MS of its life at most, whatever its phase");
	api_conn_rule_enter(&s, API_CONN_ANSWER, 3000);
	cr_expect(api_conn_rule_due(&s, &lim, 3500, &k), "even while answering");
	api_conn_rule_open(&s, false, 1000);
	api_conn_rule_enter(&s, API_CONN_ANSWER, 1000);
	cr_expect_not(api_conn_rule_due(&s, &lim, 3500, &k), "an ordinary one has no such bound");
}

Test(api_conn_rule, counts)
{
	static const struct {
		enum api_conn_phase phase;
		int state;
		bool want;
		const char *rule;
	} t[] = {
		{API_CONN_REQUEST, TCP_ESTABLISHED, true, "established: open"},
		{API_CONN_ANSWER, TCP_ESTABLISHED, true, "established, answering: open"},
		{API_CONN_REQUEST, -1, true, "state unknown: counted"},
		{API_CONN_REQUEST, TCP_CLOSE_WAIT, false,
		 "the client closed between requests: closing (issue 23, short-lived clients)"},
		{API_CONN_BODY, TCP_CLOSE_WAIT, true, "half-closed while its request is served"},
		{API_CONN_ANSWER, TCP_CLOSE_WAIT, true, "half-closed, waiting for its answer"},
		{API_CONN_ANSWER, TCP_FIN_WAIT1, false, "shut down by the server"},
		{API_CONN_REQUEST, TCP_FIN_WAIT2, false, "shut down by the server, acknowledged"},
		{API_CONN_ANSWER, TCP_LAST_ACK, false, "both sides closed"},
		{API_CONN_ANSWER, TCP_CLOSE, false, "reset"},
		{API_CONN_REQUEST, TCP_TIME_WAIT, false, "gone"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(api_conn_rule_counts(t[i].phase, t[i].state), t[i].want, "%s",
			     t[i].rule);
}

Test(api_conn_rule, admit)
{
	static const struct {
		struct api_conn_counts n;
		unsigned per_addr;
		enum api_conn_admit want;
		const char *rule;
	} t[] = {
		{{0, 0, 0}, 32, API_CONN_ADMIT, "an empty server"},
		{{255, 0, 31}, 32, API_CONN_ADMIT, "the last ordinary slot, the address's last"},
		{{255, 0, 32}, 32, API_CONN_REFUSE, "max_connections_per_ip reached"},
		{{10, 0, 40}, 32, API_CONN_REFUSE, "past it (both kinds count)"},
		{{10, 0, 40}, 0, API_CONN_ADMIT, "0: no per-address limit"},
		{{256, 0, 0}, 32, API_CONN_RESERVE, "max_connections reached: the reserve"},
		{{256, 15, 3}, 32, API_CONN_RESERVE, "the reserve's last slot"},
		{{256, 16, 0}, 32, API_CONN_REFUSE, "the reserve full too"},
		{{300, 0, 0}, 32, API_CONN_RESERVE, "more ordinary ones than the limit (closing)"},
		{{256, 0, 32}, 32, API_CONN_REFUSE, "the per-address limit before the reserve"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(api_conn_rule_admit(&t[i].n, 256, t[i].per_addr, 16), t[i].want, "%s",
			     t[i].rule);
}

Test(api_conn_rule, pick)
{
	static const struct {
		struct api_conn_server v[4];
		unsigned n, want;
		const char *rule;
	} t[] = {
		{{{0, 0}}, 1, 0, "one server: that one"},
		{{{0, 3}, {0, 1}, {0, 2}, {0, 5}}, 4, 1, "all free: the fewest connections"},
		{{{0, 2}, {0, 2}, {0, 2}, {0, 2}}, 4, 0, "a tie: the first"},
		{{{1, 0}, {0, 9}, {1, 1}, {0, 7}},
		 4,
		 3,
		 "a server running a handler is passed over, whatever its connections"},
		{{{1, 5}, {1, 2}, {2, 3}, {1, 4}},
		 4,
		 1,
		 "all running handlers: the fewest connections still"},
		{{{1, 0}, {0, 0}}, 2, 1, "the first busy, the second free"},
		{{{0, 4}, {1, 0}}, 2, 0, "the first free, the second busy with fewer"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(api_conn_rule_pick(t[i].v, t[i].n), t[i].want, "%s", t[i].rule);
}
