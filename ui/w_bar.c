/* w_bar.c - bar meters. */
#include "ui/w_bar.h"

#include <math.h>

enum ui_style w_bar_level(double frac)
{
    if (!(frac < W_BAR_LOW))
        return frac < W_BAR_HIGH ? UI_STYLE_WARN : UI_STYLE_BAD;
    return UI_STYLE_GOOD;
}

void w_bar_draw(struct ui_canvas *c, int y, int x, int w, double frac, enum ui_style fill,
                enum ui_style empty, bool brackets)
{
    if (w < 1)
        return;
    if (brackets && w >= 3) {
        draw_put(c, y, x, '[', UI_STYLE_NORMAL);
        draw_put(c, y, x + w - 1, ']', UI_STYLE_NORMAL);
        x++;
        w -= 2;
    }
    if (!isfinite(frac) || frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    int eighths = (int)lround(frac * w * 8);
    for (int i = 0; i < w; i++) {
        int e = eighths - i * 8;
        if (e >= 8) {
            draw_put(c, y, x + i, c->utf8 ? 0x2588 : '#', fill);
        } else if (e > 0 && c->utf8) {
            /* U+258F (one eighth) .. U+2589 (seven eighths) */
            draw_put(c, y, x + i, 0x2590 - (uint32_t)e, fill);
        } else if (e >= 4) {
            draw_put(c, y, x + i, '#', fill);
        } else {
            draw_put(c, y, x + i, c->utf8 ? 0x2591 : '.', empty);
        }
    }
}
