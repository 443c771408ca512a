/* SPDX-License-Identifier: MIT */
/* When the drive's other logs are read and stored. Pure. See logplan.h. */
#include "nvmond/monitor/logplan.h"

bool logplan_ocp_store(const struct ocp_log *prev, int64_t prev_ms, const struct ocp_log *cur,
		       int64_t now_ms)
{
	if (!prev || now_ms - prev_ms >= LOGPLAN_OCP_STORE_EVERY_MS || now_ms < prev_ms)
		return true;
	/* The media counters move with every write: alone they wait for the hour. */
	return prev->bad_user_blocks != cur->bad_user_blocks ||
	       prev->bad_user_norm != cur->bad_user_norm ||
	       prev->bad_system_blocks != cur->bad_system_blocks ||
	       prev->bad_system_norm != cur->bad_system_norm ||
	       prev->xor_recoveries != cur->xor_recoveries ||
	       prev->uncorrectable_reads != cur->uncorrectable_reads ||
	       prev->soft_ecc_errors != cur->soft_ecc_errors ||
	       prev->e2e_detected != cur->e2e_detected ||
	       prev->e2e_corrected != cur->e2e_corrected ||
	       prev->system_data_used_pct != cur->system_data_used_pct ||
	       prev->throttle_events != cur->throttle_events ||
	       prev->throttle_status != cur->throttle_status ||
	       prev->pcie_correctable != cur->pcie_correctable ||
	       prev->incomplete_shutdowns != cur->incomplete_shutdowns ||
	       prev->free_blocks_pct != cur->free_blocks_pct ||
	       prev->capacitor_health != cur->capacitor_health || prev->version != cur->version ||
	       prev->spec_major != cur->spec_major || prev->spec_minor != cur->spec_minor ||
	       prev->spec_point != cur->spec_point || prev->spec_errata != cur->spec_errata;
}

bool logplan_pel_trigger(const struct smart_log *prev, const struct smart_log *cur)
{
	if (!prev)
		return true;
	return cur->power_cycles != prev->power_cycles ||
	       cur->unsafe_shutdowns != prev->unsafe_shutdowns ||
	       cur->warning_temp_time != prev->warning_temp_time ||
	       cur->critical_temp_time != prev->critical_temp_time ||
	       cur->thm_temp1_trans_count != prev->thm_temp1_trans_count ||
	       cur->thm_temp2_trans_count != prev->thm_temp2_trans_count ||
	       (cur->critical_warning & ~prev->critical_warning) != 0 ||
	       cur->media_errors != prev->media_errors;
}

int64_t logplan_watch_since(int64_t since, int64_t last_ms, int64_t now_ms, int64_t gap_ms)
{
	if (!since || !last_ms || now_ms - last_ms > gap_ms)
		return now_ms;
	return since;
}

bool logplan_pel_late(bool time_known, int64_t ts_ms, int64_t watch_since, bool watched)
{
	if (!time_known)
		return true;
	return ts_ms < watch_since && !watched;
}

int64_t logplan_gap_ms(int64_t poll_interval_ms)
{
	int64_t gap = 3 * poll_interval_ms;

	return gap < 30000 ? 30000 : gap;
}
