/*
 * keys_preload.c — serve --key NAME=PATH (keys_preload.h): a .zkey, or a
 * bellperson pair P.params:C.pce.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "keys.h"
#include "keys_bellperson.h"
#include "keys_preload.h"

int keys_preload(struct key_cache *kc, const char *arg, struct sp_err *e)
{
    const char *eq = strchr(arg, '=');
    char name[JOB_NAME_MAX + 1];
    uint32_t id;
    if (!eq || eq == arg || (size_t)(eq - arg) > JOB_NAME_MAX || !eq[1]) {
        return sp_fail(e, -EINVAL, "--key %s: expected NAME=PATH.zkey", arg);
    }
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = 0;
    int fd = open(eq + 1, O_RDONLY | O_CLOEXEC);
    const char *colon = strrchr(eq + 1, ':');
    if (fd < 0 && errno == ENOENT && colon && colon > eq + 1 && colon[1]) {
        /* NAME=P.params:C.pce, a bellperson key */
        char params[4096];
        snprintf(params, sizeof params, "%.*s", (int)(colon - eq - 1), eq + 1);
        int pfd = open(params, O_RDONLY | O_CLOEXEC);
        if (pfd < 0)
            return sp_fail(e, -errno, "%s: %s", params, strerror(errno));
        int cfd = open(colon + 1, O_RDONLY | O_CLOEXEC);
        if (cfd < 0) {
            int rc = sp_fail(e, -errno, "%s: %s", colon + 1, strerror(errno));
            close(pfd);
            return rc;
        }
        return keys_add_bellperson(kc, pfd, cfd, params, colon + 1, name, 0, 1, &id, e);
    }
    if (fd < 0) {
        return sp_fail(e, -errno, "%s: %s", eq + 1, strerror(errno));
    }
    return keys_add_fd(kc, fd, eq + 1, name, &id, e);
}

