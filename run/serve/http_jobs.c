/* http_jobs.c — `serve --http`'s jobs, carried to the daemon as a socket
 * client carries them (http_jobs.h). */
#include "http_jobs.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "client_conn.h"
#include "stages.h" /* now_ns: CLOCK_MONOTONIC */

/* How long a worker retries a daemon that answers "busy" (too many
 * connections, a full queue of readers): as long as `submit` does. */
#define HTTP_JOBS_BUSY_RETRY_S 120

enum hj_state { HJ_FREE, HJ_QUEUED, HJ_RUNNING, HJ_DONE, HJ_FAILED, HJ_CANCELLED };

struct hj {
    enum hj_state state;
    char id[HTTP_JOB_ID_HEX + 1];
    char daemon_job[JOB_ID_HEX + 1]; /* the daemon's id once it took the job, else "" */
    char circuit[JOB_NAME_MAX + 1];
    int input_fd;                    /* QUEUED and RUNNING until the submit is answered */
    size_t input_bytes;              /* its size, counted in inputs_held while open */
    int cancel_wanted, cancel_sent;
    uint64_t ended_ns;               /* CLOCK_MONOTONIC, for HTTP_JOBS_TTL_S */
    json_t *proof, *public;          /* DONE: snarkjs's proof.json and public.json */
    char *error;                     /* FAILED: the daemon's reason */
    struct hj *next;                 /* the queue, oldest first */
};

struct http_jobs {
    pthread_mutex_t mu;
    pthread_cond_t work;             /* a job queued, a cancel wanted, or stop */
    const char *socket_path;
    int stop;
    struct hj *head, *tail;          /* QUEUED jobs */
    int cancels;                     /* cancels wanted and not yet sent */
    size_t inputs_held;              /* bytes of the jobs' open inputs, ≤ HTTP_JOBS_INPUT_BUDGET */
    int conn_fd[HTTP_JOBS_WORKERS + 1]; /* each thread's daemon connection, -1: none */
    pthread_t thread[HTTP_JOBS_WORKERS + 1];
    unsigned nthreads;
    struct hj jobs[HTTP_JOBS_MAX];
};

static const char *state_name(enum hj_state s)
{
    return s == HJ_DONE ? "success" : s == HJ_FAILED ? "failed" : s == HJ_CANCELLED ? "aborted"
                                                                                     : "busy";
}

static struct hj *find(struct http_jobs *t, const char *id)
{
    if (strlen(id) != HTTP_JOB_ID_HEX)
        return NULL;
    for (unsigned i = 0; i < HTTP_JOBS_MAX; i++)
        if (t->jobs[i].state != HJ_FREE && strcmp(t->jobs[i].id, id) == 0)
            return &t->jobs[i];
    return NULL;
}

/* Closes j's input (under the mutex), giving its bytes back. */
static void input_close(struct http_jobs *t, struct hj *j)
{
    if (j->input_fd < 0)
        return;
    close(j->input_fd);
    j->input_fd = -1;
    t->inputs_held -= j->input_bytes;
    j->input_bytes = 0;
}

static void job_clear(struct http_jobs *t, struct hj *j)
{
    json_decref(j->proof);
    json_decref(j->public);
    free(j->error);
    input_close(t, j);
    memset(j, 0, sizeof(*j));
    j->input_fd = -1;
}

/* Ends j (under the mutex); error: FAILED's reason (copied), else NULL. */
static void job_end(struct http_jobs *t, struct hj *j, enum hj_state s, const char *error)
{
    j->state = s;
    j->ended_ns = now_ns();
    if (error && !j->error)
        j->error = strdup(error);
    input_close(t, j);
}

/* The thread's daemon connection, registered so that stop can shut it;
 * 0, or -ESHUTDOWN when stopping (c closed). */
