/* witness_sandbox.c — the box a witness program runs in (witness_sandbox.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "witness_sandbox.h"

#define SANDBOX_NS_FLAGS \
    (CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS)

static int write_file(const char *path, const char *text);

/* Gives dir and its entries (not following links) to uid:gid. */
static int chown_tree(const char *dir, unsigned uid, unsigned gid)
{
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, "..") != 0 &&
            fchownat(dirfd(d), de->d_name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0) {
            int err = errno;
            closedir(d);
            return -err;
        }
    closedir(d);
    return 0;
}

int sandbox_plan_init(struct sandbox_plan *p, const char *work_dir, const char *node,
                      struct sp_err *e)
{
    memset(p, 0, sizeof(*p));
    p->sync[0] = p->sync[1] = -1;
    /* root (with uid 65534 in its namespace): the box is nobody outside */
    int root = geteuid() == 0 && chown(work_dir, WITNESS_SANDBOX_UID, WITNESS_SANDBOX_UID) == 0;
    p->outer_uid = root ? WITNESS_SANDBOX_UID : (unsigned)geteuid();
    p->outer_gid = root ? WITNESS_SANDBOX_UID : (unsigned)getegid();
    if (snprintf(p->work_dir, sizeof(p->work_dir), "%s", work_dir) >= (int)sizeof(p->work_dir) ||
        snprintf(p->root_dir, sizeof(p->root_dir), "%s/.root", work_dir) >= (int)sizeof(p->root_dir) ||
        (node && snprintf(p->node, sizeof(p->node), "%s", node) >= (int)sizeof(p->node)))
        return sp_fail(e, -ENAMETOOLONG, "synthd: %s: path too long for the sandbox", work_dir);
    snprintf(p->uid_map, sizeof(p->uid_map), "%u %u 1\n", WITNESS_SANDBOX_UID, p->outer_uid);
    snprintf(p->gid_map, sizeof(p->gid_map), "%u %u 1\n", WITNESS_SANDBOX_UID, p->outer_gid);
    snprintf(p->tmp_opts, sizeof(p->tmp_opts), "size=%llu,mode=1777,nr_inodes=4096",
             (unsigned long long)WITNESS_TMP_BYTES);
    if (mkdir(p->root_dir, 0700) < 0 && errno != EEXIST)
        return sp_fail(e, -errno, "synthd: mkdir %s: %s", p->root_dir, strerror(errno));
    int rc;
    if (root && (rc = chown_tree(p->work_dir, p->outer_uid, p->outer_gid)) < 0)
        return sp_fail(e, rc, "synthd: chown %s to the sandbox's uid %u: %s", p->work_dir,
                       p->outer_uid, strerror(-rc));
    if (pipe2(p->sync, O_CLOEXEC) < 0)
        return sp_fail(e, -errno, "synthd: pipe: %s", strerror(errno));
    return 0;
}

int sandbox_map(pid_t child, struct sandbox_plan *p, struct sp_err *e)
{
    static const char *const files[] = { "setgroups", "uid_map", "gid_map" };
    const char *text[] = { "deny", p->uid_map, p->gid_map };
    for (int i = 0; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/%s", (int)child, files[i]);
        int rc = write_file(path, text[i]);
        if (rc < 0)
            return sp_fail(e, rc, "witness sandbox: write %s (\"%.20s\"): %s", path, text[i],
                           strerror(-rc));
    }
    close(p->sync[0]);
    p->sync[0] = -1;
    if (write(p->sync[1], "m", 1) != 1)
        return sp_fail(e, -errno, "witness sandbox: the child's pipe: %s", strerror(errno));
    return 0;
}

void sandbox_plan_done(struct sandbox_plan *p)
{
    rmdir(p->root_dir);
    for (int i = 0; i < 2; i++)
        if (p->sync[i] >= 0) {
            close(p->sync[i]);
            p->sync[i] = -1;
        }
}

