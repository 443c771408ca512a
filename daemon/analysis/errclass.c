/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/analysis/errclass.h"

static bool admin_benign(const struct errlog_entry *e)
{
	switch (e->sct) {
	case ERRLOG_SCT_GENERIC:
		return e->sc == 0x01 /* Invalid Command Opcode */ ||
		       e->sc == 0x02 /* Invalid Field in Command */ ||
		       e->sc == 0x0b /* Invalid Namespace or Format */;
	case ERRLOG_SCT_CMD_SPECIFIC:
		return e->sc == 0x09 /* Invalid Log Page */ ||
		       e->sc == 0x0d /* Feature Identifier Not Saveable */ ||
		       e->sc == 0x0e /* Feature Not Changeable */ ||
		       e->sc == 0x0f /* Feature Not Namespace Specific */ ||
		       e->sc == 0x1d /* Device Self-test In Progress */;
	}
	return false;
}

static bool io_failure(const struct errlog_entry *e)
{
	return e->sct == ERRLOG_SCT_GENERIC &&
	       (e->sc == 0x04 /* Data Transfer Error */ ||
		e->sc == 0x05 /* Commands Aborted due to Power Loss Notification */ ||
		e->sc == 0x06 /* Internal Error */ ||
		e->sc == 0x22 /* Transient Transport Error */);
}

enum errclass errclass_of(const struct errlog_entry *e)
{
	if (e->error_count == 0)
		return ERRCLASS_OTHER;
	if (e->sct == ERRLOG_SCT_MEDIA)
		return ERRCLASS_MEDIA;
	if (e->sqid == 0)
		return admin_benign(e) ? ERRCLASS_BENIGN : ERRCLASS_OTHER;
	if (e->sqid != ERRLOG_NA16 && io_failure(e))
		return ERRCLASS_IO;
	return ERRCLASS_OTHER;
}

bool errclass_alerts(enum errclass c)
{
	return c == ERRCLASS_MEDIA || c == ERRCLASS_IO;
}

static const char *const names[_ERRCLASS_MAX] = {
	[ERRCLASS_BENIGN] = "benign",
	[ERRCLASS_MEDIA] = "media",
	[ERRCLASS_IO] = "io",
	[ERRCLASS_OTHER] = "other",
};

const char *errclass_name(enum errclass c)
{
	return (unsigned)c < _ERRCLASS_MAX ? names[c] : "unknown";
}

int errclass_from_name(const char *name)
{
	for (int i = 0; i < _ERRCLASS_MAX; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -EINVAL;
}

char *errclass_describe(const struct errlog_entry *e, char *buf, size_t len)
{
	const char *name = errlog_status_name(e->sct, e->sc);
	char queue[24], cid[16] = "", where[64] = "";

	if (e->sqid == 0)
		snprintf(queue, sizeof(queue), "admin queue");
	else if (e->sqid == ERRLOG_NA16)
		snprintf(queue, sizeof(queue), "no command");
	else
		snprintf(queue, sizeof(queue), "I/O queue %u", e->sqid);
	if (e->cid != ERRLOG_NA16 && e->sqid != ERRLOG_NA16)
		snprintf(cid, sizeof(cid), ", CID %u", e->cid);
	if (e->nsid != 0 && e->nsid != 0xffffffffu)
		snprintf(where, sizeof(where), ", NSID %u, LBA %llu", e->nsid,
			 (unsigned long long)e->lba);
	snprintf(buf, len, "entry %llu: %s (SCT %xh, SC %02xh) on %s%s%s",
		 (unsigned long long)e->error_count, name ? name : "unnamed status", e->sct, e->sc,
		 queue, cid, where);
	return buf;
}
