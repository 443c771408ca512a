/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

#include "nvmond/decode/errlog.h"

/*
 * What an Error Information log entry means for the drive's health. Most
 * entries on a healthy drive are caused by the host asking for something the
 * controller does not have (tools and OS probes: an optional log page, a
 * feature, a namespace); counting those as errors marks healthy drives failed.
 * Only errors on the data path alert. Pure.
 */
enum errclass {
	ERRCLASS_BENIGN, /* a host's admin command the controller refused */
	ERRCLASS_MEDIA,	 /* media and data integrity errors (SCT 2h) */
	ERRCLASS_IO,	 /* a failed transfer or command on an I/O queue */
	ERRCLASS_OTHER,	 /* anything else: shown, not alerted */
	_ERRCLASS_MAX,
};

/* The alert that media and io entries raise (critical). */
#define ERRCLASS_ALERT_NAME "io_errors"

/**
 * errclass_of() - Classify one entry.
 *
 * benign: on the admin queue (SQID 0), Invalid Command Opcode, Invalid Field in
 *   Command, Invalid Namespace or Format (generic), Invalid Log Page, Feature
 *   Identifier Not Saveable, Feature Not Changeable, Feature Not Namespace
 *   Specific, Device Self-test In Progress (command specific);
 * media: every status of type 2h (write fault, unrecovered read error, the
 *   end-to-end guard / application / reference / storage tag checks, compare
 *   failure, access denied, deallocated or unwritten block), on any queue;
 * io: on an I/O queue (SQID not 0 and not FFFFh), Data Transfer Error,
 *   Commands Aborted due to Power Loss Notification, Internal Error, Transient
 *   Transport Error (generic);
 * other: the rest, empty entries included.
 */
enum errclass errclass_of(const struct errlog_entry *e);

/** errclass_alerts() - Return: true for the classes that raise io_errors (media, io). */
bool errclass_alerts(enum errclass c);

/** errclass_name() - "benign", "media", "io", "other". Return: static string. */
const char *errclass_name(enum errclass c);

/**
 * errclass_describe() - One line naming an entry, for logs and alert messages:
 * "entry 5: Unrecovered Read Error (SCT 2h, SC 81h) on I/O queue 1, CID 5,
 * NSID 1, LBA 4096". The queue reads "admin queue" for SQID 0 and "no
 * command" for FFFFh; NSID and LBA are left out when the NSID is 0 or
 * FFFFFFFFh (not a namespace's), and the CID when it is FFFFh.
 * Return: @buf.
 */
char *errclass_describe(const struct errlog_entry *e, char *buf, size_t len);

/** errclass_from_name() - Return: the class, or -EINVAL. */
int errclass_from_name(const char *name);