pid_t sandbox_clone(int *pidfd)
{
    struct clone_args a;
    memset(&a, 0, sizeof(a));
    a.flags = SANDBOX_NS_FLAGS | CLONE_PIDFD;
    a.pidfd = (uint64_t)(uintptr_t)pidfd;
    a.exit_signal = SIGCHLD;
    long pid = syscall(SYS_clone3, &a, sizeof(a));
    if (pid < 0)
        return -errno;
    if (pid > 0)
        fcntl(*pidfd, F_SETFD, FD_CLOEXEC); /* CLONE_PIDFD sets it already; to be sure */
    return (pid_t)pid;
}

/* --- the child's side: system calls only ------------------------------------- */

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, text, strlen(text));
    int err = n < 0 ? errno : 0;
    close(fd);
    return n < 0 ? -err : 0;
}

/* Remount a bind read-only, keeping the flags the kernel locks for a mount
 * made in a less privileged user namespace (nosuid, nodev, noexec, atime). */
static int bind_readonly(const char *src, const char *dst)
{
    struct statfs sv; /* statfs(2), a system call: glibc's statvfs reads files */
    if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
        return -errno;
    if (statfs(dst, &sv) < 0)
        return -errno;
    unsigned long f = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID;
    if (sv.f_flags & ST_NODEV)
        f |= MS_NODEV;
    if (sv.f_flags & ST_NOEXEC)
        f |= MS_NOEXEC;
    if (sv.f_flags & ST_NOATIME)
        f |= MS_NOATIME;
    if (sv.f_flags & ST_NODIRATIME)
        f |= MS_NODIRATIME;
    if (sv.f_flags & ST_RELATIME)
        f |= MS_RELATIME;
    return mount(NULL, dst, NULL, f, NULL) < 0 ? -errno : 0;
}

/* A file to bind onto (a mount point for a file). */
static int touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    close(fd);
    return 0;
}

#define STEP(name, expr)             \
    do {                             \
        if ((rc = (expr)) < 0) {     \
            *step = name;            \
            return rc;               \
        }                            \
    } while (0)
#define SYS(call) ((call) < 0 ? -errno : 0)

