/* SPDX-License-Identifier: MIT */
/*
 * The probe presets (probe_preset.h): CrystalDiskMark's four, copy-self,
 * sustained-write, the transfer-size sweep, cache-recovery, copy-to. Pure.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/analysis/probe_preset.h"

static const struct probe_preset presets[_PROBE_PRESET_MAX] = {
	[PROBE_SEQ1M_Q8] = {"seq1m-q8",
			    "SEQ1M Q8T1",
			    2,
			    {{"read", PROBE_OP_READ, false, 1u << 20, 8},
			     {"write", PROBE_OP_WRITE, false, 1u << 20, 8}}},
	[PROBE_SEQ1M_Q1] = {"seq1m-q1",
			    "SEQ1M Q1T1",
			    2,
			    {{"read", PROBE_OP_READ, false, 1u << 20, 1},
			     {"write", PROBE_OP_WRITE, false, 1u << 20, 1}}},
	[PROBE_RND4K_Q32] = {"rnd4k-q32",
			     "RND4K Q32T1",
			     2,
			     {{"read", PROBE_OP_READ, true, 4096, 32},
			      {"write", PROBE_OP_WRITE, true, 4096, 32}}},
	[PROBE_RND4K_Q1] = {"rnd4k-q1",
			    "RND4K Q1T1",
			    2,
			    {{"read", PROBE_OP_READ, true, 4096, 1},
			     {"write", PROBE_OP_WRITE, true, 4096, 1}}},
	[PROBE_COPY_SELF] = {"copy-self",
			     "COPY-SELF SEQ1M Q8",
			     1,
			     {{"copy", PROBE_OP_COPY, false, 1u << 20, 8}}},
	[PROBE_SUSTAINED_WRITE] = {"sustained-write",
				   "SUSTAINED SEQ1M Q8",
				   1,
				   {{"write", PROBE_OP_WRITE, false, 1u << 20, 8}},
				   true},
#define SWEEP_POINT(name, op, shift)                                                               \
	{                                                                                          \
		name, op, false, 1u << (shift), PROBE_SWEEP_DEPTH                                  \
	}
#define SWEEP_DIR(d, op)                                                                           \
	SWEEP_POINT(d " 512", op, 9), SWEEP_POINT(d " 1K", op, 10), SWEEP_POINT(d " 2K", op, 11),  \
		SWEEP_POINT(d " 4K", op, 12), SWEEP_POINT(d " 8K", op, 13),                        \
		SWEEP_POINT(d " 16K", op, 14), SWEEP_POINT(d " 32K", op, 15),                      \
		SWEEP_POINT(d " 64K", op, 16), SWEEP_POINT(d " 128K", op, 17),                     \
		SWEEP_POINT(d " 256K", op, 18), SWEEP_POINT(d " 512K", op, 19),                    \
		SWEEP_POINT(d " 1M", op, 20), SWEEP_POINT(d " 2M", op, 21),                        \
		SWEEP_POINT(d " 4M", op, 22), SWEEP_POINT(d " 8M", op, 23),                        \
		SWEEP_POINT(d " 16M", op, 24), SWEEP_POINT(d " 32M", op, 25),                      \
		SWEEP_POINT(d " 64M", op, 26)
	[PROBE_SWEEP] = {"sweep",
			 "SWEEP 512B-64M",
			 PROBE_MAX_PHASES,
			 {SWEEP_DIR("read", PROBE_OP_READ), SWEEP_DIR("write", PROBE_OP_WRITE)},
			 .sweep = true},
#undef SWEEP_DIR
#undef SWEEP_POINT
	[PROBE_CACHE_RECOVERY] = {"cache-recovery",
				  "CACHE-RECOVERY SEQ1M Q8",
				  1,
				  {{"write", PROBE_OP_WRITE, false, 1u << 20, 8}},
				  .study = true},
	[PROBE_COPY_TO] = {"copy-to",
			   "COPY-TO SEQ1M Q8",
			   1,
			   {{"copy", PROBE_OP_COPY, false, 1u << 20, 8}},
			   .copy_to = true},
};

const struct probe_preset *probe_preset_get(enum probe_preset_id id)
{
	return (unsigned)id < _PROBE_PRESET_MAX ? &presets[id] : NULL;
}

const struct probe_preset *probe_preset_find(const char *name, enum probe_preset_id *ret_id)
{
	for (size_t i = 0; i < _PROBE_PRESET_MAX; i++)
		if (name && strcmp(presets[i].name, name) == 0) {
			if (ret_id)
				*ret_id = (enum probe_preset_id)i;
			return &presets[i];
		}
	return NULL;
}

const char *probe_preset_names(char *buf, size_t size, unsigned skip)
{
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < _PROBE_PRESET_MAX && n < size; i++) {
		if (((skip & PROBE_NAMES_NO_COPY_TO) && presets[i].copy_to) ||
		    ((skip & PROBE_NAMES_NO_STUDY) && presets[i].study))
			continue;
		int w = snprintf(buf + n, size - n, "%s%s", n ? ", " : "", presets[i].name);
		n += w > 0 ? (size_t)w : 0;
	}
	return buf;
}

const char *probe_op_name(enum probe_op op)
{
	return op == PROBE_OP_READ ? "read" : op == PROBE_OP_WRITE ? "write" : "copy";
}
