/* wtns.c — see wtns.h. */
#include "wtns.h"

#include <string.h>

#include "binfile.h"

int wtns_open(struct wtns *w, int fd, const char *path, struct sp_err *e)
{
    struct binfile bf;
    uint8_t hdr[4 + 32 + 4];
    int rc;

    memset(w, 0, sizeof(*w));
    w->path = path;
    if ((rc = binfile_open(&bf, fd, path, "wtns", 2, e)) < 0)
        return rc;
    if ((rc = binfile_need(&bf, 1, "header", -1, e)) < 0)
        return rc;
    if (bf.sect[1].size < 4)
        return sp_fail(e, SP_EFORMAT, "%s: section 1 (header) truncated", path);
    if ((rc = binfile_pread(fd, path, hdr, 4, bf.sect[1].offset, e)) < 0)
        return rc;
    w->n8 = binfile_u32(hdr);
    if (w->n8 != 32)
        return sp_fail(e, SP_EUNSUPPORTED, "%s: n8 = %u: no supported curve has a %u-byte scalar field",
                       path, w->n8, w->n8);
    if (bf.sect[1].size != 4 + 32 + 4)
        return sp_fail(e, SP_EFORMAT, "%s: section 1 (header) has %llu bytes, expected 40",
                       path, (unsigned long long)bf.sect[1].size);
    if ((rc = binfile_pread(fd, path, hdr, sizeof(hdr), bf.sect[1].offset, e)) < 0)
        return rc;
    int curve = curve_from_r(hdr + 4, 32);
    if (curve < 0) {
        char hex[67];
        curve_hex(hex, sizeof(hex), hdr + 4, 32);
        return sp_fail(e, SP_EUNSUPPORTED, "%s: unknown prime %s (supported: bn128, bls12381)",
                       path, hex);
    }
    w->curve = (enum curve_id)curve;
    w->n_witness = binfile_u32(hdr + 36);
    if ((rc = binfile_need(&bf, 2, "witness values", (int64_t)w->n_witness * 32, e)) < 0)
        return rc;
    w->values_offset = bf.sect[2].offset;
    return 0;
}

int wtns_read(const struct wtns *w, int fd, void *dst, uint64_t first,
              uint64_t count, struct sp_err *e)
{
    int rc;
    if (first > w->n_witness || count > w->n_witness - first)
        return sp_fail(e, SP_ERANGE, "%s: values [%llu, %llu) out of nWitness %u", w->path,
                       (unsigned long long)first, (unsigned long long)(first + count),
                       w->n_witness);
    rc = binfile_pread(fd, w->path, dst, count * 32, w->values_offset + first * 32, e);
    if (rc < 0)
        return rc;
    const struct curve_info *ci = curve_get(w->curve);
    const uint8_t *p = dst;
    for (uint64_t i = 0; i < count; i++, p += 32) {
        if (!curve_scalar_below_r(ci, p))
            return sp_fail(e, SP_ERANGE, "%s: witness value %llu is not below r (%s)",
                           w->path, (unsigned long long)(first + i), ci->name);
    }
    return 0;
}

int wtns_check_key(const struct wtns *w, const struct zkey *zk, struct sp_err *e)
{
    struct key_shape s;
    key_shape_of_zkey(&s, zk);
    return wtns_check_shape(w, &s, e);
}

int wtns_check_shape(const struct wtns *w, const struct key_shape *zk, struct sp_err *e)
{
    if (w->curve != zk->curve)
        return sp_fail(e, SP_EMISMATCH, "%s: witness is for %s but %s is a %s key", w->path,
                       curve_get(w->curve)->name, zk->path, curve_get(zk->curve)->name);
    if (w->n_witness != zk->n_vars)
        return sp_fail(e, SP_EMISMATCH, "%s: nWitness %u != the key's nVars %u (%s)", w->path,
                       w->n_witness, zk->n_vars, zk->path);
    return 0;
}