int sandbox_enter(const struct sandbox_plan *p, int sync_fd, const char **step)
{
    static const char *const top[] = { "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32" };
    static const char *const devs[] = { "null", "zero", "random", "urandom" };
    char host[16], link[PATH_MAX];
    struct rlimit nproc = { WITNESS_NPROC, WITNESS_NPROC };
    int rc;

    *step = "";
    /* the maps, which the parent writes (sandbox_map) */
    char go = 0;
    STEP("wait for the uid and gid maps", read(sync_fd, &go, 1) == 1 ? 0 : -EPIPE);
    close(sync_fd);
    /* become the mapped ids (a root daemon's child is still uid 0 outside,
     * which the new namespace does not map); capabilities in the namespace
     * stay until exec */
    /* raw system calls: glibc's setresuid would ask the other threads of
     * the parent, which this child does not have, and wait for ever */
    STEP("setresgid 65534", SYS(syscall(SYS_setresgid, WITNESS_SANDBOX_UID, WITNESS_SANDBOX_UID,
                                        WITNESS_SANDBOX_UID)));
    STEP("setresuid 65534", SYS(syscall(SYS_setresuid, WITNESS_SANDBOX_UID, WITNESS_SANDBOX_UID,
                                        WITNESS_SANDBOX_UID)));
    /* nothing mounted here propagates back to the host */
    STEP("make / private", SYS(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)));
    STEP("mount the root tmpfs",
         SYS(mount("tmpfs", p->root_dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")));
    STEP("chdir to the new root", SYS(chdir(p->root_dir)));
    for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
        struct stat st;
        host[0] = '/';
        strcpy(host + 1, top[i]);
        if (lstat(host, &st) < 0)
            continue; /* not on this system */
        if (S_ISLNK(st.st_mode)) {
            ssize_t n = readlink(host, link, sizeof(link) - 1);
            if (n < 0)
                continue;
            link[n] = 0;
            STEP("symlink /bin, /lib…", SYS(symlink(link, top[i])));
        } else if (S_ISDIR(st.st_mode)) {
            STEP("mkdir /usr, /lib…", SYS(mkdir(top[i], 0755)));
            STEP("bind /usr, /lib… read-only", bind_readonly(host, top[i]));
        }
    }
    STEP("mkdir /etc", SYS(mkdir("etc", 0755)));
    if (access("/etc/ld.so.cache", R_OK) == 0) {
        STEP("make /etc/ld.so.cache", touch("etc/ld.so.cache"));
        STEP("bind /etc/ld.so.cache", bind_readonly("/etc/ld.so.cache", "etc/ld.so.cache"));
    }
    STEP("mkdir /dev", SYS(mkdir("dev", 0755)));
    for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
        char d[24] = "dev/", h[24] = "/dev/";
        strcpy(d + 4, devs[i]);
        strcpy(h + 5, devs[i]);
        STEP("make /dev/null…", touch(d));
        STEP("bind /dev/null…", SYS(mount(h, d, NULL, MS_BIND, NULL)));
    }
    STEP("symlink /dev/fd", SYS(symlink("/proc/self/fd", "dev/fd")));
    STEP("mkdir /w", SYS(mkdir("w", 0755)));
    STEP("bind the run's directory at /w", bind_readonly(p->work_dir, "w"));
    if (p->node[0]) {
        STEP("make /node", touch("node"));
        STEP("bind node at /node", bind_readonly(p->node, "node"));
    }
    STEP("mkdir /tmp", SYS(mkdir("tmp", 01777)));
    STEP("mount /tmp", SYS(mount("tmpfs", "tmp", "tmpfs", MS_NOSUID | MS_NODEV, p->tmp_opts)));
    STEP("mkdir /proc", SYS(mkdir("proc", 0555)));
    STEP("mount /proc", SYS(mount("proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)));
    /* into it: the old root is stacked under "." and detached */
    STEP("pivot_root", SYS(syscall(SYS_pivot_root, ".", ".")));
    STEP("detach the old root", SYS(umount2(".", MNT_DETACH)));
    STEP("chdir /", SYS(chdir("/")));
    STEP("remount / read-only",
         SYS(mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL)));
    STEP("RLIMIT_NPROC", SYS(setrlimit(RLIMIT_NPROC, &nproc)));
    STEP("PR_SET_NO_NEW_PRIVS", SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)));
    return 0;
}

/* --- the parent's side --------------------------------------------------------- */

/* RssAnon + RssShmem of pid, bytes (0 if gone). */
static uint64_t rss_of(pid_t pid)
{
    char path[64], line[256];
    uint64_t kib = 0;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "RssAnon:", 8) == 0 || strncmp(line, "RssShmem:", 9) == 0)
            kib += strtoull(strchr(line, ':') + 1, NULL, 10);
    fclose(f);
    return kib * 1024;
}

static uint64_t tree_rss(pid_t pid, unsigned depth)
{
    char path[64];
    uint64_t sum = rss_of(pid);
    if (depth > 64) /* a chain that long is not what the box allows */
        return sum;
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return sum;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char cpath[300];
        snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", (int)pid, de->d_name);
        FILE *f = fopen(cpath, "re");
        if (!f)
            continue;
        int child;
        while (fscanf(f, "%d", &child) == 1)
            sum += tree_rss(child, depth + 1);
        fclose(f);
    }
    closedir(d);
    return sum;
}

uint64_t sandbox_tree_rss(pid_t init)
{
    return tree_rss(init, 0);
}

/* What the probe's child checks from inside: it is PID 1, its /proc lists
 * one process, the host's root is gone (no /w/.root under /w: the run's
 * directory holds it outside), /tmp is writable and / is not. */
