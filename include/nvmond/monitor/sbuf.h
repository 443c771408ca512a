/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/sample.h"

/*
 * A bounded FIFO of samples waiting for the store. When full, the oldest
 * sample is dropped and counted: memory never grows without bound while the
 * database is failing. Pure; not thread-safe (the main loop owns it).
 */
struct sbuf {
	struct sample *v;
	size_t cap, head, len;
	uint64_t dropped;
};

/** sbuf_init() - Return: 0 or -ENOMEM (cap >= 1). */
int sbuf_init(struct sbuf *b, size_t cap);
void sbuf_done(struct sbuf *b);

/** sbuf_push() - Append; drops the oldest when full. Return: 1 if one was dropped, else 0. */
int sbuf_push(struct sbuf *b, const struct sample *s);

/**
 * sbuf_peek() - Up to @max oldest samples, contiguous, without removing them.
 * Return: number available at *ret (0 when empty).
 */
size_t sbuf_peek(const struct sbuf *b, size_t max, const struct sample **ret);

/** sbuf_pop() - Remove the @n oldest (after a successful store). */
void sbuf_pop(struct sbuf *b, size_t n);
