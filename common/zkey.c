/* zkey.c — see zkey.h. */
#include "zkey.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "binfile.h"

_Static_assert(sizeof(struct zkey_coef) == 44, "zkey coefficient entry is 12 + n8r bytes");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "file encodings are read in place: little-endian hosts only");

static const char *protocol_name(uint32_t p)
{
    switch (p) {
    case 1: return "Groth16";
    case 2: return "PLONK";
    case 10: return "FFLONK";
    default: return "unknown";
    }
}

/* Reads the Groth16 header (section 2) from the mapping. */
static int read_groth16_header(struct zkey *zk, const struct binfile *bf, struct sp_err *e)
{
    const struct binfile_section *s = &bf->sect[ZKEY_GROTH16];
    const uint8_t *p = zk->map + s->offset, *end = p + s->size;
    char qhex[2 * 48 + 3], rhex[2 * 32 + 3];

    if (s->size < 4)
        goto truncated;
    uint32_t n8q = binfile_u32(p);
    p += 4;
    if (n8q != 32 && n8q != 48)
        return sp_fail(e, SP_EUNSUPPORTED, "%s: n8q = %u: no supported curve has a %u-byte base field",
                       zk->path, n8q, n8q);
    if ((size_t)(end - p) < n8q + 4)
        goto truncated;
    const uint8_t *q = p;
    p += n8q;
    uint32_t n8r = binfile_u32(p);
    p += 4;
    if (n8r != 32)
        return sp_fail(e, SP_EUNSUPPORTED, "%s: n8r = %u: no supported curve has a %u-byte scalar field",
                       zk->path, n8r, n8r);
    if ((size_t)(end - p) < n8r + 12)
        goto truncated;
    const uint8_t *r = p;
    p += n8r;
    int curve = curve_from_primes(q, n8q, r, n8r);
    if (curve < 0) {
        curve_hex(qhex, sizeof(qhex), q, n8q);
        curve_hex(rhex, sizeof(rhex), r, n8r);
        return sp_fail(e, SP_EUNSUPPORTED,
                       "%s: unknown curve: q = %s, r = %s (supported: bn128, bls12381)",
                       zk->path, qhex, rhex);
    }
    zk->curve = (enum curve_id)curve;
    zk->ci = curve_get(zk->curve);
    zk->n_vars = binfile_u32(p);
    zk->n_public = binfile_u32(p + 4);
    zk->domain_size = binfile_u32(p + 8);
    p += 12;

    size_t g1 = zk->ci->g1_bytes, g2 = zk->ci->g2_bytes;
    if ((size_t)(end - p) != 3 * g1 + 3 * g2)
        return sp_fail(e, SP_EFORMAT,
                       "%s: section 2 (Groth16 header) has %llu bytes, expected %zu for %s",
                       zk->path, (unsigned long long)s->size,
                       (size_t)(p - (zk->map + s->offset)) + 3 * g1 + 3 * g2, zk->ci->name);
    zk->alpha1 = p; p += g1;
    zk->beta1 = p;  p += g1;
    zk->beta2 = p;  p += g2;
    zk->gamma2 = p; p += g2;
    zk->delta1 = p; p += g1;
    zk->delta2 = p;
    return 0;
truncated:
    return sp_fail(e, SP_EFORMAT, "%s: section 2 (Groth16 header) truncated at %llu bytes",
                   zk->path, (unsigned long long)s->size);
}

