/*
 * progress.c - how far a comparison has come (progress.h).
 */
#include "progress.h"
#include "str.h"
#include "clock.h"
#include "units.h"

#include "banned.h"

double pg_progress_left(double spent, size_t done, size_t count, double current)
{
    double each;

    if (!done || done >= count)
        return 0;
    each = spent / (double)done;
    return each * (double)(count - done - 1) +
           (current < each ? each - current : 0);
}

void pg_progress_say(const pg_progress *p, const char *what, int64_t now)
{
    pg_str line = PG_STR_INIT;

    if (!p->on_line)
        return;
    if (p->bench)
        pg_str_printf(&line, "[%zu/%zu] %s: ", p->index + 1, p->count,
                      p->bench);
    pg_str_puts(&line, what);
    if (p->bench && p->count > 1 && p->index > 0) {
        double spent = (double)(p->bench_start - p->loop_start) / 1e9;
        double current = (double)(now - p->bench_start) / 1e9;
        pg_str_printf(&line, " · %zu measured", p->measured);
        if (p->skipped)
            pg_str_printf(&line, ", %zu not affected", p->skipped);
        pg_str_puts(&line, " · about ");
        pg_format_seconds(&line,
                          pg_progress_left(spent, p->index, p->count, current));
        pg_str_puts(&line, " left");
    }
    p->on_line(p->payload, pg_str_cstr(&line));
    pg_str_clear(&line);
}

void pg_progress_sayf(const pg_progress *p, const char *fmt, ...)
{
    pg_str what = PG_STR_INIT;
    va_list ap;

    if (!p || !p->on_line)
        return;
    va_start(ap, fmt);
    pg_str_vprintf(&what, fmt, ap);
    va_end(ap);
    pg_progress_say(p, pg_str_cstr(&what), pg_now_ns());
    pg_str_clear(&what);
}
