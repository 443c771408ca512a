/* SPDX-License-Identifier: MIT */
/*
 * The engine job of each phase of a preset (probe_preset.h) on a probe area
 * (probe.h probe_preset_job()). Pure: no I/O.
 */
#include <stdint.h>

#include "nvmond/probe/probe.h"

void probe_preset_job(const struct probe_preset *p, size_t k, uint64_t area, int64_t duration_ms,
		      uint64_t max_write, struct probe_job *ret)
{
	uint64_t half = area / 2 / (1u << 20) * (1u << 20);

	*ret = (struct probe_job){
		.op = p->phase[k].op,
		.random = p->phase[k].random,
		.block_size = p->phase[k].block_size,
		.depth = p->phase[k].depth,
		.offset = 0,
		.length = area,
		.duration_ms = duration_ms,
		.interval_ms = PROBE_INTERVAL_MS,
	};
	if (p->sweep) {
		uint64_t most = ret->op == PROBE_OP_WRITE ? PROBE_SWEEP_WRITE_BYTES
							  : PROBE_SWEEP_POINT_BYTES;
		if (ret->op == PROBE_OP_WRITE && most > area)
			most = area;
		if (ret->op == PROBE_OP_WRITE && most > max_write)
			most = max_write;
		if (duration_ms <= 0 || duration_ms > PROBE_SWEEP_POINT_MS)
			ret->duration_ms = PROBE_SWEEP_POINT_MS;
		ret->max_bytes = most;
		return;
	}
	switch (ret->op) {
	case PROBE_OP_READ:
		break;
	case PROBE_OP_WRITE:
		ret->max_bytes = p->sustained || p->study || max_write < area ? max_write : area;
		if (p->sustained || p->study)
			ret->duration_ms = 0; /* until the cliff holds or the byte limit */
		break;
	case PROBE_OP_COPY:
		if (p->copy_to) {
			ret->wr_length = area;
			ret->max_bytes = max_write < area ? max_write : area;
			break;
		}
		ret->length = half;
		ret->wr_offset = half;
		ret->wr_length = half;
		ret->max_bytes = max_write < half ? max_write : half;
		break;
	}
}
