/*
 * settings.c - the settings a comparison has before the config and the
 * flags say otherwise.
 */
#include "settings.h"
#include "env.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

void pg_settings_defaults(pg_settings *out)
{
    memset(out, 0, sizeof(*out));
    if (pg_env_github_actions()) {
        out->noise_floor = 0.10;
        out->floor_source = PG_FLOOR_GITHUB_ACTIONS;
    } else {
        out->noise_floor = 0.05;
        out->floor_source = PG_FLOOR_DEFAULT;
    }
    out->max_time = 10.0;
    out->min_rounds = 5;
    out->timeout = 60.0;
    out->count_floor = 0.01;
    out->memory_floor = 0.05;
}

const char *pg_memory_mode_name(int mode)
{
    return mode == PG_MEMORY_GATE  ? "gate"
           : mode == PG_MEMORY_OFF ? "off"
                                   : "report";
}

int pg_memory_mode_parse(const char *name)
{
    int m;

    for (m = PG_MEMORY_REPORT; m <= PG_MEMORY_OFF; m++)
        if (!strcmp(name, pg_memory_mode_name(m)))
            return m;
    return -1;
}

const char *pg_path_check_name(int mode)
{
    return mode == PG_PATH_GATE ? "gate" : mode == PG_PATH_OFF ? "off" : "warn";
}

int pg_path_check_parse(const char *name)
{
    int m;

    for (m = PG_PATH_WARN; m <= PG_PATH_OFF; m++)
        if (!strcmp(name, pg_path_check_name(m)))
            return m;
    return -1;
}

const char *pg_suite_kind_name(pg_suite_kind kind)
{
    return kind == PG_SUITE_NVBENCH ? "nvbench" : "google-benchmark";
}

int pg_suite_kind_parse(const char *name)
{
    int k;

    for (k = PG_SUITE_GBENCH; k <= PG_SUITE_NVBENCH; k++)
        if (!strcmp(name, pg_suite_kind_name((pg_suite_kind)k)))
            return k;
    return -1;
}
