/*
 * hostile_program.c — witness programs that attack their host, for
 * tests/sandbox.sh (the sandbox of synthd/witness_sandbox.h).
 *
 * Run as a native witness program (PROGRAM INPUT WTNS, its .dat beside
 * it); what it does is chosen by the end of its file name (argv[0]). Each
 * prints one line saying what it managed, then exits 1 (its job fails);
 * every process it leaves behind is named "sp-hostile" (PR_SET_NAME) so the
 * test can look for survivors. INPUT is read for targets: a JSON object
 * whose "pids" is a string of pids and "paths" a string of paths, each
 * separated by spaces (the supervisor's, synthd's and gpud's pids, the
 * daemon's socket, another job's witness file).
 *   -setsid   forks a child that calls setsid(), forks again and sleeps: a
 *             daemonized survivor;
 *   -bomb     forks until fork fails (at most 300 times), the children
 *             sleeping; prints how many it got;
 *   -hog      forks 8 children that each touch 96 MiB and sleep, and
 *             sleeps itself: memory spread over a tree;
 *   -filler   writes 64 KiB files to /tmp until that fails (each under the
 *             output's RLIMIT_FSIZE), then tries /, /w and /usr; prints the
 *             KiB written and each errno;
 *   -snoop    lists the pids in /proc; for every target pid opens
 *             /proc/PID/mem, /proc/PID/environ and each /proc/PID/fd/N for
 *             reading and writing (the slot pool's memfds among them);
 *             opens every target path and connects to it as a unix
 *             socket; prints what it could open ("opened: none" if
 *             nothing).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

static void linger(void)
{
    prctl(PR_SET_NAME, "sp-hostile");
    for (;;)
        pause();
}

/* The value of "key": "..." in the input, into out. */
static void field(const char *in, const char *key, char *out, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\"", key);
    const char *p = strstr(in, pat);
    out[0] = 0;
    if (!p || !(p = strchr(p + strlen(pat), '"')))
        return;
    const char *q = strchr(++p, '"');
    if (q && (size_t)(q - p) < len)
        snprintf(out, len, "%.*s", (int)(q - p), p);
}

static char opened[8192];

static void try_open(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC);
    if (fd >= 0) {
        size_t n = strlen(opened);
        snprintf(opened + n, sizeof(opened) - n, " %s(%s)", path,
                 (flags & O_ACCMODE) == O_RDWR ? "rw" : "r");
        close(fd);
    }
}

static void snoop(const char *input)
{
    char in[65536] = "", pids[4096], paths[8192];
    FILE *f = fopen(input, "r");
    if (f) {
        size_t n = fread(in, 1, sizeof(in) - 1, f);
        in[n] = 0;
        fclose(f);
    }
    field(in, "pids", pids, sizeof(pids));
    field(in, "paths", paths, sizeof(paths));
    int seen = 0;
    DIR *d = opendir("/proc");
    struct dirent *de;
    while (d && (de = readdir(d)))
        seen += de->d_name[0] >= '1' && de->d_name[0] <= '9';
    if (d)
        closedir(d);
    for (char *save = NULL, *p = strtok_r(pids, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
        char path[256];
        snprintf(path, sizeof(path), "/proc/%s/mem", p);
        try_open(path, O_RDONLY);
        snprintf(path, sizeof(path), "/proc/%s/environ", p);
        try_open(path, O_RDONLY);
        for (int fd = 0; fd < 64; fd++) {
            snprintf(path, sizeof(path), "/proc/%s/fd/%d", p, fd);
            try_open(path, O_RDWR);
            try_open(path, O_RDONLY);
        }
    }
    for (char *save = NULL, *p = strtok_r(paths, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
        try_open(p, O_RDONLY);
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        snprintf(a.sun_path, sizeof(a.sun_path), "%s", p);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0) {
            size_t n = strlen(opened);
            snprintf(opened + n, sizeof(opened) - n, " %s(connected)", p);
        }
        if (s >= 0)
            close(s);
    }
    fprintf(stderr, "hostile: saw %d processes; opened:%s\n", seen, opened[0] ? opened : " none");
}

int main(int argc, char **argv)
{
    const char *self = argv[0];
    if (argc != 3) {
        fprintf(stderr, "usage: %s INPUT WTNS\n", self);
        return 2;
    }
    if (ends_with(self, "-setsid")) {
        pid_t p = fork();
        if (p == 0) {
            setsid();
            if (fork() == 0)
                linger();
            _exit(0);
        }
        sleep(1);
        fprintf(stderr, "hostile: left a daemonized child behind\n");
        return 1;
    }
    if (ends_with(self, "-bomb")) {
        int n = 0;
        for (; n < 300; n++) {
            pid_t p = fork();
            if (p == 0)
                linger();
            if (p < 0)
                break;
        }
        fprintf(stderr, "hostile: forked %d before fork failed\n", n);
        return 1;
    }
    if (ends_with(self, "-hog")) {
        for (int i = 0; i < 8; i++)
            if (fork() == 0) {
                size_t sz = 96u << 20;
                char *m = malloc(sz);
                if (m)
                    memset(m, 1, sz);
                linger();
            }
        sleep(60);
        fprintf(stderr, "hostile: the hog was not stopped\n");
        return 1;
    }
    if (ends_with(self, "-filler")) {
        static char piece[64 << 10];
        int n = 0, err = 0;
        signal(SIGXFSZ, SIG_IGN);
        memset(piece, 'x', sizeof(piece));
        for (;; n++) {
            char path[64];
            snprintf(path, sizeof(path), "/tmp/fill-%d", n);
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            if (fd < 0 || write(fd, piece, sizeof(piece)) != (ssize_t)sizeof(piece)) {
                err = errno;
                if (fd >= 0)
                    close(fd);
                break;
            }
            close(fd);
        }
        const char *elsewhere[] = { "/fill", "/w/fill", "/usr/fill" };
        char errs[256] = "";
        for (int i = 0; i < 3; i++) {
            int fd = open(elsewhere[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
            size_t l = strlen(errs);
            snprintf(errs + l, sizeof(errs) - l, " %s: %s", elsewhere[i],
                     fd >= 0 ? "written" : strerror(errno));
            if (fd >= 0)
                close(fd);
        }
        fprintf(stderr, "hostile: wrote %d KiB to /tmp (then: %s);%s\n", n * 64, strerror(err), errs);
        return 1;
    }
    if (ends_with(self, "-snoop")) {
        snoop(argv[1]);
        return 1;
    }
    fprintf(stderr, "hostile: unknown kind %s\n", self);
    return 2;
}
