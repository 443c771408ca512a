/* SPDX-License-Identifier: MIT */
/*
 * The rules of a connection's life (api_conn_rule.h): pure, table-tested; the
 * registry and reaper in api_conn.c only apply them.
 */
#include <netinet/tcp.h>

#include "nvmond/api/api_conn_rule.h"

void api_conn_rule_open(struct api_conn_slot *s, bool reserve, int64_t now_ms)
{
	*s = (struct api_conn_slot){.reserve = reserve, .opened_ms = now_ms};
	api_conn_rule_enter(s, API_CONN_REQUEST, now_ms);
}

void api_conn_rule_enter(struct api_conn_slot *s, enum api_conn_phase phase, int64_t now_ms)
{
	s->phase = phase;
	s->since_ms = now_ms;
	s->progress_ms = now_ms;
	s->acked_known = false; /* the first look is the answer's baseline */
}

bool api_conn_rule_due(struct api_conn_slot *s, const struct api_conn_limits *l, int64_t now_ms,
		       const struct api_conn_sock *sock)
{
	if (s->reserve && now_ms - s->opened_ms >= l->reserve_ms)
		return true;
	switch (s->phase) {
	case API_CONN_REQUEST:
		return now_ms - s->since_ms >= l->request_ms;
	case API_CONN_BODY:
		return now_ms - s->since_ms >= l->body_ms;
	case API_CONN_ANSWER:
		if (!sock)
			return false;
		/* Progress: the client took bytes, or nothing waits for it (the handler runs). */
		if (!s->acked_known || sock->acked != s->acked || sock->waiting == 0) {
			s->acked = sock->acked;
			s->acked_known = true;
			s->progress_ms = now_ms;
			return false;
		}
		return now_ms - s->progress_ms >= l->send_ms;
	}
	return false;
}

bool api_conn_rule_counts(enum api_conn_phase phase, int tcp_state)
{
	if (tcp_state < 0 || tcp_state == TCP_ESTABLISHED)
		return true;
	/* The client half-closed after its request: it still waits for the answer. */
	return tcp_state == TCP_CLOSE_WAIT && phase != API_CONN_REQUEST;
}

enum api_conn_admit api_conn_rule_admit(const struct api_conn_counts *n, unsigned max_total,
					unsigned max_per_addr, unsigned max_reserve)
{
	if (max_per_addr && n->from_addr >= max_per_addr)
		return API_CONN_REFUSE;
	if (n->total < max_total)
		return API_CONN_ADMIT;
	if (n->reserve < max_reserve)
		return API_CONN_RESERVE;
	return API_CONN_REFUSE;
}

unsigned api_conn_rule_pick(const struct api_conn_server *v, unsigned n)
{
	unsigned best = 0;

	for (unsigned i = 1; i < n; i++) {
		bool free_i = v[i].busy == 0, free_best = v[best].busy == 0;

		if (free_i != free_best ? free_i : v[i].conns < v[best].conns)
			best = i;
	}
	return best;
}
