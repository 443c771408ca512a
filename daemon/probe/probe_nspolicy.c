/* SPDX-License-Identifier: MIT */
/* The raw-namespace policy of the configuration (probe_nspolicy.h). */
#include <errno.h>
#include <stdio.h>

#include "nvmond/probe/probe_nspolicy.h"

int probe_ns_policy(const struct cfg *c, const struct dev_ident *who, uint32_t nsid,
		    enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX])
{
	struct cfg_device d;

	if (!who || !who->serial || !who->serial[0] || !who->model || !who->model[0]) {
		snprintf(ret_reason, DEV_NS_REASON_MAX,
			 "a namespace is opened only for a drive named by model and serial: "
			 "refused");
		return -EPERM;
	}
	cfg_device_for(c, who->model, who->serial, &d);
	if (d.probe_dir[0]) {
		snprintf(ret_reason, DEV_NS_REASON_MAX,
			 "drive %s is probed through a file in %.120s (probe_dir): its raw "
			 "namespaces are never opened: refused",
			 who->serial, d.probe_dir);
		return -EPERM;
	}
	if (nsid != d.probe_nsid) {
		snprintf(ret_reason, DEV_NS_REASON_MAX,
			 "namespace %u of drive %s is not its probe_namespace (%u): refused", nsid,
			 who->serial, d.probe_nsid);
		return -EPERM;
	}
	if (mode == DEV_NS_WRITE && d.probe_destructive != 1) {
		snprintf(ret_reason, DEV_NS_REASON_MAX,
			 "namespace %u of drive %s is not configured to be written (destructive = "
			 "yes in its [device] section): refused",
			 nsid, who->serial);
		return -EPERM;
	}
	return 0;
}

size_t probe_ns_policy_writable(const struct cfg *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_devices; i++)
		if (cfg_device_sets(&c->devices[i], "destructive") &&
		    c->devices[i].probe_destructive == 1 && !c->devices[i].probe_dir[0])
			n++;
	return n;
}
