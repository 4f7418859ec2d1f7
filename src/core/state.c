/* The process-wide state and the predefined handles. */
#include "core/state.h"

struct shoal_state shoal_g = {.my_pe = -1, .n_pes = 0};

/* Live between the first init and the last finalize (magic set then). */
__attribute__((visibility("default"))) struct shoal_ctx shoal_ctx_default = {
    .magic = 0, .options = 0, .team = &shoal_team_world};
__attribute__((visibility("default"))) struct shoal_team shoal_team_world = {.my_pe = -1};
__attribute__((visibility("default"))) struct shoal_team shoal_team_shared = {.my_pe = -1};
