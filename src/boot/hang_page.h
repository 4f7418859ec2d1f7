/* hang_page.h — where a process's threads wait inside Shoal, in memory that
 * its launcher reads without interrupting it.  Shared by the library
 * (core/waiting/wait_record.c writes it) and oshrun (tools/oshrun/job.c reads it);
 * plain C11 + libc.
 *
 * The page is a memfd mapping made at shmem_init: one record per thread
 * that ever blocked in a wait (claimed on first use, given back when the
 * thread exits), plus a header.  The bootstrap hands its descriptor to the
 * launcher (boot.h, shoal_boot_set_report_fd; the local bootstrap sends it
 * to oshrun with HELLO, local_proto.h), which maps it read-only.  So
 * oshrun's --timeout, --dump-on-hang and SIGQUIT reports read the records
 * and print the same lines the PE's own SIGQUIT report prints, and the PE
 * is never signalled: its sleep(), pause() and blocking calls go on as if
 * nothing had asked.
 *
 * Only a record's own thread writes it, as a sequence lock: `seq` is odd
 * while the thread writes and even once it is done; a reader copies the
 * record and keeps the copy when `seq` was even and unchanged around it
 * (shoal_hang_read).  Everything in the page is plain data: texts, not
 * pointers.  A record keeps up to SHOAL_HANG_TEXTS texts (routine names and
 * what is awaited), reused while the same ones come back, so that a
 * thread's next wait on the same routine writes a few integers only. */
#ifndef SHOAL_BOOT_HANG_PAGE_H
#define SHOAL_BOOT_HANG_PAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SHOAL_HANG_MAGIC 0x53484c48u /* "SHLH" */
#define SHOAL_HANG_VERSION 2u        /* 2: `via` */
/* Records: one per thread, the last one shared by threads beyond the rest. */
#define SHOAL_HANG_RECORDS 257
#define SHOAL_HANG_TEXTS 8
#define SHOAL_HANG_TEXT_MAX 72 /* bytes, with the terminating NUL */

struct shoal_hang_rec {
    uint32_t seq;        /* odd while the thread writes the record */
    uint32_t blocked;    /* 1 while the thread waits as described below */
    int32_t peer;        /* world PE expected to write the word, or -1 */
    int32_t peer_thread; /* thread (thread_id) of this PE awaited, or -1 */
    int32_t team_slot;   /* a collective's team: its slot; -2: an active set; -1: none */
    int32_t fn;          /* texts[fn]: the routine the program called */
    int32_t what;        /* texts[what]: what is awaited, or -1 */
    int32_t via;         /* texts[via]: the call that carries a wait on no word, or -1 */
    uint64_t coll;       /* the collective's number on its team, from 1 */
    uint64_t since_ns;   /* CLOCK_MONOTONIC when the wait began to block */
    uint64_t addr;       /* the word watched (an address in the writer) */
    char texts[SHOAL_HANG_TEXTS][SHOAL_HANG_TEXT_MAX];
};

struct shoal_hang_page {
    uint32_t magic;                  /* SHOAL_HANG_MAGIC */
    uint32_t version;                /* SHOAL_HANG_VERSION */
    uint32_t size;                   /* sizeof(struct shoal_hang_page) */
    int32_t world_slot, shared_slot; /* the team slots that have names */
    uint32_t claimed;                /* records [0, claimed) have been used; the last one may be */
    struct shoal_hang_rec rec[SHOAL_HANG_RECORDS];
};

/* Copies record r into *out as one consistent state, trying a bounded
 * number of times (a writer interrupted for good, by a signal handler that
 * reads its own record, must not hang the reader: the last copy is then
 * taken as it is).  Returns 1 if the copy says the thread is blocked. */
static inline int shoal_hang_read(const struct shoal_hang_rec *r, struct shoal_hang_rec *out)
{
    for (int tries = 0; tries < 10000; tries++) {
        uint32_t s1 = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);
        if (s1 & 1)
            continue;
        memcpy(out, (const void *)r, sizeof *out);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&r->seq, __ATOMIC_RELAXED) == s1)
            return out->blocked == 1;
    }
    memcpy(out, (const void *)r, sizeof *out);
    return out->blocked == 1;
}

