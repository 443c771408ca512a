/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Power states and host thermal management (NVMe Base 2.0): the Power State
 * Descriptors of Identify Controller, and the answers of Get Features 02h
 * (Power Management), 0Ch (Autonomous Power State Transition, with its
 * table) and 10h (Host Controlled Thermal Management). Pure.
 */

#define POWER_STATES_MAX 32 /* NPSS is 0's based, at most 31 */
#define APST_TABLE_SIZE	 256
#define APST_ENTRIES	 32

#define FEAT_POWER_MGMT 0x02
#define FEAT_APST	0x0C
#define FEAT_HCTM	0x10

/* One Power State Descriptor, powers in microwatts (0 = not reported). */
struct power_state_desc {
	uint32_t max_uw;      /* MP, scaled by MXPS */
	bool non_operational; /* NOPS */
	uint32_t enlat_us, exlat_us;
	uint8_t rrt, rrl, rwt, rwl;
	uint32_t idle_uw;   /* IDLP scaled by IPS; 0 = not reported */
	uint32_t active_uw; /* ACTP scaled by APS; 0 = not reported */
};

/**
 * power_psd_decode() - Decode the 32-byte descriptor at @p (Identify
 * Controller bytes 2048 + 32 × N).
 */
void power_psd_decode(const uint8_t p[32], struct power_state_desc *ret);

/** power_psd_encode() - Write @d as a descriptor (demo drives, tests): the inverse,
 * with MP in hundredths of a watt (MXPS 0) and IDLP/ACTP in ten-thousandths. */
void power_psd_encode(const struct power_state_desc *d, uint8_t p[32]);

/* Get Features 02h, Dword 0 of the completion. */
struct power_mgmt {
	uint8_t ps; /* bits 4:0: the power state */
	uint8_t wh; /* bits 7:5: the workload hint */
};

/** power_mgmt_decode() - From the completion's Dword 0. */
struct power_mgmt power_mgmt_decode(uint32_t dw0);

struct apst_entry {
	uint8_t itps;	  /* Idle Transition Power State */
	uint32_t itpt_ms; /* Idle Time Prior to Transition, ms; 0 = no transition */
};

/* Get Features 0Ch: enabled (Dword 0 bit 0) and the 32-entry table. */
struct apst {
	bool enabled;
	struct apst_entry e[APST_ENTRIES];
};

/**
 * apst_decode() - From the completion's Dword 0 and the 256-byte table (entry
 * N in bytes 8N..8N+7: bits 7:3 ITPS, 31:8 ITPT).
 */
void apst_decode(uint32_t dw0, const uint8_t table[APST_TABLE_SIZE], struct apst *ret);

/** apst_encode() - The table and Dword 0 of @a (demo drives, tests). Return: Dword 0. */
uint32_t apst_encode(const struct apst *a, uint8_t table[APST_TABLE_SIZE]);

/*
 * When a drive in operational power state @ps would, left idle, first reach
 * a non-operational state through APST: after @idle_ms, into @to_ps.
 */
struct apst_idle {
	bool reaches;	  /* false: APST is off, or the table has no transition from @ps */
	uint32_t idle_ms; /* the sum of the ITPTs along the way */
	uint8_t from_ps;  /* the operational state followed from */
	uint8_t to_ps;
};

/**
 * apst_first_idle() - Follow the table from state @ps (entry N is what state
 * N does when idle) to the first state @psd says is non-operational, at most
 * @npss + 1 steps; from PS0 when @ps is itself non-operational (a command
 * wakes the drive, and its idle time starts in an operational state). A drive
 * read more often than @idle_ms never gets there: every command ends its
 * idle time.
 */
struct apst_idle apst_first_idle(const struct apst *a, const struct power_state_desc *psd,
				 unsigned npss, uint8_t ps);

/* Get Features 10h, Dword 0: TMT1 bits 31:16, TMT2 bits 15:0, Kelvin (0 = off). */
struct hctm {
	uint16_t tmt1_k, tmt2_k;
};

/** hctm_decode() - From the completion's Dword 0. */
struct hctm hctm_decode(uint32_t dw0);