static int conn_register(struct http_jobs *t, unsigned who, struct client_conn *c)
{
    pthread_mutex_lock(&t->mu);
    int stop = t->stop;
    t->conn_fd[who] = stop ? -1 : c->fd;
    pthread_mutex_unlock(&t->mu);
    if (stop)
        client_close(c);
    return stop ? -ESHUTDOWN : 0;
}

static void conn_done(struct http_jobs *t, unsigned who, struct client_conn *c)
{
    pthread_mutex_lock(&t->mu);
    t->conn_fd[who] = -1;
    pthread_mutex_unlock(&t->mu);
    client_close(c);
}

/* Sends req (with fd attached, or -1) and parses the answer line into
 * *resp (freed by the caller). 0, or a negative code with e. */
static int call(struct client_conn *c, json_t *req, int fd, json_t **resp, struct sp_err *e)
{
    *resp = NULL;
    char *s = json_dumps(req, JSON_COMPACT);
    if (!s)
        return sp_fail(e, -ENOMEM, "out of memory");
    size_t n = strlen(s);
    char *line = realloc(s, n + 2);
    if (!line) {
        free(s);
        return sp_fail(e, -ENOMEM, "out of memory");
    }
    line[n] = '\n';
    line[n + 1] = 0;
    int rc = client_send(c, line, n + 1, fd >= 0 ? &fd : NULL, fd >= 0 ? 1 : 0, e);
    free(line);
    char *rl;
    size_t rlen;
    if (rc < 0 || (rc = client_read_line(c, &rl, &rlen, e)) < 0)
        return rc;
    json_error_t je;
    *resp = json_loadb(rl, rlen, 0, &je);
    if (!json_is_object(*resp)) {
        json_decref(*resp);
        *resp = NULL;
        return sp_fail(e, -EPROTO, "malformed answer from the daemon");
    }
    return 0;
}

/* Waits up to ms, or until stop; 1 when stopping. */
static int pause_ms(struct http_jobs *t, long ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&t->mu);
    if (!t->stop)
        pthread_cond_timedwait(&t->work, &t->mu, &ts);
    int stop = t->stop;
    pthread_mutex_unlock(&t->mu);
    return stop;
}

