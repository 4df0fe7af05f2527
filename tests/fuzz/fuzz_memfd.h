/*
 * fuzz_memfd.h — the fuzz targets' one input-to-file step: the fuzzer's bytes
 * in a new memfd (offset at the end; readers map it or open it again through
 * /proc/self/fd/N). Returns the descriptor, which the caller closes; aborts
 * (a harness failure, not a finding) when the memfd cannot be made.
 */
#ifndef SLOTPROVE_FUZZ_MEMFD_H
#define SLOTPROVE_FUZZ_MEMFD_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int fuzz_memfd(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    for (size_t off = 0; off < size;) {
        ssize_t n = write(fd, data + off, size - off);
        if (n <= 0)
            abort();
        off += (size_t)n;
    }
    return fd;
}

#endif
