/* transport/env_rows.h — the form every layer's environment variables
 * take (core/config/env.h says how they join the one table).  A contract header,
 * like transport/net.h, kept in the lowest layer that uses it: the
 * transports include it to describe their variables, core and coll to
 * describe theirs. */
#ifndef SHOAL_TRANSPORT_ENV_ROWS_H
#define SHOAL_TRANSPORT_ENV_ROWS_H
#include <stddef.h>

enum shoal_env_kind {
    SHOAL_KIND_SIZE,
    SHOAL_KIND_BOOL,
    SHOAL_KIND_FLAG,
    SHOAL_KIND_UINT,
    SHOAL_KIND_STRING
};

struct shoal_env_row {
    const char *name, *alias, *def, *meaning;
    enum shoal_env_kind kind;
};
#define SHOAL_ENV_ROW(name, alias, kind, def, meaning) \
    {                                                  \
        name, alias, def, meaning, SHOAL_KIND_##kind   \
    }

/* A layer's rows and their loader. */
struct shoal_env_layer {
    const char *name; /* "coll", "ucx" */
    int order;        /* printed and loaded in this order, after core */
    const struct shoal_env_row *rows;
    int nrows;
    /* Parses the layer's rows into the layer's own configuration: 0, or
     * -1 with "environment variable VAR='value' is malformed: expected
     * ..." in err. */
    int (*load)(char *err, size_t errlen);
    struct shoal_env_layer *next;
};
#endif
