/*
 * keygen_out.h — keygen's output files: each written as an unnamed
 * temporary in DIR (O_TMPFILE; a named ".NAME.tmp.PID" one where the
 * filesystem has none) and linked into place only when all are complete
 * and synced, so a failed or killed run leaves no partial file (a named
 * temporary of a killed run excepted).
 *
 *   out_open(f, dir, name, e)     the temporary for DIR/NAME; 0 or -errno
 *   out_reserve(f, size, e)       fallocate + ftruncate to size bytes
 *   out_text(f, text, e)          the whole file is text
 *   out_commit(f, n, dir, e)      fsync all n, then link/rename each to
 *                                 its name, then fsync DIR
 *   out_close(f, n)               closes; removes temporaries not committed
 * Errors name the file: "DIR/NAME: reason" in e.
 */
#ifndef SLOTPROVE_KEYGEN_OUT_H
#define SLOTPROVE_KEYGEN_OUT_H

#include <stdint.h>

#include "err.h"

struct out_file {
    int fd;
    int named;              /* a named temporary (no O_TMPFILE) */
    char path[4096];        /* DIR/NAME */
    char tmp[4096];         /* DIR/.NAME.tmp.PID */
};

int out_open(struct out_file *f, const char *dir, const char *name, struct sp_err *e);
int out_reserve(struct out_file *f, uint64_t size, struct sp_err *e);
int out_text(struct out_file *f, const char *text, struct sp_err *e);
int out_commit(struct out_file *f, unsigned n, const char *dir, struct sp_err *e);
void out_close(struct out_file *f, unsigned n);

#endif
