/* zkey_write.c — see zkey_write.h. */
#include "zkey_write.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "zkey.h"

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

int file_pwrite(int fd, const char *path, const void *buf, uint64_t len,
                uint64_t off, struct sp_err *e)
{
    const uint8_t *p = buf;
    while (len > 0) {
        size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
        ssize_t put = pwrite(fd, p, chunk, (off_t)off);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            int err = errno;
            return sp_fail(e, -err, "%s: write at offset %llu: %s", path,
                           (unsigned long long)off, strerror(err));
        }
        if (put == 0)
            return sp_fail(e, -EIO, "%s: write at offset %llu wrote nothing", path,
                           (unsigned long long)off);
        p += put;
        off += (uint64_t)put;
        len -= (uint64_t)put;
    }
    return 0;
}

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
    put_u32(hdr + 4, 1); /* version */
    put_u32(hdr + 8, 9); /* nSections */
    if ((rc = file_pwrite(fd, path, hdr, sizeof(hdr), 0, e)) < 0)
        return rc;
    for (unsigned id = 1; id <= 9; id++) {
        put_u32(sh, id);
        put_u64(sh + 4, l->size[id]);
        if ((rc = file_pwrite(fd, path, sh, sizeof(sh), l->off[id] - 12, e)) < 0)
            return rc;
    }
    uint8_t one[4];
    put_u32(one, 1); /* protocol: Groth16 */
    if ((rc = file_pwrite(fd, path, one, 4, l->off[ZKEY_HEADER], e)) < 0)
        return rc;

    uint8_t g16[4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192];
    uint8_t *p = g16;
    put_u32(p, ci->n8q);
    memcpy(p + 4, ci->q, ci->n8q);
    p += 4 + ci->n8q;
    put_u32(p, ci->n8r);
    memcpy(p + 4, ci->r, ci->n8r);
    p += 4 + ci->n8r;
    put_u32(p, l->n_vars);
    put_u32(p + 4, l->n_public);
    put_u32(p + 8, l->domain_size);
    p += 12;
    memcpy(p, points, 3 * ci->g1_bytes + 3 * ci->g2_bytes);
    p += 3 * ci->g1_bytes + 3 * ci->g2_bytes;
    if ((uint64_t)(p - g16) != l->size[ZKEY_GROTH16])
        return sp_fail(e, SP_EINTERNAL, "%s: section 2 is %zu bytes, planned %llu", path,
                       (size_t)(p - g16), (unsigned long long)l->size[ZKEY_GROTH16]);
    if ((rc = file_pwrite(fd, path, g16, (uint64_t)(p - g16), l->off[ZKEY_GROTH16], e)) < 0)
        return rc;
    uint8_t nc[4];
    put_u32(nc, (uint32_t)l->n_coefs);
    return file_pwrite(fd, path, nc, 4, l->off[ZKEY_COEFS], e);
}

uint64_t wtns_file_bytes(uint32_t n_witness)
{
    return 12 + 12 + 40 + 12 + (uint64_t)n_witness * 32;
}

int wtns_write(int fd, const char *path, enum curve_id curve,
               const uint8_t *values, uint32_t n_witness, struct sp_err *e)
{
    const struct curve_info *ci = curve_get(curve);
    uint8_t h[12 + 12 + 40 + 12];
    int rc;
    memcpy(h, "wtns", 4);
    put_u32(h + 4, 2);  /* version */
    put_u32(h + 8, 2);  /* nSections */
    put_u32(h + 12, 1); /* section 1: header */
    put_u64(h + 16, 40);
    put_u32(h + 24, 32);
    memcpy(h + 28, ci->r, 32);
    put_u32(h + 60, n_witness);
    put_u32(h + 64, 2); /* section 2: values */
    put_u64(h + 68, (uint64_t)n_witness * 32);
    if ((rc = file_pwrite(fd, path, h, sizeof(h), 0, e)) < 0)
        return rc;
    return file_pwrite(fd, path, values, (uint64_t)n_witness * 32, sizeof(h), e);
}
