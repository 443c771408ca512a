/* SPDX-License-Identifier: MIT */
/*
 * The /metrics families of issue 27 (docs/metrics.md): base units, exact
 * 128-bit counters, a family's samples only for drives that have its source,
 * the verdict one-hot with the rules that fired.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/metrics/metrics.h"

#define L "device=\"nvme0\",model=\"ACME\",serial=\"S1\""

static char *render(struct metrics_device *d, size_t n)
{
	struct metrics_input in = {.devs = d, .n_devs = n, .version = "t"};
	char *t = NULL;
	size_t len;

	cr_assert_eq(metrics_render(&in, &t, &len), 0);
	return t;
}

static void drive(struct metrics_device *m, const char *name, const char *serial)
{
	memset(m, 0, sizeof(*m));
	m->fd.row = (struct device_row){.id = 1, .online = 1};
	strcpy(m->fd.row.model, "ACME");
	strcpy(m->fd.row.serial, serial);
	strcpy(m->fd.row.name, name);
	m->fd.has_sample = true;
	m->fd.last.source = SAMPLE_SOURCE_SMART;
}

Test(metrics_drive, families)
{
	struct metrics_device d[2];

	drive(&d[0], "nvme0", "S1");
	drive(&d[1], "nvme1", "S2");
	struct fleet_drive *x = &d[0].fd.drive;
	x->ocp = (struct fleet_ocp){.probed = true, .present = true, .have = true, .wa_x100 = 144};
	x->ocp.log.phys_written_bytes = ((u128)1 << 70) + 1;
	x->ocp.log.bad_user_blocks = 29;
	x->ocp.log.bad_system_blocks = 1;
	x->ocp.log.uncorrectable_reads = 51;
	x->ocp.log.e2e_detected = 2;
	x->ocp.log.e2e_corrected = 1;
	x->ocp.log.free_blocks_pct = 7;
	x->power = (struct fleet_power){.have = true,
					.ps = 3,
					.n_ps = 5,
					.apst_supported = true,
					.apst_known = true,
					.apst_enabled = true,
					.apst_idle = {.reaches = true, .idle_ms = 2100, .to_ps = 4},
					.hctm_supported = true,
					.hctm_known = true,
					.tmt1_k = 341};
	x->power.psd[3] = (struct fleet_psd){.max_uw = 70000, .non_operational = true};
	x->n_ns = 1;
	x->ns[0] = (struct fleet_ns){.nsid = 1,
				     .has_usage = true,
				     .nsze = 1000,
				     .ncap = 900,
				     .nuse = 250,
				     .lba_size = 4096,
				     .ana_state = "optimized"};
	x->pel = (struct fleet_pel){.supported = true, .read = true, .stored = 12};
	d[0].fd.risk = (struct risk_verdict){.known = true, .level = RISK_WATCH, .n = 1};
	d[0].fd.risk.r[0].rule = RISK_RECENT_ERRORS;
	/* nvme1: no C0h (another vendor's page), no HCTM, APST unknown. */
	d[1].fd.drive.ocp = (struct fleet_ocp){.probed = true, .present = false};
	d[1].fd.drive.power = (struct fleet_power){.have = true, .ps = 0, .n_ps = 1};

	char *t = render(d, 2);
	const char *want[] = {
		"nvmond_ocp_physical_written_bytes_total{" L "} 1180591620717411303425\n",
		"nvmond_ocp_write_amplification_ratio{" L "} 1.44\n",
		"nvmond_ocp_bad_nand_blocks{" L ",kind=\"user\"} 29\n",
		"nvmond_ocp_bad_nand_blocks{" L ",kind=\"system\"} 1\n",
		"nvmond_ocp_uncorrectable_reads_total{" L "} 51\n",
		"nvmond_ocp_end_to_end_errors_total{" L ",kind=\"detected\"} 2\n",
		"nvmond_ocp_end_to_end_errors_total{" L ",kind=\"corrected\"} 1\n",
		"nvmond_ocp_free_blocks_ratio{" L "} 0.07\n",
		"nvmond_power_state{" L "} 3\n",
		"nvmond_power_state_max_watts{" L "} 0.070000\n",
		"nvmond_power_state_non_operational{" L "} 1\n",
		"nvmond_apst_enabled{" L "} 1\n",
		"nvmond_apst_idle_seconds{" L "} 2.100\n",
		"nvmond_host_thermal_threshold_celsius{" L ",level=\"1\"} 68\n",
		"nvmond_namespace_size_bytes{" L ",nsid=\"1\"} 4096000\n",
		"nvmond_namespace_used_bytes{" L ",nsid=\"1\"} 1024000\n",
		"nvmond_namespace_ana_state{" L ",nsid=\"1\",state=\"optimized\"} 1\n",
		"nvmond_event_log_entries_total{" L "} 12\n",
		"nvmond_risk_verdict{" L ",verdict=\"watch\"} 1\n",
		"nvmond_risk_verdict{" L ",verdict=\"ok\"} 0\n",
		"nvmond_risk_rule_fired{" L ",rule=\"recent_errors\"} 1\n",
		"# TYPE nvmond_ocp_physical_written_bytes_total counter\n",
		"# TYPE nvmond_power_state gauge\n",
		"nvmond_power_state{device=\"nvme1\",model=\"ACME\",serial=\"S2\"} 0\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(strstr(t, want[i]), "missing: %s", want[i]);
	const char *absent[] = {
		"nvmond_ocp_physical_written_bytes_total{device=\"nvme1\"",
		"nvmond_host_thermal_threshold_celsius{" L ",level=\"2\"}", /* TMT2 off */
		"nvmond_apst_enabled{device=\"nvme1\"",
		"nvmond_risk_verdict{device=\"nvme1\"", /* not evaluated yet */
	};
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		cr_expect_null(strstr(t, absent[i]), "should be absent: %s", absent[i]);
	free(t);

	/* Offline, or a hwmon-only sample: no power state, no C0h. */
	d[0].fd.last.source = SAMPLE_SOURCE_HWMON;
	t = render(d, 1);
	cr_expect_null(strstr(t, "nvmond_power_state{" L));
	cr_expect_null(strstr(t, "nvmond_ocp_bad_nand_blocks{" L));
	free(t);
}
