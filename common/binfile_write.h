/*
 * binfile_write.h — writing the iden3 binary container (see binfile.h for
 * the layout): little-endian integers and complete positioned writes, used
 * by the .zkey and .wtns writers.
 */
#ifndef SLOTPROVE_BINFILE_WRITE_H
#define SLOTPROVE_BINFILE_WRITE_H

#include <stdint.h>

#include "err.h"

static inline void binfile_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void binfile_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* pwrites len bytes at off, all of them (retrying short writes and EINTR).
 * -errno with "path: write at offset N: reason" in e (ENOSPC included). */
int file_pwrite(int fd, const char *path, const void *buf, uint64_t len,
                uint64_t off, struct sp_err *e);

#endif
