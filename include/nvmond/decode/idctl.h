/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/power.h"
#include "nvmond/util/u128.h"

#define IDCTL_SIZE 4096

/* The identify-controller facts nvmond uses, strings trimmed of padding. */
struct idctl {
	uint16_t vid;
	char serial[21];   /* SN, bytes 4..23 */
	char model[41];	   /* MN, bytes 24..63 */
	char firmware[9];  /* FR, bytes 64..71 */
	uint16_t wctemp_k; /* warning composite temperature threshold, 0 = not reported */
	uint16_t cctemp_k; /* critical composite temperature threshold, 0 = not reported */
	u128 tnvmcap;	   /* total NVM capacity in bytes, 0 = not reported */
	uint32_t nn;	   /* number of namespaces */
	uint16_t oacs;	   /* Optional Admin Command Support, bytes 257:256 */
	uint8_t elpe;	   /* Error Log Page Entries, 0's based: the log keeps elpe + 1 */
	uint8_t lpa;	   /* Log Page Attributes, byte 261 */
	uint16_t edstt;	   /* Extended Device Self-test Time (minutes), 0 = not reported */
	uint8_t cmic;	   /* Controller Multi-Path I/O and Namespace Sharing, byte 76 */
	uint8_t npss;	   /* Number of Power States Support, 0's based: npss + 1 states */
	uint8_t apsta;	   /* Autonomous Power State Transition Attributes, byte 265 */
	uint16_t hctma;	   /* Host Controlled Thermal Management Attributes, bytes 323:322 */
	uint16_t mntmt;	   /* Minimum Thermal Management Temperature, K; 0 = not reported */
	uint16_t mxtmt;	   /* Maximum Thermal Management Temperature, K; 0 = not reported */
	uint32_t pels;	   /* Persistent Event Log Size, 64 KiB units, bytes 355:352 */
	struct power_state_desc ps[POWER_STATES_MAX]; /* PSD0..PSD31 */
};

/* OACS bits nvmond looks at. */
#define IDCTL_OACS_SELF_TEST (1u << 4) /* Device Self-test command supported */
/* LPA bits nvmond looks at. */
#define IDCTL_LPA_EXT_DATA (1u << 2) /* Get Log Page takes offsets (LPO) and NUMDU */
#define IDCTL_LPA_PEL	   (1u << 4) /* the Persistent Event Log (0Dh) is supported */
/* APSTA bit 0: Autonomous Power State Transitions supported (Feature 0Ch). */
#define IDCTL_APSTA_SUPPORTED (1u << 0)
/* HCTMA bit 0: Host Controlled Thermal Management supported (Feature 10h). */
#define IDCTL_HCTMA_SUPPORTED (1u << 0)
/* CMIC bit 3: Asymmetric Namespace Access reporting. */
#define IDCTL_CMIC_ANA (1u << 3)

/** idctl_errlog_entries() - How many entries the Error Information log keeps (ELPE + 1). */
static inline unsigned idctl_errlog_entries(const struct idctl *id)
{
	return (unsigned)id->elpe + 1;
}

/**
 * idctl_decode() - Decode the raw 4096-byte Identify Controller structure.
 * Pure. Strings are copied, non-printable bytes replaced by '?', trailing
 * blanks and NULs removed.
 * Return: 0.
 */
int idctl_decode(const uint8_t page[IDCTL_SIZE], struct idctl *ret);

/**
 * idctl_str_clean() - Copy an identity string field of @len bytes (SN, MN, FR
 * as the controller or sysfs gives them) the way idctl_decode() does: bytes
 * that are not printable become '?', NULs blanks, and blanks at either end are
 * padding. @dst holds at least @len + 1 bytes. Pure.
 */
void idctl_str_clean(char *dst, const uint8_t *src, size_t len);

/**
 * idctl_encode() - Build a raw structure holding @id (for demo drives and tests).
 * Strings are space-padded as the specification requires.
 */
void idctl_encode(const struct idctl *id, uint8_t page[IDCTL_SIZE]);
