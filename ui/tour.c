/* tour.c - the teaching tour: steps as command lists plus explanations. */
#include "ui/tour.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/commands.h"
#include "util/fmt.h"
#include "ui/keymap.h"

struct step {
    const char *title;
    const char *cmds; /* ';'-separated `:` commands */
    const char *text;
    /* a sentence on the figures the screen shows after the commands, into
     * buf (NULL: none): a fixed text could say what they do not show */
    void (*say)(const struct app *a, char *buf, int size);
    bool box_top; /* the box over the top of the body: the step's target is low on it */
};

/* The GNN's latency against the teacher's, as the prediction line shows
 * both. */
static void say_gnn_teacher(const struct app *a, char *buf, int size)
{
    char g[32], t[32], d[32];
    if (!a->have_pred)
        return;
    fmt_ms(a->pred.sim.latency_ms, t, sizeof t);
    if (app_teacher_only(a)) {
        snprintf(buf, (size_t)size, "Without GNN weights every figure is the teacher's (%s).", t);
        return;
    }
    fmt_ms(a->pred.latency_ms, g, sizeof g);
    fmt_delta(a->pred.latency_ms, a->pred.sim.latency_ms, d, sizeof d);
    snprintf(buf, (size_t)size,
             "The prediction line has the GNN's %s beside the teacher's %s (%s): the shipped GNN "
             "learned from the teacher's labels, so the two rarely part (About, 7, compares "
             "both with measurements).",
             g, t, d);
}

/* Every step replays from step 0, so each one's commands may rely on the
 * earlier ones (the model, the batch) and going back is exact. */
static const struct step steps[] = {
    {"Welcome",
     "open zoo:resnet:depth=18; gpu a100; quant none; precision fp32; runtime pytorch; batch 1; "
     "slo 0; filter; sort # asc; tab layers",
     "This is ResNet-18, an image classifier, on an NVIDIA A100. Line 1 names the model and its "
     "size: nodes (layers), parameters (weights) and MACs. Line 2 is the configuration you can "
     "change. Then the predicted latency, throughput, energy and memory, and the MIG advice. The "
     "table lists every layer. All figures are predictions, not measurements. "
     "n: next step, N: back, Esc: leave the tour.",
     NULL, false},
    {"What a MAC is", "goto layer1.0.conv1; tab detail",
     "A MAC is one multiply-accumulate, a = a + x * w: the unit of work of convolutions and matrix "
     "products (1 MAC = 2 FLOPs). This 3x3 convolution makes 64 output channels of 56x56 pixels; "
     "each output value sums 64 input channels x 3 x 3 products. The formula above multiplies it "
     "out; line 1 shows the total for the whole network.",
     NULL, false},
    {"Where the time goes", "tab layers; sort time desc",
     "The table is now sorted by predicted time share, biggest first: the bars show which layers "
     "take the time. Convolutions with many MACs lead, but look at how many small layers follow: "
     "each one is a separate kernel the GPU has to launch.",
     NULL, false},
    {"Compute-bound or memory-bound: the roofline", "goto layer1.0.bn1; tab detail",
     "A GPU computes far faster than it moves data. A layer's FLOPs per byte moved (its "
     "intensity) decide its limit: below the GPU's ridge point memory, above it compute. This "
     "batch norm does a couple of FLOPs per element it moves: the chart marks it under the "
     "slanted memory roof, far below the flat compute peak.",
     NULL, true},
    {"Launch overhead", "tab layers; sort bound asc",
     "At batch 1 many layers are so small that the fixed cost of launching a kernel (a few "
     "microseconds each) is larger than their work: the Bound column (the last; Right scrolls to "
     "it on a narrow window) says overhead. That is why the latency is well above the roofline "
     "floor.",
     NULL, false},
    {"Why batch helps", "batch 32; sort time desc",
     "Batch 32 processes 32 images at once. Each kernel now has 32 times the work but is launched "
     "once, so the latency grows much less than 32 times and the throughput (images per second) "
     "rises. The line above says by how much.",
     NULL, false},
    {"...until it does not", "tab sweep",
     "Latency against batch 1 to 1024 on log axes. While launch overhead dominates the curve is "
     "flat; once the GPU is busy (compute-bound) latency grows in step with the batch and the "
     "throughput stops rising, while memory keeps growing. m switches the chart to throughput "
     "and memory.",
     NULL, false},
    {"Precision", "precision fp16; tab layers",
     "fp16 halves the bytes of weights and activations and runs matrix work on tensor cores, "
     "which are many times faster than the fp32 units. Compute-bound layers gain most; "
     "memory-bound ones about 2x from the smaller data.",
     NULL, false},
    {"Fusing kernels", "runtime tensorrt",
     "An inference engine such as TensorRT fuses a convolution with the batch norm and ReLU after "
     "it into one kernel: fewer launches and fewer trips to memory. Layers folded into another "
     "say fused in the Bound column (Right on a narrow window). The memory still rises: the "
     "engine's runtime context (ctx on the memory line: its kernels and libraries) is larger "
     "than PyTorch's, by more than fusion saves in activations.",
     NULL, false},
    {"A MIG slice", "mig 2g.10gb",
     "Multi-Instance GPU splits an A100 into up to seven isolated slices. A 2g.10gb slice has 2 "
     "of the 7 compute slices, a quarter of the memory bandwidth and 10 GB: the model runs "
     "slower, but several jobs can share one GPU safely. The memory bar now measures against the "
     "slice; the MIG line names the smallest slice that holds the model.",
     NULL, false},
    {"Transformers and sequence length",
     "open zoo:gpt; mig full; precision fp16; runtime pytorch; batch 1; set seq=128; "
     "tab layers; sort time desc",
     "GPT-2, a decoder reading 128 tokens. Its cost grows with the sequence length: the linear "
     "layers linearly, attention's score matrices quadratically. The largest share of the "
     "time is in the matrix products (MatMul; o shows the time by op type).",
     NULL, false},
    {"Longer sequences", "set seq=1024",
     "Eight times the tokens: line 1 shows about nine times the MACs, eight times in the linear "
     "layers and 64 times in attention's score products. Whether the latency follows depends on "
     "how busy the GPU already was: at batch 1 much of the time is launch overhead, which does "
     "not grow with the tokens. A decoder's memory line is its generation's (the prompt and "
     "output tokens of the Generation line, :set input_tokens=N), which the length of this one "
     "pass does not change.",
     say_gnn_teacher, false},
    {"Your turn", "tab setup",
     "Change anything here with Left/Right or Enter. P pins a configuration and 8 opens the "
     "Compare tab to put pins side by side; u undoes a change, U redoes it; :w NAME saves a "
     "session. Esc ends the tour and restores what you had; :tour starts it again.",
     NULL, false},
};
#define N_STEPS ((int)(sizeof steps / sizeof steps[0]))

