/*
 * keygen_gpu.c — keygen's point sections on the GPU (keygen_gpu.h)
 * through the helper process build/slotprove-keygen-gpu (keygen_gpu_main.c,
 * protocol in keygen_gpu_proto.h), so that slotprove itself never links the
 * CUDA runtime. The helper is found beside the running executable (or in
 * $SLOTPROVE_LIBEXEC); a build without CUDA has none. Data travels through
 * a memfd both map, requests and replies through a socket; a helper that
 * dies is an error like any other (--backend auto goes on on the CPU).
 */
#include "keygen_gpu.h"
#include "keygen_gpu_proto.h"
#include "sibling.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct keygen_gpu {
    pid_t pid;
    int sock;
    uint8_t *map;
    struct kg_layout l;
};

/* Forks and execs the helper with sock at 3 and mem (when >= 0) at 4.
 * -ENODEV when this build has no helper. */
static int spawn(char *argv[], int mem, pid_t *pid, int *sock, struct sp_err *e)
{
    char path[4096];
    int sv[2];
    if (sibling_path(path, sizeof(path), KEYGEN_GPU_HELPER) < 0 || access(path, X_OK) < 0)
        return sp_fail(e, -ENODEV,
                       "this build has no CUDA backend (nvcc was not found when it was built)");
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return sp_fail(e, -errno, "socketpair: %s", strerror(errno));
    fflush(NULL);
    pid_t p = fork();
    if (p < 0) {
        int err = errno;
        close(sv[0]);
        close(sv[1]);
        return sp_fail(e, -err, "cannot start %s: %s", path, strerror(err));
    }
    if (p == 0) {
        /* out of the way of 3 and 4 first, then into place (dup2 clears CLOEXEC) */
        int s = fcntl(sv[1], F_DUPFD, 64), m = mem >= 0 ? fcntl(mem, F_DUPFD, 64) : -1;
        if (s < 0 || dup2(s, KG_FD_SOCK) < 0 || (m >= 0 && dup2(m, KG_FD_MEM) < 0))
            _exit(127);
        syscall(SYS_close_range, m >= 0 ? KG_FD_MEM + 1 : KG_FD_SOCK + 1, ~0u, 0);
        argv[0] = path;
        execv(path, argv);
        _exit(127);
    }
    close(sv[1]);
    *pid = p;
    *sock = sv[0];
    return 0;
}