static int probe_inside(void)
{
    if (getpid() != 1)
        return 10;
    DIR *d = opendir("/proc");
    if (!d)
        return 11;
    int procs = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        procs += de->d_name[0] >= '1' && de->d_name[0] <= '9';
    closedir(d);
    if (procs != 1)
        return 12;
    if (access("/w", F_OK) != 0 || access("/run", F_OK) == 0 || access("/home", F_OK) == 0)
        return 13;
    int fd = open("/tmp/probe", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return 14;
    close(fd);
    if (open("/probe", O_WRONLY | O_CREAT | O_CLOEXEC, 0600) >= 0 || errno != EROFS)
        return 15;
    return 0;
}

int witness_sandbox_probe(struct sp_err *e)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    struct sandbox_plan plan;
    int pp[2], pidfd = -1, rc;
    snprintf(dir, sizeof(dir), "%s/slotprove-witness-%d-XXXXXX", tmp && *tmp ? tmp : "/tmp",
             (int)getpid());
    if (!mkdtemp(dir))
        return sp_fail(e, -errno, "witness programs: mkdtemp %s: %s", dir, strerror(errno));
    if ((rc = sandbox_plan_init(&plan, dir, NULL, e)) < 0) {
        rmdir(dir);
        return rc;
    }
    if (pipe2(pp, O_CLOEXEC) < 0) {
        rc = sp_fail(e, -errno, "witness programs: pipe: %s", strerror(errno));
        goto out;
    }
    pid_t pid = sandbox_clone(&pidfd);
    if (pid == 0) {
        const char *step;
        close(plan.sync[1]);
        int r = sandbox_enter(&plan, plan.sync[0], &step);
        if (r < 0) {
            /* the step's name, then the errno as a number */
            char num[16];
            int k = (int)sizeof(num);
            unsigned v = (unsigned)-r;
            do
                num[--k] = (char)('0' + v % 10);
            while ((v /= 10) && k > 0);
            if (write(pp[1], step, strlen(step)) < 0 || write(pp[1], "\n", 1) < 0 ||
                write(pp[1], num + k, sizeof(num) - (size_t)k) < 0) {
            }
            _exit(1);
        }
        _exit(probe_inside());
    }
    close(pp[1]);
    if (pid > 0 && (rc = sandbox_map(pid, &plan, e)) < 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(pidfd);
        close(pp[0]);
        goto out;
    }
    if (pid < 0) {
        rc = sp_fail(e, (int)pid, "witness programs need unprivileged user, PID and mount "
                     "namespaces (the sandbox, synthd/witness_sandbox.h), and this system refused "
                     "them: clone3(CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNS|CLONE_NEWIPC|CLONE_NEWNET): "
                     "%s (is user.max_user_namespaces 0, kernel.unprivileged_userns_clone 0, or a "
                     "seccomp/AppArmor policy in the way?)", strerror((int)-pid));
        close(pp[0]);
        goto out;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(pidfd);
    char why[256] = "";
    ssize_t n = read(pp[0], why, sizeof(why) - 1);
    close(pp[0]);
    why[n > 0 ? n : 0] = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        rc = 0;
    } else if (why[0]) {
        char *nl = strchr(why, '\n');
        int err = nl ? atoi(nl + 1) : 0;
        if (nl)
            *nl = 0;
        rc = sp_fail(e, err ? -err : -EPERM, "witness programs need a sandbox this system did not "
                     "allow (synthd/witness_sandbox.h): %s: %s", why, err ? strerror(err) : "failed");
    } else {
        rc = sp_fail(e, -EPERM, "witness programs: the sandbox's self-check failed (code %d: %s)",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                     WIFEXITED(status) ? "it did not see an empty PID namespace and a new root"
                                       : "killed");
    }
out:
    sandbox_plan_done(&plan);
    rmdir(dir);
    return rc;
}
