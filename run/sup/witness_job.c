/*
 * witness_job.c — input jobs (witness_job.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "job_end.h"
#include "proof.h"
#include "witness_job.h"

int witness_job_attach(struct job *j, int prog_fd, const int aux[2], const char *prog_path,
                       struct sp_err *e)
{
    char *path = strdup(prog_path);
    if (!path)
        return sp_fail(e, -ENOMEM, "%s: out of memory", prog_path);
    int fd[3] = { fcntl(prog_fd, F_DUPFD_CLOEXEC, 0), -1, -1 };
    for (int a = 0; a < 2 && fd[0] >= 0; a++)
        if (aux[a] >= 0 && (fd[1 + a] = fcntl(aux[a], F_DUPFD_CLOEXEC, 0)) < 0) {
            close(fd[0]);
            fd[0] = -1;
        }
    if (fd[0] < 0) {
        int err = errno;
        if (fd[1] >= 0)
            close(fd[1]);
        free(path);
        return sp_fail(e, -err, "%s: dup: %s", prog_path, strerror(err));
    }
    if (j->prog_fd >= 0)
        close(j->prog_fd);
    for (int a = 0; a < 2; a++) {
        if (j->prog_aux[a] >= 0)
            close(j->prog_aux[a]);
        j->prog_aux[a] = fd[1 + a];
    }
    j->prog_fd = fd[0];
    free(j->prog_path);
    j->prog_path = path;
    return 0;
}

void witness_job_text(struct ctl_msg *m, const char *input_name, const char *prog_path)
{
    char t[CTL_TEXT_MAX];
    int a = snprintf(t, sizeof(t), "%s", input_name);
    if (a < 0 || (size_t)a + 1 >= sizeof(t))
        a = 0;
    int b = snprintf(t + a + 1, sizeof(t) - (size_t)a - 1, "%s", prog_path);
    if (b < 0)
        b = 0;
    size_t len = (size_t)a + 1 + (size_t)b;
    ctl_bytes(m, t, (uint32_t)(len < sizeof(t) ? len : sizeof(t)));
}

void witness_job_public_part(struct core *c, struct job *j, uint32_t part, uint32_t first,
                             const char *bytes, size_t n)
{
    const struct key_shape *zk = &c->keys.keys[j->d.key_id].shape;
    struct job_part *p = &j->parts[part];
    if (first == 0)
        p->public_next = 0;
    if (first != p->public_next || n % 32 || first + n / 32 > zk->n_public)
        return; /* out of sequence: PROVED will find them missing */
    if (!p->public_raw && !(p->public_raw = malloc((size_t)zk->n_public * 32 + 32)))
        return;
    memcpy(p->public_raw + (size_t)first * 32, bytes, n);
    p->public_next = first + (uint32_t)(n / 32);
}

int witness_job_public(struct core *c, struct job *j, uint32_t part)
{
    const struct key_shape *zk = &c->keys.keys[j->d.key_id].shape;
    struct job_part *p = &j->parts[part];
    if (zk->n_public && (!p->public_raw || p->public_next != zk->n_public)) {
        core_fail_job(c, j, FAIL_INTERNAL, "%s: gpud sent %u of the %u public signals", p->wname,
                      p->public_next, zk->n_public);
        return -1;
    }
    static const uint8_t none[32];
    if (!(p->public_json = public_to_json(p->public_raw ? p->public_raw : none, zk->n_public))) {
        core_fail_job(c, j, FAIL_INTERNAL, "out of memory for public signals");
        return -1;
    }
    return 0;
}

void witness_limits_set(struct core_opts *o, uint64_t mem_bytes, unsigned cpu_s, unsigned wall_s)
{
    o->witness_mem = mem_bytes;
    o->witness_cpu_s = cpu_s;
    o->witness_wall_s = wall_s;
}

int witness_job_ready(struct core *c, struct job *j, uint32_t key_id)
{
    const struct key_entry *k = &c->keys.keys[key_id];
    if (j->prog_fd < 0) {
        core_fail_job(c, j, FAIL_INPUT, "%s: no witness program for this key (serve --witness-program "
                      "NAME=PROGRAM, or submit --zkey with --program)", k->alias[0] ? k->alias : k->name);
        return -1;
    }
    return 0;
}