/* Text i of a copied record ("?" when out of range). */
static inline const char *shoal_hang_text(struct shoal_hang_rec *c, int32_t i)
{
    if (i < 0 || i >= SHOAL_HANG_TEXTS)
        return "?";
    c->texts[i][SHOAL_HANG_TEXT_MAX - 1] = 0;
    return c->texts[i];
}

/* The report line of a copied record c (record number `thread`) of PE `pe`
 * (process `pid`) at CLOCK_MONOTONIC now_ns, NUL-terminated, newline
 * included.  Returns its length (cut to len - 1). */
static inline size_t shoal_hang_format(const struct shoal_hang_page *pg, struct shoal_hang_rec *c,
                                       int thread, int pe, long pid, uint64_t now_ns, char *line,
                                       size_t len)
{
    char team[48], coll[128] = "", peer[200] = "";
    const char *what = c->what >= 0 ? shoal_hang_text(c, c->what) : NULL;
    double secs = c->since_ns && now_ns > c->since_ns ? (double)(now_ns - c->since_ns) / 1e9 : 0.0;
    if (c->team_slot != -1) {
        const char *name = team;
        if (c->team_slot == pg->world_slot)
            name = "SHMEM_TEAM_WORLD";
        else if (c->team_slot == pg->shared_slot)
            name = "SHMEM_TEAM_SHARED";
        else if (c->team_slot == -2)
            name = "an active set";
        else
            snprintf(team, sizeof team, "the team in slot %d", (int)c->team_slot);
        snprintf(coll, sizeof coll, " (collective #%llu on %s)", (unsigned long long)c->coll, name);
    }
    if (c->peer >= 0)
        snprintf(peer, sizeof peer, ", waiting for PE %d%s%s", (int)c->peer, what ? ": " : "",
                 what ? what : "");
    else if (c->peer_thread >= 0)
        snprintf(peer, sizeof peer, ", waiting for thread %d of this PE%s%s", (int)c->peer_thread,
                 what ? ": " : "", what ? what : "");
    else if (what)
        snprintf(peer, sizeof peer, ", waiting for %s", what);
    /* A wait on no word is a bootstrap call, which says so, or a request
     * through the network (ucx_wait). */
    char word[SHOAL_HANG_TEXT_MAX];
    if (c->addr)
        snprintf(word, sizeof word, "word %p", (void *)(uintptr_t)c->addr);
    else if (c->via >= 0)
        snprintf(word, sizeof word, "%s", shoal_hang_text(c, c->via));
    else
        snprintf(word, sizeof word, "a request through the network");
    int n =
        snprintf(line, len, "shoal: PE %d (pid %ld): thread %d blocked for %.2f s in %s%s%s (%s)\n",
                 pe, pid, thread, secs, shoal_hang_text(c, c->fn), coll, peer, word);
    if (n < 0)
        return 0;
    return (size_t)n < len ? (size_t)n : len - 1;
}

/* The line of a PE none of whose threads is blocked. */
static inline size_t shoal_hang_format_idle(int pe, long pid, char *line, size_t len)
{
    int n = snprintf(line, len,
                     "shoal: PE %d (pid %ld): no thread is blocked in Shoal (computing, or "
                     "blocked outside Shoal)\n",
                     pe, pid);
    if (n < 0)
        return 0;
    return (size_t)n < len ? (size_t)n : len - 1;
}

/* The report of a whole page: one line per blocked thread, or the idle
 * line, each through emit.  Returns the number of blocked threads. */
static inline int shoal_hang_report(const struct shoal_hang_page *pg, int pe, long pid,
                                    uint64_t now_ns, void (*emit)(const char *, size_t, void *),
                                    void *arg)
{
    struct shoal_hang_rec c;
    char line[512];
    uint32_t n = __atomic_load_n(&pg->claimed, __ATOMIC_ACQUIRE);
    if (n > SHOAL_HANG_RECORDS - 1)
        n = SHOAL_HANG_RECORDS - 1;
    int blocked = 0;
    for (uint32_t i = 0; i <= n; i++) {
        int idx = i < n ? (int)i : SHOAL_HANG_RECORDS - 1;
        if (!shoal_hang_read(&pg->rec[idx], &c))
            continue;
        emit(line, shoal_hang_format(pg, &c, idx, pe, pid, now_ns, line, sizeof line), arg);
        blocked++;
    }
    if (!blocked)
        emit(line, shoal_hang_format_idle(pe, pid, line, sizeof line), arg);
    return blocked;
}

#endif
