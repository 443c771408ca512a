/* SPDX-License-Identifier: MIT */
/* The Firmware Slot Information log page, and firmware changes. See fwlog.h. */
#include <stdio.h>
#include <string.h>

#include "nvmond/decode/fwlog.h"

/* Byte offsets in the Firmware Slot Information log (NVMe 2.0, Figure 209). */
enum {
	OFF_AFI = 0,
	AFI_ACTIVE_MASK = 0x07, /* bits 2:0 */
	AFI_NEXT_SHIFT = 4,	/* bits 6:4 */
	AFI_NEXT_MASK = 0x07,
	OFF_FRS1 = 8,
	LEN_FRS = 8,
};

_Static_assert(OFF_FRS1 + FWLOG_SLOTS * LEN_FRS == 64, "FRS7 ends at byte 63");
_Static_assert(FWLOG_REV_MAX == LEN_FRS + 1, "revision buffer");

int fwlog_decode(const uint8_t page[FWLOG_SIZE], struct fwlog *ret)
{
	struct fwlog l = {0};

	l.active_slot = page[OFF_AFI] & AFI_ACTIVE_MASK;
	l.next_slot = (page[OFF_AFI] >> AFI_NEXT_SHIFT) & AFI_NEXT_MASK;
	for (int i = 0; i < FWLOG_SLOTS; i++)
		idctl_str_clean(l.frs[i], page + OFF_FRS1 + i * LEN_FRS, LEN_FRS);
	*ret = l;
	return 0;
}

void fwlog_encode(const struct fwlog *l, uint8_t page[FWLOG_SIZE])
{
	memset(page, 0, FWLOG_SIZE);
	page[OFF_AFI] = (uint8_t)((l->active_slot & AFI_ACTIVE_MASK) |
				  (l->next_slot & AFI_NEXT_MASK) << AFI_NEXT_SHIFT);
	for (int i = 0; i < FWLOG_SLOTS; i++) {
		size_t n = strnlen(l->frs[i], LEN_FRS);

		if (!n)
			continue;
		memset(page + OFF_FRS1 + i * LEN_FRS, ' ', LEN_FRS);
		memcpy(page + OFF_FRS1 + i * LEN_FRS, l->frs[i], n);
	}
}

static const char *slot_rev(const struct fwlog *l, unsigned slot)
{
	return slot >= 1 && slot <= FWLOG_SLOTS && l->frs[slot - 1][0] ? l->frs[slot - 1] : NULL;
}

const char *fwlog_active_rev(const struct fwlog *l)
{
	return slot_rev(l, l->active_slot);
}

const char *fwlog_pending_rev(const struct fwlog *l)
{
	const char *next = slot_rev(l, l->next_slot), *cur = fwlog_active_rev(l);

	if (!next || l->next_slot == l->active_slot || (cur && strcmp(next, cur) == 0))
		return NULL;
	return next;
}

/* @s cleaned as the log and Identify clean a revision (padding off first); NULL gives "". */
static void rev_clean(char dst[FWLOG_REV_MAX], const char *s)
{
	size_t n;

	s = s ? s + strspn(s, " ") : "";
	n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		n--;
	idctl_str_clean(dst, (const uint8_t *)s, n < LEN_FRS ? n : LEN_FRS);
}

bool fwlog_change(const char *prev, const char *fr, const struct fwlog *slots,
		  struct fw_change *ret)
{
	struct fw_change c = {0};
	char old[FWLOG_REV_MAX];
	const char *pending;

	rev_clean(old, prev);
	rev_clean(c.current, fr);
	if (!c.current[0] && slots)
		rev_clean(c.current, fwlog_active_rev(slots));
	pending = slots ? fwlog_pending_rev(slots) : NULL;
	if (pending && strcmp(pending, c.current) != 0)
		rev_clean(c.pending, pending);
	if (old[0] && c.current[0] && strcmp(old, c.current) != 0) {
		c.changed = true;
		memcpy(c.old_rev, old, sizeof(old));
		memcpy(c.new_rev, c.current, sizeof(c.new_rev));
	}
	*ret = c;
	return c.changed;
}
