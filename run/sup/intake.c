/*
 * intake.c — client files read on helper threads (intake.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault_point.h"
#include "intake.h"
#include "proof.h"
#include "witness_files.h"
#include "wtns.h"

int intake_init(struct intake *in, struct sp_err *e)
{
    int p[2];
    memset(in, 0, sizeof(*in));
    in->own_uid = (uint32_t)geteuid();
    in->done_fd = in->post_fd = -1;
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
        return sp_fail(e, -errno, "pipe: %s", strerror(errno));
    in->done_fd = p[0];
    in->post_fd = p[1];
    return 0;
}

/* Public signals of an opened witness (values 1..nPublic) as snarkjs's
 * public.json, and the witness pinned with them (wtns_pin.h); NULL with the
 * reason in e. */
static char *public_signals(const struct key_shape *zk, const struct wtns *w, int wfd,
                            struct wtns_pin *pin, struct sp_err *e)
{
    char *s = NULL;
    uint8_t *buf = malloc((size_t)zk->n_public * 32 + 32);
    if (buf && wtns_read(w, wfd, buf, 1, zk->n_public, e) == 0 &&
        wtns_pin_take(pin, wfd, buf, (size_t)zk->n_public * 32, w->path, e) == 0)
        s = public_to_json(buf, zk->n_public);
    else if (!buf)
        sp_fail(e, -ENOMEM, "out of memory");
    free(buf);
    return s;
}

static void read_files(struct intake_task *t)
{
    const struct key_shape *zk = &t->shape;
    int rc;
    t->rc = -EIO;
    if (t->key_fd >= 0) {
        int kfd = t->key_fd;
        t->key_fd = -1;
        t->reading = INTAKE_READING_KEY;
        /* fault tests only: a key whose reads never return */
        while (fault_point("intake-stall", t->key_name))
            sleep(3600);
        if ((t->rc = keys_prepare(kfd, t->key_name, t->max_key_bytes, t->hash_key, &t->key,
                                  &t->err)) < 0)
            return;
        t->have_key = 1;
        zk = &t->key.shape;
    }
    if (t->prog_fd >= 0) {
        int pfd = t->prog_fd;
        t->prog_fd = -1;
        t->prog_pinned = witness_program_pin(pfd, t->prog_path, &t->err);
        close(pfd);
        if (t->prog_pinned < 0) {
            t->rc = t->prog_pinned;
            return;
        }
        /* its companions too, by name beside it: the submitter is the daemon's user */
        if ((t->rc = witness_companions_pin(t->prog_pinned, t->prog_path, t->prog_aux,
                                            &t->err)) < 0)
            return;
    }
    for (uint32_t i = 0; t->inputs && i < t->n; i++)
        if ((t->pinned[i] = witness_input_pin(t->wfds[i], t->wnames[i], &t->err)) < 0) {
            t->rc = t->pinned[i];
            return;
        }
    for (uint32_t i = 0; !t->inputs && i < t->n; i++) {
        struct wtns w;
        t->reading = (int)i;
        /* fault tests only: a witness whose reads never return */
        while (fault_point("intake-stall", t->wnames[i]))
            sleep(3600);
        if ((rc = wtns_open(&w, t->wfds[i], t->wnames[i], &t->err)) < 0 ||
            (rc = wtns_check_shape(&w, zk, &t->err)) < 0) {
            t->rc = rc;
            return;
        }
        if (!(t->public_json[i] = public_signals(zk, &w, t->wfds[i], &t->pin[i], &t->err)))
            return;
    }
    t->rc = 0;
}

static void *run(void *arg)
{
    struct intake_task *t = arg;
    read_files(t);
    for (uint32_t i = 0; i < t->n; i++)
        if (t->wfds[i] >= 0) {
            close(t->wfds[i]);
            t->wfds[i] = -1;
        }
    /* the pointer itself is the message: a pipe write of 8 bytes is atomic;
     * the pipe holds far more than INTAKE_MAX_RUNNING of them */
    while (write(t->post_fd, &t, sizeof(t)) < 0 && errno == EINTR)
        ;
    return NULL;
}

