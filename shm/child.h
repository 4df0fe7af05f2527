/*
 * child.h — what every child of the supervisor (synthd, gpud) is started
 * with, and the checks it makes at start.
 *
 * The supervisor forks, places the inherited descriptors at fixed numbers and
 * execs the child with:
 *   --ctl-fd 3 --pool-fds 4,5 --doorbell-fd 6 --incarnation N
 *   --supervisor PID [--threads T] [--backend NAME] [--doorbells G]
 *   [--gpud-index I] [--gpu DEV] [--gpu-mem BYTES]
 *   [--witness-mem BYTES] [--witness-cpu S] [--witness-time S]
 * fd 3: the control socket (ctl.h); 4, 5: the pool's control and payload
 * memfds (shm/pool.h); 6: a gpud's own doorbell eventfd, or for a synthd
 * 6 .. 6+G-1 the doorbells of gpud 0 .. G-1 (the one it publishes for is
 * rung). gpud I consumes ticket ring I. The incarnation is the number the
 * supervisor gave this process (it tags slots; pids are reused). A synthd
 * gets its witness programs' limits (serve/fullprove --witness-mem,
 * --witness-cpu, --witness-time; synthd/witness_program.h) as the three
 * --witness-* arguments; each left out (or 0) means its default there.
 */
#ifndef SLOTPROVE_CHILD_H
#define SLOTPROVE_CHILD_H

#include <stdint.h>
#include <sys/types.h>

#include "err.h"

enum { CHILD_FD_CTL = 3, CHILD_FD_POOL_CTL = 4, CHILD_FD_POOL_PAYLOAD = 5, CHILD_FD_DOORBELL = 6 };
#define CHILD_MAX_DOORBELLS 16 /* gpuds */
#define CHILD_MAX_WORKERS 4    /* gpud --workers N: partitions a gpud proves at once, at most */

struct child_args {
    int ctl_fd, pool_ctl_fd, pool_payload_fd, doorbell_fd;
    uint32_t incarnation;
    pid_t supervisor;
    unsigned threads;      /* 0 = all online CPUs */
    const char *backend;   /* gpud only */
    const char *gpu;       /* gpud only: --gpu, its CUDA device, or NULL */
    uint64_t gpu_mem;      /* gpud only: --gpu-mem, device bytes it may use (0: default) */
    unsigned gpu_share;    /* gpud only: --gpu-share, gpuds sharing its device (0, 1: alone);
                              the default budget is divided among them */
    unsigned workers;      /* gpud only: --workers, partitions proved at once (0: the backend's) */
    unsigned ndoorbells;   /* synthd: doorbells at doorbell_fd + 0 .. ndoorbells-1 */
    unsigned gpud_index;   /* gpud: its ticket ring */
    int no_verify;         /* gpud: --no-verify 1: no proof_self_check (serve/prove --no-verify) */
    int trace_buffers;     /* --trace-buffers 1: a slot-table line per claim/publish/take/release */
    int log_stamp;         /* --log-stamp 1 (serve): stderr lines start with time and level (log_stamp.h) */
    uint64_t witness_mem;  /* synthd: --witness-mem, a witness program's memory limit, bytes (0: default) */
    unsigned witness_cpu;  /* synthd: --witness-cpu, its CPU-time limit, s (0: default) */
    unsigned witness_time; /* synthd: --witness-time, its wall-clock limit, s (0: default) */
};

/* Parses the arguments above. -EINVAL with a message on anything else. */
int child_args_parse(struct child_args *a, int argc, char **argv, struct sp_err *e);

/* Makes the child die with the supervisor: PR_SET_PDEATHSIG(SIGKILL), then
 * re-checks getppid() (the parent may have died before the prctl).
 * -ESRCH when the supervisor is already gone. */
int child_bind_to_supervisor(const struct child_args *a);

/* 1 while the supervisor is this process's parent. */
int child_supervisor_alive(const struct child_args *a);

struct ctl_msg;
struct pool;

/* The start every child makes: parses its arguments, binds itself to the
 * supervisor (PDEATHSIG), fires the "<role>-start" fault point
 * (fault_point.h), and attaches the pool with payload_prot. 0; 2 (the
 * exit code: fatal, do not respawn) after a message on stderr naming the
 * role; or 1 when the pool does not attach (a torn control page, which the
 * supervisor repairs: pool_guard.h; the role is respawned with backoff). */
int child_start(struct child_args *a, int argc, char **argv, const char *role,
                struct pool *pool, int payload_prot);

/* Sends m to the supervisor and never drops it: when the socket is full
 * (the supervisor is slow or stopped) it waits for room, a second at a
 * time, for as long as the supervisor lives. 0, or -errno (-EPIPE, or
 * -ESRCH once the supervisor is gone: the work will be redone anyway). */
int child_send(const struct child_args *a, const struct ctl_msg *m);

#endif
