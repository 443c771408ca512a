/* SPDX-License-Identifier: MIT */
/*
 * The probe presets' table (analysis/probe_preset.c), row by row against
 * docs/probes.md#presets: what each one runs (the sweep's rows are
 * test_probe_sweep's preset_table), and the lookups by id and by name.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/analysis/probe_preset.h"

#define MiB (1u << 20)

struct phase_want {
	const char *name;
	enum probe_op op;
	bool random;
	uint32_t bs, depth;
};

/*
 * Rule (docs/probes.md#presets): "seq1m-q8: CrystalDiskMark SEQ1M Q8T1: 1 MiB
 * sequential read, then write, QD 8"; "seq1m-q1: the same at QD 1"; "rnd4k-q32:
 * 4 KiB random read, then write, QD 32"; "rnd4k-q1: … QD 1"; copy-self "reads the
 * first half … while writing the second half (1 MiB, QD 8 each)"; sustained-write
 * "1 MiB sequential writes, QD 8, until the rate has fallen and stayed down";
 * cache-recovery "1 MiB QD 8 write bursts" (a study, never alone); copy-to reads
 * another drive "while writing this drive's probe area (1 MiB, QD 8 each)".
 */
Test(probe_preset, each_row_runs_what_the_docs_say)
{
	static const struct {
		enum probe_preset_id id;
		const char *name, *label;
		size_t n;
		struct phase_want ph[2];
		const char *kind; /* "sustained", "study", "copy-to", else "" */
	} want[] = {
		{PROBE_SEQ1M_Q8,
		 "seq1m-q8",
		 "SEQ1M Q8T1",
		 2,
		 {{"read", PROBE_OP_READ, false, MiB, 8}, {"write", PROBE_OP_WRITE, false, MiB, 8}},
		 ""},
		{PROBE_SEQ1M_Q1,
		 "seq1m-q1",
		 "SEQ1M Q1T1",
		 2,
		 {{"read", PROBE_OP_READ, false, MiB, 1}, {"write", PROBE_OP_WRITE, false, MiB, 1}},
		 ""},
		{PROBE_RND4K_Q32,
		 "rnd4k-q32",
		 "RND4K Q32T1",
		 2,
		 {{"read", PROBE_OP_READ, true, 4096, 32},
		  {"write", PROBE_OP_WRITE, true, 4096, 32}},
		 ""},
		{PROBE_RND4K_Q1,
		 "rnd4k-q1",
		 "RND4K Q1T1",
		 2,
		 {{"read", PROBE_OP_READ, true, 4096, 1}, {"write", PROBE_OP_WRITE, true, 4096, 1}},
		 ""},
		{PROBE_COPY_SELF,
		 "copy-self",
		 "COPY-SELF SEQ1M Q8",
		 1,
		 {{"copy", PROBE_OP_COPY, false, MiB, 8}},
		 ""},
		{PROBE_SUSTAINED_WRITE,
		 "sustained-write",
		 "SUSTAINED SEQ1M Q8",
		 1,
		 {{"write", PROBE_OP_WRITE, false, MiB, 8}},
		 "sustained"},
		{PROBE_CACHE_RECOVERY,
		 "cache-recovery",
		 "CACHE-RECOVERY SEQ1M Q8",
		 1,
		 {{"write", PROBE_OP_WRITE, false, MiB, 8}},
		 "study"},
		{PROBE_COPY_TO,
		 "copy-to",
		 "COPY-TO SEQ1M Q8",
		 1,
		 {{"copy", PROBE_OP_COPY, false, MiB, 8}},
		 "copy-to"},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct probe_preset *p = probe_preset_get(want[i].id);

		cr_assert_not_null(p, "%s", want[i].name);
		cr_expect_str_eq(p->name, want[i].name);
		cr_expect_str_eq(p->label, want[i].label);
		cr_expect_eq(p->sustained, !strcmp(want[i].kind, "sustained"), "%s", p->name);
		cr_expect_eq(p->study, !strcmp(want[i].kind, "study"), "%s", p->name);
		cr_expect_eq(p->copy_to, !strcmp(want[i].kind, "copy-to"), "%s", p->name);
		cr_expect_not(p->sweep, "%s", p->name);
		cr_assert_eq(p->n_phases, want[i].n, "%s", p->name);
		for (size_t k = 0; k < p->n_phases; k++) {
			const struct phase_want *w = &want[i].ph[k];

			cr_expect_str_eq(p->phase[k].name, w->name, "%s phase %zu", p->name, k);
			cr_expect_eq(p->phase[k].op, w->op, "%s phase %zu", p->name, k);
			cr_expect_eq(p->phase[k].random, w->random, "%s phase %zu", p->name, k);
			cr_expect_eq(p->phase[k].block_size, w->bs, "%s phase %zu", p->name, k);
			cr_expect_eq(p->phase[k].depth, w->depth, "%s phase %zu", p->name, k);
		}
	}
}

/*
 * Rule (probe_preset.h): probe_preset_get() answers every id of the table and
 * NULL past it; probe_preset_find() finds each by its exact name, with its id,
 * and nothing for an unknown name, a prefix or NULL.
 */
Test(probe_preset, lookups_by_id_and_by_name)
{
	for (int id = 0; id < _PROBE_PRESET_MAX; id++) {
		const struct probe_preset *p = probe_preset_get((enum probe_preset_id)id);
		enum probe_preset_id found = _PROBE_PRESET_MAX;

		cr_assert_not_null(p, "id %d", id);
		cr_expect_eq(probe_preset_find(p->name, &found), p, "%s", p->name);
		cr_expect_eq(found, id, "%s", p->name);
	}
	cr_expect_null(probe_preset_get(_PROBE_PRESET_MAX));
	cr_expect_null(probe_preset_get((enum probe_preset_id) - 1));
	cr_expect_null(probe_preset_find("seq1m", NULL), "a prefix is not a name");
	cr_expect_null(probe_preset_find("seq1m-q8 ", NULL));
	cr_expect_null(probe_preset_find("SEQ1M-Q8", NULL), "names are lower case");
	cr_expect_null(probe_preset_find(NULL, NULL));
}

/* Rule (migrations/0003_probes.sql, probe_phases.op): "read", "write" or "copy". */
Test(probe_preset, operation_names)
{
	cr_expect_str_eq(probe_op_name(PROBE_OP_READ), "read");
	cr_expect_str_eq(probe_op_name(PROBE_OP_WRITE), "write");
	cr_expect_str_eq(probe_op_name(PROBE_OP_COPY), "copy");
}
