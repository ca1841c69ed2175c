/* fit.c - the one rule for "fits" (fit.h). */
#include "core/fit.h"

double fit_need_mib(double memory_mib, double headroom)
{
    return memory_mib * (1.0 + headroom);
}

bool fit_ok(double memory_mib, double headroom, double usable_mib)
{
    return fit_need_mib(memory_mib, headroom) <= usable_mib;
}

double fit_over_mib(double memory_mib, double headroom, double usable_mib)
{
    double need = fit_need_mib(memory_mib, headroom);
    return need > usable_mib ? need - usable_mib : 0;
}
