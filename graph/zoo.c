/* zoo.c - PLACEHOLDER until the template work lands. */
#include "zoo.h"

struct graph *zoo_build_spec(const char *spec, struct diag *d)
{
    diag_set(d, ST_EUNSUPPORTED, "zoo:%s: templates are not built yet", spec);
    return NULL;
}
