/*
 * json.c - what the JSON reports write alike.
 */
#include "json.h"
#include "str.h"

#include <math.h>
#include <stdlib.h>

#include "banned.h"

void pg_json_hooks(void)
{
    cJSON_Hooks hooks = {pg_malloc, free};

    cJSON_InitHooks(&hooks);
}

char *pg_json_print(cJSON *root, int pretty)
{
    char *text = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);

    cJSON_Delete(root);
    if (!text)
        pg_out_of_memory();
    return text;
}

void pg_json_add_number(cJSON *obj, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(obj, key, v);
    else
        cJSON_AddNullToObject(obj, key);
}
