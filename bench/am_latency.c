/* am_latency: ping-pong through active-message handlers between PEs 0 and
 * 1, next to the same exchange done with put-with-signal and
 * shmem_signal_wait_until (Shoal's shmemx_am_*; builds with Shoal only).
 *
 *   am    PE 0 sends S bytes to PE 1; PE 1's handler sends S bytes back
 *         from inside the handler; PE 0's handler counts the reply.  Both
 *         PEs wait for the next message in shmemx_am_poll.
 *   put   PE 0 shmem_putmem_signal's S bytes and a signal to PE 1, which
 *         waits for the signal and answers the same way.
 * Half the round-trip time, in microseconds; median and min..max over R
 * rounds of N exchanges.  The payloads are checked (first and last byte). */
#include "bench_stats.h"
#include "bench_args.h"
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_PING 1
#define TAG_PONG 2
#define MAX_SIZE (64 * 1024)

static int me;
static long iters = 5000, rounds = 7;
static size_t sizes[16] = {8, 224, 4096, 65536};
static int nsizes;
static const char *csv;
static volatile long arrived;
static unsigned char payload[MAX_SIZE];
static unsigned char rbuf[MAX_SIZE]; /* symmetric (static): the put target */
static uint64_t sig;                 /* symmetric */

static void check(const unsigned char *p, size_t len, long i)
{
    if (len && (p[0] != (unsigned char)i || p[len - 1] != (unsigned char)i)) {
        fprintf(stderr, "am_latency: PE %d: wrong payload in exchange %ld\n", me, i);
        exit(1);
    }
}

static void ping(int src, const void *p, size_t len, void *arg)
{
    (void)arg;
    check(p, len, arrived);
    shmemx_am_send(SHMEM_CTX_DEFAULT, src, TAG_PONG, p, len); /* answer from the handler */
    arrived++;
}

static void pong(int src, const void *p, size_t len, void *arg)
{
    (void)src, (void)arg;
    check(p, len, arrived);
    arrived++;
}

static double am_run(size_t size)
{
    arrived = 0;
    shmem_barrier_all();
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            memset(payload, (int)(unsigned char)i, size);
            shmemx_am_send(SHMEM_CTX_DEFAULT, 1, TAG_PING, payload, size);
        }
        if (me <= 1)
            while (arrived <= i)
                shmemx_am_poll();
    }
    double dt = now() - t0;
    shmemx_am_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    return dt / (double)iters / 2 * 1e6;
}

static double put_run(size_t size)
{
    shmem_barrier_all();
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            memset(payload, (int)(unsigned char)i, size);
            shmem_putmem_signal(rbuf, payload, size, &sig, (uint64_t)(2 * i + 1), SHMEM_SIGNAL_SET,
                                1);
            shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)(2 * i + 2));
            check(rbuf, size, i);
        } else if (me == 1) {
            shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)(2 * i + 1));
            check(rbuf, size, i);
            shmem_putmem_signal(rbuf, rbuf, size, &sig, (uint64_t)(2 * i + 2), SHMEM_SIGNAL_SET, 0);
        }
    }
    double dt = now() - t0;
    shmem_barrier_all();
    sig = 0;
    shmem_barrier_all();
    return dt / (double)iters / 2 * 1e6;
}

int main(int argc, char **argv)
{
    int smoke = 0;
    const struct bench_opt opts[] = {BENCH_LONG("-n", NULL, iters), BENCH_LONG("-r", NULL, rounds),
                                     BENCH_STR("--csv", NULL, csv), BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: oshrun -n 2 am_latency [-s SIZES] [-n N] [-r R] [--csv FILE] "
                   "[--smoke]\nActive-message ping-pong (handler answers from inside the "
                   "handler) vs put-with-signal +\nsignal_wait_until ping-pong, half round "
                   "trip in us.  Sizes up to 65536 (default\n8,224,4096,65536), N exchanges "
                   "(default 5000), R rounds (default 7).\n");
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            smoke = 1;
        } else if (!strcmp(a, "-s") && more) {
            nsizes = 0;
            for (char *t = strtok(argv[++i], ","); t && nsizes < 16; t = strtok(NULL, ","))
                sizes[nsizes++] = (size_t)atol(t);
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "am_latency: unknown argument '%s' (--help)\n", a);
            return 2;
        }
    }
    if (!nsizes)
        nsizes = 4;
    if (smoke)
        iters = 200, rounds = 2, nsizes = 2;
    for (int k = 0; k < nsizes; k++)
        if (sizes[k] > MAX_SIZE) {
            fprintf(stderr, "am_latency: sizes up to %d bytes\n", MAX_SIZE);
            return 2;
        }
    shmem_init();
    me = shmem_my_pe();
    if (shmem_n_pes() < 2) {
        fprintf(stderr, "am_latency: needs 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    shmemx_am_register(TAG_PING, ping, NULL);
    shmemx_am_register(TAG_PONG, pong, NULL);
    if (me == 0)
        printf("# am_latency: %ld exchanges, %ld rounds; half round trip, us: median "
               "[min..max]\n# %8s %24s %24s %7s\n",
               iters, rounds, "size", "am", "put+signal", "ratio");
    double *v[2] = {calloc((size_t)rounds, sizeof(double)), calloc((size_t)rounds, sizeof(double))};
    for (int k = 0; k < nsizes; k++) {
        for (long r = 0; r < rounds; r++) {
            v[0][r] = am_run(sizes[k]);
            v[1][r] = put_run(sizes[k]);
        }
        if (me != 0)
            continue;
        struct stat3 a = summarize(v[0], (int)rounds), p = summarize(v[1], (int)rounds);
        printf("  %8zu %7.3f [%6.3f..%7.3f] %7.3f [%6.3f..%7.3f] %7.2f\n", sizes[k], a.med, a.min,
               a.max, p.med, p.min, p.max, a.med / p.med);
        bench_csv_row(csv, "am_latency", "-", 2, 1, sizes[k], "am_latency", "us", a, iters);
        bench_csv_row(csv, "am_latency", "-", 2, 1, sizes[k], "put_signal_latency", "us", p, iters);
    }
    free(v[0]);
    free(v[1]);
    shmem_finalize();
    return 0;
}
