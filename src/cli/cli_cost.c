/* cli_cost.c - the price options of predict and sweep resolved to a price
 * per hour, and the cost column of the sweep's rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_pred.h"
#include "core/price.h"
#include "util/fmt.h"
#include "util/jsonw.h"

int cli_pred_price(const struct cli_common *co, const struct config *cfg, const char *sub,
                   struct price *out)
{
    memset(out, 0, sizeof *out);
    if (co->price_of_set && !(co->price_per_hour > 0))
        return cli_usage_error(sub, "--price-of says what --price-per-hour prices: give both");
    if (co->price_per_hour > 0) {
        double share = co->price_of_gpu ? price_slice_share(cfg) : 1;
        out->per_hour = co->price_per_hour * share;
        if (share < 1)
            snprintf(out->source, sizeof out->source, "--price-per-hour %g for the GPU x %ld/7 "
                     "for the slice", co->price_per_hour, lround(share * 7));
        else
            snprintf(out->source, sizeof out->source, "--price-per-hour");
        return 0;
    }
    char buf[512];
    const char *path = price_table_path(buf, sizeof buf);
    struct price_table t;
    struct diag d = {0};
    if (!path)
        return 0;
    if (price_table_load(path, &t, &d))
        return cli_fail(&d);
    price_table_find(&t, cfg, out);
    price_table_fini(&t);
    return 0;
}

void cli_cost_json_head(struct jsonw *w, const struct price *p)
{
    if (!(p && p->per_hour > 0))
        return;
    jsonw_key_num(w, "price_per_hour", p->per_hour, false);
    jsonw_key_str(w, "price_source", p->source);
}

void cli_cost_head(FILE *f, const struct cli_common *co, const struct price *p,
                   const char *text_name, const char *key)
{
    if (co->json)
        return;
    if (p && p->per_hour > 0) {
        if (co->csv)
            fprintf(f, ",%s", key);
        else
            fprintf(f, " %11s", text_name);
    }
    fputc('\n', f);
}

void cli_cost_cell(FILE *f, struct jsonw *w, const struct cli_common *co, const struct price *p,
                   const char *key, double rate_per_s, double n)
{
    bool priced = p && p->per_hour > 0;
    double c = priced ? price_cost(p->per_hour, rate_per_s, n) : 0;
    char t[32];
    if (co->json) {
        if (priced)
            jsonw_key_num(w, key, c, false);
        return;
    }
    if (priced && co->csv)
        fprintf(f, ",%.6g", c);
    else if (priced)
        fmt_col(f, fmt_num(c, t, sizeof t), 11);
    fputc('\n', f);
}
