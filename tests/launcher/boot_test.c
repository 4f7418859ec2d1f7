/* boot_test: the bootstrap interface (src/boot) end to end, without the
 * rest of the library.  Run under oshrun with any number of PEs, alone
 * (singleton), or, built with the PMIx bootstrap (tests/pmix), under
 * mpirun.  Checks:
 *   - rank/size agree with the environment (SHOAL_RANK/SHOAL_SIZE under oshrun,
 *     PMIX_RANK under a PMIx launcher), the bootstrap's job id is the same on
 *     all PEs (SHOAL_JOBID under oshrun);
 *   - allgather of rank-distinct data of many sizes: 0, 1, odd sizes, around
 *     the 64 KiB record size, and larger than a socket's send buffer;
 *   - barrier ordering: nobody leaves barrier k before everybody entered it
 *     (entry/exit times on the system-wide monotonic clock, allgathered);
 *   - back-to-back collectives of different sizes, in-place allgather;
 *   - finalize followed by the final barrier (as shmem_finalize does).
 * Prints "boot_test: PE r/n ok" and exits 0; a failure prints the check and
 * exits 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"

static struct shoal_boot B;

#define CHECK(c, ...)                                                                        \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            fprintf(stderr, "boot_test: PE %d: %s:%d: check failed: %s: ", B.rank, __FILE__, \
                    __LINE__, #c);                                                           \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fprintf(stderr, "\n");                                                           \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static unsigned char pattern(int rank, size_t i, size_t len)
{
    return (unsigned char)((size_t)rank * 131u + i * 7u + len * 3u + (i >> 8));
}

static void check_allgather(size_t len)
{
    int n = B.size;
    unsigned char *in = malloc(len ? len : 1);
    unsigned char *out = malloc(len * (size_t)n + 1);
    CHECK(in && out, "out of memory");
    for (size_t i = 0; i < len; i++)
        in[i] = pattern(B.rank, i, len);
    memset(out, 0xEE, len * (size_t)n + 1);
    CHECK(B.allgather(in, out, len) == 0, "allgather of %zu bytes failed", len);
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < len; i++)
            CHECK(out[(size_t)r * len + i] == pattern(r, i, len),
                  "allgather of %zu bytes: byte %zu of rank %d is %u, expected %u", len, i, r,
                  out[(size_t)r * len + i], pattern(r, i, len));
    CHECK(out[len * (size_t)n] == 0xEE, "allgather of %zu bytes wrote past the end", len);
    free(in);
    free(out);
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check_barrier_order(int k)
{
    /* Stagger the arrivals so a broken barrier would show. */
    struct timespec d = {0, (long)((B.rank * 7 + k * 3) % 11) * 3000000L};
    nanosleep(&d, NULL);
    double t[2];
    t[0] = mono();
    CHECK(B.barrier() == 0, "barrier %d failed", k);
    t[1] = mono();
    double *all = malloc(sizeof t * (size_t)B.size);
    CHECK(all, "out of memory");
    CHECK(B.allgather(t, all, sizeof t) == 0, "allgather of barrier times failed");
    double last_in = 0, first_out = 1e300;
    for (int r = 0; r < B.size; r++) {
        if (all[2 * r] > last_in)
            last_in = all[2 * r];
        if (all[2 * r + 1] < first_out)
            first_out = all[2 * r + 1];
    }
    CHECK(first_out >= last_in, "barrier %d: a PE left at %.6f before the last one entered at %.6f",
          k, first_out, last_in);
    free(all);
}

