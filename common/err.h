/*
 * err.h — error reporting convention.
 *
 * Functions return 0 on success or a negative code: -errno for system
 * failures, or one of the SP_E* codes below for bad input. Alongside, they
 * write a human message into a caller-provided `struct sp_err` that names the
 * file and the reason ("witness.wtns: nWitness 4139 != the key's nVars 4140").
 * Nothing below main() exits or asserts on user input.
 */
#ifndef SLOTPROVE_ERR_H
#define SLOTPROVE_ERR_H

#include <stdarg.h>
#include <stddef.h>

enum {
    SP_EFORMAT = 1000,  /* malformed or truncated file */
    SP_EUNSUPPORTED,    /* valid file we do not handle (PLONK key, unknown curve) */
    SP_EMISMATCH,       /* two inputs disagree (curve, sizes) */
    SP_ERANGE,          /* a value out of its field or an absurd size */
    SP_EINTERNAL,       /* a broken invariant inside slotprove */
    SP_EUSAGE,          /* arguments that contradict each other (exit 2) */
    SP_EVERIFY,         /* a proof that fails verification */
    SP_EDEVICE,         /* the GPU failed this attempt (not the input's fault): retry */
    SP_ESLOTSIZE,       /* a key needs larger shared-memory slots than the pool's: the
                         * pool's size, not the input, is at fault (job cause slot_size) */
};

#define SP_ERR_MSG 512

struct sp_err {
    char msg[SP_ERR_MSG];
};

/* Formats msg into e (when e is non-NULL) and returns code (negative).
 * Control bytes in the result are escaped (escape.h): a message can name a
 * client's file and still be one line. */
int sp_fail(struct sp_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Short name of a code: "format", "unsupported", or strerror for -errno. */
const char *sp_code_name(int code);

#endif
