/* bench_heat.c - benchmark (not a test): the explorer's heat map of
 * zoo Llama-2-70B (llama2-70b preset, seq 4096) for 32 batches (1..32)
 * against every precision (tensorrt, so that int8 and fp8 run too) and
 * against every MIG slice of an H100-SXM5-80GB and the whole GPU: the grid
 * computed by core (grid_run, the code the explorer calls) and drawn into a
 * 70x250 canvas by the Sweep tab's heat-map screen, headless. No GPU has
 * eight columns of either kind (six precisions; six slices and the whole
 * GPU), so the figure per cell is given too, and 256 cells (32 x 8) at that
 * rate. Goal: a 32 x 8 heat map in <= 1 s on one core.
 *
 *   bench_heat [TSV_OUT]      (OPENBLAS_NUM_THREADS=1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "core/gpu.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/screen.h"
#include "util/xalloc.h"

#define ROWS 70
#define COLS 250
#define N_BATCH 32
#define SPEC "zoo:llama:preset=llama2-70b"

struct hctx {
    struct app a;
    struct ui_canvas c;
    enum grid_axis axis;
    int64_t batch[N_BATCH];
    struct diag d;
};

/* What the explorer does for a fresh heat map, at 32 rows: the grid, the
 * configuration predicted again (app_heat_ensure), the screen drawn. */
static int heat(void *v)
{
    struct hctx *h = v;
    struct app_heat *ht = &h->a.heat;
    if (grid_run(h->a.p, h->a.g, &h->a.cfg, h->axis, h->batch, N_BATCH, h->a.headroom, &ht->grid,
                 &h->d))
        return 1;
    ht->valid = true;
    ht->gen = h->a.sweep_gen;
    ht->axis = h->axis;
    if (app_recompute(&h->a, &h->d))
        return 1;
    h->a.st.heat = h->axis == GRID_SLICE ? 2 : 1;
    draw_clear(&h->c, (struct ui_rect){0, 0, ROWS, COLS}, UI_STYLE_NORMAL);
    screen_heat_draw(&h->a, &h->c, (struct ui_rect){0, 0, ROWS, COLS});
    free(draw_canvas_text(&h->c));
    return 0;
}

int main(int argc, char **argv)
{
    xalloc_init();
    FILE *tsv = NULL;
    if (argc > 1 && !(tsv = fopen(argv[1], "w"))) {
        perror(argv[1]);
        return 1;
    }
    struct hctx *h = calloc(1, sizeof *h);
    if (!h || !draw_canvas_init(&h->c, ROWS, COLS, true))
        return 1;
    int rc = 1;
    if (app_init(&h->a, SPEC, &h->d)) {
        fprintf(stderr, "bench_heat: %s\n", h->d.msg);
        goto out;
    }
    for (int i = 0; i < N_BATCH; i++)
        h->batch[i] = i + 1;
    struct config cfg = h->a.cfg;
    cfg.gpu = gpu_find("H100-SXM5-80GB");
    cfg.rt = RT_TENSORRT;
    if (cfg.gpu < 0 || app_set_config(&h->a, &cfg, &h->d)) {
        fprintf(stderr, "bench_heat: %s\n", cfg.gpu < 0 ? "no H100-SXM5-80GB" : h->d.msg);
        goto out;
    }
    printf("explorer heat map of %s (%d nodes), batch 1..%d, %s, %s; drawn %dx%d headless\n", SPEC,
           h->a.g->n_nodes, N_BATCH, gpu_get(cfg.gpu)->name, runtime_name(cfg.rt), ROWS, COLS);
    for (int ax = 0; ax < GRID__AXES; ax++) {
        h->axis = (enum grid_axis)ax;
        struct bstats s;
        if (bench_run(heat, h, 3, 20, 3.0, &s)) {
            fprintf(stderr, "bench_heat: %s\n", h->d.msg);
            goto out;
        }
        int cells = N_BATCH * h->a.heat.grid.n_cols;
        char name[96];
        snprintf(name, sizeof name, "batch x %s (%d x %d)", grid_axis_name(h->axis), N_BATCH,
                 h->a.heat.grid.n_cols);
        printf("  %-34s ", name);
        bench_print(stdout, &s);
        /* on thread CPU time: wall time also counts the time a shared
         * machine's other processes hold the core */
        double cell = s.cpu_med / cells;
        printf("\n  %-34s %9.3f ms CPU per cell; 32 x 8 = 256 cells at this rate: %.0f ms CPU "
               "(goal <= 1000 ms: %s)\n",
               "", cell, cell * 256, cell * 256 <= 1000 ? "met" : "NOT met");
        bench_tsv(tsv, "heat", name, h->a.g->n_nodes, &s);
    }
    rc = 0;
out:
    app_fini(&h->a);
    draw_canvas_fini(&h->c);
    free(h);
    if (tsv)
        fclose(tsv);
    return rc;
}