/* Reaps the helper and says how it ended into e (after a lost reply). */
static int helper_gone(pid_t pid, struct sp_err *e)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(st))
        return sp_fail(e, -EIO, "the GPU helper %s was killed by signal %d (%s)",
                       KEYGEN_GPU_HELPER, WTERMSIG(st), strsignal(WTERMSIG(st)));
    return sp_fail(e, -EIO, "the GPU helper %s exited with code %d without an answer",
                   KEYGEN_GPU_HELPER, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* One reply: its rc (the reason in e), or -EIO when the helper is gone
 * (reaped; *pid set to 0). */
static int reply(int sock, pid_t *pid, struct kg_rep *r, struct sp_err *e)
{
    ssize_t n;
    while ((n = recv(sock, r, sizeof(*r), 0)) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof(*r)) {
        int rc = helper_gone(*pid, e);
        *pid = 0;
        return rc;
    }
    r->msg[sizeof(r->msg) - 1] = 0;
    if (r->rc < 0)
        return sp_fail(e, r->rc, "%s", r->msg);
    return 0;
}

/* --gpu-mem for the helper (keygen_gpu_budget), decimal bytes; "0": the default. */
static char gpu_mem_arg[24] = "0";

int keygen_gpu_budget(uint64_t bytes, struct sp_err *e)
{
    (void)e;
    snprintf(gpu_mem_arg, sizeof(gpu_mem_arg), "%llu", (unsigned long long)bytes);
    return 0;
}

int keygen_gpu_probe(char *desc, size_t len, struct sp_err *e)
{
    char *argv[] = { NULL, "--probe", "--gpu-mem", gpu_mem_arg, NULL };
    pid_t pid;
    int sock, rc;
    static struct kg_rep r;
    if ((rc = spawn(argv, -1, &pid, &sock, e)) < 0)
        return rc;
    rc = reply(sock, &pid, &r, e);
    close(sock);
    if (pid)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    if (rc == 0 && desc && len)
        snprintf(desc, len, "%s", r.msg);
    return rc;
}

int keygen_gpu_open(struct keygen_gpu **ret, enum curve_id curve, const void *t1, unsigned w1,
                    const void *t2, unsigned w2, size_t max_batch, struct sp_err *e)
{
    *ret = NULL;
    if (w1 < 1 || w1 > 16 || w2 < 1 || w2 > 16)
        return sp_fail(e, -EINVAL, "window bits %u, %u: want 1..16", w1, w2);
    struct keygen_gpu *g = calloc(1, sizeof(*g));
    if (!g)
        return sp_fail(e, -ENOMEM, "out of memory");
    g->sock = -1;
    g->map = MAP_FAILED;
    const struct curve_info *ci = curve_get(curve);
    g->l = kg_layout_of(ci->n8q, w1, w2, max_batch);
    int rc, mem = memfd_create("keygen-gpu", MFD_CLOEXEC);
    if (mem < 0 || ftruncate(mem, (off_t)g->l.total) < 0 ||
        (g->map = mmap(NULL, g->l.total, PROT_READ | PROT_WRITE, MAP_SHARED, mem, 0)) ==
            MAP_FAILED) {
        rc = sp_fail(e, -errno, "%.1f MiB for the GPU helper's tables: %s",
                     g->l.total / 1048576.0, strerror(errno));
        goto fail;
    }
    memcpy(g->map + g->l.t1_off, t1, g->l.t1_bytes);
    memcpy(g->map + g->l.t2_off, t2, g->l.t2_bytes);
    char a_w1[16], a_w2[16], a_mb[32];
    snprintf(a_w1, sizeof(a_w1), "%u", w1);
    snprintf(a_w2, sizeof(a_w2), "%u", w2);
    snprintf(a_mb, sizeof(a_mb), "%zu", max_batch);
    char *argv[] = { NULL, "--curve", (char *)ci->name, "--w1", a_w1, "--w2", a_w2,
                     "--max-batch", a_mb, "--gpu-mem", gpu_mem_arg, NULL };
    if ((rc = spawn(argv, mem, &g->pid, &g->sock, e)) < 0)
        goto fail;
    static struct kg_rep r;
    if ((rc = reply(g->sock, &g->pid, &r, e)) < 0)
        goto fail;
    close(mem);
    *ret = g;
    return 0;
fail:
    if (mem >= 0)
        close(mem);
    keygen_gpu_close(g);
    return rc;
}

int keygen_gpu_mul(struct keygen_gpu *g, int g2, void *out, const uint64_t (*k)[4], size_t n,
                   struct sp_err *e)
{
    if (!g->pid)
        return sp_fail(e, -EIO, "the GPU helper is gone");
    memcpy(g->map + g->l.k_off, k, n * 32);
    struct kg_req q = { .op = KGH_MUL, .g2 = g2 ? 1 : 0, .n = n };
    static struct kg_rep r;
    if (send(g->sock, &q, sizeof(q), MSG_NOSIGNAL) != (ssize_t)sizeof(q)) {
        int rc = helper_gone(g->pid, e);
        g->pid = 0;
        return rc;
    }
    int rc = reply(g->sock, &g->pid, &r, e);
    if (rc == 0)
        memcpy(out, g->map + g->l.out_off, n * (g2 ? g->l.g2_bytes : g->l.g1_bytes));
    return rc;
}

void keygen_gpu_close(struct keygen_gpu *g)
{
    if (!g)
        return;
    if (g->sock >= 0)
        close(g->sock); /* the helper sees the end, frees the GPU and exits */
    if (g->pid)
        while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    if (g->map != MAP_FAILED)
        munmap(g->map, g->l.total);
    free(g);
}
