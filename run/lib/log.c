/*
 * log.c — the supervisor's log lines (log.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "journal.h"
#include "log.h"
#include "log_stamp.h"

static const char *log_prefix = "slotprove";
static int log_stamp;
static enum log_level log_min = LOG_NOTE;
static int log_quiet;
static int log_journal; /* stderr is the journal: "<N>" priority, no stamp */

void log_setup(const char *prefix, int stamp, enum log_level min_level, int quiet)
{
    log_prefix = prefix;
    log_stamp = stamp;
    log_min = min_level;
    log_quiet = quiet;
    log_journal = stderr_is_journal();
}

/* src as a logfmt quoted value into dst (cap bytes): control bytes escaped
 * (escape.h), then '"' and '\' backslashed, in quotes. */
static void quote(char *dst, size_t cap, const char *src)
{
    char safe[2048];
    size_t n = 0;
    escape_ctl(safe, sizeof(safe), src);
    if (cap < 3)
        return;
    dst[n++] = '"';
    for (const char *p = safe; *p && n + 3 < cap; p++) {
        if (*p == '"' || *p == '\\')
            dst[n++] = '\\';
        dst[n++] = *p;
    }
    dst[n++] = '"';
    dst[n] = 0;
}

void sup_log(enum log_level level, const char *fmt, ...)
{
    static const char *const level_event[] = { "note", "warning", "error" };
    if (log_quiet || level < log_min)
        return;
    char prefix[192], stamp[64], body[1024], text[3072], line[4096];
    /* the journal keeps the pid and time itself: "<N>slotprove serve: ";
     * else "2026-12-07T23:45:01.123Z level=notice slotprove serve[PID]: " */
    log_stamp_prefix(stamp, sizeof(stamp), level, log_journal, log_stamp);
    if (log_stamp && !log_journal)
        snprintf(prefix, sizeof(prefix), "%s%s[%d]: ", stamp, log_prefix, (int)getpid());
    else
        snprintf(prefix, sizeof(prefix), "%s%s: ", stamp, log_prefix);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof(body), fmt, ap);
    va_end(ap);
    const char *fields = NULL, *msg = body;
    if (strncmp(body, "event=", 6) == 0) {
        char *bar = strchr(body, '|');
        fields = body;
        msg = NULL;
        if (bar) {
            *bar = 0;
            msg = bar + 1;
        }
    }
    if (!log_stamp && !log_journal) { /* prove's display: the text alone */
        escape_ctl(text, sizeof(text), msg ? msg : fields);
        fprintf(stderr, "%s%s\n", prefix, text); /* one write: lines of processes do not mix */
        return;
    }
    char f[1024];
    escape_ctl(f, sizeof(f), fields ? fields : "");
    text[0] = 0;
    if (msg)
        quote(text, sizeof(text), msg);
    snprintf(line, sizeof(line), "%s%s%s%s%s%s", prefix, fields ? f : "event=",
             fields ? "" : level_event[level], msg ? " msg=" : "", text, "");
    fprintf(stderr, "%s\n", line);
}
