/* sandbox_check.c — `synthd --sandbox-probe`, run at start (sandbox_check.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox_check.h"
#include "sibling.h"

int witness_sandbox_check(char *why, size_t len)
{
    char exe[4096];
    int pp[2], rc;
    why[0] = 0;
    if ((rc = sibling_path(exe, sizeof(exe), "synthd")) < 0) {
        snprintf(why, len, "cannot find synthd beside slotprove: %s", strerror(-rc));
        return -1;
    }
    if (pipe2(pp, O_CLOEXEC) < 0) {
        snprintf(why, len, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pp[1], 2);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0)
            dup2(null, 1), dup2(null, 0);
        execl(exe, "synthd", "--sandbox-probe", (char *)NULL);
        _exit(127);
    }
    close(pp[1]);
    if (pid < 0) {
        snprintf(why, len, "fork: %s", strerror(errno));
        close(pp[0]);
        return -1;
    }
    size_t got = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left = 30000 - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd pf = { pp[0], POLLIN, 0 };
        if (left <= 0 || (poll(&pf, 1, (int)left) < 0 && errno != EINTR)) {
            kill(pid, SIGKILL);
            snprintf(why, len, "synthd --sandbox-probe did not answer within 30 s");
            break;
        }
        ssize_t n = read(pp[0], why + got, len - 1 - got);
        if (n <= 0 && (n == 0 || errno != EINTR))
            break;
        if (n > 0)
            got += (size_t)n;
        if (got >= len - 1)
            break;
    }
    why[got] = 0;
    close(pp[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    why[strcspn(why, "\n")] = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (!why[0])
        snprintf(why, len, "synthd --sandbox-probe failed (%s %d)",
                 WIFEXITED(status) ? "exit" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return -1;
}
