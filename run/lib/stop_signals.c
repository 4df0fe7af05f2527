/* stop_signals.c — the handled signals, blocked before any thread exists (stop_signals.h). */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/signalfd.h>

#include "stop_signals.h"

void stop_signals_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
}

int stop_signals_block(sigset_t *old)
{
    sigset_t ss;
    stop_signals_set(&ss);
    int rc = pthread_sigmask(SIG_BLOCK, &ss, old);
    return rc ? -rc : 0;
}

int stopped_by_signal(int sig, struct sp_err *e)
{
    const char *name = sigabbrev_np(sig);
    sp_fail(e, -EINTR, "stopped by SIG%s before the proof was done; nothing written",
            name ? name : "?");
    return 128 + sig;
}

int stop_signals_fd(void)
{
    sigset_t ss;
    stop_signals_set(&ss);
    int fd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}
