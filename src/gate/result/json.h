/*
 * json.h - what the JSON reports (result, bisect, history) write alike.
 */
#ifndef PG_JSON_H
#define PG_JSON_H

#include <cjson/cJSON.h>

/* `key`: `v`, or null when `v` is not finite (JSON has no NaN). */
void pg_json_add_number(cJSON *obj, const char *key, double v);

#endif
