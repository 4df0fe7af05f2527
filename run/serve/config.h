/*
 * config.h — `serve --config FILE`: options from a file (libinih's INI
 * syntax), one `key = value` per line where key is a long option's name
 * without the dashes (`slots = 8`, `key = chain=/srv/chain.zkey`); an
 * option without an argument takes true/false (also yes/no, on/off, 1/0).
 * Blank lines and lines starting with ';' or '#' are comments; the only
 * section allowed is [serve]. Repeatable options (key, allow-uid) may
 * appear more than once.
 *
 * The file's options are placed before the command line's, so a flag on
 * the command line overrides the file (a repeatable one adds to it).
 */
#ifndef SLOTPROVE_CONFIG_H
#define SLOTPROVE_CONFIG_H

#include <getopt.h>

#include "err.h"

#define CONFIG_MAX_BYTES (1 << 20) /* 1 MiB: a config file is a few lines */

struct config_args {
    int argc;
    char **argv;          /* argv[0], the file's options, then the command line's */
    const char **origin;  /* origin[i]: "FILE:LINE" of argv[i], NULL for the command line */
};

/* Takes --config FILE (or --config=FILE; at most once) out of argv and
 * returns in *out an argv with FILE's options in front, checked against
 * opts (getopt_long's table: unknown names and missing or unexpected
 * values are errors). 0 without --config too (out is then a copy). On a
 * bad file -EINVAL (or -errno when it cannot be read) and e names
 * FILE:LINE and the reason. FILE must be a regular file of at most
 * CONFIG_MAX_BYTES: anything else (a FIFO, a device such as /dev/zero, a
 * directory) is -EINVAL, a larger file -EFBIG, each naming FILE and the
 * reason; neither is opened for long or read past the limit. The result is
 * malloc'd and kept for the life of the process (the options point into
 * it). */
int config_args(int argc, char **argv, const struct option *opts, struct config_args *out,
                struct sp_err *e);

#endif
