/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The rules an HTTP connection lives by, as pure functions of its slot (the
 * reaper and the registry in api_conn.c apply them): which phase it is in and
 * when it is late, whether a new connection is taken, kept for /healthz or
 * refused, and whether an open one still counts against the limits. No clock,
 * no socket: the time and what was seen of the socket come in as arguments.
 */
#include <stdbool.h>
#include <stdint.h>

enum api_conn_phase {
	API_CONN_REQUEST, /* waiting for a request's line and headers */
	API_CONN_BODY,	  /* the headers are in; the body is being read */
	API_CONN_ANSWER,  /* the request is in: the handler runs, the answer is sent */
};

/* [http] request_timeout, body_timeout and send_timeout; the reserve's own bound. */
struct api_conn_limits {
	int64_t request_ms; /* a request's line and headers, from the opening or the last answer */
	int64_t body_ms;    /* the whole body, from the headers */
	int64_t send_ms; /* the longest the client may take no byte of an answer waiting for it */
	int64_t reserve_ms; /* a reserve connection's whole life */
};

struct api_conn_slot {
	enum api_conn_phase phase;
	bool reserve;	     /* taken past max_connections: /healthz only, then closed */
	int64_t opened_ms;   /* monotonic */
	int64_t since_ms;    /* the phase began */
	int64_t progress_ms; /* API_CONN_ANSWER: the client last took a byte, or none waited */
	uint64_t acked;	     /* … the bytes it had acknowledged then */
	bool acked_known;    /* … acked was seen in this phase */
};

/* What was seen of the socket (TCP_INFO, SIOCOUTQ). */
struct api_conn_sock {
	uint64_t acked;	  /* bytes the client has acknowledged, over the connection's life */
	uint32_t waiting; /* bytes sent or queued that it has not acknowledged yet */
};

/** api_conn_rule_open() - A new connection at @now_ms: waiting for its first request. */
void api_conn_rule_open(struct api_conn_slot *s, bool reserve, int64_t now_ms);

/** api_conn_rule_enter() - The connection enters @phase at @now_ms. */
void api_conn_rule_enter(struct api_conn_slot *s, enum api_conn_phase phase, int64_t now_ms);

/**
 * api_conn_rule_due() - Whether the connection is late and must be cut at @now_ms:
 * a reserve connection past @l->reserve_ms of its life; a request whose line and
 * headers are not in within request_ms, or whose body is not in within body_ms of
 * them; an answer the client has taken no byte of for send_ms while bytes waited for
 * it (@sock: what the socket shows now, NULL when it could not be read; then the
 * answer is never cut). Updates the answer's progress in @s.
 * Return: true to cut it.
 */
bool api_conn_rule_due(struct api_conn_slot *s, const struct api_conn_limits *l, int64_t now_ms,
		       const struct api_conn_sock *sock);

/**
 * api_conn_rule_counts() - Whether an open connection in @phase still counts against
 * the limits, from its TCP state (netinet/tcp.h TCP_*; -1 when unknown): an
 * established one does, and one whose client has closed its side (CLOSE_WAIT) while
 * its request is served; one closing (the client gone between requests, or shut
 * down by the server) does not, though the HTTP server has not let it go yet.
 * Unknown counts. Return: true when it counts.
 */
bool api_conn_rule_counts(enum api_conn_phase phase, int tcp_state);

/* The open connections a new one is weighed against (each counted by the rule above). */
struct api_conn_counts {
	unsigned total;	    /* ordinary connections */
	unsigned reserve;   /* reserve connections */
	unsigned from_addr; /* connections of either kind from the new one's address */
};

enum api_conn_admit {
	API_CONN_ADMIT,	  /* an ordinary connection */
	API_CONN_RESERVE, /* past max_total: /healthz only, for a short while */
	API_CONN_REFUSE,  /* past max_per_addr, or past the reserve too */
};

/**
 * api_conn_rule_admit() - What becomes of a new connection: refused when its
 * address already holds @max_per_addr (0: no limit), taken while fewer than
 * @max_total ordinary ones are open, else kept for /healthz while fewer than
 * @max_reserve reserve ones are, else refused.
 */
enum api_conn_admit api_conn_rule_admit(const struct api_conn_counts *n, unsigned max_total,
					unsigned max_per_addr, unsigned max_reserve);

/* One of the servers an ordinary connection may go to. */
struct api_conn_server {
	unsigned busy;	/* handlers running on its thread */
	unsigned conns; /* connections it serves */
};

/**
 * api_conn_rule_pick() - Which of the @n (at least 1) servers a new connection goes to:
 * one running no handler (a handler may wait: a self-test start for its drive, up to
 * device_timeout; a connection given to its thread would wait with it), the one with
 * the fewest connections among those, the first on a tie; when every one runs a
 * handler, the one with the fewest connections. Return: its index.
 */
unsigned api_conn_rule_pick(const struct api_conn_server *v, unsigned n);
