/* SPDX-License-Identifier: MIT */
/*
 * The Persistent Event Log (0Dh): the input is a whole log (the header, then
 * events), its first 8 bytes a cursor offset. pel_header_decode() and
 * pel_take() from the first event and from that offset. Rules: every event
 * taken lies inside the bytes read and decodes; the new anchor is one of
 * them and inside the Total Log Length; a read from the anchor takes nothing
 * twice; summaries end inside their buffer.
 */
#include <errno.h>

#include "fuzz.h"
#include "nvmond/decode/pel.h"

static void check_take(const struct pel_header *h, uint64_t off, const uint8_t *d, size_t len,
		       const struct pel_take *t)
{
	char s[256];

	FUZZ_CHECK(t->n <= PEL_TAKE_MAX);
	for (size_t i = 0; i < t->n; i++) {
		struct pel_event e;
		FUZZ_CHECK(t->off[i] < len);
		FUZZ_CHECK(i == 0 || t->off[i] > t->off[i - 1]);
		FUZZ_CHECK(pel_event_decode(d + t->off[i], len - t->off[i], &e) == 0);
		FUZZ_CHECK(t->off[i] + e.size <= len);
		FUZZ_CHECK(off + t->off[i] + e.size <= h->tll);
		FUZZ_CHECK(strnlen(pel_summary(&e, s, sizeof(s)), sizeof(s)) < sizeof(s));
	}
	if (t->n)
		FUZZ_CHECK(t->cursor.anchor_off == off + t->off[t->n - 1]);
	FUZZ_CHECK(!(t->restart && t->n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pel_header h;
	struct pel_cursor c = {0};
	struct pel_take t;
	uint64_t at = 0;

	if (size < 8 + PEL_HEADER_SIZE)
		return 0;
	memcpy(&at, data, 8);
	data += 8;
	size -= 8;
	if (pel_header_decode(data, &h) < 0)
		return 0;
	FUZZ_CHECK(h.lid == PEL_LID && h.tll >= PEL_HEADER_SIZE);
	int r = pel_take(&c, &h, PEL_HEADER_SIZE, data + PEL_HEADER_SIZE, size - PEL_HEADER_SIZE,
			 &t);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	check_take(&h, PEL_HEADER_SIZE, data + PEL_HEADER_SIZE, size - PEL_HEADER_SIZE, &t);
	/* Read again from the anchor: the anchor is found, nothing is taken twice. */
	c = t.cursor;
	uint64_t next = pel_next_read(&c);
	if (r == 0 && t.n && next < size) {
		struct pel_take t2;
		r = pel_take(&c, &h, next, data + next, size - next, &t2);
		FUZZ_CHECK(r == 0 || r == -EBADMSG);
		FUZZ_CHECK(!t2.restart);
		FUZZ_CHECK(t2.n == 0 || t2.off[0] == c.anchor_size); /* the anchor is not new */
		check_take(&h, next, data + next, size - next, &t2);
	}
	/* From any offset the cursor did not come from: a restart, or a read from 512. */
	at %= size + 1;
	r = pel_take(&c, &h, at, data + at, size - at, &t);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	check_take(&h, at, data + at, size - at, &t);
	return 0;
}
