/*
 * log.c — the supervisor's log lines (log.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "journal.h"
#include "log.h"

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

void sup_log(enum log_level level, const char *fmt, ...)
{
    if (log_quiet || level < log_min)
        return;
    char line[1024], safe[3072];
    int n;
    if (log_journal) { /* the journal keeps the pid and time itself */
        n = snprintf(line, sizeof(line), "<%d>%s: ", level == LOG_WARN ? 4 : 5, log_prefix);
    } else if (log_stamp) {
        char ts[32];
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
        n = snprintf(line, sizeof(line), "%s[%d] %s: ", log_prefix, (int)getpid(), ts);
    } else {
        n = snprintf(line, sizeof(line), "%s: ", log_prefix);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    escape_ctl(safe, sizeof(safe), line); /* one line, whatever a client named */
    fprintf(stderr, "%s\n", safe); /* one write: lines of several processes do not mix */
}