/* Submits j and waits for it on one connection; the job ends here. */
static void carry(struct http_jobs *t, unsigned who, struct hj *j)
{
    struct sp_err e = { "" };
    struct client_conn c;
    json_t *resp = NULL;
    char name[HTTP_JOB_ID_HEX + 32];
    snprintf(name, sizeof(name), "the input of http job %s", j->id);
    json_t *sub = json_pack("{s:s, s:s, s:[s]}", "op", "submit", "key", j->circuit, "inputs", name);
    uint64_t give_up = now_ns() + HTTP_JOBS_BUSY_RETRY_S * 1000000000ull;
    long delay_ms = 5;
    int rc;
    for (;;) {
        if (!sub) {
            rc = sp_fail(&e, -ENOMEM, "out of memory");
            goto failed_unconnected;
        }
        if ((rc = client_open(&c, t->socket_path, &e)) < 0)
            goto failed_unconnected;
        if ((rc = conn_register(t, who, &c)) < 0) {
            sp_fail(&e, rc, "serve is stopping");
            goto failed_unconnected;
        }
        /* the descriptor is kept until the submit is answered: then the
         * daemon holds its own, which its intake copies (witness_files.h) */
        rc = call(&c, sub, j->input_fd, &resp, &e);
        if (rc < 0)
            goto failed;
        if (json_is_true(json_object_get(resp, "ok")) ||
            !json_is_true(json_object_get(resp, "busy")) || now_ns() > give_up)
            break;
        json_decref(resp);
        resp = NULL;
        conn_done(t, who, &c);
        if (pause_ms(t, delay_ms)) {
            rc = sp_fail(&e, -ESHUTDOWN, "serve is stopping");
            goto failed_unconnected;
        }
        delay_ms = delay_ms * 2 > 1000 ? 1000 : delay_ms * 2;
    }
    json_decref(sub);
    sub = NULL;
    const char *djob = json_string_value(json_object_get(resp, "job"));
    if (!json_is_true(json_object_get(resp, "ok")) || !djob || strlen(djob) != JOB_ID_HEX) {
        const char *why = json_string_value(json_object_get(resp, "error"));
        rc = sp_fail(&e, -EPROTO, "%s", why ? why : "the daemon refused the job");
        goto failed;
    }
    pthread_mutex_lock(&t->mu);
    memcpy(j->daemon_job, djob, JOB_ID_HEX + 1);
    input_close(t, j);
    int cancel = j->cancel_wanted; /* wanted before the daemon's id was known */
    j->cancel_sent |= cancel;
    pthread_mutex_unlock(&t->mu);
    json_decref(resp);
    resp = NULL;
    json_t *req;
    if (cancel) { /* on this connection, before the wait: the wait then answers "cancelled" */
        req = json_pack("{s:s, s:s}", "op", "cancel", "job", j->daemon_job);
        rc = req ? call(&c, req, -1, &resp, &e) : sp_fail(&e, -ENOMEM, "out of memory");
        json_decref(req);
        json_decref(resp);
        resp = NULL;
        if (rc < 0)
            goto failed;
    }
    req = json_pack("{s:s, s:s}", "op", "wait", "job", j->daemon_job);
    rc = req ? call(&c, req, -1, &resp, &e) : sp_fail(&e, -ENOMEM, "out of memory");
    json_decref(req);
    if (rc < 0)
        goto failed;
    const char *state = json_string_value(json_object_get(resp, "state"));
    if (!json_is_true(json_object_get(resp, "ok"))) {
        const char *why = json_string_value(json_object_get(resp, "error"));
        pthread_mutex_lock(&t->mu);
        job_end(t, j, state && strcmp(state, "cancelled") == 0 ? HJ_CANCELLED : HJ_FAILED,
                why ? why : state ? state : "the job failed");
        pthread_mutex_unlock(&t->mu);
        goto out;
    }
    /* done: one result line per partition; an input job has one */
    char *rl;
    size_t rlen;
    if ((rc = client_read_line(&c, &rl, &rlen, &e)) < 0)
        goto failed;
    json_error_t je;
    json_t *part = json_loadb(rl, rlen, 0, &je);
    json_t *proof = json_object_get(part, "proof"), *pub = json_object_get(part, "public");
    if (!json_is_object(proof) || !json_is_array(pub)) {
        json_decref(part);
        rc = sp_fail(&e, -EPROTO, "malformed result from the daemon");
        goto failed;
    }
    pthread_mutex_lock(&t->mu);
    j->proof = json_incref(proof);
    j->public = json_incref(pub);
    job_end(t, j, HJ_DONE, NULL);
    pthread_mutex_unlock(&t->mu);
    json_decref(part);
    goto out;
failed:
    conn_done(t, who, &c);
failed_unconnected:
    json_decref(sub);
    json_decref(resp);
    client_sanitize(e.msg);
    pthread_mutex_lock(&t->mu);
    job_end(t, j, HJ_FAILED, e.msg);
    pthread_mutex_unlock(&t->mu);
    return;
out:
    json_decref(resp);
    conn_done(t, who, &c);
}

static void *worker(void *arg)
{
    struct http_jobs *t = ((void **)arg)[0];
    unsigned who = (unsigned)(uintptr_t)((void **)arg)[1];
    free(arg);
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->stop && !t->head)
            pthread_cond_wait(&t->work, &t->mu);
        if (t->stop)
            break;
        struct hj *j = t->head;
        t->head = j->next;
        if (!t->head)
            t->tail = NULL;
        j->next = NULL;
        j->state = HJ_RUNNING;
        pthread_mutex_unlock(&t->mu);
        carry(t, who, j);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* The cancel thread: sends the daemon's cancel for each running job whose
 * cancel is wanted, on a connection of its own. */
