/*
 * witness_program.c — a witness program run as a contained child
 * (witness_program.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "witness_program.h"
#include "witness_sandbox.h"

/* Fixed descriptor numbers inside the program. */
enum { FD_INPUT = 3, FD_WTNS = 4, FD_PROGRAM = 5, FD_DAT = 6,
       FD_SYNC = 8,  /* the box's init only, until the maps are written (witness_sandbox.h) */
       FD_STATUS = 9 /* the box's init only: the program's end (struct program_end) */ };

void witness_limits_init(struct witness_limits *l, uint64_t mem_bytes, unsigned cpu_s,
                         unsigned wall_s)
{
    l->mem_bytes = mem_bytes ? mem_bytes : WITNESS_MEM_DEFAULT;
    l->cpu_s = cpu_s ? cpu_s : WITNESS_CPU_DEFAULT;
    l->wall_s = wall_s ? wall_s : WITNESS_WALL_DEFAULT;
}

int witness_program_kind(int prog_fd, const char *prog_path, enum witness_kind *kind,
                         struct sp_err *e)
{
    unsigned char m[4];
    ssize_t n = pread(prog_fd, m, sizeof(m), 0);
    if (n < 0)
        return sp_fail(e, -errno, "%s: %s", prog_path, strerror(errno));
    if (n == 4 && memcmp(m, "\x7f" "ELF", 4) == 0)
        *kind = WITNESS_NATIVE;
    else if (n == 4 && memcmp(m, "\0asm", 4) == 0)
        *kind = WITNESS_WASM;
    else
        return sp_fail(e, -SP_EUNSUPPORTED, "%s: not a witness program (neither an ELF "
                       "executable from circom --c nor a .wasm from circom --wasm)", prog_path);
    return 0;
}

/* The last WITNESS_LOG_TAIL bytes of the program's output. */
struct log_tail {
    char buf[WITNESS_LOG_TAIL];
    size_t len;
};

static void tail_add(struct log_tail *t, const char *p, size_t n)
{
    if (n >= sizeof(t->buf)) {
        memcpy(t->buf, p + n - sizeof(t->buf), sizeof(t->buf));
        t->len = sizeof(t->buf);
        return;
    }
    if (t->len + n > sizeof(t->buf)) {
        size_t drop = t->len + n - sizeof(t->buf);
        memmove(t->buf, t->buf + drop, t->len - drop);
        t->len -= drop;
    }
    memcpy(t->buf + t->len, p, n);
    t->len += n;
}

/* Reads what is there now; 1 at EOF, 0 otherwise. */
static int tail_drain(struct log_tail *t, int fd)
{
    char b[4096];
    for (;;) {
        ssize_t n = read(fd, b, sizeof(b));
        if (n > 0)
            tail_add(t, b, (size_t)n);
        else if (n == 0)
            return 1;
        else if (errno != EINTR)
            return 0;
    }
}

static int line_is_noise(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    return n == 0 || (n >= 3 && memcmp(s, "at ", 3) == 0) ||
           (n >= 8 && memcmp(s, "Node.js ", 8) == 0) || (n == 1 && *s == '^');
}

static int line_has(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (memcmp(s + i, word, w) == 0)
            return 1;
    return 0;
}

/* The line that says what went wrong: circom's own ("Error in template T
 * line: N" from the wasm calculator, "Failed assert in template/function T
 * line N" from the C++ one), else the last line naming an error, else the
 * last line that is not a stack frame, else the C library's "Assertion
 * `false' failed" (circom's main.cpp prints its reason on the line
 * before). Written into out (NUL-terminated; empty without output). */
