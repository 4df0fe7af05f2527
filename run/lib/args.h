/* args.h — command-line arguments: numbers parsed strictly (junk, signs
 * and out-of-range values are errors, never silently 0) and input files
 * opened safely. */
#ifndef SLOTPROVE_ARGS_H
#define SLOTPROVE_ARGS_H

#include <stdint.h>

#include "err.h"

/* A decimal integer in [min, max]; 0, or -1 if s is not one. */
int parse_count(const char *s, unsigned long min, unsigned long max, unsigned *out);

/* A byte size: digits with an optional K/M/G/T suffix (powers of 1024,
 * "KiB"/"MB" spellings accepted), > 0; 0 if s is not one. */
uint64_t parse_size(const char *s);

/* 1 if s names a prover backend (--backend): auto, cpu or cuda; else 0. */
int backend_name_ok(const char *s);

/* A command's --backend value (cmd: "slotprove prove", for the message):
 * auto, cpu or cuda, and cuda only where this build has the CUDA backend.
 * 0, or 2 (the usage error's exit status) with the reason on stderr. */
int backend_arg_check(const char *cmd, const char *s);

/* Opens a user-named input read-only (O_CLOEXEC); regular files only.
 * Returns the fd, or -errno with "path: reason" in e. */
int open_input(const char *path, struct sp_err *e);

#endif
