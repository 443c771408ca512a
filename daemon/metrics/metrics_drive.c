/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus families of issue 27: base units, _total for counters,
 * exact decimals for 128-bit counters; a family is written only for drives
 * that have its source (no C0h: no nvmond_ocp_*; no HCTM: no threshold).
 * See metrics_drive.h.
 */
#include <inttypes.h>
#include <stdio.h>

#include "nvmond/util/u128.h"
#include "metrics_drive.h"

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static const char *lab(const char *labels, size_t stride, size_t i)
{
	return labels + i * stride;
}

/* Online with a health-log sample: what the other families need too. */
static bool live(const struct metrics_device *m)
{
	return m->fd.row.online && m->fd.has_sample && m->fd.last.source == SAMPLE_SOURCE_SMART;
}

static bool has_ocp(const struct metrics_device *m)
{
	return live(m) && m->fd.drive.ocp.present && m->fd.drive.ocp.have;
}

/* The C0h counters: a field, a name, a help; 128-bit ones exact. */
static void render_ocp(FILE *f, const struct metrics_input *in, const char *labels, size_t stride)
{
	static const struct {
		const char *name, *type, *help;
	} fams[] = {
		{"nvmond_ocp_physical_written_bytes_total", "counter",
		 "Physical Media Units Written (OCP C0h): bytes written to the NAND."},
		{"nvmond_ocp_physical_read_bytes_total", "counter",
		 "Physical Media Units Read (OCP C0h): bytes read from the NAND."},
		{"nvmond_ocp_write_amplification_ratio", "gauge",
		 "Physical media bytes written over host bytes written, lifetime (C0h and the "
		 "health log read in the same poll)."},
		{"nvmond_ocp_bad_nand_blocks", "gauge",
		 "Bad NAND blocks (OCP C0h raw counts) by kind: user or system."},
		{"nvmond_ocp_xor_recoveries_total", "counter", "XOR Recovery Count (OCP C0h)."},
		{"nvmond_ocp_uncorrectable_reads_total", "counter",
		 "Uncorrectable Read Error Count (OCP C0h)."},
		{"nvmond_ocp_soft_ecc_errors_total", "counter", "Soft ECC Error Count (OCP C0h)."},
		{"nvmond_ocp_end_to_end_errors_total", "counter",
		 "End to End Correction Counts (OCP C0h): detected and corrected."},
		{"nvmond_ocp_pcie_correctable_errors_total", "counter",
		 "PCIe Correctable Error Count (OCP C0h)."},
		{"nvmond_ocp_incomplete_shutdowns_total", "counter",
		 "Incomplete Shutdowns (OCP C0h)."},
		{"nvmond_ocp_thermal_throttling_events_total", "counter",
		 "Number of thermal throttling events (OCP C0h, 8 bits: saturates at 255)."},
		{"nvmond_ocp_thermal_throttling_status", "gauge",
		 "Current thermal throttling status (OCP C0h): 0 none, else the level."},
		{"nvmond_ocp_free_blocks_ratio", "gauge", "% Free Blocks (OCP C0h) as a ratio."},
		{"nvmond_ocp_capacitor_health", "gauge",
		 "Capacitor Health (OCP C0h), as the drive reports it."},
	};
	char d[U128_DEC_MAX];

	for (size_t k = 0; k < sizeof(fams) / sizeof(fams[0]); k++) {
		bool any = false;
		for (size_t i = 0; i < in->n_devs; i++)
			any |= has_ocp(&in->devs[i]);
		if (!any)
			return;
		family(f, fams[k].name, fams[k].type, fams[k].help);
		for (size_t i = 0; i < in->n_devs; i++) {
			const struct metrics_device *m = &in->devs[i];
			const struct ocp_log *l = &m->fd.drive.ocp.log;
			const char *L = lab(labels, stride, i);
			if (!has_ocp(m))
				continue;
			switch (k) {
			case 0:
				fprintf(f, "%s{%s} %s\n", fams[k].name, L,
					u128_to_dec(l->phys_written_bytes, d));
				break;
			case 1:
				fprintf(f, "%s{%s} %s\n", fams[k].name, L,
					u128_to_dec(l->phys_read_bytes, d));
				break;
			case 2:
				if (m->fd.drive.ocp.wa_x100 >= 0)
					fprintf(f, "%s{%s} %" PRId64 ".%02" PRId64 "\n",
						fams[k].name, L, m->fd.drive.ocp.wa_x100 / 100,
						m->fd.drive.ocp.wa_x100 % 100);
				break;
			case 3:
				fprintf(f, "%s{%s,kind=\"user\"} %" PRIu64 "\n", fams[k].name, L,
					l->bad_user_blocks);
				fprintf(f, "%s{%s,kind=\"system\"} %" PRIu64 "\n", fams[k].name, L,
					l->bad_system_blocks);
				break;
			case 4:
				fprintf(f, "%s{%s} %" PRIu64 "\n", fams[k].name, L,
					l->xor_recoveries);
				break;
			case 5:
				fprintf(f, "%s{%s} %" PRIu64 "\n", fams[k].name, L,
					l->uncorrectable_reads);
				break;
			case 6:
				fprintf(f, "%s{%s} %" PRIu64 "\n", fams[k].name, L,
					l->soft_ecc_errors);
				break;
			case 7:
				fprintf(f, "%s{%s,kind=\"detected\"} %" PRIu32 "\n", fams[k].name,
					L, l->e2e_detected);
				fprintf(f, "%s{%s,kind=\"corrected\"} %" PRIu32 "\n", fams[k].name,
					L, l->e2e_corrected);
				break;
			case 8:
				fprintf(f, "%s{%s} %" PRIu64 "\n", fams[k].name, L,
					l->pcie_correctable);
				break;
			case 9:
				fprintf(f, "%s{%s} %" PRIu32 "\n", fams[k].name, L,
					l->incomplete_shutdowns);
				break;
			case 10:
				fprintf(f, "%s{%s} %u\n", fams[k].name, L, l->throttle_events);
				break;
			case 11:
				fprintf(f, "%s{%s} %u\n", fams[k].name, L, l->throttle_status);
				break;
			case 12:
				fprintf(f, "%s{%s} %u.%02u\n", fams[k].name, L,
					l->free_blocks_pct / 100, l->free_blocks_pct % 100);
				break;
			case 13:
				fprintf(f, "%s{%s} %u\n", fams[k].name, L, l->capacitor_health);
				break;
			}
		}
	}
}

