/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/* The files of migrations/, compiled in by cmake/embed-migrations.cmake. */
struct migration {
	int version;	  /* NNNN of NNNN_name.sql: 1, 2, 3 … without gaps */
	const char *name; /* file name */
	const char *sql;  /* its text */
};

extern const struct migration migrations[];
extern const size_t migrations_count;
