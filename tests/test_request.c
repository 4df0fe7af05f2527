/*
 * test_request.c — request_parse and request_fd_count (run/lib/request.c): every
 * op of the socket protocol parses into the right fields, and every malformed
 * line is rejected with a reason.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(request_fds, .timeout = 120);
TestSuite(request_parse, .timeout = 120);
TestSuite(request_reject, .timeout = 120);

#define JOB "0123456789abcdef0123456789abcdef"

static char err[256];

static int parse(const char *line, struct request *r)
{
    err[0] = 0;
    return request_parse(line, strlen(line), r, err, sizeof(err));
}

/* Parses a line that must be rejected with a reason containing why. */
static void reject(const char *line, const char *why)
{
    struct request r;
    int rc = parse(line, &r);
    cr_assert_eq(rc, -1, "accepted: %.200s", line);
    cr_assert(err[0] != 0, "no reason given for: %.200s", line);
    cr_assert(strstr(err, why) != NULL, "reason \"%s\" lacks \"%s\" for: %.200s", err, why,
              line);
}

/* n copies of s, concatenated (caller frees). */
static char *repeat(const char *s, size_t n)
{
    size_t len = strlen(s);
    char *out = malloc(len * n + 1);
    cr_assert(out);
    for (size_t i = 0; i < n; i++)
        memcpy(out + i * len, s, len);
    out[len * n] = 0;
    return out;
}

