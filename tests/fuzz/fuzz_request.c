/*
 * fuzz_request.c — libFuzzer target for request_parse, the daemon's parser
 * of client lines (run/lib/request.h). The input is the line (len bytes, no NUL).
 *
 * Besides the sanitizers, it checks the contract: a rejected line has a
 * reason; an accepted one has a known op, NUL-terminated names within
 * REQUEST_NAME_MAX, 1..REQUEST_MAX_WITNESSES witnesses for submit with
 * exactly one of key/zkey, a 32-hex-digit job id for wait/cancel, and a
 * descriptor count that matches.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int name_ok(const char *s, int may_be_empty)
{
    size_t n = strnlen(s, REQUEST_NAME_MAX + 1);
    return n <= REQUEST_NAME_MAX && (may_be_empty || n > 0);
}

static void check_accepted(const struct request *r)
{
    switch (r->op) {
    case REQ_STATUS:
        if (request_fd_count(r) != 0)
            abort();
        break;
    case REQ_WAIT:
    case REQ_CANCEL:
        if (strnlen(r->job, JOB_ID_HEX + 1) != JOB_ID_HEX ||
            strspn(r->job, "0123456789abcdef") != JOB_ID_HEX || request_fd_count(r) != 0)
            abort();
        break;
    case REQ_SUBMIT:
        if (!name_ok(r->key, 1) || !name_ok(r->zkey, 1) || !r->key[0] == !r->zkey[0] ||
            r->n_witnesses == 0 || r->n_witnesses > REQUEST_MAX_WITNESSES ||
            request_fd_count(r) != r->n_witnesses + (r->zkey[0] ? 1u : 0u))
            abort();
        for (unsigned i = 0; i < r->n_witnesses; i++)
            if (!name_ok(r->witnesses[i], 0))
                abort();
        break;
    default:
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct request r;
    char err[256];

    err[0] = 0;
    if (request_parse((const char *)data, size, &r, err, sizeof(err)) == 0)
        check_accepted(&r);
    else if (err[0] == 0 || strnlen(err, sizeof(err)) == sizeof(err))
        abort();
    return 0;
}