int tour_step_count(void)
{
    return N_STEPS;
}

const char *tour_step_title(int k)
{
    return k >= 0 && k < N_STEPS ? steps[k].title : NULL;
}

/* Runs one step's commands; the first error goes into t->note. */
static void run_step(struct tour *t, struct app *a, int k)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", steps[k].cmds);
    for (char *p = buf; p && *p;) {
        char *semi = strchr(p, ';');
        if (semi)
            *semi = 0;
        struct cmd_out out;
        struct diag d = {0};
        if (cmd_execute(a, p, &out, &d) != ST_OK && !t->note[0])
            snprintf(t->note, sizeof t->note, "this step could not run '%.100s': %.300s", p,
                     d.msg);
        p = semi ? semi + 1 : NULL;
    }
}

static void record(struct tour *t, const struct app *a)
{
    t->prev_latency = a->have_pred ? a->pred.latency_ms : NAN;
    t->prev_tput = a->have_pred ? a->pred.throughput : NAN;
    t->prev_mem = a->have_pred ? app_memory_shown_mib(a) : NAN;
    t->prev_macs = a->g ? a->g->totals.macs : NAN;
}

static int change(char *buf, int size, const char *what, const char *from, const char *to,
                  double old, double now)
{
    char d[32];
    if (old == now || !isfinite(old) || !isfinite(now))
        return 0;
    fmt_delta(now, old, d, sizeof d);
    return snprintf(buf, (size_t)size, "%s %s -> %s (%s); ", what, from, to, d);
}