static void tail_message(const struct log_tail *t, char *out, size_t outlen)
{
    const char *best[4] = { NULL, NULL, NULL, NULL };
    size_t best_n[4] = { 0, 0, 0, 0 };
    size_t i = 0;
    while (i < t->len) {
        size_t j = i;
        while (j < t->len && t->buf[j] != '\n' && t->buf[j] != '\r')
            j++;
        const char *s = t->buf + i;
        size_t n = j - i;
        if (!line_is_noise(s, n)) {
            int k = line_has(s, n, "Error in template") || line_has(s, n, "Failed assert") ? 0
                    : line_has(s, n, "Assertion `") ? 3
                    : line_has(s, n, "rror") || line_has(s, n, "ssert") ||
                            line_has(s, n, "terminate called") || line_has(s, n, "Signal")
                        ? 1
                        : 2;
            best[k] = s;
            best_n[k] = n;
        }
        i = j + 1;
    }
    for (int k = 0; k < 4; k++)
        if (best[k]) {
            while (best_n[k] && (*best[k] == ' ' || *best[k] == '\t')) {
                best[k]++;
                best_n[k]--;
            }
            snprintf(out, outlen, "%.*s", (int)(best_n[k] < 300 ? best_n[k] : 300), best[k]);
            return;
        }
    out[0] = 0;
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Writes "witness sandbox: STEP: errno N\n" on fd 2 (system calls only). */
static void say_step(const char *step, int err)
{
    char num[16];
    int k = (int)sizeof(num);
    unsigned v = (unsigned)err;
    do
        num[--k] = (char)('0' + v % 10);
    while ((v /= 10) && k > 0);
    if (write(2, "witness sandbox: ", 17) < 0 || write(2, step, strlen(step)) < 0 ||
        write(2, ": errno ", 8) < 0 || write(2, num + k, sizeof(num) - (size_t)k) < 0 ||
        write(2, "\n", 1) < 0) {
    }
}

/* The program's whole environment: nothing of the daemon's. */
static char *const sandbox_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp",
                                     "LANG=C.UTF-8", NULL };

/* What the box's init reports on FD_STATUS when the program has ended: its
 * wait status and CPU time (the init itself cannot die of the program's
 * signal: a namespace's init ignores the signals it has no handler for). */
struct program_end {
    int status;
    struct timeval utime, stime;
};

/* The box's init (pid 1 of its namespace), after the program (pid 2) was
 * forked: reaps everything, reports the program's end, exits; the kernel
 * then kills whatever else is left in the namespace. */
static void box_init(pid_t prog)
{
    for (;;) {
        int st;
        struct rusage ru;
        pid_t w = wait4(-1, &st, 0, &ru);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            _exit(127);
        if (w == prog) {
            struct program_end end = { st, ru.ru_utime, ru.ru_stime };
            if (write(FD_STATUS, &end, sizeof(end)) < 0) {
            }
            _exit(0);
        }
    }
}

/* In the child of sandbox_clone (the init of its own PID namespace): only
 * async-signal-safe calls. Builds the box, forks the program inside it and
 * stays as its init (box_init). Never returns. */
