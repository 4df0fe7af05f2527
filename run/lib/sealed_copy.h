/*
 * sealed_copy.h — a client's file copied into a sealed memfd, under a size
 * limit: what a job keeps of a file it did not make (a client key, an
 * input, a witness program and its companions). The client keeps its own
 * file and could truncate it (every process mapping it would take SIGBUS)
 * or rewrite it after it was checked; the copy can do neither.
 */
#ifndef SLOTPROVE_SEALED_COPY_H
#define SLOTPROVE_SEALED_COPY_H

#include <stdint.h>

#include "err.h"

/* What is copied, for the limit and the messages. */
struct sealed_copy_kind {
    const char *what;   /* "a client key", "an input": the memfd's name, and messages' */
    uint64_t max_bytes; /* the largest file copied, bytes */
    int too_big;        /* the code for a larger file: -EFBIG, -SP_ERANGE */
    const char *limit;  /* max_bytes as that message names it: "--max-job-key" */
    const char *advice; /* appended to that message ("; preload ..."), or "" */
};

/*
 * Copies the regular file on fd (read from offset 0 to its end; fd's own
 * offset is left alone, and fd stays the caller's) into a new memfd sealed
 * against writing, shrinking and growing (F_SEAL_WRITE | F_SEAL_SHRINK |
 * F_SEAL_GROW | F_SEAL_SEAL). The memfd (CLOEXEC), or a negative code with
 * "name: reason" in e and nothing left open:
 *   -EINVAL      not a regular file (a directory, a FIFO, a symbolic link
 *                opened with O_PATH | O_NOFOLLOW, ...);
 *   k->too_big   more than k->max_bytes bytes, by fstat or (a file growing
 *                while it is read) by the bytes read;
 *   -SP_EFORMAT  empty, or shorter at its end than fstat said (it shrank);
 *   -errno       fstat, memfd_create, the copy or the seals.
 * Any thread.
 */
int sealed_copy(int fd, const char *name, const struct sealed_copy_kind *k, struct sp_err *e);

#endif
