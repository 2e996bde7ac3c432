/* postfx_tables.h — pfx_init's tables (the 8-bit decode, the tone table and its cells, the
** meter's thresholds, the white balance) computed once per process for each set of the
** attributes they depend on, and copied into every camera that asks again: a reset spawns its
** cameras anew, and computing them took about half of an RL environment's reset. A copy holds
** exactly what the computation gives (they are pure functions of these attributes), so every
** image stays byte-identical. */
#ifndef SN_COMMON_POSTFX_TABLES_H
#define SN_COMMON_POSTFX_TABLES_H

#include "postfx.h"

/* Fills x's dec, tone8, tcell (x owns it: pfx_free frees it), tbase, ttop, tshift, meter and wb
** for x->p: from the cache when they were computed in this process for the same tone curve,
** gamma, calibration, temperature and tint, else computed (pfx_tables_compute) and cached.
** Any thread. Never fails: out of memory, x computes its own and the cache stays as it was. */
void pfx_tables_fill(pfx *x);

/* The tables of x->p computed (postfx.c), the cache bypassed: the tests' reference. */
void pfx_tables_compute(pfx *x);

/* Cameras that got their tables from the cache since the process started (tests). */
unsigned long pfx_tables_hits(void);

#endif
