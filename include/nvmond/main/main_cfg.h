/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The configuration sections the subsystems own (core/cfg_section.h), listed in
 * one place: registered once by main() before anything reads a configuration,
 * and by the tools that describe every key (tests/integration/docs_tables.c).
 */

/**
 * main_cfg_sections() - Register every subsystem's section.
 * Return: 0, or the negative errno of cfg_sections_register() (a programming
 * error: two owners of one section name, or struct cfg too small for them).
 */
int main_cfg_sections(void);
