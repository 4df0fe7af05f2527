/*
 * escape.h — making text that may hold client-supplied strings (file names,
 * key names) safe for one log line or one message.
 *
 * A file name may contain any byte but '/' and NUL, so a witness called
 * "w.wtns\nslotprove serve[1]: job … done" would write a forged line into
 * the daemon's log, and an ESC sequence would drive the reader's terminal.
 * Every control byte (0x00..0x1f, 0x7f) is written as \n, \r, \t or \xNN;
 * everything else, UTF-8 included, is kept.
 */
#ifndef SLOTPROVE_ESCAPE_H
#define SLOTPROVE_ESCAPE_H

#include <stddef.h>

/* Escapes src into dst (cap bytes, cap >= 1), always NUL-terminated; output
 * that does not fit is cut at a whole escape. Returns the bytes written. */
size_t escape_ctl(char *dst, size_t cap, const char *src);

/* escape_ctl in place on a NUL-terminated buffer of cap bytes. */
void escape_ctl_inplace(char *buf, size_t cap);

#endif
