/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/fwlog.h"
#include "nvmond/dev/nvme_hwinfo.h"
#include "nvmond/store/store.h"

/*
 * Firmware revisions and PCIe links of each drive as they change
 * (migrations/0007_health_facts.sql). The poller appends; the API, the
 * dashboard and the probe results read.
 */

/* One firmware_history row. */
struct store_fw_row {
	int64_t id, device_id, ts_ms;
	char old_rev[FWLOG_REV_MAX]; /* "" = the baseline (first sight), not a change */
	char new_rev[FWLOG_REV_MAX];
};

/* One link_history row. */
struct store_link_row {
	int64_t id, device_id, ts_ms;
	struct nvme_pcie_link link;
};

/** store_fw_insert() - Append @row (its id is ignored). Return: 0 or negative errno. */
int store_fw_insert(struct store *s, const struct store_fw_row *row);

/**
 * store_fw_last() - The newest firmware row of device @id.
 * Return: 0, -ENOENT when there is none yet, or negative errno.
 */
int store_fw_last(struct store *s, int64_t id, struct store_fw_row *ret);

/**
 * store_fw_list() - Up to @limit firmware rows of device @id, newest first.
 * *ret is malloc()ed (NULL when none). Return: 0 or negative errno.
 */
int store_fw_list(struct store *s, int64_t id, size_t limit, struct store_fw_row **ret,
		  size_t *ret_n);

/** store_link_insert() - Append @row (its id is ignored). Return: 0 or negative errno. */
int store_link_insert(struct store *s, const struct store_link_row *row);

/**
 * store_link_at() - The link device @id had at @ts_ms: the newest row not
 * after it. Return: 0, -ENOENT when none is that old, or negative errno.
 */
int store_link_at(struct store *s, int64_t id, int64_t ts_ms, struct store_link_row *ret);

/**
 * store_link_list() - Up to @limit link rows of device @id, newest first.
 * *ret is malloc()ed (NULL when none). Return: 0 or negative errno.
 */
int store_link_list(struct store *s, int64_t id, size_t limit, struct store_link_row **ret,
		    size_t *ret_n);
