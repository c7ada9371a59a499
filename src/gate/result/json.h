/*
 * json.h - what the JSON reports (result, bisect, history) write alike.
 */
#ifndef PG_JSON_H
#define PG_JSON_H

#include <cjson/cJSON.h>

/*
 * Has cJSON allocate as perfgate does (pg_malloc: out of memory is
 * perfgate's one abort, never a NULL to check); once, at start-up.
 */
void pg_json_hooks(void);

/*
 * `root` as text (indented when `pretty`), a new string, never NULL; and
 * `root` deleted.
 */
char *pg_json_print(cJSON *root, int pretty);

/* `key`: `v`, or null when `v` is not finite (JSON has no NaN). */
void pg_json_add_number(cJSON *obj, const char *key, double v);

#endif
