/* A tour of one-sided communication on N PEs (run: oshrun -n 4 ./ring_demo).
 *
 * 1. put:     every PE writes a message into the inbox of its right neighbour
 * 2. atomics: every PE adds its number to a counter on PE 0 and takes a ticket
 * 3. barrier: wait until all of that has landed everywhere
 * 4. get:     every PE reads its left neighbour's inbox remotely
 * 5. signal:  a put-with-signal hands a token around the ring
 * PE 0 then checks every value and prints a table. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#define MSG 48

static long counter; /* symmetric because it is a global */
static long tickets;
static uint64_t token_sig;
static int token;

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;

    char *inbox = shmem_malloc(MSG); /* symmetric heap */
    char *table = shmem_calloc((size_t)n, MSG);
    long *got_ticket = shmem_malloc(sizeof(long) * (size_t)n);

    char msg[MSG];
    snprintf(msg, sizeof msg, "hello from PE %d to PE %d", me, right);
    shmem_putmem(inbox, msg, sizeof msg, right); /* 1 */

    shmem_long_atomic_add(&counter, me + 1, 0); /* 2 */
    long ticket = shmem_long_atomic_fetch_inc(&tickets, 0);
    shmem_long_p(&got_ticket[me], ticket, 0);

    shmem_barrier_all(); /* 3 */

    char peek[MSG];
    shmem_getmem(peek, inbox, MSG, left); /* 4 */
    shmem_putmem(&table[(size_t)me * MSG], inbox, MSG, 0);

    if (me == 0) { /* 5 */
        token = 1;
        shmem_int_put_signal(&token, &token, 1, &token_sig, 1, SHMEM_SIGNAL_SET, right % n);
        if (n > 1)
            shmem_signal_wait_until(&token_sig, SHMEM_CMP_EQ, 1);
    } else {
        shmem_signal_wait_until(&token_sig, SHMEM_CMP_EQ, 1);
        int t = token + 1;
        shmem_int_put_signal(&token, &t, 1, &token_sig, 1, SHMEM_SIGNAL_SET, right);
    }
    shmem_barrier_all();

    int ok = 1;
    if (me == 0) {
        printf("Shoal ring demo: %d PEs\n", n);
        for (int pe = 0; pe < n; pe++) {
            char want[MSG];
            snprintf(want, sizeof want, "hello from PE %d to PE %d", (pe + n - 1) % n, pe);
            int good = strcmp(&table[(size_t)pe * MSG], want) == 0;
            ok &= good;
            printf("  PE %d inbox: \"%s\" %s, ticket %ld\n", pe, &table[(size_t)pe * MSG],
                   good ? "ok" : "WRONG", got_ticket[pe]);
        }
        long want_sum = (long)n * (n + 1) / 2;
        printf("  counter on PE 0 = %ld (expected %ld) %s\n", counter, want_sum,
               counter == want_sum ? "ok" : "WRONG");
        ok &= counter == want_sum && tickets == n;
        /* Tickets are a permutation of 0..n-1. */
        long seen = 0;
        for (int pe = 0; pe < n; pe++)
            seen |= 1L << got_ticket[pe];
        ok &= seen == (n >= 63 ? -1L : (1L << n) - 1);
        printf("  token after one lap = %d (expected %d) %s\n", token, n,
               token == n ? "ok" : "WRONG");
        ok &= token == n;
        printf("%s\n", ok ? "RESULT: all values arrived correctly" : "RESULT: FAILED");
    }
    (void)peek;
    shmem_free(got_ticket);
    shmem_free(table);
    shmem_free(inbox);
    shmem_finalize();
    return ok ? 0 : 1;
}
