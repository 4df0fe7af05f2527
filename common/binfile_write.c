/* binfile_write.c — see binfile_write.h. */
#include "binfile_write.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int file_pwrite(int fd, const char *path, const void *buf, uint64_t len,
                uint64_t off, struct sp_err *e)
{
    const uint8_t *p = buf;
    while (len > 0) {
        size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
        ssize_t put = pwrite(fd, p, chunk, (off_t)off);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            int err = errno;
            return sp_fail(e, -err, "%s: write at offset %llu: %s", path,
                           (unsigned long long)off, strerror(err));
        }
        if (put == 0)
            return sp_fail(e, -EIO, "%s: write at offset %llu wrote nothing", path,
                           (unsigned long long)off);
        p += put;
        off += (uint64_t)put;
        len -= (uint64_t)put;
    }
    return 0;
}
