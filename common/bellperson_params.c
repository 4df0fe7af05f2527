/* bellperson_params.c - bellperson .params / .vk reader (see bellperson_params.h). */
#include "bellperson_params.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bls12381_zcash.h"
#include "parallel.h"

static const char *const section_names[BP_NSECTIONS] = {
    "vk.alpha_g1", "vk.beta_g1", "vk.beta_g2", "vk.gamma_g2", "vk.delta_g1", "vk.delta_g2",
    "ic",          "h",          "l",          "a",           "b_g1",        "b_g2",
};

const char *bp_section_name(enum bp_section s)
{
    return (unsigned)s < BP_NSECTIONS ? section_names[s] : "?";
}

int bp_section_is_g2(enum bp_section s)
{
    return s == BP_VK_BETA_G2 || s == BP_VK_GAMMA_G2 || s == BP_VK_DELTA_G2 || s == BP_B_G2;
}

static size_t point_bytes(enum bp_section s)
{
    return bp_section_is_g2(s) ? ZCASH_G2_BYTES : ZCASH_G1_BYTES;
}

static uint32_t be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

int bp_params_open(struct bp_params *p, int fd, const char *path, int vk, struct sp_err *e)
{
    memset(p, 0, sizeof *p);
    p->path = path;
    p->is_vk = vk;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return sp_fail(e, -errno, "%s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return sp_fail(e, SP_EFORMAT, "%s: not a regular file", path);
    size_t len = (size_t)st.st_size;
    if (len == 0)
        return sp_fail(e, SP_EFORMAT, "%s: empty file (a bellperson %s starts with vk.alpha_g1)",
                       path, vk ? ".vk" : ".params");
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return sp_fail(e, -errno, "%s: mmap: %s", path, strerror(errno));
    p->map = m;
    p->len = len;

    uint64_t off = 0;
    int rc = 0;
    for (int s = 0; s < BP_NSECTIONS; s++) {
        if (vk && s > BP_IC)
            break;
        uint64_t n = 1;
        if (s >= BP_IC) { /* counted sections */
            if (len - off < 4) {
                rc = sp_fail(e, SP_EFORMAT,
                             "%s: truncated: section %s: the u32 count at offset %llu is "
                             "missing (file is %zu bytes)",
                             path, section_names[s], (unsigned long long)off, len);
                goto fail;
            }
            n = be32(p->map + off);
            off += 4;
        }
        uint64_t need = n * point_bytes(s);
        if (len - off < need) {
            if (s < BP_IC)
                rc = sp_fail(e, SP_EFORMAT,
                             "%s: truncated: section %s needs %llu bytes at offset %llu, "
                             "file is %zu bytes",
                             path, section_names[s], (unsigned long long)need,
                             (unsigned long long)off, len);
            else
                rc = sp_fail(e, SP_EFORMAT,
                             "%s: section %s: count %llu needs %llu bytes at offset %llu, "
                             "but only %llu remain (truncated file or a wrong count)",
                             path, section_names[s], (unsigned long long)n,
                             (unsigned long long)need, (unsigned long long)off,
                             (unsigned long long)(len - off));
            goto fail;
        }
        p->off[s] = off;
        p->count[s] = (uint32_t)n;
        off += need;
    }
    if (off != len) {
        rc = sp_fail(e, SP_EFORMAT, "%s: %llu trailing bytes after section %s (ends at offset %llu)",
                     path, (unsigned long long)(len - off), vk ? "ic" : "b_g2",
                     (unsigned long long)off);
        goto fail;
    }
    if (p->count[BP_IC] == 0) {
        rc = sp_fail(e, SP_EFORMAT, "%s: section ic: count 0 (the wire \"one\" needs a point)",
                     path);
        goto fail;
    }
    if (!vk) {
        uint64_t m = (uint64_t)p->count[BP_H] + 1;
        if (m < 2 || (m & (m - 1)) != 0) {
            rc = sp_fail(e, SP_EFORMAT,
                         "%s: section h: count %u is not 2^k - 1 (domain size minus one)", path,
                         p->count[BP_H]);
            goto fail;
        }
        if (p->count[BP_B_G1] != p->count[BP_B_G2]) {
            rc = sp_fail(e, SP_EFORMAT, "%s: sections b_g1 (%u points) and b_g2 (%u) differ",
                         path, p->count[BP_B_G1], p->count[BP_B_G2]);
            goto fail;
        }
        if (p->count[BP_A] < p->count[BP_IC]) {
            rc = sp_fail(e, SP_EFORMAT,
                         "%s: section a: %u points, fewer than the %u inputs (ic)", path,
                         p->count[BP_A], p->count[BP_IC]);
            goto fail;
        }
    }
    return 0;
fail:
    bp_params_close(p);
    return rc;
}

void bp_params_close(struct bp_params *p)
{
    if (p->map)
        munmap((void *)p->map, p->len);
    p->map = NULL;
    p->len = 0;
}

/* ---------------------------------------------------------------- decode */

struct dec_ctx {
    const uint8_t *src; /* first encoded point */
    int g2, subgroup;
    uint8_t *out;         /* NULL: check only */
    atomic_size_t first_bad;
    atomic_int why;
};

/* ZCASH_* reason, or -1 for a point at infinity. */
static int dec_one(struct dec_ctx *c, size_t i)
{
    if (c->g2) {
        bls12381_g2_affine_t q;
        enum zcash_status st =
            bls12381_g2_from_zcash(&q, c->src + i * ZCASH_G2_BYTES, c->subgroup);
        if (st != ZCASH_OK)
            return (int)st;
        if (bls12381_g2_affine_is_inf(&q))
            return -1;
        if (c->out)
            memcpy(c->out + i * sizeof q, &q, sizeof q);
    } else {
        bls12381_g1_affine_t q;
        enum zcash_status st =
            bls12381_g1_from_zcash(&q, c->src + i * ZCASH_G1_BYTES, c->subgroup);
        if (st != ZCASH_OK)
            return (int)st;
        if (bls12381_g1_affine_is_inf(&q))
            return -1;
        if (c->out)
            memcpy(c->out + i * sizeof q, &q, sizeof q);
    }
    return 0;
}

static void dec_range(void *arg, size_t b, size_t end)
{
    struct dec_ctx *c = arg;
    for (size_t i = b; i < end; i++) {
        if (i > atomic_load(&c->first_bad))
            return;
        int r = dec_one(c, i);
        if (r) {
            size_t cur = atomic_load(&c->first_bad);
            while (i < cur && !atomic_compare_exchange_weak(&c->first_bad, &cur, i))
                ;
            if (atomic_load(&c->first_bad) == i)
                atomic_store(&c->why, r);
            return;
        }
    }
}

int bp_params_decode(const struct bp_params *p, enum bp_section s, uint64_t first, uint64_t n,
                     void *out, int subgroup, unsigned nthreads, struct sp_err *e)
{
    if ((unsigned)s >= BP_NSECTIONS)
        return sp_fail(e, SP_EINTERNAL, "%s: no section %d", p->path, (int)s);
    if (first > p->count[s] || n > p->count[s] - first)
        return sp_fail(e, SP_EINTERNAL, "%s: section %s: points %llu..%llu asked, %u present",
                       p->path, bp_section_name(s), (unsigned long long)first,
                       (unsigned long long)(first + n), p->count[s]);
    struct dec_ctx c = { .src = p->map + p->off[s] + first * point_bytes(s),
                         .g2 = bp_section_is_g2(s), .subgroup = subgroup, .out = out };
    atomic_init(&c.first_bad, SIZE_MAX);
    atomic_init(&c.why, 0);
    parallel_for(n, 1024, nthreads, dec_range, &c);
    size_t bad = atomic_load(&c.first_bad);
    if (bad == SIZE_MAX)
        return 0;
    int why = atomic_load(&c.why);
    return sp_fail(e, SP_ERANGE, "%s: section %s point %llu (offset %llu): %s", p->path,
                   bp_section_name(s), (unsigned long long)(first + bad),
                   (unsigned long long)(p->off[s] + (first + bad) * point_bytes(s)),
                   why < 0 ? "point at infinity (bellperson refuses it)"
                           : zcash_reason((enum zcash_status)why));
}

int bp_params_check(const struct bp_params *p, int subgroup, unsigned nthreads,
                    uint64_t *points, struct sp_err *e)
{
    uint64_t total = 0;
    for (int s = 0; s < BP_NSECTIONS; s++) {
        int rc = bp_params_decode(p, s, 0, p->count[s], NULL, subgroup, nthreads, e);
        if (rc < 0)
            return rc;
        total += p->count[s];
    }
    if (points)
        *points = total;
    return 0;
}
