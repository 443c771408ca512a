/* SPDX-License-Identifier: MIT */
/*
 * The sections owned above core (cfg_section.h): main's list, laid out in
 * struct cfg's sect_mem, and what cfg.c asks of it (is there such a section,
 * which key is this, where do its values live, their defaults).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/cfg_section.h"
#include "cfg_internal.h"
#include "cfg_keys.h"

static struct {
	size_t n, n_keys;
	const struct cfg_section *s[CFG_SECTIONS_MAX];
	size_t off[CFG_SECTIONS_MAX];  /* in sect_mem */
	size_t key0[CFG_SECTIONS_MAX]; /* the first key's slot in sect_key_line */
} reg;

/* Whether core itself has a key in [@name] (its own table). */
static bool core_section(const char *name)
{
	for (size_t i = 0; i < cfg_n_keys; i++)
		if (strcmp(cfg_keys[i].section, name) == 0)
			return true;
	return strcmp(name, "device") == 0 || strcmp(name, "sink") == 0 ||
	       strcmp(name, "export") == 0;
}

int cfg_sections_register(const struct cfg_section *const *v, size_t n)
{
	size_t off = 0, keys = 0, offs[CFG_SECTIONS_MAX];

	/* The same list again (each load_config()): nothing changes, so that a thread
	 * reading its section meanwhile never sees the list half made. */
	if (n == reg.n && (n == 0 || memcmp(v, reg.s, n * sizeof(*v)) == 0))
		return 0;

	if (n > CFG_SECTIONS_MAX)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++) {
		if (core_section(v[i]->name))
			return -EINVAL;
		for (size_t j = 0; j < i; j++)
			if (strcmp(v[j]->name, v[i]->name) == 0)
				return -EINVAL;
		for (size_t k = 0; k < v[i]->n_keys; k++)
			if (strcmp(v[i]->keys[k].section, v[i]->name) != 0)
				return -EINVAL;
		off = (off + v[i]->align - 1) / v[i]->align * v[i]->align;
		if (v[i]->align > 16 || off + v[i]->size > CFG_SECT_MEM ||
		    keys + v[i]->n_keys > CFG_SECT_KEYS_MAX)
			return -ENOSPC;
		offs[i] = off;
		off += v[i]->size;
		keys += v[i]->n_keys;
	}
	memset(&reg, 0, sizeof(reg));
	for (size_t i = 0; i < n; i++) {
		reg.off[i] = offs[i]; /* laid out and checked above */
		reg.key0[i] = reg.n_keys;
		reg.s[i] = v[i];
		reg.n_keys += v[i]->n_keys;
	}
	reg.n = n;
	return 0;
}

/* The registered index of @s, or -1. */
static int sect_index(const struct cfg_section *s)
{
	for (size_t i = 0; i < reg.n; i++)
		if (reg.s[i] == s)
			return (int)i;
	return -1;
}

/* Fill @mem with the defaults of @s (its table's strings, checked by the unit tests). */
static void sect_defaults(const struct cfg_section *s, void *mem)
{
	char err[CFG_ERR_MAX];

	memset(mem, 0, s->size);
	for (size_t k = 0; k < s->n_keys; k++)
		if (s->keys[k].def)
			(void)cfg_key_apply(&s->keys[k], mem, s->keys[k].def, err, sizeof(err));
}

/* Sections asked for without being registered: their defaults, made once each. */
static struct {
	pthread_mutex_t lock;
	size_t n;
	const struct cfg_section *s[CFG_SECTIONS_MAX];
	void *mem[CFG_SECTIONS_MAX];
} unreg = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const void *sect_unregistered(const struct cfg_section *s)
{
	static const _Alignas(16) unsigned char none[16];
	const void *ret = none;

	pthread_mutex_lock(&unreg.lock);
	for (size_t i = 0; i < unreg.n; i++)
		if (unreg.s[i] == s) {
			ret = unreg.mem[i];
			goto out;
		}
	if (unreg.n < CFG_SECTIONS_MAX) {
		void *mem = aligned_alloc(16, (s->size + 15) / 16 * 16);
		if (mem) {
			sect_defaults(s, mem);
			unreg.s[unreg.n] = s;
			unreg.mem[unreg.n++] = mem;
			ret = mem;
		}
	}
out:
	pthread_mutex_unlock(&unreg.lock);
	return ret;
}

const void *cfg_section_get(const struct cfg *c, const struct cfg_section *s)
{
	int i = sect_index(s);

	return i < 0 ? sect_unregistered(s) : c->sect_mem + reg.off[i];
}

void *cfg_section_mut(struct cfg *c, const struct cfg_section *s)
{
	int i = sect_index(s);

	return i < 0 ? NULL : c->sect_mem + reg.off[i];
}

int cfg_sect_together(const struct cfg *c, char *err, size_t errsize)
{
	for (size_t i = 0; i < reg.n; i++) {
		int r = reg.s[i]->together ? reg.s[i]->together(c, err, errsize) : 0;
		if (r < 0)
			return r;
	}
	return 0;
}

void cfg_sect_defaults(struct cfg *c)
{
	for (size_t i = 0; i < reg.n; i++)
		sect_defaults(reg.s[i], c->sect_mem + reg.off[i]);
}

bool cfg_sect_known(const char *section)
{
	for (size_t i = 0; i < reg.n; i++)
		if (strcmp(reg.s[i]->name, section) == 0)
			return true;
	return false;
}

size_t cfg_sect_key_count(void)
{
	return reg.n_keys;
}

const struct cfg_key *cfg_sect_key(size_t slot, size_t *ret_sect)
{
	for (size_t i = 0; i < reg.n; i++)
		if (slot < reg.key0[i] + reg.s[i]->n_keys) {
			*ret_sect = i;
			return &reg.s[i]->keys[slot - reg.key0[i]];
		}
	return NULL;
}

const struct cfg_key *cfg_sect_find(const char *section, const char *key, size_t *ret_slot)
{
	for (size_t i = 0; i < reg.n; i++) {
		if (strcmp(reg.s[i]->name, section) != 0)
			continue;
		for (size_t k = 0; k < reg.s[i]->n_keys; k++)
			if (strcmp(reg.s[i]->keys[k].key, key) == 0) {
				*ret_slot = reg.key0[i] + k;
				return &reg.s[i]->keys[k];
			}
	}
	return NULL;
}

void *cfg_sect_base(const struct cfg *c, size_t slot)
{
	size_t i;

	if (!cfg_sect_key(slot, &i))
		return NULL;
	return (void *)(c->sect_mem + reg.off[i]);
}