int main(void)
{
    char err[512];
    if (shoal_boot_open(&B, err, sizeof err) < 0) {
        fprintf(stderr, "boot_test: shoal_boot_open: %s\n", err);
        return 1;
    }
    const char *fd = getenv(SHOAL_ENV_BOOT_FD);
    const char *pmix_rank = getenv("PMIX_RANK"); /* set by mpirun, srun --mpi=pmix */
    const char *want = fd ? "local" : pmix_rank ? "pmix" : "singleton";
    CHECK(!strcmp(B.name, want), "bootstrap %s, expected %s", B.name, want);
    CHECK(B.size >= 1 && B.rank >= 0 && B.rank < B.size, "rank %d size %d", B.rank, B.size);
    CHECK(B.jobid && *B.jobid && strlen(B.jobid) <= 64, "job id '%s'", B.jobid ? B.jobid : "");
    for (const char *c = B.jobid; *c; c++)
        CHECK((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  *c == '-' || *c == '_' || *c == '.',
              "job id '%s' has a character a socket name should not hold", B.jobid);
    if (fd) {
        CHECK(atoi(getenv(SHOAL_ENV_RANK)) == B.rank, "rank differs from SHOAL_RANK");
        CHECK(atoi(getenv(SHOAL_ENV_SIZE)) == B.size, "size differs from SHOAL_SIZE");
        CHECK(!strcmp(B.jobid, getenv(SHOAL_ENV_JOBID)), "job id %s is not SHOAL_JOBID %s", B.jobid,
              getenv(SHOAL_ENV_JOBID));
    } else if (pmix_rank) {
        CHECK(atoi(pmix_rank) == B.rank, "rank %d differs from PMIX_RANK=%s", B.rank, pmix_rank);
    }
    if (fd || pmix_rank) {
        /* A second open in the same process returns the same job. */
        struct shoal_boot again;
        CHECK(shoal_boot_open(&again, err, sizeof err) == 0, "second open: %s", err);
        CHECK(again.rank == B.rank && again.size == B.size && !strcmp(again.jobid, B.jobid),
              "second open differs");
    }

    /* Everybody runs the same job. */
    char job[65] = {0};
    snprintf(job, sizeof job, "%s", B.jobid);
    char *jobs = malloc(sizeof job * (size_t)B.size);
    CHECK(B.allgather(job, jobs, sizeof job) == 0, "allgather of job ids failed");
    for (int r = 0; r < B.size; r++)
        CHECK(!strcmp(jobs + (size_t)r * sizeof job, job), "rank %d has job id %s, I have %s", r,
              jobs + (size_t)r * sizeof job, job);
    free(jobs);

    /* Small exchanges first: a PMIx launcher keeps (and resends at every
     * exchange) all data a PE has contributed, so after the large rounds
     * below every round costs more. */
    for (int k = 0; k < 10; k++)
        check_barrier_order(k);

    /* In place: out holds the contribution at this rank's slot. */
    uint64_t *v = calloc((size_t)B.size, sizeof *v);
    v[B.rank] = 1000 + (uint64_t)B.rank;
    CHECK(B.allgather(&v[B.rank], v, sizeof *v) == 0, "in-place allgather failed");
    for (int r = 0; r < B.size; r++)
        CHECK(v[r] == 1000 + (uint64_t)r, "in-place allgather: rank %d has %llu", r,
              (unsigned long long)v[r]);
    free(v);

    /* Many small rounds back to back. */
    for (int k = 0; k < 200; k++) {
        int x = B.rank + k, *all = malloc(sizeof x * (size_t)B.size);
        CHECK(B.allgather(&x, all, sizeof x) == 0, "small allgather %d failed", k);
        for (int r = 0; r < B.size; r++)
            CHECK(all[r] == r + k, "small allgather %d: rank %d has %d", k, r, all[r]);
        free(all);
    }

    const size_t sizes[] = {
        0, 1, 3, 8, 100, 4093, 4096, 65535, 65536, 65537, 65536 * 3 + 17, 200000, 300001};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_allgather(sizes[i]);
    /* Descending too, so a stale length from the previous round would show. */
    for (size_t i = sizeof sizes / sizeof sizes[0]; i-- > 0;)
        check_allgather(sizes[i]);

    B.finalize();
    CHECK(B.barrier() == 0, "barrier after finalize failed");
    printf("boot_test: PE %d/%d ok\n", B.rank, B.size);
    return 0;
}
