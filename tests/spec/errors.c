/* Programs that must fail, cleanly: each mode makes one error and
 * expect_failure.py checks that the job exits non-zero (or zero where the
 * spec says the call returns), promptly, with a message on stderr that
 * names the routine and the argument.
 *
 * In most modes only the last PE errs; the others are already blocked in a
 * barrier (or a wait), so the job must be taken down by the launcher. */
#include "shoal_test.h"

static int g_static[64];
static int g_never;

static void others_block_in_barrier(void)
{
    /* The erring PE (the last) waits a little so the others are surely
     * blocked when it errs. */
    if (shmem_my_pe() != shmem_n_pes() - 1) {
        shmem_barrier_all();
        /* Reaching here means the erring PE got through its error. */
        fprintf(stderr, "errors: PE %d passed a barrier that the erring PE never entered\n",
                shmem_my_pe());
        _exit(99);
    }
    st_sleep_us(100000);
}

static void survived(const char *mode)
{
    fprintf(stderr, "errors: mode '%s': PE %d survived its error\n", mode, shmem_my_pe());
    _exit(98);
}

/* The end of a mismatch mode: its collectives must not have returned
 * (alone, a PE has nobody to disagree with). */
static int mismatch_reported(const char *mode, int n)
{
    if (n > 1)
        survived(mode);
    shmem_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: errors MODE\n");
        return 2;
    }
    const char *mode = argv[1];
    char src[64] = {0};

    if (!strcmp(mode, "before_init")) {
        shmem_putmem(g_static, src, 8, 0);
        fprintf(stderr, "errors: shmem_putmem before shmem_init returned\n");
        return 98;
    }

    shmem_init(); /* bad_size: must not return (or report through init_thread) */
    if (!strcmp(mode, "bad_size")) {
        fprintf(stderr, "errors: shmem_init accepted SHMEM_SYMMETRIC_SIZE=%s\n",
                getenv("SHMEM_SYMMETRIC_SIZE") ? getenv("SHMEM_SYMMETRIC_SIZE") : "(unset)");
        return 98;
    }
    int me = shmem_my_pe(), n = shmem_n_pes();
    char *heap = shmem_malloc(4096);
    if (!heap) {
        fprintf(stderr, "errors: shmem_malloc(4096) failed\n");
        return 97;
    }

    if (!strcmp(mode, "bad_pe")) {
        others_block_in_barrier();
        shmem_putmem(heap, src, 8, n); /* PE n does not exist */
        survived(mode);
    } else if (!strcmp(mode, "negative_pe")) {
        others_block_in_barrier();
        shmem_long_p((long *)(void *)heap, 1, -1);
        survived(mode);
    } else if (!strcmp(mode, "stack_dest")) {
        int on_stack = 0;
        others_block_in_barrier();
        shmem_int_p(&on_stack, 1, 0);
        survived(mode);
    } else if (!strcmp(mode, "private_source_get")) {
        /* shmem_getmem's remote 'source' must be symmetric. */
        char priv[16];
        others_block_in_barrier();
        shmem_getmem(src, priv, sizeof priv, 0);
        survived(mode);
    } else if (!strcmp(mode, "put_huge")) {
        /* A count past the end of the heap blames the count, not 'dest'. */
        others_block_in_barrier();
        shmem_int_put((int *)(void *)heap, (const int *)(void *)src, (size_t)1 << 40, 0);
        survived(mode);
    } else if (!strcmp(mode, "put_wrap")) {
        /* A count whose range wraps around the address space. */
        others_block_in_barrier();
        shmem_putmem(heap, src, (size_t)-1, 0);
        survived(mode);
    } else if (!strcmp(mode, "put_elem_wrap")) {
        /* 4 * ((1<<62) + 2) wraps to 8 bytes: once a 2-element put. */
        others_block_in_barrier();
        shmem_int_put((int *)(void *)heap, (const int *)(void *)src, ((size_t)1 << 62) + 2,
                      (me + 1) % n);
        survived(mode);
    } else if (!strcmp(mode, "iput_wrap")) {
        /* Once a signed overflow in the extent, then SIGSEGV. */
        others_block_in_barrier();
        shmem_int_iput((int *)(void *)heap, (const int *)(void *)src, 1, 1, (size_t)1 << 62,
                       (me + 1) % n);
        survived(mode);
    } else if (!strcmp(mode, "fcollect_huge") || !strcmp(mode, "alltoall_huge")) {
        /* Every PE calls: once SIGSEGV in memcpy, without a word. */
        if (mode[0] == 'f')
            shmem_int_fcollect(SHMEM_TEAM_WORLD, (int *)(void *)heap, (const int *)(void *)heap,
                               (size_t)1 << 40);
        else
            shmem_int_alltoall(SHMEM_TEAM_WORLD, (int *)(void *)heap, (const int *)(void *)heap,
                               (size_t)1 << 40);
        survived(mode);
    } else if (!strncmp(mode, "mismatch_large", 14)) {
        /* PE 0 reduces 131,072 ints while the others fcollect as many
         * each: once a silent success with thousands of wrong values.
         * The barrier rounds carry the calls' signatures (every size:
         * spec.mismatch.* tests the small ones). */
        size_t ne = mode[14] == '_' ? (size_t)atol(mode + 15) : 131072;
        int *big = shmem_calloc(ne * (size_t)n, sizeof(int));
        if (!big)
            return 97;
        if (me == 0)
            shmem_int_sum_reduce(SHMEM_TEAM_WORLD, big, big, ne);
        else
            shmem_int_fcollect(SHMEM_TEAM_WORLD, big, big, ne);
        return mismatch_reported(mode, n);
    } else if (!strcmp(mode, "mismatch_collect_alltoall")) {
        /* Across nodes: PE 0 in an alltoall that moves 16 MiB into each
         * PE, the others collect as much; the barrier rounds between them
         * carry the calls' signatures. */
        size_t ne = (((size_t)16 << 20) / sizeof(int) + (size_t)n - 1) / (size_t)n;
        int *big = shmem_calloc(ne * (size_t)n, sizeof(int));
        int *out = shmem_calloc(ne * (size_t)n, sizeof(int));
        if (!big || !out)
            return 97;
        if (me == 0)
            shmem_int_alltoall(SHMEM_TEAM_WORLD, out, big, ne);
        else
            shmem_int_collect(SHMEM_TEAM_WORLD, out, big, ne);
        return mismatch_reported(mode, n);
    } else if (!strcmp(mode, "mismatch_bcast_alltoall")) {
        size_t ne = 262144; /* a 1 MiB broadcast: by gets, between barriers */
        int *big = shmem_calloc(ne * (size_t)n, sizeof(int));
        if (!big)
            return 97;
        if (me == n - 1)
            shmem_int_broadcast(SHMEM_TEAM_WORLD, big, big, ne, 0);
        else
            shmem_int_alltoall(SHMEM_TEAM_WORLD, big, big, ne);
        return mismatch_reported(mode, n);
    } else if (!strcmp(mode, "mismatch_bcast_sizes")) {
        /* The root broadcasts 64 ints, the others expect 32: across nodes
         * the message that carries them is too long for the receive. */
        int *big = shmem_calloc(64, sizeof(int));
        if (!big)
            return 97;
        shmem_int_broadcast(SHMEM_TEAM_WORLD, big, big, me == 0 ? 64 : 32, 0);
        shmem_barrier_all(); /* the root waits here for the others' report */
        return mismatch_reported(mode, n);
    } else if (!strcmp(mode, "get_huge_static")) {
        others_block_in_barrier();
        shmem_getmem(src, g_static, (size_t)1 << 40, 0);
        survived(mode);
    } else if (!strcmp(mode, "reduce_huge")) {
        /* Collective: every PE makes the same mistake. */
        shmem_int_sum_reduce(SHMEM_TEAM_WORLD, (int *)(void *)heap, (const int *)(void *)heap,
                             (size_t)1 << 40);
        survived(mode);
    } else if (!strcmp(mode, "lock_stack")) {
        long lock = 0;
        others_block_in_barrier();
        shmem_set_lock(&lock);
        survived(mode);
    } else if (!strcmp(mode, "split_invalid")) {
        /* Not an error: invalid splits give SHMEM_TEAM_INVALID on every PE
         * and the job goes on; under SHMEM_DEBUG each says why. */
        shmem_team_t t = SHMEM_TEAM_WORLD, x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
        int bad = 0;
        /* PEs 0..n: one too many. */
        bad |= shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0, &t) == 0;
        bad |= t != SHMEM_TEAM_INVALID;
        bad |= shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &t) == 0;
        bad |= shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) == 0;
        bad |= shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) == 0;
        bad |= x != SHMEM_TEAM_INVALID || y != SHMEM_TEAM_INVALID;
        if (bad) {
            fprintf(stderr, "errors: an invalid split did not fail with SHMEM_TEAM_INVALID\n");
            return 96;
        }
        shmem_barrier_all();
        shmem_free(heap);
        shmem_finalize();
        if (me == 0)
            printf("split_invalid: SHMEM_TEAM_INVALID returned, program continued\n");
        return 0;
    } else if (!strcmp(mode, "team_slots")) {
        /* Teams made and not destroyed: 126 splits succeed (with WORLD and
         * SHARED, 128 at once), the 127th gives SHMEM_TEAM_INVALID and a
         * warning from PE 0; a destroyed team's slot serves the next split;
         * a 2-D split needs two. */
        enum { MAX_TEAMS = 126 };
        shmem_team_t t[MAX_TEAMS + 1], x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
        int made = 0;
        while (made <= MAX_TEAMS &&
               shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t[made]) == 0)
            made++;
        int bad = made != MAX_TEAMS || t[made] != SHMEM_TEAM_INVALID;
        shmem_team_destroy(t[--made]);
        bad |= shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t[made]) != 0 ||
               shmem_team_n_pes(t[made]) != n;
        made++;
        bad |= shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, &y) == 0 ||
               x != SHMEM_TEAM_INVALID || y != SHMEM_TEAM_INVALID;
        shmem_team_destroy(t[--made]);
        shmem_team_destroy(t[--made]);
        bad |= shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, &y) != 0 ||
               shmem_team_n_pes(x) != 1 || shmem_team_n_pes(y) != n;
        shmem_team_destroy(x);
        shmem_team_destroy(y);
        while (made > 0)
            shmem_team_destroy(t[--made]);
        if (bad) {
            fprintf(stderr, "errors: team_slots: the team limit did not behave as documented\n");
            return 96;
        }
        shmem_barrier_all();
        shmem_free(heap);
        shmem_finalize();
        if (me == 0)
            printf("team_slots: 126 teams, the 127th SHMEM_TEAM_INVALID, program continued\n");
        return 0;
    } else if (!strcmp(mode, "invalid_ctx")) {
        others_block_in_barrier();
        shmem_ctx_putmem(SHMEM_CTX_INVALID, heap, src, 8, 0);
        survived(mode);
    } else if (!strcmp(mode, "destroyed_ctx")) {
        shmem_ctx_t c;
        if (shmem_ctx_create(0, &c) != 0)
            return 97;
        shmem_ctx_destroy(c);
        others_block_in_barrier();
        shmem_ctx_long_atomic_inc(c, (long *)(void *)heap, 0);
        survived(mode);
    } else if (!strcmp(mode, "overlap_self")) {
        /* SHMEM_DEBUG: a put to self whose source and dest overlap. */
        others_block_in_barrier();
        shmem_putmem(heap + 4, heap, 16, me);
        survived(mode);
    } else if (!strcmp(mode, "overlap_self_static")) {
        others_block_in_barrier();
        shmem_putmem((char *)g_static + 4, g_static, 16, me);
        survived(mode);
    } else if (!strcmp(mode, "overlap_get_self")) {
        others_block_in_barrier();
        shmem_getmem(heap, heap + 8, 16, me);
        survived(mode);
    } else if (!strcmp(mode, "bad_alignment")) {
        /* Not an error: an alignment that is not a power of two gives NULL
         * on every PE (PE 0 says why), and the heaps
         * stay in step, which SHMEM_DEBUG's symmetry check verifies. */
        void *p = shmem_align(24, 100);
        if (p != NULL) {
            fprintf(stderr, "errors: shmem_align(24, 100) returned %p, not NULL\n", p);
            return 96;
        }
        void *q = shmem_malloc(100);
        if (q == NULL) {
            fprintf(stderr, "errors: shmem_malloc after a NULL shmem_align failed\n");
            return 95;
        }
        shmem_free(q);
        shmem_free(heap);
        shmem_finalize();
        if (me == 0)
            printf("bad_alignment: NULL returned, program continued\n");
        return 0;
    } else if (!strcmp(mode, "realloc_freed") || !strcmp(mode, "shrealloc_freed")) {
        /* Not an error (Mellanox verifier basic:tc3): NULL on every PE, one
         * line from PE 0, and the program goes on with the heaps in step;
         * under SHMEM_DEBUG an error. */
        char *p = shmem_malloc(64);
        shmem_free(p);
        void *q = mode[0] == 'r' ? shmem_realloc(p, 128) : shrealloc(p, 128);
        if (q != NULL) {
            fprintf(stderr, "errors: realloc of a freed block returned %p, not NULL\n", q);
            return 96;
        }
        char *r = shmem_malloc(64);
        if (r == NULL)
            return 95;
        shmem_barrier_all();
        shmem_putmem(r, "x", 1, (me + 1) % n);
        shmem_free(r);
        shmem_free(heap);
        shmem_finalize();
        if (me == 0)
            printf("%s: NULL returned, program continued\n", mode);
        return 0;
    } else if (!strcmp(mode, "asymmetric_free")) {
        /* SHMEM_DEBUG: PEs free different blocks. */
        char *a = shmem_malloc(64), *b = shmem_malloc(64);
        shmem_free(me == n - 1 ? a : b);
        if (n > 1)
            survived(mode);
    } else if (!strcmp(mode, "misaligned_amo")) {
        others_block_in_barrier();
        shmem_int_atomic_add((int *)(void *)(heap + 1), 1, me);
        survived(mode);
    } else if (!strcmp(mode, "asymmetric_malloc")) {
        /* SHMEM_DEBUG: different sizes on different PEs. */
        void *p = shmem_malloc(64 + 64 * (size_t)me);
        (void)p;
        if (n > 1)
            survived(mode);
    } else if (!strcmp(mode, "aset_bad_start") || !strcmp(mode, "aset_bad_size")) {
        /* An active set that is not one stays an error on every PE, also on
         * those it would leave out (which otherwise just return). */
        static long psync[SHMEM_BCAST_SYNC_SIZE];
        static long bsrc[4], bdst[4];
        if (!strcmp(mode, "aset_bad_start"))
            shmem_broadcast64(bdst, bsrc, 4, 0, n, 0, 1, psync); /* PE n does not exist */
        else
            shmem_broadcast64(bdst, bsrc, 4, 0, 0, 1, n, psync); /* 0, 2, ..., 2(n-1) */
        survived(mode);
    } else if (!strcmp(mode, "exhaust")) {
        /* Not an error: NULL on every PE, a message, and the job goes on. */
        void *p = shmem_malloc((size_t)2 << 20);
        if (p != NULL) {
            fprintf(stderr, "errors: a 2 MiB shmem_malloc succeeded with SHMEM_SYMMETRIC_SIZE=%s\n",
                    getenv("SHMEM_SYMMETRIC_SIZE"));
            return 96;
        }
        shmem_barrier_all();
        shmem_free(heap);
        shmem_finalize();
        if (me == 0)
            printf("exhaust: NULL returned, program continued\n");
        return 0;
    } else if (!strcmp(mode, "die_exit")) {
        others_block_in_barrier();
        exit(3);
    } else if (!strcmp(mode, "die_signal")) {
        others_block_in_barrier();
        raise(SIGKILL);
    } else if (!strcmp(mode, "die_segv")) {
        others_block_in_barrier();
        /* NULL at run time, unknown to the compiler. */
        volatile int *bad = (volatile int *)(void *)getenv("SHOAL_TEST_UNSET_VARIABLE");
        *bad = 1;
    } else if (!strcmp(mode, "die_global_exit")) {
        others_block_in_barrier();
        shmem_global_exit(7);
    } else if (!strcmp(mode, "die_check")) {
        /* The test helper's own failure path. */
        others_block_in_barrier();
        CHECK_EQ_I(1 + 1, 3);
    } else if (!strcmp(mode, "die_in_wait")) {
        /* The others wait on a variable nobody will ever set. */
        if (me != n - 1) {
            shmem_int_wait_until(&g_never, SHMEM_CMP_NE, 0);
            _exit(99);
        }
        st_sleep_us(100000);
        exit(4);
    } else {
        fprintf(stderr, "errors: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_finalize();
    return 0;
}