static void child_exec(enum witness_kind kind, int prog_fd, int dat_fd, int input_fd,
                       int wtns_fd, int log_fd, int status_fd, const struct witness_limits *l,
                       uint64_t max_wtns_bytes, const struct sandbox_plan *plan,
                       char *const *argv)
{
    setpgid(0, 0);
    /* the parent's death is seen through PDEATHSIG alone: getppid() is 0
     * in a new PID namespace */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        _exit(127);
    /* out of the way of the fixed numbers first, then into place */
    int in = fcntl(input_fd, F_DUPFD_CLOEXEC, 64), out = fcntl(wtns_fd, F_DUPFD_CLOEXEC, 64);
    int prog = fcntl(prog_fd, F_DUPFD_CLOEXEC, 64), log = fcntl(log_fd, F_DUPFD_CLOEXEC, 64);
    int dat = dat_fd >= 0 ? fcntl(dat_fd, F_DUPFD_CLOEXEC, 64) : 0;
    int stat = fcntl(status_fd, F_DUPFD_CLOEXEC, 64);
    int sync = fcntl(plan->sync[0], F_DUPFD_CLOEXEC, 64);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0 || out < 0 || prog < 0 || log < 0 || dat < 0 || stat < 0 || sync < 0 || null < 0 ||
        dup2(null, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0 || dup2(in, FD_INPUT) < 0 ||
        dup2(out, FD_WTNS) < 0 || dup2(prog, FD_PROGRAM) < 0 ||
        (dat_fd >= 0 && dup2(dat, FD_DAT) < 0) || dup3(stat, FD_STATUS, O_CLOEXEC) < 0 ||
        dup3(sync, FD_SYNC, O_CLOEXEC) < 0)
        _exit(127);
    /* the ELF is executed through its descriptor, which need not stay open */
    if (kind == WITNESS_NATIVE)
        fcntl(FD_PROGRAM, F_SETFD, FD_CLOEXEC);
    syscall(SYS_close_range, dat_fd >= 0 ? FD_DAT + 1 : FD_PROGRAM + 1, FD_SYNC - 1, 0);
    syscall(SYS_close_range, FD_STATUS + 1, ~0u, 0);
    const char *step;
    int src = sandbox_enter(plan, FD_SYNC, &step);
    if (src < 0) {
        say_step(step, -src);
        _exit(127);
    }
    /* the fork system call: glibc's fork() runs the parent's atfork
     * handlers and takes its locks, which a thread of synthd may hold */
    pid_t pid = (pid_t)syscall(SYS_fork);
    if (pid < 0) {
        say_step("fork the program", errno);
        _exit(127);
    }
    if (pid > 0) {
        /* the init keeps none of the program's descriptors but its report's */
        for (int fd = 0; fd < FD_STATUS; fd++)
            close(fd);
        box_init(pid);
    }
    close(FD_STATUS);
    struct rlimit mem = { l->mem_bytes, l->mem_bytes };
    struct rlimit cpu = { l->cpu_s, (rlim_t)l->cpu_s + 1 };
    struct rlimit fsize = { max_wtns_bytes, max_wtns_bytes };
    struct rlimit core = { 0, 0 };
    if (setrlimit(kind == WITNESS_NATIVE ? RLIMIT_AS : RLIMIT_DATA, &mem) != 0 ||
        setrlimit(RLIMIT_CPU, &cpu) != 0 || setrlimit(RLIMIT_FSIZE, &fsize) != 0 ||
        setrlimit(RLIMIT_CORE, &core) != 0)
        _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (kind == WITNESS_NATIVE)
        fexecve(FD_PROGRAM, argv, sandbox_env);
    else
        execve(argv[0], argv, sandbox_env);
    static const char msg[] = "cannot execute the witness program (or node for a .wasm)\n";
    if (write(2, msg, sizeof(msg) - 1) < 0) {
    }
    _exit(127);
}

static const char *tmp_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

void witness_private_dirs_sweep(void)
{
    const char *tmp = tmp_dir();
    int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        int pid = 0, n = 0;
        struct stat st;
        if (sscanf(de->d_name, "slotprove-witness-%d-%n", &pid, &n) != 1 || n == 0 ||
            pid <= 0 || (kill(pid, 0) == 0 || errno != ESRCH))
            continue;
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            (st.st_uid != geteuid() && /* a root daemon gives it to the box's uid */
             !(geteuid() == 0 && st.st_uid == WITNESS_SANDBOX_UID)))
            continue;
        int sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *s = sub >= 0 ? fdopendir(sub) : NULL;
        if (!s) {
            if (sub >= 0)
                close(sub);
            continue;
        }
        struct dirent *f;
        while ((f = readdir(s)))
            if (strcmp(f->d_name, ".") != 0 && strcmp(f->d_name, "..") != 0 &&
                unlinkat(sub, f->d_name, 0) < 0) /* .root, the box's mount point */
                unlinkat(sub, f->d_name, AT_REMOVEDIR);
        closedir(s);
        unlinkat(dfd, de->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

/* Copies the memfd src into a new file dir/name (0600). 0 or -errno. */
static int copy_into(int src, const char *dir, const char *name)
{
    char path[PATH_MAX + NAME_MAX + 2];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (fstat(src, &st) < 0)
        return -errno;
    int d = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (d < 0)
        return -errno;
    off_t off = 0;
    while (off < st.st_size) {
        ssize_t n = sendfile(d, src, &off, (size_t)(st.st_size - off));
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            close(d);
            return -err;
        }
    }
    return close(d) < 0 ? -errno : 0;
}

/* Empties and removes the run's private directory (only the names this
 * file put there). */
