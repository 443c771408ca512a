/* SPDX-License-Identifier: MIT */
/*
 * The device object's issue 27 fields (docs/api.md), and the …/events kind
 * filter: each field null where nvmond does not know it, never 0.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/api/drive_api.h"
#include "nvmond/analysis/throttle.h"

static json_t *fields(const struct fleet_device *d)
{
	json_t *o = json_object();

	cr_assert_eq(render_drive_fields_add(o, d), 0);
	return o;
}

Test(drive_api, unknown_is_null)
{
	struct fleet_device d = {0};
	json_t *o = fields(&d);

	cr_expect(json_is_null(json_object_get(o, "ocp")), "C0h not asked yet");
	cr_expect(json_is_null(json_object_get(o, "power")));
	cr_expect(json_is_null(json_object_get(o, "thermal_management")), "no HCTM");
	cr_expect(json_is_null(json_object_get(o, "risk")), "not evaluated yet");
	cr_expect_eq(json_array_size(json_object_get(o, "namespace_usage")), 0);
	json_decref(o);
}

Test(drive_api, fields)
{
	struct fleet_device d = {0};
	struct fleet_drive *x = &d.drive;

	x->ocp = (struct fleet_ocp){.probed = true,
				    .present = true,
				    .have = true,
				    .read_ms = 1000,
				    .wa_x100 = 250,
				    .host_written_units = 2};
	x->ocp.log.phys_written_bytes = ((u128)1 << 64) + 3;
	x->ocp.log.spec_major = 2;
	x->power = (struct fleet_power){.have = true,
					.ps = 0,
					.n_ps = 2,
					.apst_supported = true,
					.apst_known = true,
					.apst_enabled = false,
					.hctm_supported = true,
					.hctm_known = true,
					.tmt2_k = 353};
	x->power.psd[0].max_uw = 8250000;
	x->n_ns = 1;
	x->ns[0] = (struct fleet_ns){.nsid = 1,
				     .name = "nvme0n1",
				     .has_usage = true,
				     .nsze = 100,
				     .ncap = 100,
				     .nuse = 25,
				     .lba_size = 512};
	d.risk = (struct risk_verdict){.known = true, .level = RISK_REPLACE_SOON, .n = 1};
	d.risk.r[0] = (struct risk_reason){
		.rule = RISK_PERCENT_USED, .level = RISK_REPLACE_SOON, .reason = "91 % used"};
	json_t *o = fields(&d);
	json_t *ocp = json_object_get(o, "ocp"), *p = json_object_get(o, "power"),
	       *t = json_object_get(o, "thermal_management"), *h = json_object_get(o, "risk");

	cr_expect_str_eq(json_string_value(json_object_get(ocp, "physical_written_bytes")),
			 "18446744073709551619", "past 2^64: a decimal string, exact");
	cr_expect_eq(json_real_value(json_object_get(ocp, "write_amplification")), 2.5);
	cr_expect_eq(json_integer_value(json_object_get(ocp, "host_written_bytes")), 1024000);
	cr_expect_str_eq(json_string_value(json_object_get(ocp, "spec_version")), "2.0");
	cr_expect_eq(json_real_value(json_object_get(p, "max_watts")), 8.25);
	json_t *apst = json_object_get(p, "apst");
	cr_expect(json_is_false(json_object_get(apst, "enabled")));
	cr_expect(strstr(json_string_value(json_object_get(apst, "note")), "APST is off"));
	cr_expect(json_is_null(json_object_get(t, "tmt1_c")), "TMT1 0: off");
	cr_expect_eq(json_integer_value(json_object_get(t, "tmt2_c")), 80);
	json_t *ns = json_array_get(json_object_get(o, "namespace_usage"), 0);
	cr_expect_eq(json_integer_value(json_object_get(ns, "used_bytes")), 12800);
	cr_expect_eq(json_integer_value(json_object_get(ns, "used_percent")), 25);
	cr_expect_str_eq(json_string_value(json_object_get(h, "verdict")), "replace_soon");
	json_t *r0 = json_array_get(json_object_get(h, "reasons"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(r0, "rule")), "percent_used");
	cr_expect_str_eq(json_string_value(json_object_get(r0, "reason")), "91 % used");
	cr_expect(json_string_value(json_object_get(r0, "source"))[0]);
	json_decref(o);

	/* A drive that answered C0h with another page: present false, why. */
	d.drive.ocp = (struct fleet_ocp){.probed = true, .why = "another vendor's C0h page"};
	o = fields(&d);
	ocp = json_object_get(o, "ocp");
	cr_expect(json_is_false(json_object_get(ocp, "present")));
	cr_expect_str_eq(json_string_value(json_object_get(ocp, "why")),
			 "another vendor's C0h page");
	json_decref(o);
}

Test(drive_api, apst_notes)
{
	struct fleet_power p = {.have = true,
				.n_ps = 5,
				.apst_supported = true,
				.apst_known = true,
				.apst_enabled = true,
				.apst_idle = {.reaches = true, .idle_ms = 100, .to_ps = 3}};
	struct fleet_device d = {0};

	d.drive.power = p;
	json_t *o = fields(&d);
	const char *n = json_string_value(
		json_object_get(json_object_get(json_object_get(o, "power"), "apst"), "note"));
	cr_expect(strstr(n, "PS3 after 100 ms idle"), "%s", n);
	json_decref(o);
	d.drive.power.polls_keep_awake = true;
	o = fields(&d);
	n = json_string_value(
		json_object_get(json_object_get(json_object_get(o, "power"), "apst"), "note"));
	cr_expect(strstr(n, "its own polls keep it awake"),
		  "why a drive never idles: nvmond's polls: %s", n);
	json_decref(o);
}

Test(drive_api, kinds)
{
	struct drive_kinds k;
	char err[256];

	cr_assert_eq(drive_kinds_parse(NULL, &k, err, sizeof(err)), 0);
	cr_expect(k.all);
	cr_assert_eq(drive_kinds_parse("thermal_excursion,light,unknown", &k, err, sizeof(err)), 0);
	cr_expect_not(k.all);
	cr_expect(k.throttle[THROTTLE_LIGHT]);
	cr_expect_not(k.throttle[THROTTLE_HEAVY]);
	cr_expect_eq(k.n_pel, 2);
	cr_expect_str_eq(k.pel[0], "thermal_excursion");
	cr_expect_str_eq(k.pel[1], "unknown");
	cr_expect_null(k.pel[2]);
	cr_expect_eq(drive_kinds_parse("thermal_excursion,x') OR 1--", &k, err, sizeof(err)),
		     -EINVAL);
	cr_expect(strstr(err, "unknown event kind"));
	cr_expect_eq(drive_kinds_parse("", &k, err, sizeof(err)), 0, "empty: nothing asked");
	cr_expect_eq(k.n_pel, 0);
}
