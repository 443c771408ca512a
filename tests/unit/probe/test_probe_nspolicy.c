/* SPDX-License-Identifier: MIT */
/*
 * The raw-namespace policy the device process holds (probe_nspolicy.h,
 * issue 23 §1): which namespace of which drive the configuration lets be
 * opened, and how. Each case names the rule of docs/probes.md or
 * docs/security.md it checks.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/probe/probe_nspolicy.h"

#define MODEL "QEMU NVMe Ctrl"

static void set(struct cfg *c, const char *match, const char *key, const char *value)
{
	char section[96], err[CFG_ERR_MAX];

	snprintf(section, sizeof(section), "device \"%s\"", match);
	cr_assert_eq(cfg_set(c, section, key, value, err), 0, "%s: %s", key, err);
}

/*
 * S-WRITE: destructive = yes, namespace 1 (the default probe_namespace).
 * S-NS2:   destructive = yes, probe_namespace = 2.
 * S-DIR:   destructive = yes, and probe_dir set (model section).
 * S-READ:  a section, destructive not set.
 * S-NO:    destructive = no by its serial, though its model's says yes.
 * A model section "MODEL-W" says destructive = yes for every drive of it.
 */
static void policy_cfg(struct cfg *c)
{
	cfg_defaults(c);
	set(c, "S-WRITE", "destructive", "yes");
	set(c, "S-NS2", "destructive", "yes");
	set(c, "S-NS2", "probe_namespace", "2");
	set(c, "DIR MODEL", "probe_dir", "/srv/probe");
	set(c, "S-DIR", "destructive", "yes");
	set(c, "S-READ", "rated_tbw", "400TB");
	set(c, "MODEL-W", "destructive", "yes");
	set(c, "S-NO", "destructive", "no");
}

struct pcase {
	const char *rule;
	const char *model, *serial;
	uint32_t nsid;
	enum dev_ns_mode mode;
	int want;
	const char *reason_has; /* a part of the reason when refused */
};

static const struct pcase cases[] = {
	{"a drive with destructive = yes may have its probe_namespace written", MODEL, "S-WRITE", 1,
	 DEV_NS_WRITE, 0, NULL},
	{"read and the signature check of a probe_namespace are allowed", MODEL, "S-WRITE", 1,
	 DEV_NS_READ, 0, NULL},
	{"the signature check opens the probe_namespace too", MODEL, "S-WRITE", 1, DEV_NS_SIG, 0,
	 NULL},
	{"only the probe_namespace is written: NSID 2 of a drive probing NSID 1", MODEL, "S-WRITE",
	 2, DEV_NS_WRITE, -EPERM, "not its probe_namespace (1)"},
	{"only the probe_namespace is read either", MODEL, "S-WRITE", 2, DEV_NS_READ, -EPERM,
	 "not its probe_namespace"},
	{"probe_namespace = 2 is the one written", MODEL, "S-NS2", 2, DEV_NS_WRITE, 0, NULL},
	{"probe_namespace = 2: NSID 1 is not opened", MODEL, "S-NS2", 1, DEV_NS_WRITE, -EPERM,
	 "not its probe_namespace (2)"},
	{"an unconfigured drive (no section) is never written", MODEL, "S-NONE", 1, DEV_NS_WRITE,
	 -EPERM, "not configured to be written"},
	{"an unconfigured drive's probe_namespace is read (raw probes only read)", MODEL, "S-NONE",
	 1, DEV_NS_READ, 0, NULL},
	{"a section without destructive: never written", MODEL, "S-READ", 1, DEV_NS_WRITE, -EPERM,
	 "destructive = yes"},
	{"a drive probed through a file (its model's probe_dir): its raw namespace is never "
	 "written, destructive or not",
	 "DIR MODEL", "S-DIR", 1, DEV_NS_WRITE, -EPERM, "probe_dir"},
	{"a drive probed through a file: its raw namespace is not read either", "DIR MODEL",
	 "S-DIR", 1, DEV_NS_READ, -EPERM, "probe_dir"},
	{"a model section's destructive = yes covers the drives of that model", "MODEL-W", "S-ANY",
	 1, DEV_NS_WRITE, 0, NULL},
	{"a serial's section wins over its model's: destructive = no", "MODEL-W", "S-NO", 1,
	 DEV_NS_WRITE, -EPERM, "not configured to be written"},
	{"the same serial under another model is not that model's drive", MODEL, "S-ANY", 1,
	 DEV_NS_WRITE, -EPERM, "not configured"},
	{"a drive named without its model is refused (its model's section could differ)", "",
	 "S-WRITE", 1, DEV_NS_WRITE, -EPERM, "model and serial"},
	{"a drive named without its serial is refused", MODEL, "", 1, DEV_NS_READ, -EPERM,
	 "model and serial"},
};

Test(probe_nspolicy, table)
{
	static struct cfg c; /* large: not on Criterion's stack */

	policy_cfg(&c);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pcase *k = &cases[i];
		char why[DEV_NS_REASON_MAX] = "";
		int r = probe_ns_policy(&c,
					&(struct dev_ident){.model = k->model, .serial = k->serial},
					k->nsid, k->mode, why);

		cr_expect_eq(r, k->want, "%s: %d (%s)", k->rule, r, why);
		if (k->reason_has) {
			cr_expect(strstr(why, k->reason_has) != NULL, "%s: reason '%s'", k->rule,
				  why);
			cr_expect(strstr(why, "refused") != NULL, "%s: says refused: '%s'", k->rule,
				  why);
		}
	}
}

Test(probe_nspolicy, no_identity_is_refused)
{
	static struct cfg c;
	char why[DEV_NS_REASON_MAX] = "";

	policy_cfg(&c);
	cr_expect_eq(probe_ns_policy(&c, NULL, 1, DEV_NS_READ, why), -EPERM);
	cr_expect_eq(probe_ns_policy(&c, &(struct dev_ident){0}, 1, DEV_NS_READ, why), -EPERM);
}

/* The count the device process logs: sections with destructive = yes and no probe_dir. */
Test(probe_nspolicy, writable_sections_counted)
{
	static struct cfg c;

	policy_cfg(&c);
	/* S-WRITE, S-NS2, S-DIR (its own section has no probe_dir), MODEL-W */
	cr_expect_eq(probe_ns_policy_writable(&c), 4);
	cfg_defaults(&c);
	cr_expect_eq(probe_ns_policy_writable(&c), 0);
}