/* Watts from microwatts, exactly (six decimals). */
static void put_watts(FILE *f, const char *name, const char *labels, uint32_t uw)
{
	fprintf(f, "%s{%s} %" PRIu32 ".%06" PRIu32 "\n", name, labels, uw / 1000000, uw % 1000000);
}

static void render_power(FILE *f, const struct metrics_input *in, const char *labels, size_t stride)
{
	family(f, "nvmond_power_state", "gauge",
	       "The power state the drive reports (Get Features 02h), read at each poll.");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_power *p = &in->devs[i].fd.drive.power;
		if (live(&in->devs[i]) && p->have)
			fprintf(f, "nvmond_power_state{%s} %u\n", lab(labels, stride, i), p->ps);
	}
	family(f, "nvmond_power_state_max_watts", "gauge",
	       "Maximum power of the current power state (Identify's descriptor).");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_power *p = &in->devs[i].fd.drive.power;
		if (live(&in->devs[i]) && p->have && p->ps < p->n_ps && p->psd[p->ps].max_uw)
			put_watts(f, "nvmond_power_state_max_watts", lab(labels, stride, i),
				  p->psd[p->ps].max_uw);
	}
	family(f, "nvmond_power_state_non_operational", "gauge",
	       "1 when the current power state is non-operational (NOPS).");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_power *p = &in->devs[i].fd.drive.power;
		if (live(&in->devs[i]) && p->have && p->ps < p->n_ps)
			fprintf(f, "nvmond_power_state_non_operational{%s} %d\n",
				lab(labels, stride, i), p->psd[p->ps].non_operational);
	}
	family(f, "nvmond_apst_enabled", "gauge",
	       "1 when Autonomous Power State Transitions are on (drives that have APST).");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_power *p = &in->devs[i].fd.drive.power;
		if (live(&in->devs[i]) && p->apst_supported && p->apst_known)
			fprintf(f, "nvmond_apst_enabled{%s} %d\n", lab(labels, stride, i),
				p->apst_enabled);
	}
	family(f, "nvmond_apst_idle_seconds", "gauge",
	       "Idle time after which APST takes the drive from its operational state to a "
	       "non-operational one.");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_power *p = &in->devs[i].fd.drive.power;
		if (live(&in->devs[i]) && p->apst_known && p->apst_idle.reaches)
			fprintf(f, "nvmond_apst_idle_seconds{%s} %" PRIu32 ".%03" PRIu32 "\n",
				lab(labels, stride, i), p->apst_idle.idle_ms / 1000,
				p->apst_idle.idle_ms % 1000);
	}
	family(f, "nvmond_host_thermal_threshold_celsius", "gauge",
	       "Host Controlled Thermal Management thresholds the host set (Get Features 10h), "
	       "by level 1 (TMT1) or 2 (TMT2); absent when off.");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_power *p = &in->devs[i].fd.drive.power;
		if (!live(&in->devs[i]) || !p->hctm_known)
			continue;
		if (p->tmt1_k)
			fprintf(f, "nvmond_host_thermal_threshold_celsius{%s,level=\"1\"} %d\n",
				lab(labels, stride, i), (int)p->tmt1_k - 273);
		if (p->tmt2_k)
			fprintf(f, "nvmond_host_thermal_threshold_celsius{%s,level=\"2\"} %d\n",
				lab(labels, stride, i), (int)p->tmt2_k - 273);
	}
}