static void *canceller(void *arg)
{
    struct http_jobs *t = arg;
    unsigned who = HTTP_JOBS_WORKERS;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->stop && !t->cancels)
            pthread_cond_wait(&t->work, &t->mu);
        if (t->stop)
            break;
        char djob[JOB_ID_HEX + 1] = "";
        t->cancels = 0;
        for (unsigned i = 0; i < HTTP_JOBS_MAX && !djob[0]; i++) {
            struct hj *j = &t->jobs[i];
            if (j->state == HJ_RUNNING && j->cancel_wanted && !j->cancel_sent && j->daemon_job[0]) {
                j->cancel_sent = 1;
                memcpy(djob, j->daemon_job, sizeof(djob));
                t->cancels = 1; /* look again for another */
            }
        }
        if (!djob[0])
            continue;
        pthread_mutex_unlock(&t->mu);
        struct client_conn c;
        struct sp_err e;
        json_t *req = json_pack("{s:s, s:s}", "op", "cancel", "job", djob), *resp = NULL;
        if (req && client_open(&c, t->socket_path, &e) == 0) {
            if (conn_register(t, who, &c) == 0) {
                (void)call(&c, req, -1, &resp, &e); /* the job's wait tells the outcome */
                conn_done(t, who, &c);
            }
        }
        json_decref(req);
        json_decref(resp);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

int http_jobs_start(const char *socket_path, struct http_jobs **out, struct sp_err *e)
{
    struct http_jobs *t = calloc(1, sizeof(*t));
    if (!t)
        return sp_fail(e, -ENOMEM, "--http: out of memory");
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->work, NULL);
    t->socket_path = socket_path;
    for (unsigned i = 0; i < HTTP_JOBS_MAX; i++)
        t->jobs[i].input_fd = -1;
    for (unsigned i = 0; i <= HTTP_JOBS_WORKERS; i++)
        t->conn_fd[i] = -1;
    for (unsigned i = 0; i <= HTTP_JOBS_WORKERS; i++) {
        int rc;
        if (i < HTTP_JOBS_WORKERS) {
            void **arg = malloc(2 * sizeof(void *));
            if (!arg) {
                rc = -ENOMEM;
            } else {
                arg[0] = t;
                arg[1] = (void *)(uintptr_t)i;
                rc = -pthread_create(&t->thread[i], NULL, worker, arg);
                if (rc < 0)
                    free(arg);
            }
        } else {
            rc = -pthread_create(&t->thread[i], NULL, canceller, t);
        }
        if (rc < 0) {
            http_jobs_stop(t);
            return sp_fail(e, rc, "--http: cannot start its threads: %s", strerror(-rc));
        }
        t->nthreads++;
    }
    *out = t;
    return 0;
}

