/* What core/profile's files share: a PE's profile in the form it travels
 * in (the bootstrap's allgather) and is written in. */
#ifndef SHOAL_CORE_PROF_INTERNAL_H
#define SHOAL_CORE_PROF_INTERNAL_H
#include <stdint.h>
#include <stdio.h>

#include "core/profile/profile.h"

#define SHOAL_PROF_MAGIC 0x50524f46u /* "PROF" */
#define SHOAL_PROF_HOST_MAX 64
#define SHOAL_PROF_JOB_MAX 64 /* the bootstrap's job id (boot/boot.h) */
/* The files' name where SHOAL_PROFILE is 1 or names a directory. */
#define SHOAL_PROF_DEFAULT_NAME "shoal-profile"
/* The longest JSON file name, with its '\0': SHOAL_PROFILE's value is
 * shorter than 1024 bytes (config/env.h), and a directory gets the
 * default name. */
#define SHOAL_PROF_PATH_MAX (1024 + sizeof "/" SHOAL_PROF_DEFAULT_NAME ".json")

/* One PE's totals, its threads summed; a fixed size so that the
 * bootstrap's allgather carries every PE's at once.  Times in ns. */
struct shoal_prof_pe {
    uint32_t magic; /* SHOAL_PROF_MAGIC */
    uint32_t nfam;  /* SHOAL_PROF_NFAM: a PE of another build cannot mix in */
    int32_t pe;
    int32_t node;         /* the lowest PE it reaches by load/store (itself if none) */
    uint32_t threads;     /* threads that called Shoal */
    uint32_t npairs;      /* its non-empty (target, family) pairs */
    uint32_t amo_via_net; /* its atomics went through the network, on-node ones too */
    uint32_t pad;
    uint64_t wall_ns;  /* from the end of shmem_init to the start of shmem_finalize */
    uint64_t shoal_ns; /* in timed calls, every thread's */
    char host[SHOAL_PROF_HOST_MAX];
    uint64_t calls[SHOAL_PROF_NFAM], bytes[SHOAL_PROF_NFAM], ns[SHOAL_PROF_NFAM];
};

enum { SHOAL_PROF_ON_NODE, SHOAL_PROF_NETWORK };

/* What PE `src` sent PE `dst` in one targeted family. */
struct shoal_prof_pair {
    uint32_t src, dst;
    uint16_t fam, route; /* route: SHOAL_PROF_ON_NODE or SHOAL_PROF_NETWORK */
    uint64_t ops, bytes;
};

/* profile.c: this PE's totals, and its pairs one after the other (*cursor
 * starts at 0; returns 0 after the last).  Both async-signal-safe. */
void shoal_prof_sum_pe(struct shoal_prof_pe *out);
int shoal_prof_next_pair(size_t *cursor, struct shoal_prof_pair *out);
/* The file SHOAL_PROFILE names (in the directory it names), the stem the
 * other files' names start with (the name without ".json"), and the job's
 * id, which every file of the job carries ("job"; "" when the bootstrap
 * has none). */
const char *shoal_prof_path(void);
const char *shoal_prof_stem(void);
const char *shoal_prof_job(void);

/* The report's first step (prof_merge.c): stops counting, once; 0 when
 * there is nothing to report (profile off, or this PE wrote a partial
 * file).  Waits until the clock's calibration spans 20 ms. */
int shoal_prof_finishing(void);
/* Its last: uninstalls the hooks.  The blocks stay, in the registry,
 * until the process ends: a counted twin bound to shmem_X may still count
 * in them (core/profile/profile.h). */
void shoal_prof_release(void);

/* prof_json.c */
extern const char *const shoal_prof_name[SHOAL_PROF_NFAM];
typedef int (*shoal_prof_pairs_fn)(void *arg, struct shoal_prof_pair *out);
/* Writes a profile to `path` (created or truncated): `npes` the job's
 * size, `pes` the records of the PEs it holds (n of them), the pairs from
 * `next`; `why` NULL for a complete profile, else why it is partial.
 * Async-signal-safe (no stdio, no allocation).  0 or -1 (errno). */
int shoal_prof_write_json(const char *path, int npes, const struct shoal_prof_pe *pes, int n,
                          shoal_prof_pairs_fn next, void *arg, const char *why);
/* The ops and bytes matrices (row: source PE, column: target PE, both
 * routes) as CSV; `pairs` sorted by source.  0 or -1. */
int shoal_prof_write_csv(const char *path, int npes, const struct shoal_prof_pair *pairs,
                         size_t npairs, int bytes);

/* prof_table.c: PE 0's short report. */
void shoal_prof_print_table(FILE *f, const struct shoal_prof_pe *pes, int npes,
                            const struct shoal_prof_pair *pairs, size_t npairs);

#endif
