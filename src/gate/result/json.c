/*
 * json.c - what the JSON reports write alike.
 */
#include "json.h"

#include <math.h>

#include "banned.h"

void pg_json_add_number(cJSON *obj, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(obj, key, v);
    else
        cJSON_AddNullToObject(obj, key);
}
