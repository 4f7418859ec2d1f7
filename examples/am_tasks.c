/* A distributed task queue with active messages (run: oshrun -n 4 ./am_tasks).
 *
 * Every PE creates tasks ("how many Collatz steps does x take?") and hands
 * each one to some PE by sending it as an active message.  The handler
 * runs the task where it lands and sends the answer back to the PE that
 * created it, again as an active message.  Nobody posts receives: handlers
 * run whenever a PE is inside Shoal (here: in shmemx_am_poll).
 *
 * At the end every PE checks its answers against a serial computation and
 * PE 0 prints who ran how many tasks. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

#define TASKS_PER_PE 2000
#define TAG_TASK 0
#define TAG_ANSWER 1

struct task {
    long x; /* the input */
    int id; /* the creator's number for it */
};
struct answer {
    int id;
    long steps;
};

static long collatz_steps(long x)
{
    long n = 0;
    while (x != 1) {
        x = x % 2 ? 3 * x + 1 : x / 2;
        n++;
    }
    return n;
}

static long answers[TASKS_PER_PE]; /* the creator's results, by task id */
static long answered;              /* how many came back */
static long ran;                   /* symmetric: tasks this PE ran */

/* Runs at the PE the task was sent to. */
static void run_task(int creator, const void *payload, size_t len, void *arg)
{
    (void)len, (void)arg;
    const struct task *t = payload;
    struct answer a = {t->id, collatz_steps(t->x)};
    ran++;
    shmemx_am_send(SHMEM_CTX_DEFAULT, creator, TAG_ANSWER, &a, sizeof a);
}

/* Runs back at the creator. */
static void take_answer(int worker, const void *payload, size_t len, void *arg)
{
    (void)worker, (void)len, (void)arg;
    const struct answer *a = payload;
    answers[a->id] = a->steps;
    answered++;
}

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    shmemx_am_register(TAG_TASK, run_task, NULL);
    shmemx_am_register(TAG_ANSWER, take_answer, NULL);
    shmem_barrier_all(); /* every PE has its handlers before the first task */

    for (int id = 0; id < TASKS_PER_PE; id++) {
        struct task t = {me * 1000003L + id + 1, id};
        int worker = (int)((t.x * 7919) % n); /* spread the tasks around */
        shmemx_am_send(SHMEM_CTX_DEFAULT, worker, TAG_TASK, &t, sizeof t);
    }
    while (answered < TASKS_PER_PE)
        shmemx_am_poll(); /* run tasks for others while waiting for ours */
    shmemx_am_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();

    int wrong = 0;
    for (int id = 0; id < TASKS_PER_PE; id++)
        wrong += answers[id] != collatz_steps(me * 1000003L + id + 1);
    if (wrong)
        printf("PE %d: %d wrong answers\n", me, wrong);
    if (me == 0) {
        printf("%d PEs created %d tasks each; tasks run per PE:", n, TASKS_PER_PE);
        for (int pe = 0; pe < n; pe++)
            printf(" %ld", shmem_long_g(&ran, pe));
        printf("\n");
    }
    shmem_finalize();
    return wrong != 0;
}
