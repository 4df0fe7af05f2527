/* witness_serve.h — `serve`'s witness-program options (witness_serve.c;
 * input jobs: run/sup/witness_job.h). */
#ifndef SLOTPROVE_WITNESS_SERVE_H
#define SLOTPROVE_WITNESS_SERVE_H

#include "core_state.h"
#include "err.h"

/* serve's options: --witness-program NAME=PROGRAM (repeatable; NAME a
 * --key), --witness-mem SIZE, --witness-cpu S, --witness-time S.
 * witness_serve_opt takes one (opt 'W', 'E', 'U', 'L' and its argument):
 * 0, or -1 after a message on stderr (exit 2). */
int witness_serve_opt(int opt, const char *arg);
/* After the keys are preloaded: opens each program and gives it to its key,
 * and exports the limits (defaults where not given); asks whether witness
 * programs can be boxed here (sandbox_check.h): if not, refuses with
 * --witness-program (-EPERM, the missing feature in e), else notes the
 * reason in c->no_sandbox, which refuses input jobs. 0, or a negative code
 * with the reason in e. */
int witness_serve_setup(struct core *c, struct sp_err *e);
/* After witness_serve_setup: the names of the keys given a program (for
 * serve --http's circuits), *n of them; the array lives as long as serve. */
const char *const *witness_serve_names(unsigned *n);
/* The help text's lines for these options. */
extern const char witness_serve_help[];

#endif
