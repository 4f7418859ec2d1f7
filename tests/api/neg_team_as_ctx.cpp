/* neg_team_as_ctx.c compiled as C++17. */
#include "neg_team_as_ctx.c"
