/*
 * jobs.c — the job table (jobs.h).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "jobs.h"
#include "proc.h"

struct job *jobs_new(struct job_table *t, uid_t uid, uint32_t key_id, uint32_t n)
{
    struct job *j = calloc(1, sizeof(*j));
    struct job_part *parts = calloc(n, sizeof(*parts));
    struct dsp_part *dparts = calloc(n, sizeof(*dparts));
    uint8_t rnd[JOB_ID_HEX / 2];
    if (!j || !parts || !dparts || getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        free(j);
        free(parts);
        free(dparts);
        return NULL;
    }
    for (unsigned i = 0; i < sizeof(rnd); i++)
        snprintf(j->id + 2 * i, 3, "%02x", rnd[i]);
    for (uint32_t i = 0; i < n; i++)
        parts[i].wfd = -1;
    j->prog_fd = j->prog_aux[0] = j->prog_aux[1] = -1;
    j->d.num = ++t->next_num;
    j->d.uid = (uint32_t)uid;
    j->d.key_id = key_id;
    j->d.nparts = n;
    j->d.parts = dparts;
    j->uid = uid;
    j->state = JOB_RUNNING;
    j->parts = parts;
    j->t_submit_ns = now_ns();
    j->next = t->head;
    t->head = j;
    return j;
}

static void close_witnesses(struct job *j)
{
    if (j->prog_fd >= 0) {
        close(j->prog_fd);
        j->prog_fd = -1;
    }
    for (int a = 0; a < 2; a++)
        if (j->prog_aux[a] >= 0) {
            close(j->prog_aux[a]);
            j->prog_aux[a] = -1;
        }
    for (uint32_t i = 0; i < j->d.nparts; i++)
        if (j->parts[i].wfd >= 0) {
            close(j->parts[i].wfd);
            j->parts[i].wfd = -1;
        }
}

void jobs_free(struct job *j)
{
    if (!j)
        return;
    close_witnesses(j);
    for (uint32_t i = 0; i < j->d.nparts; i++) {
        free(j->parts[i].public_json);
        free(j->parts[i].public_raw);
    }
    free(j->parts);
    free(j->d.parts);
    free(j->prog_path);
    free(j);
}

struct job *jobs_find(struct job_table *t, const char *id, uid_t uid)
{
    for (struct job *j = t->head; j; j = j->next)
        if (strcmp(j->id, id) == 0)
            return j->uid == uid ? j : NULL; /* another uid's job does not exist for you */
    return NULL;
}

struct job *jobs_by_num(struct job_table *t, uint64_t num)
{
    for (struct job *j = t->head; j; j = j->next)
        if (j->d.num == num)
            return j;
    return NULL;
}

int jobs_active(const struct job_table *t)
{
    int n = 0;
    for (const struct job *j = t->head; j; j = j->next)
        n += j->state == JOB_RUNNING;
    return n;
}

int jobs_end(struct job *j, enum job_state st, const char *reason)
{
    if (j->state != JOB_RUNNING)
        return 0;
    j->state = st;
    j->t_end_ns = now_ns();
    if (reason)
        snprintf(j->error, sizeof(j->error), "%s", reason);
    close_witnesses(j);
    return 1;
}

int jobs_store_proof(struct job *j, uint32_t part, const struct groth16_proof *proof,
                     const struct stage_times *t)
{
    struct job_part *p = &j->parts[part];
    p->proof = *proof;
    p->proved = 1;
    p->times = *t;
    p->times.ns[STAGE_SYNTH] = p->synth_ns;
    return 0;
}

const char *jobs_state_name(enum job_state s)
{
    static const char *const names[] = { "running", "done", "failed", "cancelled" };
    return (unsigned)s <= JOB_CANCELLED ? names[s] : "invalid";
}

char *jobs_result_json(const struct job *j)
{
    json_t *o = json_object();
    json_object_set_new(o, "ok", json_boolean(j->state == JOB_DONE));
    json_object_set_new(o, "job", json_string(j->id));
    json_object_set_new(o, "state", json_string(jobs_state_name(j->state)));
    if (j->state == JOB_DONE)
        json_object_set_new(o, "partitions", json_integer(j->d.nparts));
    else
        json_object_set_new(o, "error", json_string(j->error));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

char *jobs_partition_json(const struct job *j, uint32_t i)
{
    json_t *o = json_object();
    json_object_set_new(o, "partition", json_integer(i));
    if (j->parts[i].proved) /* formatted here, at the edge: the proof stays binary */
        json_object_set_new(o, "proof", proof_to_json_object(&j->parts[i].proof));
    json_object_set_new(o, "public", json_loads(j->parts[i].public_json, 0, NULL));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

void jobs_purge(struct job_table *t, uint64_t now, uint64_t ttl_ns,
                int (*keep)(void *ctx, const struct job *j),
                void (*gone)(void *ctx, struct job *j), void *ctx)
{
    for (struct job **pj = &t->head; *pj;) {
        struct job *j = *pj;
        /* now may be older than t_end_ns: a tick's time, taken before a job
         * it ended (a synthd left behind) stamped its end; unsigned, now -
         * t_end_ns would wrap to a huge age and purge the job at once */
        if (j->state == JOB_RUNNING || j->readers || now < j->t_end_ns ||
            now - j->t_end_ns < ttl_ns || keep(ctx, j)) {
            pj = &j->next;
            continue;
        }
        *pj = j->next;
        gone(ctx, j);
        jobs_free(j);
    }
}
