/* wtns_write.c — see wtns_write.h. */
#include "wtns_write.h"

#include <string.h>

#include "binfile_write.h"

uint64_t wtns_file_bytes(uint32_t n_witness)
{
    return 12 + 12 + 40 + 12 + (uint64_t)n_witness * 32;
}

int wtns_write_header(int fd, const char *path, enum curve_id curve, uint32_t n_witness,
                      struct sp_err *e)
{
    const struct curve_info *ci = curve_get(curve);
    uint8_t h[12 + 12 + 40 + 12];
    memcpy(h, "wtns", 4);
    binfile_put_u32(h + 4, 2);  /* version */
    binfile_put_u32(h + 8, 2);  /* nSections */
    binfile_put_u32(h + 12, 1); /* section 1: header */
    binfile_put_u64(h + 16, 40);
    binfile_put_u32(h + 24, 32);
    memcpy(h + 28, ci->r, 32);
    binfile_put_u32(h + 60, n_witness);
    binfile_put_u32(h + 64, 2); /* section 2: values */
    binfile_put_u64(h + 68, (uint64_t)n_witness * 32);
    return file_pwrite(fd, path, h, sizeof(h), 0, e);
}

int wtns_write(int fd, const char *path, enum curve_id curve,
               const uint8_t *values, uint32_t n_witness, struct sp_err *e)
{
    int rc = wtns_write_header(fd, path, curve, n_witness, e);
    if (rc < 0)
        return rc;
    return file_pwrite(fd, path, values, (uint64_t)n_witness * 32,
                       wtns_file_bytes(n_witness) - (uint64_t)n_witness * 32, e);
}
