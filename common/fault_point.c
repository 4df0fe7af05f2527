/* fault_point.c — see fault_point.h. */
#include "fault_point.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fault_point(const char *point, const char *subject)
{
    const char *f = getenv("SLOTPROVE_FAULT"), *match = getenv("SLOTPROVE_FAULT_MATCH");
    const char *once = getenv("SLOTPROVE_FAULT_ONCE");
    if (!f || strcmp(f, point) != 0)
        return 0;
    if (match && (!subject || !strstr(subject, match)))
        return 0;
    if (once) {
        int fd = open(once, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0)
            return 0;
        close(fd);
    }
    return 1;
}

void fault_point_kill(const char *point, const char *subject)
{
    if (!fault_point(point, subject))
        return;
    const char *sig = getenv("SLOTPROVE_FAULT_SIGNAL"), *code = getenv("SLOTPROVE_FAULT_EXIT");
    if (code)
        _exit(atoi(code));
    int s = sig ? atoi(sig) : SIGKILL;
    signal(s, SIG_DFL);
    kill(getpid(), s > 0 ? s : SIGKILL);
    kill(getpid(), SIGKILL); /* a signal that did not end us */
}
