/* The supervisor's job table (jobs.h), reached only through the daemon in
 * the shell suites: ids, lookup bound to the submitter's uid, ending (the
 * witnesses closed once), result lines against snarkjs's proof.json of a
 * fixture, and purging by TTL, readers and the keep callback. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16_json.h"
#include "jobs.h"

TestSuite(jobs, .timeout = 30);

#define FIX "tests/fixtures/bn128/"

static int is_hex_id(const char *s)
{
    if (strlen(s) != JOB_ID_HEX)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}

static void free_all(struct job_table *t)
{
    while (t->head) {
        struct job *j = t->head;
        t->head = j->next;
        jobs_free(j);
    }
}

Test(jobs, new_find_by_uid_and_number)
{
    struct job_table t = { 0 };
    struct job *a = jobs_new(&t, 1000, 3, 2);
    struct job *b = jobs_new(&t, 1001, 4, 5);
    cr_assert(a && b);
    cr_assert(is_hex_id(a->id), "id %s", a->id);
    cr_assert(is_hex_id(b->id), "id %s", b->id);
    cr_assert_str_neq(a->id, b->id);
    cr_assert_eq(t.head, b, "newest first");
    cr_assert_eq(b->next, a);
    cr_assert_lt(a->d.num, b->d.num);
    cr_assert_eq(b->d.nparts, 5);
    cr_assert_eq(b->d.key_id, 4);
    cr_assert_eq(b->state, JOB_RUNNING);
    for (uint32_t i = 0; i < 5; i++) {
        cr_assert_eq(b->parts[i].wfd, -1);
        cr_assert_null(b->parts[i].public_json);
        cr_assert_eq(b->parts[i].proved, 0);
    }
    cr_assert_eq(jobs_find(&t, a->id, 1000), a);
    cr_assert_null(jobs_find(&t, a->id, 1001), "another uid's job must not be found");
    cr_assert_eq(jobs_find(&t, b->id, 1001), b);
    cr_assert_null(jobs_find(&t, "0123", 1000));
    cr_assert_eq(jobs_by_num(&t, a->d.num), a);
    cr_assert_eq(jobs_by_num(&t, b->d.num), b);
    cr_assert_null(jobs_by_num(&t, b->d.num + 1));
    cr_assert_eq(jobs_active(&t), 2);
    free_all(&t);
}

Test(jobs, end_closes_witnesses_once)
{
    struct job_table t = { 0 };
    struct job *j = jobs_new(&t, 0, 0, 3);
    cr_assert_not_null(j);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    j->parts[0].wfd = p[0];
    j->parts[2].wfd = p[1];
    char reason[JOB_ERROR_MAX + 100];
    memset(reason, 'r', sizeof(reason) - 1);
    reason[sizeof(reason) - 1] = 0;
    cr_assert_eq(jobs_end(j, JOB_FAILED, reason), 1);
    cr_assert_eq(j->state, JOB_FAILED);
    cr_assert_eq(strlen(j->error), JOB_ERROR_MAX - 1, "the reason is cut to fit");
    cr_assert_eq(fcntl(p[0], F_GETFD), -1, "witness fd left open");
    cr_assert_eq(fcntl(p[1], F_GETFD), -1, "witness fd left open");
    cr_assert_eq(j->parts[0].wfd, -1);
    cr_assert_eq(jobs_active(&t), 0);
    cr_assert_eq(jobs_end(j, JOB_CANCELLED, "again"), 0, "an ended job ends once");
    cr_assert_eq(j->state, JOB_FAILED);
    cr_assert_eq(j->error[0], 'r');
    free_all(&t);
}

Test(jobs, state_names)
{
    cr_assert_str_eq(jobs_state_name(JOB_RUNNING), "running");
    cr_assert_str_eq(jobs_state_name(JOB_DONE), "done");
    cr_assert_str_eq(jobs_state_name(JOB_FAILED), "failed");
    cr_assert_str_eq(jobs_state_name(JOB_CANCELLED), "cancelled");
    cr_assert_str_eq(jobs_state_name((enum job_state)7), "invalid");
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    return strdup(buf);
}

Test(jobs, result_lines_carry_snarkjs_proof)
{
    struct job_table t = { 0 };
    struct job *j = jobs_new(&t, 0, 0, 1);
    cr_assert_not_null(j);
    struct groth16_proof pr;
    struct sp_err e;
    cr_assert_eq(groth16_proof_read_json(&pr, CURVE_BN254, FIX "chain.snarkjs.proof.json", &e), 0,
                 "%s", e.msg);
    struct stage_times st = { 0 };
    st.ns[STAGE_MSM_A] = 42;
    j->parts[0].synth_ns = 777;
    j->parts[0].public_json = slurp(FIX "chain.public.json");
    cr_assert_eq(jobs_store_proof(j, 0, &pr, &st), 0);
    cr_assert_eq(j->parts[0].times.ns[STAGE_MSM_A], 42);
    cr_assert_eq(j->parts[0].times.ns[STAGE_SYNTH], 777, "synthesis time from synthd's report");
    jobs_end(j, JOB_DONE, NULL);

    char *first = jobs_result_json(j);
    json_t *o = json_loads(first, 0, NULL);
    cr_assert_not_null(o, "%s", first);
    cr_assert(json_is_true(json_object_get(o, "ok")));
    cr_assert_str_eq(json_string_value(json_object_get(o, "job")), j->id);
    cr_assert_str_eq(json_string_value(json_object_get(o, "state")), "done");
    cr_assert_eq(json_integer_value(json_object_get(o, "partitions")), 1);
    cr_assert_null(json_object_get(o, "error"));
    json_decref(o);
    free(first);

    char *line = jobs_partition_json(j, 0);
    cr_assert_null(strchr(line, '\n'), "one line");
    o = json_loads(line, 0, NULL);
    cr_assert_not_null(o, "%s", line);
    json_t *want = json_load_file(FIX "chain.snarkjs.proof.json", 0, NULL);
    json_t *pub = json_load_file(FIX "chain.public.json", 0, NULL);
    cr_assert(want && pub);
    json_t *got = json_object_get(o, "proof");
    for (const char *const *k = (const char *const[]){ "pi_a", "pi_b", "pi_c", NULL }; *k; k++)
        cr_assert(json_equal(json_object_get(got, *k), json_object_get(want, *k)),
                  "%s differs from snarkjs's", *k);
    cr_assert(json_equal(json_object_get(o, "public"), pub));
    cr_assert_eq(json_integer_value(json_object_get(o, "partition")), 0);
    json_decref(want);
    json_decref(pub);
    json_decref(o);
    free(line);
    free_all(&t);
}

Test(jobs, failed_result_has_the_reason)
{
    struct job_table t = { 0 };
    struct job *j = jobs_new(&t, 0, 0, 2);
    cr_assert_not_null(j);
    jobs_end(j, JOB_FAILED, "w.wtns: witness value 0 is not below r");
    char *s = jobs_result_json(j);
    json_t *o = json_loads(s, 0, NULL);
    cr_assert_not_null(o, "%s", s);
    cr_assert(json_is_false(json_object_get(o, "ok")));
    cr_assert_str_eq(json_string_value(json_object_get(o, "state")), "failed");
    cr_assert_str_eq(json_string_value(json_object_get(o, "error")),
                     "w.wtns: witness value 0 is not below r");
    cr_assert_null(json_object_get(o, "partitions"));
    json_decref(o);
    free(s);
    free_all(&t);
}

struct purge_ctx {
    const struct job *keep_this;
    uint64_t gone[8];
    int ngone;
};

static int keep_cb(void *ctx, const struct job *j)
{
    return j == ((struct purge_ctx *)ctx)->keep_this;
}

static void gone_cb(void *ctx, struct job *j)
{
    struct purge_ctx *c = ctx;
    c->gone[c->ngone++] = j->d.num;
}

Test(jobs, purge_by_ttl_readers_and_keep)
{
    struct job_table t = { 0 };
    struct job *run = jobs_new(&t, 0, 0, 1);   /* running: stays */
    struct job *old = jobs_new(&t, 0, 0, 1);   /* ended long ago: goes */
    struct job *young = jobs_new(&t, 0, 0, 1); /* ended within the TTL: stays */
    struct job *read = jobs_new(&t, 0, 0, 1);  /* old but streamed: stays */
    struct job *kept = jobs_new(&t, 0, 0, 1);  /* old but keep() says so: stays */
    struct job *old2 = jobs_new(&t, 0, 0, 1);  /* goes */
    cr_assert(run && old && young && read && kept && old2);
    const uint64_t now = 1000000000000ull, ttl = 60000000000ull;
    struct job *ended[] = { old, young, read, kept, old2 };
    for (int i = 0; i < 5; i++) {
        jobs_end(ended[i], JOB_DONE, NULL);
        ended[i]->t_end_ns = now - ttl - 1;
    }
    young->t_end_ns = now - ttl + 1;
    read->readers = 1;
    uint64_t old_num = old->d.num, old2_num = old2->d.num;
    struct purge_ctx c = { .keep_this = kept };
    jobs_purge(&t, now, ttl, keep_cb, gone_cb, &c);
    cr_assert_eq(c.ngone, 2);
    cr_assert(c.gone[0] == old2_num && c.gone[1] == old_num, "gone: %llu %llu",
              (unsigned long long)c.gone[0], (unsigned long long)c.gone[1]);
    cr_assert_null(jobs_by_num(&t, old_num));
    cr_assert_null(jobs_by_num(&t, old2_num));
    int n = 0;
    for (struct job *j = t.head; j; j = j->next)
        n++;
    cr_assert_eq(n, 4);
    cr_assert_eq(jobs_by_num(&t, run->d.num), run);
    cr_assert_eq(jobs_by_num(&t, young->d.num), young);
    cr_assert_eq(jobs_by_num(&t, read->d.num), read);
    cr_assert_eq(jobs_by_num(&t, kept->d.num), kept);
    free_all(&t);
}

/* A tick's now taken before a job it ended stamped t_end_ns (leave_behind in
 * core_tick): that job is young, not 2^64 ns old (found by tests/lockouts.sh:
 * "no such job" for the stuck synthd's job). */
Test(jobs, purge_keeps_a_job_that_ended_after_now)
{
    struct job_table t = { 0 };
    struct job *j = jobs_new(&t, 0, 0, 1);
    cr_assert(j);
    const uint64_t now = 1000000000000ull, ttl = 60000000000ull;
    jobs_end(j, JOB_FAILED, "stuck");
    j->t_end_ns = now + 5;
    struct purge_ctx c = { 0 };
    jobs_purge(&t, now, ttl, keep_cb, gone_cb, &c);
    cr_assert_eq(c.ngone, 0);
    cr_assert_eq(jobs_by_num(&t, j->d.num), j);
    jobs_purge(&t, now + 5 + ttl, ttl, keep_cb, gone_cb, &c); /* a TTL after its end: gone */
    cr_assert_eq(c.ngone, 1);
    free_all(&t);
}
