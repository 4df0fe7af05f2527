/*
 * test_http_token.c — serve --http's access checks (run/serve/http_token.c,
 * http_server.c): the bearer token against headers written here byte by
 * byte, token files of each kind refused for its reason, and which
 * addresses are loopback (getaddrinfo's own answers).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http_server.h"
#include "http_token.h"

TestSuite(http_token, .timeout = 60);

Test(http_token, bearer_token_exact_only)
{
    const char *t = "s3cr3t-Token_0";
    cr_assert(http_token_ok(t, "Bearer s3cr3t-Token_0"));
    cr_assert(!http_token_ok(t, NULL));
    cr_assert(!http_token_ok(t, ""));
    cr_assert(!http_token_ok(t, "Bearer "));
    cr_assert(!http_token_ok(t, "bearer s3cr3t-Token_0"));
    cr_assert(!http_token_ok(t, "Basic s3cr3t-Token_0"));
    cr_assert(!http_token_ok(t, "Bearer s3cr3t-Token_"));   /* one short */
    cr_assert(!http_token_ok(t, "Bearer s3cr3t-Token_00")); /* one more */
    cr_assert(!http_token_ok(t, "Bearer s3cr3t-Token_1"));  /* last byte */
    cr_assert(!http_token_ok(t, "Bearer S3cr3t-Token_0"));  /* first byte */
    cr_assert(!http_token_ok(t, "Bearer  s3cr3t-Token_0"));
}

static char dir[] = "/tmp/slotprove-http-token-XXXXXX";

static void put(const char *name, const char *text, mode_t mode, char *path)
{
    sprintf(path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
    cr_assert_eq(chmod(path, mode), 0);
}

Test(http_token, token_files)
{
    char path[256], tok[64];
    struct sp_err e;
    cr_assert(mkdtemp(dir));
    put("good", "abc-123\n", 0600, path);
    cr_assert_eq(http_token_read(path, tok, sizeof(tok), &e), 0, "%s", e.msg);
    cr_assert_str_eq(tok, "abc-123");
    put("other", "abc-123\n", 0644, path);
    cr_assert_lt(http_token_read(path, tok, sizeof(tok), &e), 0);
    cr_assert(strstr(e.msg, "mode 0644"), "%s", e.msg);
    put("empty", "\n", 0600, path);
    cr_assert_lt(http_token_read(path, tok, sizeof(tok), &e), 0);
    cr_assert(strstr(e.msg, "empty"), "%s", e.msg);
    put("space", "abc 123\n", 0600, path);
    cr_assert_lt(http_token_read(path, tok, sizeof(tok), &e), 0);
    cr_assert(strstr(e.msg, "byte 4"), "%s", e.msg);
    /* cap 64: 63 bytes is the most a file may hold, 64 is refused */
    char big[65];
    memset(big, 'x', 64);
    big[63] = 0;
    put("at", big, 0600, path);
    cr_assert_eq(http_token_read(path, tok, sizeof(tok), &e), 0, "%s", e.msg);
    cr_assert_eq(strlen(tok), 63);
    big[63] = 'x';
    big[64] = 0;
    put("past", big, 0600, path);
    cr_assert_lt(http_token_read(path, tok, sizeof(tok), &e), 0);
    cr_assert(strstr(e.msg, "64 bytes"), "%s", e.msg);
    cr_assert_lt(http_token_read(dir, tok, sizeof(tok), &e), 0);
    cr_assert(strstr(e.msg, "directory"), "%s", e.msg);
    const char *names[] = { "good", "other", "empty", "space", "at", "past" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        sprintf(path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static int loopback(const char *addr)
{
    struct addrinfo *ai;
    struct sp_err e;
    cr_assert_eq(http_resolve("--http", addr, &ai, &e), 0, "%s", e.msg);
    int r = http_is_loopback(ai);
    freeaddrinfo(ai);
    return r;
}

Test(http_token, loopback_addresses)
{
    cr_assert(loopback("127.0.0.1:9080"));
    cr_assert(loopback("127.255.0.9:9080"));
    cr_assert(loopback("[::1]:9080"));
    cr_assert(!loopback("0.0.0.0:9080"));
    cr_assert(!loopback("[::]:9080"));
    cr_assert(!loopback("128.0.0.1:9080"));
    cr_assert(!loopback("10.1.2.3:9080"));
    struct addrinfo *ai;
    struct sp_err e;
    cr_assert_lt(http_resolve("--http", "127.0.0.1", &ai, &e), 0);
    cr_assert(strstr(e.msg, "expected ADDR:PORT"), "%s", e.msg);
    cr_assert_lt(http_resolve("--http", "127.0.0.1:65536", &ai, &e), 0);
}
