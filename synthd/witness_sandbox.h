/*
 * witness_sandbox.h — the box a witness program runs in (issue 36).
 *
 * A witness program is third-party code: whatever it starts must end with
 * its job and see nothing of slotprove. synthd starts it with clone3(2) in
 * new namespaces, all of them unprivileged (no setuid helper, no root):
 *   - user: its uid and gid are 65534 inside, mapped outside to the
 *     daemon's own (the one mapping an unprivileged process may write) or,
 *     for a daemon run as root, to 65534 (nobody): a process of uid 0
 *     outside is exempt from RLIMIT_NPROC, and the program is not the
 *     daemon's user either. synthd writes the maps (it owns the
 *     namespace) while the child waits. The program's capabilities there
 *     serve only to build the box and are gone at exec (a non-zero uid
 *     execs without them), and PR_SET_NO_NEW_PRIVS is set;
 *   - PID: the program is the namespace's init, so when it ends — it exits,
 *     is killed, or its synthd dies (PR_SET_PDEATHSIG) — the kernel kills
 *     every process it started, setsid(2) or not, and synthd's wait returns
 *     only once they are all gone. It sees no process but its own: no
 *     /proc/PID of the supervisor, synthd or gpud, so none of their memory
 *     or descriptors (the slot pool's memfds, queued witnesses);
 *   - mount: a new root (tmpfs, read-only once built) holding only /usr and
 *     the host's /bin, /sbin, /lib* (read-only binds, or the same symbolic
 *     links on a merged-/usr system), /etc/ld.so.cache, /dev/null, zero,
 *     random and urandom, a /proc of its own PID namespace, /w (the run's
 *     private directory, read-only: the .dat link or the two .js files),
 *     /node (a .wasm's node binary, read-only) and a private writable /tmp:
 *     a tmpfs of WITNESS_TMP_BYTES. Its input, output and program are the
 *     descriptors synthd passes (/proc/self/fd/N). No other file of the host
 *     is there to read or write: not the socket, not another job's files;
 *   - network, IPC, UTS: no network but its own loopback, no System V IPC
 *     or POSIX message queues shared with the host.
 * Limits that hold for the whole tree: RLIMIT_NPROC of WITNESS_NPROC
 * processes and threads (counted per user namespace since Linux 5.14, so
 * only the box's own), each process's memory rlimit (witness_program.h),
 * and the tree's resident memory (RssAnon + RssShmem of every process in
 * it), which synthd sums every WITNESS_TREE_POLL_MS and kills the box past
 * --witness-mem: so the tree holds at most --witness-mem plus what it can
 * allocate in one poll interval, and never more than WITNESS_NPROC × the
 * per-process limit.
 *
 * PR_SET_DUMPABLE 0 is not set in the supervisor, synthd or gpud: it would
 * make their /proc files root's, and a supervisor run as its own user then
 * could not read its children's RSS and Pss (kids.h, status); the box's
 * own PID namespace already hides those processes from the program.
 *
 * Needs: Linux 5.3 (clone3, CLONE_PIDFD), user namespaces that an
 * unprivileged process may create (user.max_user_namespaces > 0; on
 * kernels with the Debian/Ubuntu switch, kernel.unprivileged_userns_clone
 * = 1 or a daemon run as root; not blocked by an AppArmor or seccomp
 * policy), and mount and PID namespaces within them. witness_sandbox_probe
 * tries them all; where one is missing the daemon refuses witness programs
 * naming it (`synthd --sandbox-probe`, run by serve and fullprove at
 * start): a program is never run outside the box.
 */
#ifndef SLOTPROVE_WITNESS_SANDBOX_H
#define SLOTPROVE_WITNESS_SANDBOX_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

#define WITNESS_TMP_BYTES (64ull << 20) /* the box's writable /tmp */
#define WITNESS_NPROC 64u              /* processes and threads in the box */
#define WITNESS_TREE_POLL_MS 100u      /* the tree's memory is summed this often */
#define WITNESS_SANDBOX_UID 65534u     /* uid and gid inside the box */

/* What the child needs to build the box, prepared before the clone (the
 * child makes only system calls). */
struct sandbox_plan {
    int sync[2];              /* a pipe: the child waits for the maps on sync[0] */
    unsigned outer_uid, outer_gid; /* the box's uid and gid outside */
    char work_dir[PATH_MAX];  /* the run's private directory: /w */
    char root_dir[PATH_MAX];  /* work_dir/.root: the new root's mount point */
    char node[PATH_MAX];      /* the node binary to bind at /node, or "" */
    char uid_map[48], gid_map[48], tmp_opts[48];
};

/* Fills p for the private directory work_dir (which must exist, its files
 * in place: for a root daemon they are given to the box's uid) and makes
 * work_dir/.root and the sync pipe; node: the node binary's real path for
 * a .wasm, or NULL. 0 or -errno with the reason in e. */
int sandbox_plan_init(struct sandbox_plan *p, const char *work_dir, const char *node,
                      struct sp_err *e);

/* Writes the child's uid and gid maps (in the parent, after sandbox_clone)
 * and lets it go on. 0 or -errno with the reason in e. */
int sandbox_map(pid_t child, struct sandbox_plan *p, struct sp_err *e);

/* Removes work_dir/.root, closes the pipe (after the run). */
void sandbox_plan_done(struct sandbox_plan *p);

/* clone3 into new user, PID, mount, IPC, network and UTS namespaces, the
 * child sending SIGCHLD at its end: in the parent the child's pid (and
 * *pidfd, close-on-exec), in the child 0, or -errno (EPERM, EINVAL, ENOSPC
 * where namespaces are not allowed; ENOSYS before Linux 5.3). */
pid_t sandbox_clone(int *pidfd);

/* In the child of sandbox_clone, before exec: waits for the maps (a byte
 * on sync_fd, the child's copy of p->sync[0], closed after), builds
 * and enters the new root, sets RLIMIT_NPROC and PR_SET_NO_NEW_PRIVS.
 * Async-signal-safe (system calls only). 0, or the negative errno of the
 * failed step, whose name *step then points to. */
int sandbox_enter(const struct sandbox_plan *p, int sync_fd, const char **step);

/* Bytes of RssAnon + RssShmem summed over init (a pid of this namespace)
 * and every process below it (/proc/PID/task/TID/children). 0 when init is
 * gone. */
uint64_t sandbox_tree_rss(pid_t init);

/* Builds a box in a scratch directory under $TMPDIR (else /tmp) and checks
 * from inside that its PID is 1, its /proc shows one process and the host's
 * root is not there. 0, or -errno with the missing feature named in e
 * ("witness programs need ...: clone3(CLONE_NEWUSER|...): Operation not
 * permitted"). */
int witness_sandbox_probe(struct sp_err *e);

#endif
