/* sim.c - PLACEHOLDER until the teacher work lands. */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

const char *bound_name(enum bound b)
{
    static const char *const names[] = {
#define X(id, name) name,
        BOUND_LIST(X)
#undef X
    };
    return (unsigned)b < BOUND__COUNT ? names[b] : "?";
}

enum status sim_run(const struct graph *g, const struct config *cfg, struct sim_result *r,
                    struct diag *d)
{
    (void)g;
    (void)cfg;
    memset(r, 0, sizeof *r);
    return diag_set(d, ST_EUNSUPPORTED, "the teacher is not built yet");
}

void sim_result_fini(struct sim_result *r)
{
    if (!r)
        return;
    free(r->nodes);
    r->nodes = NULL;
}