/* uid's row (a free one, or the last row, shared, when all are taken). */
static struct intake_uid *uid_row(struct intake *in, uint32_t uid)
{
    struct intake_uid *free_row = NULL;
    for (unsigned i = 0; i < INTAKE_UIDS; i++) {
        struct intake_uid *u = &in->uids[i];
        if ((u->running || u->abandoned) && u->uid == uid)
            return u;
        if (!free_row && !u->running && !u->abandoned)
            free_row = u;
    }
    if (!free_row)
        return &in->uids[INTAKE_UIDS - 1];
    free_row->uid = uid;
    return free_row;
}

int intake_start(struct intake *in, struct intake_task *t)
{
    pthread_attr_t a;
    pthread_t th;
    struct intake_uid *u = uid_row(in, t->uid);
    if (t->uid == in->own_uid) { /* the daemon's uid: its own budget, the totals */
        if (u->abandoned >= INTAKE_MAX_ABANDONED)
            return -EMFILE;
        if (u->running >= INTAKE_MAX_RUNNING)
            return -EAGAIN;
    } else { /* every other uid: its share, within the others' totals */
        unsigned own_running = 0, own_abandoned = 0;
        for (unsigned i = 0; i < INTAKE_UIDS; i++) /* the owner's row, if it has one */
            if (&in->uids[i] != u && in->uids[i].uid == in->own_uid) {
                own_running += in->uids[i].running;
                own_abandoned += in->uids[i].abandoned;
            }
        if (u->abandoned >= INTAKE_MAX_ABANDONED_PER_UID ||
            in->abandoned - own_abandoned >= INTAKE_MAX_ABANDONED)
            return -EMFILE;
        if (u->running >= INTAKE_MAX_RUNNING_PER_UID || in->running - own_running >= INTAKE_MAX_RUNNING)
            return -EAGAIN;
    }
    t->post_fd = in->post_fd;
    t->reading = t->key_fd >= 0 ? INTAKE_READING_KEY : 0;
    t->rc = -EIO;
    t->have_key = 0;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&th, &a, run, t);
    pthread_attr_destroy(&a);
    if (rc != 0)
        return -rc;
    in->running++;
    u->running++;
    t->next = in->tasks;
    in->tasks = t;
    return 0;
}

struct intake_task *intake_collect(struct intake *in)
{
    struct intake_task *t;
    if (read(in->done_fd, &t, sizeof(t)) != (ssize_t)sizeof(t))
        return NULL;
    for (struct intake_task **pt = &in->tasks; *pt; pt = &(*pt)->next)
        if (*pt == t) {
            *pt = t->next;
            break;
        }
    t->next = NULL;
    struct intake_uid *u = uid_row(in, t->uid);
    if (t->abandoned) {
        in->abandoned--;
        u->abandoned -= u->abandoned > 0;
    } else {
        in->running--;
        u->running -= u->running > 0;
    }
    return t;
}

void intake_abandon(struct intake *in, struct intake_task *t)
{
    if (t->abandoned)
        return;
    t->abandoned = 1;
    in->running--;
    in->abandoned++;
    struct intake_uid *u = uid_row(in, t->uid);
    u->running -= u->running > 0;
    u->abandoned++;
    in->abandoned_total++;
}

void intake_free(struct intake_task *t)
{
    if (!t)
        return;
    if (t->key_fd >= 0)
        close(t->key_fd);
    if (t->prog_fd >= 0)
        close(t->prog_fd);
    if (t->prog_pinned >= 0)
        close(t->prog_pinned);
    for (int a = 0; a < 2; a++)
        if (t->prog_aux[a] >= 0)
            close(t->prog_aux[a]);
    for (uint32_t i = 0; i < t->n; i++) {
        if (t->wfds[i] >= 0)
            close(t->wfds[i]);
        free(t->public_json[i]);
        if (t->inputs && t->pinned[i] >= 0)
            close(t->pinned[i]);
    }
    if (t->have_key) {
        zkey_close(&t->key.zk);
        close(t->key.fd);
    }
    free(t);
}
