/* sibling.h — where the helper binaries are: beside the running executable.
 * Used by the supervisor (synthd, gpud) and keygen (its GPU helper). */
#ifndef SLOTPROVE_SIBLING_H
#define SLOTPROVE_SIBLING_H

#include <stddef.h>

/* Path of a sibling binary of the running executable into buf (len bytes):
 * dir(/proc/self/exe)/name, or $SLOTPROVE_LIBEXEC/name when set. 0, or
 * -errno (readlink's, -ENAMETOOLONG when it does not fit). */
int sibling_path(char *buf, size_t len, const char *name);

#endif