int zkey_open(struct zkey *zk, int fd, const char *path, struct sp_err *e)
{
    struct binfile bf;
    int rc;

    memset(zk, 0, sizeof(*zk));
    zk->path = path;
    if ((rc = binfile_open(&bf, fd, path, "zkey", 2, e)) < 0)
        return rc;
    if ((rc = binfile_need(&bf, ZKEY_HEADER, "header", 4, e)) < 0)
        return rc;

    zk->map_len = bf.file_size;
    zk->map = mmap(NULL, zk->map_len, PROT_READ, MAP_SHARED, fd, 0);
    if (zk->map == MAP_FAILED) {
        int err = errno;
        zk->map = NULL;
        return sp_fail(e, -err, "%s: mmap %zu bytes: %s", path, zk->map_len, strerror(err));
    }

    uint32_t protocol = binfile_u32(zk->map + bf.sect[ZKEY_HEADER].offset);
    if (protocol != 1) {
        rc = sp_fail(e, SP_EUNSUPPORTED, "%s: protocol %u (%s) is not supported; slotprove proves Groth16 keys (protocol 1)",
                     path, protocol, protocol_name(protocol));
        goto fail;
    }
    if ((rc = binfile_need(&bf, ZKEY_GROTH16, "Groth16 header", -1, e)) < 0)
        goto fail;
    if ((rc = read_groth16_header(zk, &bf, e)) < 0)
        goto fail;

    uint32_t n = zk->domain_size;
    if (n < 2 || (n & (n - 1)) != 0 || n > (1u << ZKEY_MAX_LOG_DOMAIN)) {
        rc = sp_fail(e, SP_ERANGE, "%s: domainSize %u is not a power of two in [2, 2^%d]",
                     path, n, ZKEY_MAX_LOG_DOMAIN);
        goto fail;
    }
    zk->log_domain = (unsigned)__builtin_ctz(n);
    if (zk->n_vars == 0 || zk->n_public >= zk->n_vars) {
        rc = sp_fail(e, SP_EFORMAT, "%s: nPublic %u must be < nVars %u", path,
                     zk->n_public, zk->n_vars);
        goto fail;
    }

    uint64_t g1 = zk->ci->g1_bytes, g2 = zk->ci->g2_bytes;
    uint64_t nv = zk->n_vars, np = zk->n_public;
    struct { unsigned id; const char *what; uint64_t bytes; const uint8_t **dst; } want[] = {
        { ZKEY_IC, "IC", (np + 1) * g1, &zk->ic },
        { ZKEY_A, "A", nv * g1, &zk->a },
        { ZKEY_B1, "B1", nv * g1, &zk->b1 },
        { ZKEY_B2, "B2", nv * g2, &zk->b2 },
        { ZKEY_C, "C", (nv - np - 1) * g1, &zk->c },
        { ZKEY_H, "H", (uint64_t)n * g1, &zk->h },
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if ((rc = binfile_need(&bf, want[i].id, want[i].what, (int64_t)want[i].bytes, e)) < 0)
            goto fail;
        *want[i].dst = zk->map + bf.sect[want[i].id].offset;
    }

    if ((rc = binfile_need(&bf, ZKEY_COEFS, "coefficients", -1, e)) < 0)
        goto fail;
    const struct binfile_section *cs = &bf.sect[ZKEY_COEFS];
    if (cs->size < 4 || (cs->size - 4) % sizeof(struct zkey_coef) != 0) {
        rc = sp_fail(e, SP_EFORMAT, "%s: section 4 (coefficients) has %llu bytes, not 4 + k*%zu",
                     path, (unsigned long long)cs->size, sizeof(struct zkey_coef));
        goto fail;
    }
    zk->n_coefs = (cs->size - 4) / sizeof(struct zkey_coef);
    uint32_t declared = binfile_u32(zk->map + cs->offset);
    if (declared != zk->n_coefs) {
        rc = sp_fail(e, SP_EFORMAT, "%s: section 4 declares nCoefs %u but holds %llu entries",
                     path, declared, (unsigned long long)zk->n_coefs);
        goto fail;
    }
    zk->coefs = (const struct zkey_coef *)(zk->map + cs->offset + 4);
    zk->has_contributions = bf.sect[ZKEY_CONTRIBUTIONS].present;
    return 0;
fail:
    zkey_close(zk);
    return rc;
}

int zkey_check_coefs(const struct zkey *zk, struct sp_err *e)
{
    for (uint64_t i = 0; i < zk->n_coefs; i++) {
        const struct zkey_coef *c = &zk->coefs[i];
        uint32_t m, row, col;
        memcpy(&m, &c->matrix, 4);
        memcpy(&row, &c->constraint, 4);
        memcpy(&col, &c->signal, 4);
        if (m > 1)
            return sp_fail(e, SP_EFORMAT, "%s: coefficient %llu: matrix %u is neither A (0) nor B (1)",
                           zk->path, (unsigned long long)i, m);
        if (row >= zk->domain_size)
            return sp_fail(e, SP_EFORMAT, "%s: coefficient %llu: constraint %u >= domainSize %u",
                           zk->path, (unsigned long long)i, row, zk->domain_size);
        if (col >= zk->n_vars)
            return sp_fail(e, SP_EFORMAT, "%s: coefficient %llu: signal %u >= nVars %u",
                           zk->path, (unsigned long long)i, col, zk->n_vars);
        if (!curve_scalar_below_r(zk->ci, c->value))
            return sp_fail(e, SP_ERANGE, "%s: coefficient %llu: value is not below r",
                           zk->path, (unsigned long long)i);
    }
    return 0;
}

void zkey_close(struct zkey *zk)
{
    if (zk->map)
        munmap(zk->map, zk->map_len);
    zk->map = NULL;
}
