/* transport/env_layer.h — a layer's row ids and rows, from its table of
 * SHOAL_ENV(id, name, alias, kind, default, meaning) rows (env_rows.h says
 * what a row is).  Define SHOAL_ENV_TABLE (the table's header, quoted) and
 * SHOAL_ENV_ID(id) (the name of row `id` in the layer's enum), then
 * include this file; it declares
 *   enum { SHOAL_ENV_ID(id) for every row..., SHOAL_ENV_ID(COUNT) };
 *   static const struct shoal_env_row rows[SHOAL_ENV_ID(COUNT)];
 * and undefines both.  A contract header like env_rows.h: the layers above
 * core (coll/coll_env.c) and the transports (ucx/config/ucx_env.c) include it. */
#include "transport/env_rows.h"

enum {
#define SHOAL_ENV(id, name, alias, kind, def, meaning) SHOAL_ENV_ID(id),
#include SHOAL_ENV_TABLE
#undef SHOAL_ENV
    SHOAL_ENV_ID(COUNT)
};

static const struct shoal_env_row rows[SHOAL_ENV_ID(COUNT)] = {
#define SHOAL_ENV(id, name, alias, kind, def, meaning) \
    [SHOAL_ENV_ID(id)] = SHOAL_ENV_ROW(name, alias, kind, def, meaning),
#include SHOAL_ENV_TABLE
#undef SHOAL_ENV
};

#undef SHOAL_ENV_TABLE
#undef SHOAL_ENV_ID
