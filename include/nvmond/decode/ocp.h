/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/util/u128.h"

/*
 * The OCP Datacenter NVMe SSD specification's SMART / Health Information
 * Extended log page (Log Identifier C0h, 512 bytes; "SMART cloud attributes"
 * in nvme-cli). C0h is a vendor-specific identifier: a drive that is not OCP
 * may answer it with a page of its own, so a page counts only when its Log
 * Page GUID (bytes 511:496) is the OCP one. Pure.
 */

#define OCP_LOG_LID	0xC0
#define OCP_LOG_SIZE	512
#define OCP_GUID_LEN	16
#define OCP_VERSION_MAX 32

/* The Log Page GUID as the page carries it (bytes 496..511, little-endian
 * AFD514C97C6F4F9CA4F2BFEA2810AFC5). */
extern const uint8_t ocp_smart_guid[OCP_GUID_LEN];

/* One decoded page: every field nvmond uses, as the drive counts it. */
struct ocp_log {
	u128 phys_written_bytes;      /* Physical Media Units Written, bytes */
	u128 phys_read_bytes;	      /* Physical Media Units Read, bytes */
	uint64_t bad_user_blocks;     /* Bad User NAND Blocks, raw count (48 bits) */
	uint16_t bad_user_norm;	      /* its normalized value */
	uint64_t bad_system_blocks;   /* Bad System NAND Blocks, raw count (48 bits) */
	uint16_t bad_system_norm;     /* its normalized value */
	uint64_t xor_recoveries;      /* XOR Recovery Count */
	uint64_t uncorrectable_reads; /* Uncorrectable Read Error Count */
	uint64_t soft_ecc_errors;     /* Soft ECC Error Count */
	uint32_t e2e_detected;	      /* End to End Correction Counts: detected */
	uint32_t e2e_corrected;	      /* and corrected */
	uint8_t system_data_used_pct; /* System Data % Used */
	uint8_t throttle_events;      /* Thermal Throttling: number of events */
	uint8_t throttle_status;      /* and the current status (0 = not throttled) */
	uint8_t spec_major;	      /* DSSD Specification Version: major */
	uint16_t spec_minor, spec_point;
	uint8_t spec_errata;
	uint64_t pcie_correctable;     /* PCIe Correctable Error Count */
	uint32_t incomplete_shutdowns; /* Incomplete Shutdowns */
	uint8_t free_blocks_pct;       /* % Free Blocks */
	uint16_t capacitor_health;     /* Capacitor Health, as reported */
	uint16_t version;	       /* Log Page Version */
};

/**
 * ocp_guid_ok() - Whether @page carries the OCP Log Page GUID in bytes 511:496.
 */
bool ocp_guid_ok(const uint8_t page[OCP_LOG_SIZE]);

/**
 * ocp_decode() - Decode a raw C0h page. Reserved bytes and fields nvmond does
 * not use are ignored.
 * Return: 0; -ENOMSG when the GUID is not the OCP one (another vendor's C0h:
 * nothing is decoded and @ret is untouched).
 */
int ocp_decode(const uint8_t page[OCP_LOG_SIZE], struct ocp_log *ret);

/**
 * ocp_encode() - Build a page holding @l with the OCP GUID (for the demo drives
 * and tests): the inverse of ocp_decode(); other bytes zero.
 */
void ocp_encode(const struct ocp_log *l, uint8_t page[OCP_LOG_SIZE]);

/**
 * ocp_write_amp_x100() - Write amplification, physical bytes written over host
 * bytes written, in hundredths, rounded to the nearest (exact arithmetic).
 * @phys_bytes: Physical Media Units Written
 * @host_units: the health log's Data Units Written (units of 512,000 bytes)
 * Return: the ratio × 100, saturated at INT64_MAX; -1 when nothing was written
 * by the host yet (no ratio).
 */
int64_t ocp_write_amp_x100(u128 phys_bytes, u128 host_units);

/**
 * ocp_version_str() - The DSSD specification version the drive claims: "2.0",
 * "2.5.1", "2.0.0 errata 3"; "" when it reports none (all zero). @buf holds
 * at least OCP_VERSION_MAX bytes. Return: @buf.
 */
char *ocp_version_str(const struct ocp_log *l, char *buf, size_t len);
