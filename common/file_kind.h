/*
 * file_kind.h — what a file is, in words, for messages that name a path
 * which should have been something else ("a regular file, not a socket").
 */
#ifndef SLOTPROVE_FILE_KIND_H
#define SLOTPROVE_FILE_KIND_H

#include <sys/types.h>

/* st_mode (from stat/lstat) -> "a regular file", "a directory", "a socket",
 * "a FIFO", "a character device", "a block device", "a symbolic link" or
 * "an unknown kind of file". A static string. */
const char *file_kind(mode_t mode);

#endif
