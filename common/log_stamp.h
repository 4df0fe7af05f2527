/*
 * log_stamp.h — what every line of the daemon's stderr starts with, for the
 * supervisor's lines (run/lib/log.h) and its children's (synthd, gpud):
 *
 *   "2026-12-07T23:45:01.123Z level=notice WHO: text"
 *
 * the time RFC 3339 in UTC with milliseconds, the level syslog's name of
 * the journal priority the line would have (notice 5, warning 4, error 3).
 * When stderr is the journal (journal.h) a line starts "<N>" instead: the
 * journal keeps the time itself. Without stamping (`slotprove prove`,
 * whose stderr is its progress display) a line is the text alone.
 */
#ifndef SLOTPROVE_LOG_STAMP_H
#define SLOTPROVE_LOG_STAMP_H

#include <stddef.h>

enum log_level { LOG_NOTE, LOG_WARN, LOG_ERR };

/* The current time as "2026-12-07T23:45:01.123Z" into ts (cap >= 25). */
void log_stamp_time(char *ts, size_t cap);

/* The start of a line at level into buf (cap >= 64): "<5>", or
 * "2026-12-07T23:45:01.123Z level=notice ", or "" (see above); journal and
 * stamp as the process found them (stderr_is_journal, its --log-stamp). */
void log_stamp_prefix(char *buf, size_t cap, enum log_level level, int journal, int stamp);

/* Children (synthd, gpud): stamp = the supervisor's --log-stamp 1 (serve),
 * journal from stderr_is_journal(). Call once at start. */
void diag_setup(int stamp);

/* A child's line on stderr, in one write: the prefix above, then fmt's
 * text ("gpud: …", no newline). */
void diag(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
