/* SPDX-License-Identifier: MIT */
/*
 * A device row from what a scan found: identity, name and namespaces as
 * JSON. Shared by the poller and `nvmond status`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/monitor/devrow.h"

/* The namespaces as the JSON array the store keeps ("[]" if it cannot be built). */
static void namespaces_json(const struct dev_info *info, char *buf, size_t len)
{
	json_t *a = json_array();
	char *s = NULL;

	for (size_t i = 0; a && i < info->n_ns; i++)
		json_array_append_new(a, json_pack("{s:I, s:s, s:I, s:I}", "nsid",
						   (json_int_t)info->ns[i].nsid, "name",
						   info->ns[i].name, "size_bytes",
						   (json_int_t)info->ns[i].size_bytes, "lba_size",
						   (json_int_t)info->ns[i].lba_size));
	if (a)
		s = json_dumps(a, JSON_COMPACT);
	snprintf(buf, len, "%s", s && strlen(s) < len ? s : "[]");
	free(s);
	json_decref(a);
}

void devrow_from_scan(const struct dev_backend *b, const struct dev_info *info, int64_t now_ms,
		      struct device_row *ret)
{
	struct device_row row = {
		.wctemp_k = info->id.wctemp_k,
		.cctemp_k = info->id.cctemp_k,
		.capacity_bytes = info->id.tnvmcap,
		.first_seen_ms = now_ms,
		.last_seen_ms = now_ms,
		.online = 1,
		.simulated = dev_has(b, DEV_CAP_SIMULATED),
	};

	dev_key(&info->id, row.key, sizeof(row.key));
	snprintf(row.model, sizeof(row.model), "%s", info->id.model);
	snprintf(row.serial, sizeof(row.serial), "%s", info->id.serial);
	snprintf(row.firmware, sizeof(row.firmware), "%s", info->id.firmware);
	snprintf(row.name, sizeof(row.name), "%s", info->name);
	namespaces_json(info, row.namespaces, sizeof(row.namespaces));
	*ret = row;
}
