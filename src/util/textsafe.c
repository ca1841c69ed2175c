/* textsafe.c - printing names from input files without letting them drive the
 * terminal or a spreadsheet. */
#include "util/textsafe.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s that is not a C1 control, or 0. */
static int utf8_ok(const unsigned char *s)
{
    int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (n == 0 || s[0] > 0xF4)
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (n == 2 && s[0] == 0xC2 && s[1] < 0xA0) /* U+0080..U+009F: C1 controls */
        return 0;
    if (n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
        return 0; /* overlong, surrogate */
    if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)))
        return 0;
    return n;
}

static bool is_ctl(unsigned char c, bool keep_newlines)
{
    if (keep_newlines && (c == '\n' || c == '\t'))
        return false;
    return c < 0x20 || c == 0x7F;
}

bool text_is_safe(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x80) {
            if (is_ctl(*p, false))
                return false;
            p++;
        } else {
            int n = utf8_ok(p);
            if (!n)
                return false;
            p += n;
        }
    }
    return true;
}

void text_sanitize(char *dst, size_t size, const char *s, bool keep_newlines)
{
    static const char hex[] = "0123456789abcdef";
    if (!size)
        return;
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    while (*p) {
        int n = *p < 0x80 ? (is_ctl(*p, keep_newlines) ? 0 : 1) : utf8_ok(p);
        if (n) {
            if (o + (size_t)n >= size)
                break;
            memcpy(dst + o, p, (size_t)n);
            o += (size_t)n;
            p += n;
        } else {
            if (o + 4 >= size)
                break;
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[*p >> 4];
            dst[o++] = hex[*p & 15];
            p++;
        }
    }
    dst[o] = 0;
}

const char *tsafe(const char *s)
{
    static char bufs[8][512];
    static unsigned next;
    if (!s || text_is_safe(s))
        return s;
    char *b = bufs[next++ % 8];
    text_sanitize(b, sizeof bufs[0], s, false);
    return b;
}

void csv_cell(FILE *f, const char *s)
{
    char buf[4096];
    text_sanitize(buf, sizeof buf, s, false);
    bool formula = strchr("=+-@", buf[0]) && buf[0];
    bool quote = formula || strpbrk(buf, ",\"\n\r") != NULL;
    if (quote)
        fputc('"', f);
    if (formula)
        fputc('\'', f);
    for (const char *p = buf; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    if (quote)
        fputc('"', f);
}