static void describe_changes(struct tour *t, const struct app *a)
{
    if (t->note[0] || !a->have_pred)
        return;
    char f[32], g[32];
    int len = 0, n;
    char *b = t->note;
    int sz = (int)sizeof t->note;
    n = change(b + len, sz - len, "latency", fmt_ms(t->prev_latency, f, sizeof f),
               fmt_ms(a->pred.latency_ms, g, sizeof g), t->prev_latency, a->pred.latency_ms);
    len += n;
    char f2[48], g2[48];
    fmt_rate(t->prev_tput, f2, sizeof f2);
    fmt_rate(a->pred.throughput, g2, sizeof g2);
    len += change(b + len, sz - len, "throughput", f2, g2, t->prev_tput, a->pred.throughput);
    double mem = app_memory_shown_mib(a); /* the bar's figure, not another one */
    len += change(b + len, sz - len, "memory", fmt_bytes(t->prev_mem * 1048576.0, f, sizeof f),
                  fmt_bytes(mem * 1048576.0, g, sizeof g), t->prev_mem, mem);
    if (len > 2 && len < sz)
        b[len - 2] = 0;
    if (!len)
        snprintf(b, (size_t)sz, "the figures did not change in this step");
}

void tour_goto(struct tour *t, struct app *a, int k)
{
    if (k < 0)
        k = 0;
    if (k >= N_STEPS)
        k = N_STEPS - 1;
    t->step = k;
    t->note[0] = 0;
    for (int i = 0; i < k; i++)
        run_step(t, a, i);
    t->note[0] = 0; /* earlier steps' trouble shows on those steps */
    app_update_mig(a); /* the figures shown after a redraw: a decoder's generation too */
    record(t, a);
    run_step(t, a, k);
    app_update_mig(a);
    if (k > 0)
        describe_changes(t, a);
    t->said[0] = 0;
    if (steps[k].say)
        steps[k].say(a, t->said, (int)sizeof t->said);
    ui_state_message(&a->st, false, "tour %d/%d: %s", k + 1, N_STEPS, steps[k].title);
}

void tour_start(struct tour *t, struct app *a)
{
    memset(t, 0, sizeof *t);
    app_whatif_get(a, &t->before);
    t->active = true;
    tour_goto(t, a, 0);
}

void tour_stop(struct tour *t, struct app *a)
{
    struct diag d = {0};
    t->active = false;
    if (app_whatif_apply(a, &t->before, &d))
        ui_state_message(&a->st, true, "tour ended; the earlier state could not be restored: %s",
                         d.msg);
    else
        ui_state_message(&a->st, false, "tour ended; back to %s", a->spec);
}

bool tour_key(struct tour *t, struct app *a, int key)
{
    if (key == 'n') {
        if (t->step + 1 < N_STEPS)
            tour_goto(t, a, t->step + 1);
        else
            ui_state_message(&a->st, false, "that was the last step: Esc ends the tour");
        return true;
    }
    if (key == 'N') {
        tour_goto(t, a, t->step - 1);
        return true;
    }
    if (key == UI_KEY_ESC) {
        tour_stop(t, a);
        return true;
    }
    return false;
}

void tour_draw(const struct tour *t, const struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    (void)a;
    /* the lower part of the body, as tall as the text needs (estimated from
     * its length; word wrap loses a little per line), leaving the top three
     * rows of the screen visible */
    char text[1600];
    snprintf(text, sizeof text, "%s%s%s", steps[t->step].text, t->said[0] ? " " : "", t->said);
    int tw = r.w - 4 > 10 ? r.w - 4 : 10;
    int need = (draw_strwidth(text) * 6 / 5) / tw + 1 +
               (t->note[0] ? (draw_strwidth(t->note) * 6 / 5) / tw + 1 : 0) + 2;
    int h = need < 6 ? 6 : need;
    if (h > r.h - 3)
        h = r.h - 3;
    if (h < 4)
        h = r.h < 4 ? r.h : 4;
    struct ui_rect b = {steps[t->step].box_top ? r.y : r.y + r.h - h, r.x, h, r.w};
    draw_clear(c, b, UI_STYLE_NORMAL);
    char title[160];
    snprintf(title, sizeof title, " Tour %d/%d: %s ", t->step + 1, N_STEPS, steps[t->step].title);
    draw_box(c, b, UI_STYLE_TITLE, title);
    struct ui_rect in = {b.y + 1, b.x + 2, b.h - 2, b.w - 4};
    if (in.h < 1 || in.w < 10)
        return;
    int used = 0;
    if (t->note[0] && in.h > 2) {
        used = draw_text_wrap(c, in.y, in.x, in.w, 2, UI_STYLE_VALUE, t->note);
    }
    draw_text_wrap(c, in.y + used, in.x, in.w, in.h - used, UI_STYLE_NORMAL, text);
    const char *keys = " n next  N back  Esc leave ";
    int kw = draw_strwidth(keys);
    if (kw + 4 < b.w)
        draw_text(c, b.y + b.h - 1, b.x + b.w - kw - 2, kw, UI_STYLE_DIM, keys);
}
