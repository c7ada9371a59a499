/*
 * child.c - how the measuring child speaks to perfgate and marks its calls
 * into user code (child.h).
 */
#include "child.h"
#include "clock.h"
#include "proc.h"
#include "protocol.h"
#include "str.h"

#include <stdarg.h>

#include "banned.h"

const char *const pg_child_side_names[2] = {"base", "head"};

void pg_child_send(child_ctx *ctx, const char *fmt, ...)
{
    pg_str s = PG_STR_INIT;
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(&s, fmt, ap);
    va_end(ap);
    pg_proc_send(ctx->fd, ctx->spec->token, "%s", pg_str_cstr(&s));
    pg_str_clear(&s);
}

int pg_child_fail(child_ctx *ctx, const char *status, int side, const char *fmt,
                  ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    pg_child_send(ctx, PG_EV_FAIL_FMT, status,
                  side < 0 ? "-" : pg_child_side_names[side],
                  pg_str_cstr(&msg));
    pg_str_clear(&msg);
    return REPORTED;
}

void pg_child_trace(child_ctx *ctx, const char *fmt, ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;

    if (!ctx->spec->verbose)
        return;
    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    pg_child_send(ctx, PG_EV_TRACE_FMT, pg_str_cstr(&msg));
    pg_str_clear(&msg);
}

void pg_child_calling(child_ctx *ctx, pg_call call, int side, size_t index)
{
    pg_watch_call(ctx->watch, call, index == (size_t)-1 ? -1 : (int)index);
    pg_watch_enter(ctx->watch, side);
}

void pg_child_called_out(child_ctx *ctx)
{
    pg_watch_leave(ctx->watch);
    pg_watch_call(ctx->watch, PG_CALL_NONE, -1);
}

void pg_child_on_round(void *payload, int round, double elapsed)
{
    child_ctx *ctx = payload;
    int64_t now = pg_now_ns();

    if (now - ctx->last_progress < 100000000)
        return;
    ctx->last_progress = now;
    pg_child_send(ctx, PG_EV_PROGRESS_FMT, "measuring", round, elapsed);
}
