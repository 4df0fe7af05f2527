/* gpus.c — the GPUs serve runs gpuds on (see gpus.h). */
#include "gpus.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add(struct gpu_list *g, const char *item, size_t len, struct sp_err *e)
{
    if (len == 0 || len >= GPUS_ID_MAX)
        return sp_fail(e, -EINVAL, "GPU \"%.*s\": expected a device index or UUID", (int)len, item);
    for (size_t i = 0; i < len; i++)
        if (!(item[i] == '-' || (item[i] >= '0' && item[i] <= '9') ||
              (item[i] >= 'a' && item[i] <= 'z') || (item[i] >= 'A' && item[i] <= 'Z')))
            return sp_fail(e, -EINVAL, "GPU \"%.*s\": expected a device index or UUID", (int)len, item);
    if (g->n == GPUS_MAX)
        return sp_fail(e, -EINVAL, "more than %d GPUs", GPUS_MAX);
    memcpy(g->id[g->n], item, len);
    g->id[g->n][len] = 0;
    for (unsigned i = 0; i < g->n; i++)
        if (strcmp(g->id[i], g->id[g->n]) == 0)
            return sp_fail(e, -EINVAL, "GPU %s named twice", g->id[i]);
    g->ptr[g->n] = g->id[g->n];
    g->n++;
    return 0;
}

int gpus_parse(struct gpu_list *g, const char *list, struct sp_err *e)
{
    memset(g, 0, sizeof(*g));
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int rc = add(g, p, len, e);
        if (rc < 0)
            return rc;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

void gpus_visible(struct gpu_list *g)
{
    struct sp_err e;
    memset(g, 0, sizeof(*g));
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    if (env) {
        /* as CUDA reads it: the devices before the first invalid item,
         * which gpus_parse leaves in g when it stops there */
        if (*env)
            gpus_parse(g, env, &e);
        return;
    }
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (!d)
        return;
    unsigned n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.')
            n++;
    closedir(d);
    for (unsigned i = 0; i < n && i < GPUS_MAX; i++) {
        char id[8];
        int len = snprintf(id, sizeof(id), "%u", i);
        add(g, id, (size_t)len, &e);
    }
}
