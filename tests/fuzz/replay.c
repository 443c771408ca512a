/* SPDX-License-Identifier: MIT */
/*
 * Replay: the main of a harness in the normal (gcc, plain or ASan) builds. Feeds it
 * every file under the directories (or the files) given, one call per file, so the
 * seed corpus and every crash kept as a regression case run in CI without clang.
 * Usage: fuzz_<name>_replay DIR|FILE …   Exit 0 when every input ran, 1 on an
 * unreadable input or an empty corpus; a failing input abort()s (or ASan reports it).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *b = realloc(buf, cap = cap ? cap * 2 : 4096);
			if (!b)
				abort();
			buf = b;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* libFuzzer's inputs are exactly as long as the data: keep ASan's bound tight. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact)
		abort();
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	(*n)++;
	return 0;
}

static int replay_dir(const char *dir, size_t *n)
{
	struct dirent **v;
	int m = scandir(dir, &v, NULL, alphasort), r = 0;
	char path[4096];
	struct stat st;

	if (m < 0) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < m; i++) {
		if (v[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, v[i]->d_name);
			if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
				r |= replay_dir(path, n);
			else
				r |= replay_file(path, n);
		}
		free(v[i]);
	}
	free(v);
	return r;
}

int main(int argc, char **argv)
{
	size_t n = 0;
	int r = 0;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			r = -1;
		} else if (S_ISDIR(st.st_mode)) {
			r |= replay_dir(argv[i], &n);
		} else {
			r |= replay_file(argv[i], &n);
		}
	}
	printf("%zu inputs replayed\n", n);
	if (n == 0) {
		fprintf(stderr, "no inputs: an empty corpus checks nothing\n");
		return 1;
	}
	return r ? 1 : 0;
}
