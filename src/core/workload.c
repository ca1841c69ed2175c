/* workload.c - which workload a prediction covers (see workload.h). */
#include "core/workload.h"

#include "core/diffusion.h"
#include "core/generation.h"

const char *workload_name(enum workload w)
{
    return w == WORKLOAD_GENERATION ? "generation"
           : w == WORKLOAD_DIFFUSION ? "diffusion"
                                     : "single pass";
}

enum workload workload_asked(bool tokens, int64_t steps)
{
    return tokens ? WORKLOAD_GENERATION : steps > 0 ? WORKLOAD_DIFFUSION : WORKLOAD_PASS;
}

enum workload workload_of_model(const struct graph *g)
{
    char vae[DIFF_SPEC_MAX];
    if (gen_is_decoder(g))
        return WORKLOAD_GENERATION;
    if (g->path && diff_vae_spec(g->path, vae, sizeof vae, NULL) == ST_OK)
        return WORKLOAD_DIFFUSION;
    return WORKLOAD_PASS;
}
