/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nvmond/decode/idctl.h"

/*
 * The Firmware Slot Information log page (Log Identifier 03h; NVMe Base 2.0,
 * Figure 209), and when a firmware revision change is worth an event. Pure.
 */

#define FWLOG_SIZE  512
#define FWLOG_SLOTS 7

/* A firmware revision as Identify FR and the slot log carry it: 8 bytes, trimmed. */
#define FWLOG_REV_MAX sizeof(((struct idctl *)0)->firmware)

struct fwlog {
	uint8_t active_slot; /* AFI bits 2:0: the slot the running firmware came from; 0 invalid */
	uint8_t next_slot;   /* AFI bits 6:4: activated at the next reset; 0 = none indicated */
	char frs[FWLOG_SLOTS][FWLOG_REV_MAX]; /* FRS1..FRS7; "" = empty or unsupported slot */
};

/**
 * fwlog_decode() - Decode the raw 512-byte log page. Revisions are cleaned as
 * idctl_decode() cleans FR (an all-zero slot is ""); reserved bits are ignored.
 * Return: 0.
 */
int fwlog_decode(const uint8_t page[FWLOG_SIZE], struct fwlog *ret);

/**
 * fwlog_encode() - Build a raw page holding @l (for demo drives and tests):
 * revisions blank-padded, empty slots all zero.
 */
void fwlog_encode(const struct fwlog *l, uint8_t page[FWLOG_SIZE]);

/**
 * fwlog_active_rev() - The revision in the slot the running firmware came from.
 * Return: a string inside @l, or NULL when the slot is invalid or empty.
 */
const char *fwlog_active_rev(const struct fwlog *l);

/**
 * fwlog_pending_rev() - A revision staged for the next reset: the next slot
 * is indicated, holds a revision, and it differs from the running one.
 * Return: a string inside @l, or NULL.
 */
const char *fwlog_pending_rev(const struct fwlog *l);

struct fw_change {
	bool changed; /* a firmware_changed event is due: old_rev → new_rev */
	char old_rev[FWLOG_REV_MAX];
	char new_rev[FWLOG_REV_MAX];
	char current[FWLOG_REV_MAX]; /* the running revision now; "" unknown */
	char pending[FWLOG_REV_MAX]; /* staged for the next reset; "" none */
};

/**
 * fwlog_change() - Whether the firmware changed since @prev was recorded.
 * @prev:  the revision last recorded for the drive; NULL or "" when none yet
 *         (the first sight is the baseline, not a change)
 * @fr:    Identify FR now (the running firmware); NULL or "" when unknown
 * @slots: the decoded slot log, or NULL where the drive gives none (log 03h
 *         is mandatory, but a read may fail)
 * The running revision is FR, or else the active slot's. A change is due when
 * both @prev and that revision are known and differ (compared as cleaned:
 * padding is no change). A revision staged for the next reset is reported in
 * @ret->pending but is no change until it runs.
 * Return: @ret->changed.
 */
bool fwlog_change(const char *prev, const char *fr, const struct fwlog *slots,
		  struct fw_change *ret);