/* A submit line with n witnesses named w<i>.wtns (caller frees). */
static char *submit_with(unsigned n)
{
    size_t cap = 64 + (size_t)n * 16;
    char *s = malloc(cap);
    cr_assert(s);
    size_t off = (size_t)snprintf(s, cap, "{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":[");
    for (unsigned i = 0; i < n; i++)
        off += (size_t)snprintf(s + off, cap - off, "%s\"w%u.wtns\"", i ? "," : "", i);
    snprintf(s + off, cap - off, "]}");
    return s;
}

/* A submit line whose zkey name is name (caller frees). */
static char *submit_zkey_named(const char *name)
{
    size_t cap = strlen(name) + 64;
    char *s = malloc(cap);
    cr_assert(s);
    snprintf(s, cap, "{\"op\":\"submit\",\"zkey\":\"%s\",\"witnesses\":[\"w\"]}", name);
    return s;
}

/* ---- every op parses -------------------------------------------------------- */

Test(request_parse, status)
{
    struct request r;
    cr_assert_eq(parse("{\"op\":\"status\"}", &r), 0, "%s", err);
    cr_assert_eq(r.op, REQ_STATUS);
    cr_assert_eq(request_fd_count(&r), 0);
}

Test(request_parse, wait)
{
    struct request r;
    cr_assert_eq(parse("{\"op\":\"wait\",\"job\":\"" JOB "\"}", &r), 0, "%s", err);
    cr_assert_eq(r.op, REQ_WAIT);
    cr_assert_str_eq(r.job, JOB);
    cr_assert_eq(request_fd_count(&r), 0);
}

Test(request_parse, cancel)
{
    struct request r;
    cr_assert_eq(parse("{\"job\":\"" JOB "\",\"op\":\"cancel\"}", &r), 0, "%s", err);
    cr_assert_eq(r.op, REQ_CANCEL);
    cr_assert_str_eq(r.job, JOB);
    cr_assert_eq(request_fd_count(&r), 0);
}

Test(request_parse, submit_key)
{
    struct request r;
    cr_assert_eq(parse("{\"op\":\"submit\",\"key\":\"mult\",\"witnesses\":[\"a.wtns\",\"b.wtns\"]}",
                       &r), 0, "%s", err);
    cr_assert_eq(r.op, REQ_SUBMIT);
    cr_assert_str_eq(r.key, "mult");
    cr_assert_str_eq(r.zkey, "");
    cr_assert_eq(r.n_witnesses, 2);
    cr_assert_str_eq(r.witnesses[0], "a.wtns");
    cr_assert_str_eq(r.witnesses[1], "b.wtns");
    cr_assert_eq(request_fd_count(&r), 2);
}

Test(request_parse, submit_zkey)
{
    struct request r;
    cr_assert_eq(parse("{\"op\":\"submit\",\"zkey\":\"/keys/c.zkey\",\"witnesses\":[\"w.wtns\"]}",
                       &r), 0, "%s", err);
    cr_assert_eq(r.op, REQ_SUBMIT);
    cr_assert_str_eq(r.key, "");
    cr_assert_str_eq(r.zkey, "/keys/c.zkey");
    cr_assert_eq(r.n_witnesses, 1);
    cr_assert_str_eq(r.witnesses[0], "w.wtns");
    cr_assert_eq(request_fd_count(&r), 2, "the zkey travels as a descriptor too");
}

Test(request_parse, submit_max_witnesses)
{
    struct request r;
    char *s = submit_with(REQUEST_MAX_WITNESSES);
    cr_assert_eq(parse(s, &r), 0, "%s", err);
    cr_assert_eq(r.n_witnesses, REQUEST_MAX_WITNESSES);
    cr_assert_str_eq(r.witnesses[REQUEST_MAX_WITNESSES - 1], "w63.wtns");
    cr_assert_eq(request_fd_count(&r), REQUEST_MAX_WITNESSES);
    free(s);
}

Test(request_parse, name_of_max_bytes)
{
    /* the limit is in bytes: 127 two-byte characters and one ASCII = 255 */
    struct request r;
    char *e = repeat("\xc3\xa9", 127), name[300], *s;
    snprintf(name, sizeof(name), "%sa", e);
    s = submit_zkey_named(name);
    cr_assert_eq(parse(s, &r), 0, "%s", err);
    cr_assert_eq(strlen(r.zkey), REQUEST_NAME_MAX);
    cr_assert_str_eq(r.zkey, name);
    free(s);
    free(e);
}

Test(request_parse, trailing_newline_and_whitespace)
{
    struct request r;
    cr_assert_eq(parse("  {\"op\":\"status\"} \n", &r), 0, "%s", err);
    cr_assert_eq(r.op, REQ_STATUS);
}

Test(request_parse, reads_only_len_bytes)
{
    /* the line is not NUL-terminated and is followed by garbage */
    static const char text[] = "{\"op\":\"wait\",\"job\":\"" JOB "\"}";
    size_t n = sizeof(text) - 1;
    char *buf = malloc(n + 8);
    cr_assert(buf);
    memcpy(buf, text, n);
    memcpy(buf + n, "}}garbage", 8);
    struct request r;
    cr_assert_eq(request_parse(buf, n, &r, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(r.op, REQ_WAIT);
    /* and a prefix of it is incomplete JSON */
    cr_assert_eq(request_parse(buf, n - 1, &r, err, sizeof(err)), -1);
    free(buf);
}

Test(request_parse, line_of_max_length)
{
    /* REQUEST_LINE_MAX bytes (whitespace-padded) is still allowed */
    static const char obj[] = "{\"op\":\"status\"}";
    char *s = malloc(REQUEST_LINE_MAX);
    cr_assert(s);
    memset(s, ' ', REQUEST_LINE_MAX);
    memcpy(s, obj, sizeof(obj) - 1);
    struct request r;
    cr_assert_eq(request_parse(s, REQUEST_LINE_MAX, &r, err, sizeof(err)), 0, "%s", err);
    free(s);
}

Test(request_parse, reparse_clears_fields)
{
    struct request r;
    cr_assert_eq(parse("{\"op\":\"submit\",\"zkey\":\"z\",\"witnesses\":[\"a\",\"b\"]}", &r), 0);
    cr_assert_eq(parse("{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":[\"c\"]}", &r), 0);
    cr_assert_str_eq(r.zkey, "");
    cr_assert_eq(r.n_witnesses, 1);
    cr_assert_eq(request_fd_count(&r), 1);
}

/* ---- malformed lines -------------------------------------------------------- */

Test(request_reject, bad_json)
{
    reject("", "malformed JSON");
    reject("{", "malformed JSON");
    reject("{\"op\":\"status\"", "malformed JSON");
    reject("{op:\"status\"}", "malformed JSON");
    reject("{\"op\":\"status\",}", "malformed JSON");
    reject("{\"op\":\"status\"} {}", "malformed JSON");
    reject("{\"op\":\"stat\xff\"}", "malformed JSON");
    reject("{\"op\":\"status\",\"x\":\"a\\u0000b\"}", "malformed JSON");
}

Test(request_reject, not_an_object)
{
    reject("[]", "must be a JSON object");
    reject("[{\"op\":\"status\"}]", "must be a JSON object");
    /* bare scalars are not JSON texts jansson accepts by default */
    struct request r;
    cr_assert_eq(parse("\"status\"", &r), -1);
    cr_assert_eq(parse("42", &r), -1);
    cr_assert_eq(parse("null", &r), -1);
}

Test(request_reject, missing_op)
{
    reject("{}", "missing \"op\"");
    reject("{\"job\":\"" JOB "\"}", "missing \"op\"");
    reject("{\"op\":1}", "missing \"op\"");
    reject("{\"op\":null}", "missing \"op\"");
    reject("{\"op\":[\"status\"]}", "missing \"op\"");
}

Test(request_reject, unknown_op)
{
    reject("{\"op\":\"prove\"}", "unknown op");
    reject("{\"op\":\"STATUS\"}", "unknown op");
    reject("{\"op\":\"\"}", "unknown op");
    reject("{\"op\":\"status \"}", "unknown op");
}

Test(request_reject, unknown_op_long_name_is_cut)
{
    char *name = repeat("x", 5000), *s = malloc(6000);
    cr_assert(name && s);
    snprintf(s, 6000, "{\"op\":\"%s\"}", name);
    reject(s, "unknown op");
    cr_assert_lt(strlen(err), 100, "the reason quotes the whole op: %zu bytes", strlen(err));
    free(name);
    free(s);
}

Test(request_reject, duplicate_keys)
{
    reject("{\"op\":\"status\",\"op\":\"status\"}", "malformed JSON");
    reject("{\"op\":\"wait\",\"job\":\"" JOB "\",\"job\":\"" JOB "\"}", "malformed JSON");
    reject("{\"op\":\"submit\",\"key\":\"a\",\"key\":\"b\",\"witnesses\":[\"w\"]}", "malformed JSON");
}

Test(request_reject, key_and_zkey)
{
    reject("{\"op\":\"submit\",\"key\":\"k\",\"zkey\":\"z\",\"witnesses\":[\"w\"]}", "exactly one");
    reject("{\"op\":\"submit\",\"witnesses\":[\"w\"]}", "exactly one");
}

Test(request_reject, key_names)
{
    reject("{\"op\":\"submit\",\"key\":1,\"witnesses\":[\"w\"]}", "\"key\" must be a string");
    reject("{\"op\":\"submit\",\"key\":null,\"witnesses\":[\"w\"]}", "\"key\" must be a string");
    reject("{\"op\":\"submit\",\"zkey\":[\"z\"],\"witnesses\":[\"w\"]}", "\"zkey\" must be a string");
    reject("{\"op\":\"submit\",\"key\":\"\",\"witnesses\":[\"w\"]}", "\"key\" must be 1..255 bytes");
    reject("{\"op\":\"submit\",\"zkey\":\"\",\"witnesses\":[\"w\"]}", "\"zkey\" must be 1..255 bytes");
}

Test(request_reject, name_too_long)
{
    char *name = repeat("a", REQUEST_NAME_MAX + 1), *s = submit_zkey_named(name);
    reject(s, "1..255 bytes");
    free(s);
    free(name);
    /* 128 two-byte characters: 256 bytes */
    name = repeat("\xc3\xa9", 128);
    s = submit_zkey_named(name);
    reject(s, "1..255 bytes");
    free(s);
    free(name);
}

Test(request_reject, witnesses_not_array)
{
    reject("{\"op\":\"submit\",\"key\":\"k\"}", "\"witnesses\" must be a non-empty array");
    reject("{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":\"w.wtns\"}",
           "\"witnesses\" must be a non-empty array");
    reject("{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":{\"0\":\"w\"}}",
           "\"witnesses\" must be a non-empty array");
    reject("{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":null}",
           "\"witnesses\" must be a non-empty array");
}

Test(request_reject, witnesses_empty)
{
    reject("{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":[]}", "\"witnesses\" must be a non-empty array");
}

Test(request_reject, too_many_witnesses)
{
    char *s = submit_with(REQUEST_MAX_WITNESSES + 1);
    reject(s, "at most 64 witnesses");
    free(s);
    s = submit_with(1000);
    reject(s, "at most 64 witnesses");
    free(s);
}

Test(request_reject, witness_not_string)
{
    reject("{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":[1]}", "\"witnesses[]\" must be a string");
    reject("{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":[\"a\",null]}", "\"witnesses[]\" must be a string");
    reject("{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":[[\"a\"]]}", "\"witnesses[]\" must be a string");
    reject("{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":[\"a\",\"\"]}", "\"witnesses[]\" must be 1..255");
}

Test(request_reject, witness_too_long)
{
    char *name = repeat("w", REQUEST_NAME_MAX + 1), *s = malloc(REQUEST_NAME_MAX + 100);
    cr_assert(name && s);
    snprintf(s, REQUEST_NAME_MAX + 100,
             "{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":[\"ok\",\"%s\"]}", name);
    reject(s, "\"witnesses[]\" must be 1..255");
    name[REQUEST_NAME_MAX] = 0; /* exactly 255 is fine */
    snprintf(s, REQUEST_NAME_MAX + 100,
             "{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":[\"ok\",\"%s\"]}", name);
    struct request r;
    cr_assert_eq(parse(s, &r), 0, "%s", err);
    cr_assert_str_eq(r.witnesses[1], name);
    free(s);
    free(name);
}

Test(request_reject, job_missing_or_not_string)
{
    reject("{\"op\":\"wait\"}", "32-hex-digit job id");
    reject("{\"op\":\"cancel\"}", "32-hex-digit job id");
    reject("{\"op\":\"wait\",\"job\":12345}", "32-hex-digit job id");
    reject("{\"op\":\"cancel\",\"job\":null}", "32-hex-digit job id");
}

Test(request_reject, job_length)
{
    reject("{\"op\":\"wait\",\"job\":\"\"}", "32-hex-digit job id");
    reject("{\"op\":\"wait\",\"job\":\"0123456789abcdef0123456789abcde\"}", "32-hex-digit job id");
    reject("{\"op\":\"wait\",\"job\":\"0123456789abcdef0123456789abcdef0\"}", "32-hex-digit job id");
    reject("{\"op\":\"cancel\",\"job\":\"" JOB JOB "\"}", "32-hex-digit job id");
}

Test(request_reject, job_characters)
{
    reject("{\"op\":\"wait\",\"job\":\"0123456789ABCDEF0123456789abcdef\"}", "32-hex-digit job id");
    reject("{\"op\":\"wait\",\"job\":\"0123456789abcdeg0123456789abcdef\"}", "32-hex-digit job id");
    reject("{\"op\":\"wait\",\"job\":\"0123456789abcdef0123456789abcde \"}", "32-hex-digit job id");
    reject("{\"op\":\"cancel\",\"job\":\"0123456789abcdef0123456789abcd\\u00e9\"}", "32-hex-digit job id");
    reject("{\"op\":\"cancel\",\"job\":\"../../../../../../../../etc/pass\"}", "32-hex-digit job id");
}

Test(request_reject, line_too_long)
{
    char *s = malloc(REQUEST_LINE_MAX + 1);
    cr_assert(s);
    memset(s, ' ', REQUEST_LINE_MAX + 1);
    memcpy(s, "{\"op\":\"status\"}", 15);
    struct request r;
    cr_assert_eq(request_parse(s, REQUEST_LINE_MAX + 1, &r, err, sizeof(err)), -1);
    cr_assert(strstr(err, "too long"), "reason: %s", err);
    free(s);
}

Test(request_reject, small_error_buffer)
{
    /* the reason is cut to the buffer and stays NUL-terminated */
    char small[8];
    struct request r;
    memset(small, 'X', sizeof(small));
    cr_assert_eq(request_parse("{\"op\":\"nope\"}", 13, &r, small, sizeof(small)), -1);
    cr_assert_eq(strlen(small), sizeof(small) - 1);
    memset(small, 'X', sizeof(small));
    cr_assert_eq(request_parse("{", 1, &r, small, sizeof(small)), -1);
    cr_assert_lt(strlen(small), sizeof(small));
}

/* ---- request_fd_count ------------------------------------------------------- */

Test(request_fds, per_op)
{
    struct request r;
    memset(&r, 0, sizeof(r));
    r.op = REQ_STATUS;
    cr_assert_eq(request_fd_count(&r), 0);
    r.op = REQ_WAIT;
    cr_assert_eq(request_fd_count(&r), 0);
    r.op = REQ_CANCEL;
    cr_assert_eq(request_fd_count(&r), 0);
    r.op = REQ_SUBMIT;
    r.n_witnesses = 3;
    cr_assert_eq(request_fd_count(&r), 3, "preloaded key: witnesses only");
    strcpy(r.zkey, "c.zkey");
    cr_assert_eq(request_fd_count(&r), 4, "attached key: zkey + witnesses");
}

Test(request_fds, parsed_submits)
{
    struct request r;
    for (unsigned n = 1; n <= REQUEST_MAX_WITNESSES; n++) {
        char *s = submit_with(n);
        cr_assert_eq(parse(s, &r), 0, "%s", err);
        cr_assert_eq(request_fd_count(&r), n);
        free(s);
    }
}

Test(request_fds, non_submit_ignores_witness_fields)
{
    /* fields of other ops do not make a wait carry descriptors */
    struct request r;
    cr_assert_eq(parse("{\"op\":\"wait\",\"job\":\"" JOB "\",\"zkey\":\"z\",\"witnesses\":[\"w\"]}", &r),
                 0, "%s", err);
    cr_assert_eq(request_fd_count(&r), 0);
}

/* input jobs (run/witness_job.h): "inputs" instead of "witnesses" */
Test(request_parse, submit_inputs)
{
    struct request r;
    cr_assert_eq(parse("{\"op\":\"submit\",\"key\":\"k\",\"inputs\":[\"a.json\",\"b.json\"]}", &r),
                 0, "%s", err);
    cr_assert_eq(r.op, REQ_SUBMIT);
    cr_assert_eq(r.inputs, 1);
    cr_assert_eq(r.n_witnesses, 2);
    cr_assert_str_eq(r.witnesses[1], "b.json");
    cr_assert_eq(request_fd_count(&r), 2);
    cr_assert_eq(parse("{\"op\":\"submit\",\"key\":\"k\",\"witnesses\":[\"w\"]}", &r), 0, "%s", err);
    cr_assert_eq(r.inputs, 0);
}

Test(request_parse, submit_inputs_rejected)
{
    reject("{\"op\":\"submit\",\"key\":\"k\",\"inputs\":[\"a\"],\"witnesses\":[\"w\"]}", "not both");
    reject("{\"op\":\"submit\",\"key\":\"k\",\"inputs\":[]}", "\"inputs\" must be a non-empty array");
    reject("{\"op\":\"submit\",\"key\":\"k\",\"inputs\":\"a.json\"}", "\"inputs\" must be");
}

/* a --zkey input job that carries its witness program: "program", an
 * absolute path of at most REQUEST_PATH_MAX bytes; its fd follows the key's */
Test(request_parse, submit_program)
{
    struct request r;
    cr_assert_eq(parse("{\"op\":\"submit\",\"zkey\":\"c.zkey\",\"program\":\"/p/c_cpp/c\","
                       "\"inputs\":[\"a.json\",\"b.json\"]}", &r), 0, "%s", err);
    cr_assert_str_eq(r.program, "/p/c_cpp/c");
    cr_assert_eq(r.inputs, 1);
    cr_assert_eq(request_fd_count(&r), 4); /* zkey, program, 2 inputs */
    cr_assert_eq(parse("{\"op\":\"submit\",\"zkey\":\"c.zkey\",\"inputs\":[\"a\"]}", &r), 0, "%s", err);
    cr_assert_str_eq(r.program, "");
    cr_assert_eq(request_fd_count(&r), 2);
    /* at the limit and one past it */
    size_t n = REQUEST_PATH_MAX + 1;
    char *path = malloc(n + 1), *line = malloc(n + 128);
    memset(path, 'a', n);
    path[0] = '/';
    path[REQUEST_PATH_MAX] = 0;
    snprintf(line, n + 128, "{\"op\":\"submit\",\"zkey\":\"z\",\"program\":\"%s\",\"inputs\":[\"a\"]}", path);
    cr_assert_eq(parse(line, &r), 0, "%s", err);
    cr_assert_eq(strlen(r.program), REQUEST_PATH_MAX);
    path[REQUEST_PATH_MAX] = 'a';
    path[n] = 0;
    snprintf(line, n + 128, "{\"op\":\"submit\",\"zkey\":\"z\",\"program\":\"%s\",\"inputs\":[\"a\"]}", path);
    reject(line, "absolute path of at most");
    free(path);
    free(line);
}

Test(request_parse, submit_program_rejected)
{
    reject("{\"op\":\"submit\",\"key\":\"k\",\"program\":\"/p\",\"inputs\":[\"a\"]}",
           "\"program\" goes only with \"zkey\" and \"inputs\"");
    reject("{\"op\":\"submit\",\"zkey\":\"z\",\"program\":\"/p\",\"witnesses\":[\"w\"]}",
           "\"program\" goes only with");
    reject("{\"op\":\"submit\",\"zkey\":\"z\",\"program\":\"p\",\"inputs\":[\"a\"]}", "absolute path");
    reject("{\"op\":\"submit\",\"zkey\":\"z\",\"program\":7,\"inputs\":[\"a\"]}", "absolute path");
    /* a NUL inside: jansson refuses it before the field is looked at */
    reject("{\"op\":\"submit\",\"zkey\":\"z\",\"program\":\"/p\\u0000q\",\"inputs\":[\"a\"]}",
           "malformed JSON");
}
