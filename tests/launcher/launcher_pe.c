/* launcher_pe: the PE program of the oshrun behaviour tests
 * (test_oshrun.py).  It talks to oshrun through the bootstrap interface
 * only (src/boot), so it needs nothing else of the library.
 *
 *   launcher_pe MARKER MODE [ARGS...]
 *
 * MARKER is ignored: it makes this job's processes findable in /proc.
 * Modes (R = a rank, "others" = the other ranks):
 *   ok                     hello, allgather, finalize, barrier, exit 0
 *   exitorder              rank r exits 10+r after (n-1-r)*200 ms (no finalize)
 *   exit R CODE [term]     R exits CODE after 100 ms; others sleep (and
 *                          ignore SIGTERM with "term"); R prints its exit time
 *   segv R                 R dies of SIGSEGV; others sleep
 *   abort R STATUS         R aborts through the bootstrap; others sleep
 *   globalexit R STATUS    R calls global_exit(STATUS) then exit(STATUS)
 *   sleep [term]           hello, print "ready R", sleep forever
 *   nofinalize R           R exits 0 after hello, without finalize; others sleep
 *   deadpeer R             R exits 0 without hello; others open + barrier
 *                          (which must fail: exit 4)
 *   lines K                K lines to stdout and to stderr, each written in
 *                          pieces, then a last line without newline
 *   stdio K                after a barrier, K lines of 90 characters to stdout
 *                          and to stderr through stdio with 4 KiB buffers, so
 *                          most write()s end in the middle of a line (what a
 *                          printf-ing program does when its output is a pipe)
 *   prompt                 write "pe R prompt> " without newline, read a line
 *                          from stdin, print "pe R got LINE"
 *   tty                    print "pe R tty out=0|1 err=0|1" (isatty of 1 and 2)
 *   stdin                  read stdin to EOF, print "pe R stdin BYTES"
 *   env VAR...             print "pe R VAR=value" for each VAR
 *   cpus                   print "pe R cpus c1,c2,..."
 *   affinity               print "pe R pid PID allowed LIST", LIST being the
 *                          Cpus_allowed_list of /proc/self/status (any
 *                          number of CPUs), e.g. "0-3,8"
 *   orphan                 fork a child that sleeps forever, then finish cleanly
 *   gather SIZE ROUNDS     ROUNDS allgathers of SIZE bytes, checked
 *   mismatch               allgather of different lengths (rank 0: 300000
 *                          bytes, the others 8 + rank): must fail on every
 *                          PE (exit 4)
 *   open                   just open the bootstrap: exit 0, or print the
 *                          error and exit 3 (environment validation tests)
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"

static struct shoal_boot B;
static int me = -1, npes;

static void say(const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 1)
        n = (int)sizeof line - 1;
    if (write(STDOUT_FILENO, line, (size_t)n) < 0)
        _exit(90);
}

static void die(const char *what)
{
    fprintf(stderr, "launcher_pe %d: %s\n", me, what);
    _exit(99);
}

static void open_boot(void)
{
    char err[512];
    if (shoal_boot_open(&B, err, sizeof err) < 0) {
        fprintf(stderr, "launcher_pe: %s\n", err);
        _exit(3);
    }
    me = B.rank;
    npes = B.size;
}

static void msleep(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static _Noreturn void sleep_forever(int ignore_term)
{
    if (ignore_term)
        signal(SIGTERM, SIG_IGN);
    for (;;)
        pause();
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void finish_ok(void)
{
    B.finalize();
    if (B.barrier() < 0)
        die("final barrier failed");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: launcher_pe MARKER MODE [ARGS...]\n");
        return 2;
    }
    const char *mode = argv[2];
    int a1 = argc > 3 ? atoi(argv[3]) : 0;
    int a2 = argc > 4 ? atoi(argv[4]) : 0;
    int term = argc > 5 && !strcmp(argv[5], "term");
    /* A crash must not leave a core file behind in the test's directory. */
    struct rlimit nocore = {0, 0};
    setrlimit(RLIMIT_CORE, &nocore);

    if (!strcmp(mode, "open")) {
        open_boot();
        return 0;
    }
    if (!strcmp(mode, "deadpeer")) {
        const char *r = getenv("SHOAL_RANK");
        if (r && atoi(r) == a1)
            return 0;
        open_boot();
        if (B.barrier() == 0)
            die("the barrier succeeded although a PE exited without joining it");
        return 4;
    }
    if (!strcmp(mode, "stdin")) {
        open_boot();
        char buf[4096];
        long total = 0;
        ssize_t n;
        while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
            if (n > 0)
                total += n;
        say("pe %d stdin %ld\n", me, total);
        finish_ok();
        return 0;
    }

    open_boot();
    if (!strcmp(mode, "ok")) {
        int v = me * 7 + 1;
        int *all = calloc((size_t)npes, sizeof *all);
        if (B.allgather(&v, all, sizeof v) < 0)
            die("allgather failed");
        for (int r = 0; r < npes; r++)
            if (all[r] != r * 7 + 1)
                die("allgather returned wrong data");
        free(all);
        say("pe %d of %d ok\n", me, npes);
        finish_ok();
        return 0;
    }
    if (!strcmp(mode, "exitorder")) {
        if (B.barrier() < 0)
            die("barrier failed");
        msleep(200L * (npes - 1 - me));
        _exit(10 + me);
    }
    if (!strcmp(mode, "exit")) {
        if (B.barrier() < 0)
            die("barrier failed");
        if (me != a1)
            sleep_forever(term);
        msleep(100);
        fprintf(stderr, "t_exit=%.6f\n", mono());
        _exit(a2);
    }
    if (!strcmp(mode, "segv")) {
        if (B.barrier() < 0)
            die("barrier failed");
        if (me != a1)
            sleep_forever(0);
        msleep(50);
        signal(SIGSEGV, SIG_DFL); /* not a sanitizer's handler: a real signal death */
        volatile int *volatile bad = NULL;
        *bad = 1;
        raise(SIGSEGV);
        return 98;
    }
    if (!strcmp(mode, "abort")) {
        if (B.barrier() < 0)
            die("barrier failed");
        if (me != a1)
            sleep_forever(0);
        msleep(50);
        B.abort(a2, "launcher test abort reason");
        _exit(97); /* not reached */
    }
    if (!strcmp(mode, "globalexit")) {
        if (B.barrier() < 0)
            die("barrier failed");
        if (me != a1)
            sleep_forever(0);
        msleep(50);
        B.global_exit(a2);
        exit(a2);
    }
    if (!strcmp(mode, "sleep")) {
        if (B.barrier() < 0)
            die("barrier failed");
        say("ready %d\n", me);
        sleep_forever(argc > 3 && !strcmp(argv[3], "term"));
    }
    if (!strcmp(mode, "nofinalize")) {
        if (B.barrier() < 0)
            die("barrier failed");
        if (me != a1)
            sleep_forever(0);
        msleep(50);
        exit(0);
    }
    if (!strcmp(mode, "lines")) {
        /* Line i of stream s: "pe R s i " + payload of (i*37+R) % 5000 chars
         * 'a'+(i%26), written in up to three pieces with yields between. */
        int k = a1;
        size_t cap = 8192;
        char *line = malloc(cap);
        for (int i = 0; i < k; i++) {
            for (int s = 0; s < 2; s++) {
                int fd = s ? STDERR_FILENO : STDOUT_FILENO;
                int n = snprintf(line, cap, "pe %d %s %d ", me, s ? "err" : "out", i);
                int plen = (i * 37 + me) % 5000;
                memset(line + n, 'a' + i % 26, (size_t)plen);
                n += plen;
                line[n++] = '\n';
                int cut1 = n / 3, cut2 = (2 * n) / 3;
                int cuts[4] = {0, cut1, cut2, n};
                for (int c = 0; c < 3; c++) {
                    if (cuts[c + 1] > cuts[c] &&
                        write(fd, line + cuts[c], (size_t)(cuts[c + 1] - cuts[c])) < 0)
                        _exit(90);
                    sched_yield();
                }
            }
        }
        char tail[64];
        int n = snprintf(tail, sizeof tail, "pe %d tail-without-newline", me);
        if (write(STDOUT_FILENO, tail, (size_t)n) < 0)
            _exit(90);
        free(line);
        finish_ok();
        return 0;
    }
    if (!strcmp(mode, "stdio")) {
        /* Line i of stream s: "pe R s i " + 'a'+(i%26) up to 89 characters
         * + newline.  Everyone starts together so the streams interleave. */
        static char obuf[4096], ebuf[4096];
        setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
        setvbuf(stderr, ebuf, _IOFBF, sizeof ebuf);
        if (B.barrier() < 0)
            die("barrier failed");
        for (int i = 0; i < a1; i++)
            for (int s = 0; s < 2; s++) {
                char line[96];
                int n = snprintf(line, sizeof line, "pe %d %s %d ", me, s ? "err" : "out", i);
                memset(line + n, 'a' + i % 26, (size_t)(89 - n));
                line[89] = 0;
                fprintf(s ? stderr : stdout, "%s\n", line);
            }
        fflush(stdout);
        fflush(stderr);
        finish_ok();
        return 0;
    }
    if (!strcmp(mode, "prompt")) {
        char line[256];
        say("pe %d prompt> ", me);
        if (!fgets(line, sizeof line, stdin))
            die("no answer on stdin");
        line[strcspn(line, "\n")] = 0;
        say("pe %d got %s\n", me, line);
        finish_ok();
        return 0;
    }
    if (!strcmp(mode, "tty")) {
        say("pe %d tty out=%d err=%d\n", me, isatty(STDOUT_FILENO), isatty(STDERR_FILENO));
        finish_ok();
        return 0;
    }
    if (!strcmp(mode, "env")) {
        for (int i = 3; i < argc; i++) {
            const char *v = getenv(argv[i]);
            say("pe %d %s=%s\n", me, argv[i], v ? v : "(unset)");
        }
        finish_ok();
        return 0;
    }
    if (!strcmp(mode, "cpus")) {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) < 0)
            die("sched_getaffinity failed");
        char buf[8192];
        size_t off = 0;
        buf[0] = 0;
        for (int c = 0; c < CPU_SETSIZE && off < sizeof buf - 16; c++)
            if (CPU_ISSET(c, &set))
                off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%d", off ? "," : "", c);
        say("pe %d cpus %s\n", me, buf);
        finish_ok();
        return 0;
    }
    if (!strcmp(mode, "affinity")) {
        FILE *f = fopen("/proc/self/status", "r");
        if (!f)
            die("cannot open /proc/self/status");
        char line[16384], list[16384] = "";
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "Cpus_allowed_list: %16383s", list) == 1)
                break;
        fclose(f);
        if (!list[0])
            die("no Cpus_allowed_list in /proc/self/status");
        say("pe %d pid %ld allowed %s\n", me, (long)getpid(), list);
        finish_ok();
        return 0;
    }
    if (!strcmp(mode, "orphan")) {
        pid_t p = fork();
        if (p == 0) {
            /* The grandchild: no boot, no death signal; it would live on. */
            for (;;)
                pause();
        }
        if (B.barrier() < 0)
            die("barrier failed");
        say("pe %d forked %ld\n", me, (long)p);
        finish_ok();
        return 0;
    }
    if (!strcmp(mode, "gather")) {
        size_t size = (size_t)a1;
        int rounds = a2;
        unsigned char *in = malloc(size ? size : 1);
        unsigned char *out = malloc(size * (size_t)npes + 1);
        for (int k = 0; k < rounds; k++) {
            for (size_t i = 0; i < size; i++)
                in[i] = (unsigned char)(me * 31 + k * 7 + (int)i);
            if (B.allgather(in, out, size) < 0)
                die("allgather failed");
            for (int r = 0; r < npes; r++)
                for (size_t i = 0; i < size; i++)
                    if (out[(size_t)r * size + i] != (unsigned char)(r * 31 + k * 7 + (int)i))
                        die("allgather returned wrong data");
        }
        free(in);
        free(out);
        if (me == 0)
            say("gather ok %d PEs %zu bytes %d rounds\n", npes, size, rounds);
        finish_ok();
        return 0;
    }
    if (!strcmp(mode, "mismatch")) {
        size_t len = me == 0 ? 300000 : 8 + (size_t)me;
        char *in = calloc(1, len), *out = malloc(300000 * (size_t)npes);
        if (!in || !out)
            die("out of memory");
        int rc = B.allgather(in, out, len);
        free(in);
        free(out);
        if (rc == 0)
            die("an allgather of different lengths succeeded");
        return 4;
    }
    fprintf(stderr, "launcher_pe: unknown mode '%s'\n", mode);
    return 2;
}
