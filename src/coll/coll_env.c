/* The collectives' configuration: their rows (coll_env_table.h) join the
 * one table of variables (core/config/env.h); the loader sets the algorithm
 * choices at init. */
#include "coll/coll.h"
#include "core/config/env.h"
#include "core/config/log.h"

/* COLL_ENV_<id> and rows[] from coll_env_table.h. */
#define SHOAL_ENV_TABLE "coll/coll_env_table.h"
#define SHOAL_ENV_ID(id) COLL_ENV_##id
#include "transport/env_layer.h"

#define SIZE_WANT "a number of bytes with an optional K/M/G/T suffix, e.g. 64K"

/* An algorithm name (index in choices) and its crossover size. */
static int algo_and_size(int algo_row, const char *const *choices, const char *want, int size_row,
                         int *algo, size_t *size, char *err, size_t errlen)
{
    const char *used, *v = shoal_env_value(&rows[algo_row], &used);
    if ((*algo = shoal_parse_choice(v, choices)) < 0)
        return shoal_env_bad(err, errlen, used, v, want);
    v = shoal_env_value(&rows[size_row], &used);
    if (shoal_parse_size(v, size) < 0)
        return shoal_env_bad(err, errlen, used, v, SIZE_WANT);
    return 0;
}

static int load(char *err, size_t errlen)
{
    static const char *const reduce[] = {"auto", "gather", "rsag", NULL};
    static const char *const bcast[] = {"auto", "get", "tree", NULL};
    int ra, ba;
    size_t rx, bx;
    if (algo_and_size(COLL_ENV_COLL_REDUCE, reduce, "one of auto, gather, rsag",
                      COLL_ENV_COLL_REDUCE_CROSSOVER, &ra, &rx, err, errlen) < 0 ||
        algo_and_size(COLL_ENV_COLL_BCAST, bcast, "one of auto, get, tree",
                      COLL_ENV_COLL_BCAST_CROSSOVER, &ba, &bx, err, errlen) < 0)
        return -1;
    const char *used, *v = shoal_env_value(&rows[COLL_ENV_COLL_MT_MIN], &used);
    size_t mt_min;
    if (shoal_parse_size(v, &mt_min) < 0)
        return shoal_env_bad(err, errlen, used, v, SIZE_WANT);
    shoal_coll_init(ra, rx);
    shoal_coll_bcast_config(ba, bx);
    shoal_coll_mt_config(mt_min);
    SHOAL_LOG(SHOAL_LOG_COLL, SHOAL_LOG_INFO,
              "reduce %s (crossover %zu bytes), broadcast %s (crossover %zu bytes), "
              "multi-threaded collectives split from %zu bytes",
              reduce[ra], rx, bcast[ba], bx, mt_min);
    return 0;
}

static struct shoal_env_layer layer = {"coll", 10, rows, COLL_ENV_COUNT, load, NULL};

__attribute__((constructor)) void shoal_coll_env_register(void)
{
    static int done;
    if (!__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        shoal_env_register(&layer);
}
