/* sibling.c — the path of a binary installed beside slotprove (sibling.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sibling.h"

int sibling_path(char *buf, size_t len, const char *name)
{
    const char *dir = getenv("SLOTPROVE_LIBEXEC");
    char self[PATH_MAX];
    if (!dir) {
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n < 0)
            return -errno;
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (!slash)
            return -ENOENT;
        *slash = 0;
        dir = self;
    }
    if ((size_t)snprintf(buf, len, "%s/%s", dir, name) >= len)
        return -ENAMETOOLONG;
    return 0;
}
