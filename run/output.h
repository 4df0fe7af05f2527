/* output.h — writing result files (proof.json, public.json) atomically. */
#ifndef SLOTPROVE_OUTPUT_H
#define SLOTPROVE_OUTPUT_H

#include "err.h"

#define OUTPUT_MAX_FILES 4

/* Writes text to path atomically: path.tmp.PID, fsync, rename. On failure
 * the temporary file is removed and path is left as it was. Returns 0, or
 * -errno with "path: reason" in e. */
int write_output(const char *path, const char *text, struct sp_err *e);

/* Writes n (<= OUTPUT_MAX_FILES) files together: every temporary file is
 * written and synced before the first rename, so a failure to write any of
 * them (disk full, bad directory) leaves all n paths as they were. */
int write_outputs(unsigned n, const char *const *paths, const char *const *texts,
                  struct sp_err *e);

#endif
