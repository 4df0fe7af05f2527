/* zkey_write.c — see zkey_write.h. */
#include "zkey_write.h"

#include <string.h>

#include "binfile_write.h"
#include "zkey.h"

void zkey_layout(struct zkey_layout *l, enum curve_id curve, uint32_t n_vars,
                 uint32_t n_public, uint32_t domain_size, uint64_t n_coefs)
{
    const struct curve_info *ci = curve_get(curve);
    uint64_t g1 = ci->g1_bytes, g2 = ci->g2_bytes;
    memset(l, 0, sizeof(*l));
    l->curve = curve;
    l->n_vars = n_vars;
    l->n_public = n_public;
    l->domain_size = domain_size;
    l->n_coefs = n_coefs;
    l->size[ZKEY_HEADER] = 4;
    l->size[ZKEY_GROTH16] = 4 + ci->n8q + 4 + ci->n8r + 12 + 3 * g1 + 3 * g2;
    l->size[ZKEY_IC] = ((uint64_t)n_public + 1) * g1;
    l->size[ZKEY_COEFS] = 4 + n_coefs * (12 + ci->n8r);
    l->size[ZKEY_A] = (uint64_t)n_vars * g1;
    l->size[ZKEY_B1] = (uint64_t)n_vars * g1;
    l->size[ZKEY_B2] = (uint64_t)n_vars * g2;
    l->size[ZKEY_C] = ((uint64_t)n_vars - n_public - 1) * g1;
    l->size[ZKEY_H] = (uint64_t)domain_size * g1;
    uint64_t off = 12; /* magic, version, nSections */
    for (unsigned id = 1; id <= 9; id++) {
        off += 12;     /* u32 id, u64 size */
        l->off[id] = off;
        off += l->size[id];
    }
    l->file_size = off;
}

int zkey_write_headers(int fd, const char *path, const struct zkey_layout *l,
                       const uint8_t *points, struct sp_err *e)
{
    const struct curve_info *ci = curve_get(l->curve);
    uint8_t hdr[12], sh[12];
    int rc;

    memcpy(hdr, "zkey", 4);
    binfile_put_u32(hdr + 4, 1); /* version */
    binfile_put_u32(hdr + 8, 9); /* nSections */
    if ((rc = file_pwrite(fd, path, hdr, sizeof(hdr), 0, e)) < 0)
        return rc;
    for (unsigned id = 1; id <= 9; id++) {
        binfile_put_u32(sh, id);
        binfile_put_u64(sh + 4, l->size[id]);
        if ((rc = file_pwrite(fd, path, sh, sizeof(sh), l->off[id] - 12, e)) < 0)
            return rc;
    }
    uint8_t one[4];
    binfile_put_u32(one, 1); /* protocol: Groth16 */
    if ((rc = file_pwrite(fd, path, one, 4, l->off[ZKEY_HEADER], e)) < 0)
        return rc;

    uint8_t g16[4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192];
    uint8_t *p = g16;
    binfile_put_u32(p, ci->n8q);
    memcpy(p + 4, ci->q, ci->n8q);
    p += 4 + ci->n8q;
    binfile_put_u32(p, ci->n8r);
    memcpy(p + 4, ci->r, ci->n8r);
    p += 4 + ci->n8r;
    binfile_put_u32(p, l->n_vars);
    binfile_put_u32(p + 4, l->n_public);
    binfile_put_u32(p + 8, l->domain_size);
    p += 12;
    memcpy(p, points, 3 * ci->g1_bytes + 3 * ci->g2_bytes);
    p += 3 * ci->g1_bytes + 3 * ci->g2_bytes;
    if ((uint64_t)(p - g16) != l->size[ZKEY_GROTH16])
        return sp_fail(e, SP_EINTERNAL, "%s: section 2 is %zu bytes, planned %llu", path,
                       (size_t)(p - g16), (unsigned long long)l->size[ZKEY_GROTH16]);
    if ((rc = file_pwrite(fd, path, g16, (uint64_t)(p - g16), l->off[ZKEY_GROTH16], e)) < 0)
        return rc;
    uint8_t nc[4];
    binfile_put_u32(nc, (uint32_t)l->n_coefs);
    return file_pwrite(fd, path, nc, 4, l->off[ZKEY_COEFS], e);
}