static void render_namespaces(FILE *f, const struct metrics_input *in, const char *labels,
			      size_t stride)
{
	static const char *const names[] = {"nvmond_namespace_size_bytes",
					    "nvmond_namespace_capacity_bytes",
					    "nvmond_namespace_used_bytes"};
	static const char *const helps[] = {"Namespace size (Identify Namespace NSZE).",
					    "Namespace capacity (NCAP).",
					    "Namespace utilization (NUSE): blocks in use."};
	char d[U128_DEC_MAX];

	for (int k = 0; k < 3; k++) {
		family(f, names[k], "gauge", helps[k]);
		for (size_t i = 0; i < in->n_devs; i++) {
			const struct fleet_drive *x = &in->devs[i].fd.drive;
			if (!in->devs[i].fd.row.online)
				continue;
			for (size_t n = 0; n < x->n_ns; n++) {
				const struct fleet_ns *ns = &x->ns[n];
				uint64_t blocks = k == 0 ? ns->nsze : k == 1 ? ns->ncap : ns->nuse;
				if (ns->has_usage && ns->lba_size)
					fprintf(f, "%s{%s,nsid=\"%" PRIu32 "\"} %s\n", names[k],
						lab(labels, stride, i), ns->nsid,
						u128_to_dec((u128)blocks * ns->lba_size, d));
			}
		}
	}
	family(f, "nvmond_namespace_ana_state", "gauge",
	       "1 for the ANA state of the namespace's path through this controller.");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_drive *x = &in->devs[i].fd.drive;
		for (size_t n = 0; in->devs[i].fd.row.online && n < x->n_ns; n++)
			if (x->ns[n].ana_state[0])
				fprintf(f,
					"nvmond_namespace_ana_state{%s,nsid=\"%" PRIu32
					"\",state=\"%s\"} 1\n",
					lab(labels, stride, i), x->ns[n].nsid, x->ns[n].ana_state);
	}
}

static void render_risk(FILE *f, const struct metrics_input *in, const char *labels, size_t stride)
{
	family(f, "nvmond_event_log_entries_total", "counter",
	       "Persistent Event Log entries nvmond read from the drive and keeps.");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct fleet_pel *p = &in->devs[i].fd.drive.pel;
		if (in->devs[i].fd.row.online && p->supported && p->read)
			fprintf(f, "nvmond_event_log_entries_total{%s} %" PRIu64 "\n",
				lab(labels, stride, i), p->stored);
	}
	family(f, "nvmond_risk_verdict", "gauge",
	       "The risk verdict (docs/health.md): 1 for the drive's, 0 for the others.");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct risk_verdict *v = &in->devs[i].fd.risk;
		if (!v->known)
			continue;
		for (int l = 0; l < _RISK_LEVEL_MAX; l++)
			fprintf(f, "nvmond_risk_verdict{%s,verdict=\"%s\"} %d\n",
				lab(labels, stride, i), risk_level_name(l), v->level == l);
	}
	family(f, "nvmond_risk_rule_fired", "gauge",
	       "1 for each risk rule that counts in the drive's verdict (its reason: the API).");
	for (size_t i = 0; i < in->n_devs; i++) {
		const struct risk_verdict *v = &in->devs[i].fd.risk;
		for (size_t k = 0; v->known && k < v->n; k++)
			fprintf(f, "nvmond_risk_rule_fired{%s,rule=\"%s\"} 1\n",
				lab(labels, stride, i), risk_rule_info(v->r[k].rule)->name);
	}
}

void metrics_render_drive(FILE *f, const struct metrics_input *in, const char *labels,
			  size_t stride)
{
	render_ocp(f, in, labels, stride);
	render_power(f, in, labels, stride);
	render_namespaces(f, in, labels, stride);
	render_risk(f, in, labels, stride);
}
