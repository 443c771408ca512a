/* SPDX-License-Identifier: MIT */
/*
 * nvmond-docs-tables: the configuration key table (cfg.c) as JSON on stdout,
 * in the words of docs/configuration.md (cfg_key_describe()), for
 * tests/integration/docs_agree.py, which compares it with configuration.md,
 * the sample systemd/nvmond.conf and nvmond.conf(5):
 *
 *   {"keys": [{"section", "key", "type", "default", "range", "range_known",
 *              "len_min", "len_max", "restart"}, …],
 *    "bools": ["yes", "no", …]}
 *
 * The other lists the docs repeat (routes, query parameters, presets, metric
 * families, commands and options) come from a running daemon and its --help.
 */
#include <jansson.h>
#include <stdio.h>

#include "nvmond/core/cfg.h"
#include "nvmond/main/main_cfg.h"

int main(void)
{
	json_t *keys = json_array(), *bools = json_array(), *out;
	struct cfg_key_desc d;

	if (main_cfg_sections() < 0)
		return 1;

	for (size_t i = 0; cfg_key_describe(i, &d) == 0; i++)
		json_array_append_new(
			keys, json_pack("{s:s, s:s, s:s, s:s?, s:s, s:b, s:I, s:I, s:b}", "section",
					d.section, "key", d.key, "type", d.type, "default", d.def,
					"range", d.range, "range_known", d.range_known, "len_min",
					(json_int_t)d.len_min, "len_max", (json_int_t)d.len_max,
					"restart", d.restart));
	for (const char *const *b = cfg_bool_names(); *b; b++)
		json_array_append_new(bools, json_string(*b));
	out = json_pack("{s:o, s:o}", "keys", keys, "bools", bools);
	if (!out || json_dumpf(out, stdout, JSON_INDENT(1)) < 0)
		return 1;
	putchar('\n');
	json_decref(out);
	return 0;
}
