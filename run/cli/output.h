/*
 * output.h — writing result files (proof.json, public.json) the way
 * rapidsnark's and snarkjs's users expect, without ever leaving half a file.
 *
 * What an output path names decides how it is written:
 * - a regular file, a symlink to one, or a path that does not exist yet (a
 *   dangling symlink names the file to create): written to a temporary file
 *   beside the *real* file, synced, then renamed over it — so the link stays
 *   a link and a failure leaves the old file whole;
 * - a character device or FIFO (/dev/null, a terminal, a pipe): opened and
 *   written directly; a unix socket: connected to and written;
 * - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to that
 *   descriptor of this process, whatever it is (a pipe, a socket, a file the
 *   shell opened);
 * - a directory or a block device: refused.
 * Nothing but a regular file is ever replaced.
 */
#ifndef SLOTPROVE_OUTPUT_H
#define SLOTPROVE_OUTPUT_H

#include <limits.h>
#include <sys/types.h>

#include "err.h"

#define OUTPUT_MAX_FILES 4

enum output_kind {
    OUTPUT_REPLACE = 1, /* temporary file + rename over path */
    OUTPUT_DIRECT,      /* open (or use fd) and write in place */
};

struct output_target {
    const char *name;    /* the path as the user gave it, for messages */
    char path[PATH_MAX]; /* REPLACE: the real file; DIRECT: what to open */
    int kind;            /* enum output_kind */
    int fd;              /* an inherited descriptor to write to, or -1 */
    int exists;          /* dev, ino, mode are set */
    dev_t dev;
    ino_t ino;
    mode_t mode;
};

/* Resolves path into t (see above) without writing anything. Errors, with
 * "path: reason" in e: -ENOENT for a missing directory, -EISDIR, -EACCES when
 * the real file's directory is not writable, -EINVAL for a block device,
 * -ELOOP, -ENAMETOOLONG. */
int output_resolve(const char *path, struct output_target *t, struct sp_err *e);

/* Resolves n (<= OUTPUT_MAX_FILES) paths into t[0..n) and checks that no two
 * are one file — compared by what they resolve to, so out.json, ./out.json
 * and a link to it are one file (a character device named twice is allowed).
 * Returns 0, an error of output_resolve, or -SP_EUSAGE ("A and B are the same
 * file"): callers report that as a usage error before any work. */
int output_check(unsigned n, const char *const *paths, struct output_target *t,
                 struct sp_err *e);

/* output_check of a command's PROOF and PUBLIC, before any work: 0 when both
 * can be written; else prints why on stderr and returns 2 when they are one
 * file (a usage error, "slotprove CMD: …"), 1 otherwise. */
int output_check_args(const char *cmd, const char *proof, const char *pub);

/* Writes text to path as described above. Returns 0, or -errno / -SP_EUSAGE
 * with "path: reason" in e; on failure a replaced file is left as it was. */
int write_output(const char *path, const char *text, struct sp_err *e);

/* Writes n (<= OUTPUT_MAX_FILES) files together after output_check: every
 * temporary file is written and synced, then the direct outputs are written,
 * then the renames happen, so a failure to write any of them (disk full, bad
 * directory) leaves every regular file as it was. */
int write_outputs(unsigned n, const char *const *paths, const char *const *texts,
                  struct sp_err *e);

/* The same with lens[i] bytes of texts[i] (binary outputs: bellperson's
 * proofs); lens NULL: each text up to its NUL. */
int write_outputs_len(unsigned n, const char *const *paths, const char *const *texts,
                      const size_t *lens, struct sp_err *e);

#endif
