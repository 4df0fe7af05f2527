/* witness_open.c — a witness opened and hashed off fleetd's loop (witness_open.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fleet.h"
#include "witness_open.h"

struct witness_open {
    pthread_mutex_t mu;
    int done, abandoned;
    int efd;            /* written once the thread has finished */
    int fd, rc;         /* the result */
    char hex[65];
    struct stat st;
    struct sp_err e;
    char path[4096];
};

static atomic_uint stuck;

static void free_handle(struct witness_open *w)
{
    if (w->fd >= 0)
        close(w->fd);
    close(w->efd);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

static void *run(void *arg)
{
    struct witness_open *w = arg;
    int fd = open(w->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0) {
        int err = errno;
        w->rc = sp_fail(&w->e, -err, "%s: %s (the witness path recorded at submit)", w->path,
                        strerror(err));
    } else if (fstat(fd, &st) < 0) {
        int err = errno;
        w->rc = sp_fail(&w->e, -err, "%s: %s", w->path, strerror(err));
    } else if (!S_ISREG(st.st_mode)) {
        w->rc = sp_fail(&w->e, -EINVAL, "%s: not a regular file (%s): a witness must be a file",
                        w->path, S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                        : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket"
                        : S_ISDIR(st.st_mode) ? "a directory" : "not a file");
    } else {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        w->rc = witness_hash_fd(fd, w->path, w->hex, &w->st, &w->e);
    }
    if (w->rc == 0) {
        w->fd = fd;
        fd = -1;
    }
    if (fd >= 0)
        close(fd);
    /* under the lock: once it is released, only an abandoned handle is
     * still this thread's to touch */
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    int abandoned = w->abandoned;
    if (!abandoned) {
        uint64_t one = 1;
        if (write(w->efd, &one, sizeof(one)) < 0) {
        }
    }
    pthread_mutex_unlock(&w->mu);
    if (abandoned) {
        free_handle(w);
        atomic_fetch_sub(&stuck, 1);
    }
    return NULL;
}

struct witness_open *witness_open_start(const char *path, struct sp_err *e)
{
    struct witness_open *w = calloc(1, sizeof(*w));
    if (!w) {
        sp_fail(e, -ENOMEM, "out of memory");
        return NULL;
    }
    w->fd = -1;
    snprintf(w->path, sizeof(w->path), "%s", path);
    if ((w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        sp_fail(e, -errno, "eventfd: %s", strerror(errno));
        free(w);
        return NULL;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_attr_t a;
    pthread_t th;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&th, &a, run, w); /* fleetd's signal mask: stop_signals.h */
    pthread_attr_destroy(&a);
    if (rc != 0) {
        sp_fail(e, -rc, "cannot start a thread to read %s: %s", path, strerror(rc));
        free_handle(w);
        return NULL;
    }
    return w;
}

int witness_open_pollfd(const struct witness_open *w)
{
    return w->efd;
}

int witness_open_done(struct witness_open *w)
{
    pthread_mutex_lock(&w->mu);
    int d = w->done;
    pthread_mutex_unlock(&w->mu);
    return d;
}

int witness_open_take(struct witness_open *w, int *fd, char hex[65], struct stat *st,
                      struct sp_err *e)
{
    int rc = w->rc;
    if (rc == 0) {
        *fd = w->fd;
        w->fd = -1;
        memcpy(hex, w->hex, 65);
        *st = w->st;
    } else {
        sp_fail(e, rc, "%s", w->e.msg);
    }
    free_handle(w);
    return rc;
}

void witness_open_abandon(struct witness_open *w)
{
    pthread_mutex_lock(&w->mu);
    int done = w->done;
    w->abandoned = 1;
    if (!done)
        atomic_fetch_add(&stuck, 1);
    pthread_mutex_unlock(&w->mu);
    if (done) /* finished after all: nothing to wait for */
        free_handle(w);
}

unsigned witness_open_stuck(void)
{
    return atomic_load(&stuck);
}
