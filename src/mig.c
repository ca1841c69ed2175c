/* mig.c - PLACEHOLDER until the MIG advisor lands. */
#include "mig.h"

#include <string.h>

enum status mig_advise(struct predictor *p, struct graph *g, const struct config *cfg,
                       double headroom, double slo_ms, struct mig_advice *out, struct diag *d)
{
    (void)p;
    (void)g;
    (void)cfg;
    memset(out, 0, sizeof *out);
    out->best = -1;
    out->headroom = headroom;
    out->slo_ms = slo_ms;
    return diag_set(d, ST_EUNSUPPORTED, "the MIG advisor is not built yet");
}
