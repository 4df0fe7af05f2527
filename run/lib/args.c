/* args.c — see args.h. */
#include "args.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int parse_count(const char *s, unsigned long min, unsigned long max, unsigned *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = (unsigned)v;
    return 0;
}

uint64_t parse_size(const char *s)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    }
    if (shift && (*end == 'i' || *end == 'I'))
        end++;
    if (shift && (*end == 'b' || *end == 'B'))
        end++;
    if (*end || (shift && v > (~0ull >> shift)))
        return 0;
    return (uint64_t)v << shift;
}

int open_input(const char *path, struct sp_err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        return sp_fail(e, -err, "%s: %s", path, strerror(err));
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return sp_fail(e, -EINVAL, "%s: not a regular file", path);
    }
    return fd;
}

int backend_name_ok(const char *s)
{
    return strcmp(s, "auto") == 0 || strcmp(s, "cpu") == 0 || strcmp(s, "cuda") == 0;
}

int backend_arg_check(const char *cmd, const char *s)
{
    if (!backend_name_ok(s)) {
        fprintf(stderr, "%s: --backend %s: must be auto, cpu or cuda\n", cmd, s);
        return 2;
    }
#ifndef SLOTPROVE_CUDA_BUILT
    if (strcmp(s, "cuda") == 0) {
        fprintf(stderr, "%s: --backend cuda: this build has no CUDA backend "
                        "(nvcc was not found when it was built)\n", cmd);
        return 2;
    }
#endif
    return 0;
}
