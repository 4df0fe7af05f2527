/* log_stamp.c — the start of the daemon's log lines (log_stamp.h). */
#include "log_stamp.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "journal.h"

void log_stamp_time(char *ts, size_t cap)
{
    struct timespec now;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(ts, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, cap - n, ".%03uZ", (unsigned)(now.tv_nsec / 1000000) % 1000u);
}

void log_stamp_prefix(char *buf, size_t cap, enum log_level level, int journal, int stamp)
{
    static const char *const name[] = { "notice", "warning", "error" };
    static const int priority[] = { 5, 4, 3 };
    char ts[40];
    if (journal) {
        snprintf(buf, cap, "<%d>", priority[level]);
    } else if (stamp) {
        log_stamp_time(ts, sizeof(ts));
        snprintf(buf, cap, "%s level=%s ", ts, name[level]);
    } else if (cap) {
        buf[0] = 0;
    }
}

static int diag_stamp, diag_journal;

void diag_setup(int stamp)
{
    diag_stamp = stamp;
    diag_journal = stderr_is_journal();
}

void diag(enum log_level level, const char *fmt, ...)
{
    char prefix[64], text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    log_stamp_prefix(prefix, sizeof(prefix), level, diag_journal, diag_stamp);
    fprintf(stderr, "%s%s\n", prefix, text); /* one write: lines of processes do not mix */
}