void http_jobs_stop(struct http_jobs *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->stop = 1;
    for (unsigned i = 0; i <= HTTP_JOBS_WORKERS; i++)
        if (t->conn_fd[i] >= 0)
            shutdown(t->conn_fd[i], SHUT_RDWR); /* a wait in recv returns */
    pthread_cond_broadcast(&t->work);
    pthread_mutex_unlock(&t->mu);
    for (unsigned i = 0; i < t->nthreads; i++)
        pthread_join(t->thread[i], NULL);
    for (unsigned i = 0; i < HTTP_JOBS_MAX; i++)
        job_clear(t, &t->jobs[i]);
    pthread_cond_destroy(&t->work);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

int http_jobs_add(struct http_jobs *t, const char *circuit, int input_fd, size_t input_bytes,
                  char id[HTTP_JOB_ID_HEX + 1])
{
    unsigned char rnd[HTTP_JOB_ID_HEX / 2];
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        close(input_fd);
        return -EIO;
    }
    for (size_t i = 0; i < sizeof(rnd); i++)
        sprintf(id + 2 * i, "%02x", rnd[i]);
    uint64_t now = now_ns();
    pthread_mutex_lock(&t->mu);
    struct hj *j = NULL;
    if (t->inputs_held + input_bytes > HTTP_JOBS_INPUT_BUDGET) {
        pthread_mutex_unlock(&t->mu);
        close(input_fd);
        return -ENOBUFS;
    }
    for (unsigned i = 0; i < HTTP_JOBS_MAX && !j; i++) {
        struct hj *k = &t->jobs[i];
        if (k->state == HJ_FREE ||
            (k->state >= HJ_DONE && now - k->ended_ns >= HTTP_JOBS_TTL_S * 1000000000ull))
            j = k;
    }
    if (!j) {
        pthread_mutex_unlock(&t->mu);
        close(input_fd);
        return -EAGAIN;
    }
    job_clear(t, j);
    memcpy(j->id, id, HTTP_JOB_ID_HEX + 1);
    snprintf(j->circuit, sizeof(j->circuit), "%s", circuit);
    j->input_fd = input_fd;
    j->input_bytes = input_bytes;
    t->inputs_held += input_bytes;
    j->state = HJ_QUEUED;
    if (t->tail)
        t->tail->next = j;
    else
        t->head = j;
    t->tail = j;
    pthread_cond_broadcast(&t->work);
    pthread_mutex_unlock(&t->mu);
    return 0;
}

int http_jobs_cancel(struct http_jobs *t, const char *id)
{
    pthread_mutex_lock(&t->mu);
    struct hj *j = find(t, id);
    if (j && j->state <= HJ_RUNNING && !j->cancel_wanted) {
        j->cancel_wanted = 1;
        if (j->state == HJ_QUEUED) { /* out of the queue, ended here */
            struct hj **p = &t->head, *prev = NULL;
            while (*p && *p != j) {
                prev = *p;
                p = &(*p)->next;
            }
            if (*p)
                *p = j->next;
            if (t->tail == j)
                t->tail = prev;
            j->next = NULL;
            job_end(t, j, HJ_CANCELLED, NULL);
        } else if (j->daemon_job[0]) {
            t->cancels = 1; /* else the worker sends it once the daemon answers */
        }
        pthread_cond_broadcast(&t->work);
    }
    pthread_mutex_unlock(&t->mu);
    return j ? 0 : -ENOENT;
}

char *http_jobs_render(struct http_jobs *t, const char *id, enum http_jobs_form form, int *found)
{
    pthread_mutex_lock(&t->mu);
    struct hj *j = find(t, id);
    *found = j != NULL;
    if (!j) {
        pthread_mutex_unlock(&t->mu);
        return NULL;
    }
    json_t *o = json_object();
    if (form == HTTP_FORM_JOB)
        json_object_set_new(o, "id", json_string(j->id));
    json_object_set_new(o, "status", json_string(state_name(j->state)));
    if (form == HTTP_FORM_JOB) {
        json_object_set_new(o, "circuit", json_string(j->circuit));
        if (j->daemon_job[0])
            json_object_set_new(o, "job", json_string(j->daemon_job));
    }
    if (j->state == HJ_DONE && form == HTTP_FORM_JOB) {
        json_object_set(o, "proof", j->proof);
        json_object_set(o, "public", j->public);
    } else if (j->state == HJ_DONE) { /* proverServer sends both as JSON text */
        char *p = json_dumps(j->proof, JSON_COMPACT), *s = json_dumps(j->public, JSON_COMPACT);
        json_object_set_new(o, "proof", p ? json_string(p) : json_null());
        json_object_set_new(o, "pubData", s ? json_string(s) : json_null());
        free(p);
        free(s);
    } else if (j->state == HJ_FAILED) {
        json_object_set_new(o, "error", json_string(j->error ? j->error : "failed"));
    }
    pthread_mutex_unlock(&t->mu);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}
