/*
 * fuzz_zkey.c — libFuzzer target for the .zkey reader: the input becomes a
 * memfd, then zkey_open and, when that accepts it, zkey_check_coefs.
 *
 * Besides the sanitizers, it checks what the reader promises: a rejected
 * file has a message that names it, and an accepted one has every section
 * pointer inside the mapping with the sizes its header implies (the mapping
 * is not instrumented by ASan, so an over-read there would go unseen).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_memfd.h"
#include "zkey.h"

#define NAME "fuzz.zkey"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* [p, p + len) must lie inside the mapping. */
static void inside(const struct zkey *zk, const void *p, uint64_t len)
{
    const uint8_t *b = p;
    if (!p || b < zk->map || len > zk->map_len || (uint64_t)(b - zk->map) > zk->map_len - len)
        abort();
}

static void check_accepted(const struct zkey *zk)
{
    const struct curve_info *ci = zk->ci;
    uint64_t g1 = ci->g1_bytes, g2 = ci->g2_bytes, nv = zk->n_vars, np = zk->n_public;
    if (ci != curve_get(zk->curve) || zk->n_vars == 0 || np >= nv ||
        zk->log_domain > ZKEY_MAX_LOG_DOMAIN || zk->domain_size != 1u << zk->log_domain)
        abort();
    inside(zk, zk->alpha1, g1);
    inside(zk, zk->beta1, g1);
    inside(zk, zk->beta2, g2);
    inside(zk, zk->gamma2, g2);
    inside(zk, zk->delta1, g1);
    inside(zk, zk->delta2, g2);
    inside(zk, zk->ic, (np + 1) * g1);
    inside(zk, zk->a, nv * g1);
    inside(zk, zk->b1, nv * g1);
    inside(zk, zk->b2, nv * g2);
    inside(zk, zk->c, (nv - np - 1) * g1);
    inside(zk, zk->h, (uint64_t)zk->domain_size * g1);
    inside(zk, zk->coefs, zk->n_coefs * sizeof(struct zkey_coef));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = fuzz_memfd(data, size);
    struct zkey zk;
    struct sp_err e;

    memset(&e, 0, sizeof(e));
    if (zkey_open(&zk, fd, NAME, &e) == 0) {
        check_accepted(&zk);
        memset(&e, 0, sizeof(e));
        if (zkey_check_coefs(&zk, &e) < 0 && strncmp(e.msg, NAME ": ", sizeof(NAME ": ") - 1) != 0)
            abort();
        zkey_close(&zk);
    } else if (zk.map || strncmp(e.msg, NAME ": ", sizeof(NAME ": ") - 1) != 0) {
        abort(); /* a failed open keeps no mapping and names the file */
    }
    close(fd);
    return 0;
}
