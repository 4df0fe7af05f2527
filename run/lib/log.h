/*
 * log.h — the supervisor's log lines on stderr.
 *
 * One line per event: "PREFIX[PID] HH:MM:SS: text" for the daemon
 * (`slotprove serve`), "PREFIX: text" for `prove`, whose stderr is also its
 * progress display. Notes (a child started, the daemon listens) can be
 * turned off; warnings (a death, a failed job) always show unless quiet.
 * When stderr is the systemd journal (journal.h) a line is "<5>PREFIX: text"
 * (notice) or "<4>PREFIX: text" (warning) instead.
 */
#ifndef SLOTPROVE_LOG_H
#define SLOTPROVE_LOG_H

enum log_level { LOG_NOTE, LOG_WARN };

/* prefix: "slotprove serve" or "slotprove"; stamp: add pid and time;
 * min_level: lines below it are dropped; quiet: drop everything. */
void log_setup(const char *prefix, int stamp, enum log_level min_level, int quiet);

void sup_log(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