static void private_dir_remove(const char *dir, const char *const *names, int n)
{
    char path[PATH_MAX + NAME_MAX + 2];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static int run_in(enum witness_kind kind, int prog_fd, int dat_fd, const char *dir,
                  const char *base, int input_fd, const char *input_name,
                  const struct witness_limits *l, uint64_t max_wtns_bytes, int *wtns_fd,
                  struct sp_err *e);

int witness_program_run(int prog_fd, const char *prog_path, const int *aux, int naux,
                        int input_fd, const char *input_name,
                        const struct witness_limits *l, uint64_t max_wtns_bytes, int *wtns_fd,
                        struct sp_err *e)
{
    enum witness_kind kind;
    char script[PATH_MAX + NAME_MAX + 2], dat_name[NAME_MAX + 1], dir[PATH_MAX];
    const char *names[2] = { "generate_witness.js", "witness_calculator.js" };
    int rc = witness_program_kind(prog_fd, prog_path, &kind, e);
    if (rc < 0)
        return rc;
    if (naux != (kind == WITNESS_NATIVE ? 1 : 2))
        return sp_fail(e, -EINVAL, "%s: synthd got %d of the program's pinned files, not %d",
                       prog_path, naux, kind == WITNESS_NATIVE ? 1 : 2);
    /* the run's private directory: only the daemon's user can name into it */
    snprintf(dir, sizeof(dir), "%s/slotprove-witness-%d-XXXXXX", tmp_dir(), (int)getpid());
    if (!mkdtemp(dir))
        return sp_fail(e, -errno, "synthd: mkdtemp %s: %s", dir, strerror(errno));
    const char *base = strrchr(prog_path, '/');
    base = base ? base + 1 : prog_path;
    if (!*base || strlen(base) + 4 > NAME_MAX)
        base = "circuit";
    if (kind == WITNESS_NATIVE) {
        char link_to[32];
        snprintf(dat_name, sizeof(dat_name), "%s.dat", base);
        snprintf(link_to, sizeof(link_to), "/proc/self/fd/%d", FD_DAT);
        snprintf(script, sizeof(script), "%s/%s", dir, dat_name);
        names[0] = dat_name;
        if (symlink(link_to, script) < 0) {
            rc = sp_fail(e, -errno, "synthd: symlink %s: %s", script, strerror(errno));
            private_dir_remove(dir, names, 0);
            return rc;
        }
    } else {
        for (int i = 0; i < 2; i++)
            if ((rc = copy_into(aux[i], dir, names[i])) < 0) {
                sp_fail(e, rc, "synthd: %s/%s: %s", dir, names[i], strerror(-rc));
                private_dir_remove(dir, names, 2);
                return rc;
            }
    }
    int nnames = kind == WITNESS_NATIVE ? 1 : 2;
    rc = run_in(kind, prog_fd, kind == WITNESS_NATIVE ? aux[0] : -1, dir, base, input_fd,
                input_name, l, max_wtns_bytes, wtns_fd, e);
    private_dir_remove(dir, names, nnames);
    return rc;
}

/* The node binary for a .wasm ($SLOTPROVE_NODE, else node on PATH), its
 * real path into buf: it is bound into the box at /node. 0 or -ENOENT. */
static int node_path(char *buf, size_t len, struct sp_err *e)
{
    const char *env = getenv("SLOTPROVE_NODE"), *name = env && *env ? env : "node";
    char cand[PATH_MAX];
    if (strchr(name, '/')) {
        if (realpath(name, cand) && access(cand, X_OK) == 0 && strlen(cand) < len) {
            strcpy(buf, cand);
            return 0;
        }
        return sp_fail(e, -ENOENT, "%s: not an executable node binary ($SLOTPROVE_NODE; a .wasm "
                       "witness program is run by node)", name);
    }
    const char *path = getenv("PATH");
    for (const char *p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        const char *c = strchr(p, ':');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        char full[PATH_MAX];
        snprintf(full, sizeof(full), "%.*s/%s", (int)n, n ? p : ".", name);
        if (access(full, X_OK) == 0 && realpath(full, cand) && strlen(cand) < len) {
            strcpy(buf, cand);
            return 0;
        }
        p += n + (c != NULL);
    }
    return sp_fail(e, -ENOENT, "node was not found on PATH (a .wasm witness program is run by "
                   "node: install it or set $SLOTPROVE_NODE)");
}

/* witness_program_run in its private directory dir. */
static int run_in(enum witness_kind kind, int prog_fd, int dat_fd, const char *dir,
                  const char *base, int input_fd, const char *input_name,
                  const struct witness_limits *l, uint64_t max_wtns_bytes, int *wtns_fd,
                  struct sp_err *e)
{
    char script[PATH_MAX + NAME_MAX + 2], argv0[PATH_MAX + NAME_MAX + 2];
    char in_path[32], out_path[32], prog_arg[32];
    int rc;
    snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", FD_INPUT);
    snprintf(out_path, sizeof(out_path), "/proc/self/fd/%d", FD_WTNS);
    snprintf(prog_arg, sizeof(prog_arg), "/proc/self/fd/%d", FD_PROGRAM);
    char node[PATH_MAX] = "";
    static char node_arg[] = "/node";
    static struct sandbox_plan plan;
    char *argv[6];
    /* paths as the program sees them: the run's directory is /w in its box */
    if (kind == WITNESS_NATIVE) {
        /* circom's main.cpp opens argv[0] + ".dat": /w/NAME.dat, the pinned .dat */
        snprintf(argv0, sizeof(argv0), "/w/%s", base);
        argv[0] = argv0;
        argv[1] = in_path;
        argv[2] = out_path;
        argv[3] = NULL;
    } else {
        if ((rc = node_path(node, sizeof(node), e)) < 0)
            return rc;
        snprintf(script, sizeof(script), "/w/generate_witness.js");
        argv[0] = node_arg;
        argv[1] = script;
        argv[2] = prog_arg;
        argv[3] = in_path;
        argv[4] = out_path;
        argv[5] = NULL;
    }
    if ((rc = sandbox_plan_init(&plan, dir, node[0] ? node : NULL, e)) < 0)
        return rc;

    int out = memfd_create("witness.wtns", MFD_CLOEXEC), pp[2] = { -1, -1 }, sp[2] = { -1, -1 };
    if (out < 0) {
        sandbox_plan_done(&plan);
        return sp_fail(e, -errno, "synthd: memfd_create: %s", strerror(errno));
    }
    if (pipe2(pp, O_CLOEXEC) < 0 || pipe2(sp, O_CLOEXEC) < 0) {
        rc = sp_fail(e, -errno, "synthd: pipe: %s", strerror(errno));
        for (int i = 0; i < 2; i++) {
            if (pp[i] >= 0)
                close(pp[i]);
            if (sp[i] >= 0)
                close(sp[i]);
        }
        close(out);
        sandbox_plan_done(&plan);
        return rc;
    }
    int pidfd = -1;
    pid_t pid = sandbox_clone(&pidfd);
    if (pid == 0)
        child_exec(kind, prog_fd, dat_fd, input_fd, out, pp[1], sp[1], l, max_wtns_bytes, &plan,
                   argv);
    close(pp[1]);
    close(sp[1]);
    if (pid < 0) {
        rc = sp_fail(e, pid, "%s: the witness program's sandbox could not be made: clone3 into "
                     "new namespaces: %s (synthd/witness_sandbox.h)", input_name, strerror(-pid));
        close(pp[0]);
        close(sp[0]);
        close(out);
        sandbox_plan_done(&plan);
        return rc;
    }
    setpgid(pid, pid); /* as the child does: no window where a group kill misses it */
    if ((rc = sandbox_map(pid, &plan, e)) < 0) {
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        close(pidfd);
        close(pp[0]);
        close(sp[0]);
        close(out);
        sandbox_plan_done(&plan);
        return rc;
    }
    fcntl(pp[0], F_SETFL, O_NONBLOCK);

    static struct log_tail tail;
    tail.len = 0;
    uint64_t deadline = mono_ms() + (uint64_t)l->wall_s * 1000, tree = 0;
    int timed_out = 0, eof = 0, mem_out = 0;
    while (pidfd >= 0) {
        uint64_t now = mono_ms();
        if (now >= deadline) {
            timed_out = 1;
            break;
        }
        /* the whole tree's memory, summed (witness_sandbox.h) */
        if ((tree = sandbox_tree_rss(pid)) > l->mem_bytes) {
            mem_out = 1;
            break;
        }
        uint64_t wait = deadline - now < WITNESS_TREE_POLL_MS ? deadline - now : WITNESS_TREE_POLL_MS;
        /* a negative fd is skipped by poll: the pipe once it is at EOF */
        struct pollfd pf[2] = { { .fd = eof ? -1 : pp[0], .events = POLLIN },
                                { .fd = pidfd, .events = POLLIN } };
        if (poll(pf, 2, (int)wait) < 0 && errno != EINTR)
            break;
        if (pf[0].revents)
            eof = tail_drain(&tail, pp[0]);
        if (pf[1].revents)
            break; /* exited */
    }
    int pidfd_errno = pidfd < 0 ? errno : 0;
    /* the box's init goes, and with it (the kernel's doing) every process
     * of its PID namespace; the wait below returns once they are gone */
    kill(pid, SIGKILL);
    kill(-pid, SIGKILL);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    if (!eof)
        tail_drain(&tail, pp[0]);
    close(pp[0]);
    sandbox_plan_done(&plan);
    /* the program's own end, as the box's init saw it (none if the init
     * was killed first: a limit, or a failure to build the box) */
    struct program_end end;
    if (read(sp[0], &end, sizeof(end)) == (ssize_t)sizeof(end)) {
        status = end.status;
        ru.ru_utime = end.utime;
        ru.ru_stime = end.stime;
    }
    close(sp[0]);
    if (pidfd >= 0)
        close(pidfd);
    else {
        close(out);
        return sp_fail(e, -pidfd_errno, "synthd: pidfd_open: %s", strerror(pidfd_errno));
    }

    char line[400], why[160];
    tail_message(&tail, line, sizeof(line));
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    int oom_hint = memmem(tail.buf, tail.len, "bad_alloc", 9) ||
                   memmem(tail.buf, tail.len, "out of memory", 13) ||
                   memmem(tail.buf, tail.len, "Out of memory", 13) ||
                   memmem(tail.buf, tail.len, "Cannot allocate", 15);
    if (mem_out) {
        snprintf(why, sizeof(why), "past its memory limit of %.2f GiB: it and the processes it "
                 "started held %.2f GiB", l->mem_bytes / 1073741824.0, tree / 1073741824.0);
    } else if (timed_out) {
        snprintf(why, sizeof(why), "past its wall-clock limit of %u s", l->wall_s);
    } else if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (sig == SIGXCPU || (sig == SIGKILL && cpu >= l->cpu_s))
            snprintf(why, sizeof(why), "past its CPU limit of %u s", l->cpu_s);
        else if (sig == SIGXFSZ)
            snprintf(why, sizeof(why), "wrote more than the key's witness size, %llu bytes",
                     (unsigned long long)max_wtns_bytes);
        else
            snprintf(why, sizeof(why), "killed by signal %d, %s", sig, strsignal(sig));
    } else if (WEXITSTATUS(status) != 0) {
        snprintf(why, sizeof(why), "exit %d", WEXITSTATUS(status));
    } else {
        struct stat st;
        if (fstat(out, &st) == 0 && st.st_size > 0) {
            *wtns_fd = out;
            return 0;
        }
        snprintf(why, sizeof(why), "exit 0 without writing a witness");
    }
    /* out of memory under its limit (or the kernel's OOM kill) */
    if (!mem_out && (oom_hint || (timed_out == 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
                     cpu < l->cpu_s)))
        snprintf(why + strlen(why), sizeof(why) - strlen(why), "; its memory limit is %.2f GiB",
                 l->mem_bytes / 1073741824.0);
    rc = sp_fail(e, -SP_EFORMAT, "%s: the witness program failed%s%s (%s)", input_name,
                 line[0] ? ": " : "", line, why);
    /* stopped at the output limit (SIGXFSZ; node's EFBIG exit): what it
     * wrote goes back, its header may name its circuit's size */
    struct stat ost;
    if (!mem_out && !timed_out && fstat(out, &ost) == 0 &&
        (uint64_t)ost.st_size >= max_wtns_bytes) {
        *wtns_fd = out;
        return -EFBIG;
    }
    close(out);
    return rc;
}
