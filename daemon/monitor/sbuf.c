/* SPDX-License-Identifier: MIT */
/*
 * A bounded FIFO of samples waiting for the store; when full, the oldest is
 * dropped and counted. Pure. See sbuf.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "nvmond/monitor/sbuf.h"

int sbuf_init(struct sbuf *b, size_t cap)
{
	if (cap == 0)
		return -EINVAL;
	struct sample *v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	*b = (struct sbuf){.v = v, .cap = cap};
	return 0;
}

void sbuf_done(struct sbuf *b)
{
	free(b->v);
	*b = (struct sbuf){0};
}

int sbuf_push(struct sbuf *b, const struct sample *s)
{
	int dropped = 0;

	if (b->len == b->cap) {
		b->head = (b->head + 1) % b->cap;
		b->len--;
		b->dropped++;
		dropped = 1;
	}
	b->v[(b->head + b->len) % b->cap] = *s;
	b->len++;
	return dropped;
}

size_t sbuf_peek(const struct sbuf *b, size_t max, const struct sample **ret)
{
	size_t n = b->len;

	/* Contiguous run from head: stop at the end of the array. */
	if (n > b->cap - b->head)
		n = b->cap - b->head;
	if (n > max)
		n = max;
	*ret = n ? &b->v[b->head] : NULL;
	return n;
}

void sbuf_pop(struct sbuf *b, size_t n)
{
	if (n > b->len)
		n = b->len;
	b->head = (b->head + n) % b->cap;
	b->len -= n;
	if (b->len == 0)
		b->head = 0;
}
