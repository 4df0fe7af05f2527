/*
 * log.h — the supervisor's log lines on stderr.
 *
 * One line per event. The daemon (`slotprove serve`) writes logfmt after its
 * time, level and name (log_stamp.h): "2026-12-07T23:45:01.123Z
 * level=notice slotprove serve[PID]: event=NAME key=value … msg=\"text\"", the
 * fields first (event names and keys are listed in run/README.md, "Logs"),
 * then the human-readable text, quoted (\" and \\ escaped; control bytes
 * as escape.h writes them). When stderr is the systemd journal (journal.h)
 * the prefix is a syslog priority and the name instead:
 * "<N>slotprove serve: event=…", N = 3 (LOG_ERR), 4 (LOG_WARN) or
 * 5 (LOG_NOTE), sd-daemon(3). `slotprove prove`'s stderr is its progress
 * display: "slotprove: text", no fields. Notes can be turned off; warnings
 * and errors always show unless quiet.
 *
 * A caller passes fields and text in one format: "event=NAME k=%u …|text…".
 * The fields end at the first '|' of the formatted line, so their values
 * must not hold '|', spaces or quotes (numbers, ids, role and cause names);
 * anything a client named (file and key names) goes in the text. A format
 * that does not start with "event=" is text only (event=note, =warning or
 * =error by its level); one with no '|' is fields only.
 */
#ifndef SLOTPROVE_LOG_H
#define SLOTPROVE_LOG_H

#include "log_stamp.h" /* enum log_level, the lines' time and level */

/* prefix: "slotprove serve" or "slotprove"; stamp: add pid and time, and
 * write fields (the daemon); min_level: lines below it are dropped; quiet:
 * drop everything. */
void log_setup(const char *prefix, int stamp, enum log_level min_level, int quiet);

void sup_log(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
