/* binfile.c — see binfile.h. */
#include "binfile.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int binfile_pread(int fd, const char *path, void *dst, uint64_t len,
                  uint64_t off, struct sp_err *e)
{
    uint8_t *p = dst;
    while (len > 0) {
        size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
        ssize_t got = pread(fd, p, chunk, (off_t)off);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            int err = errno;
            return sp_fail(e, -err, "%s: read at offset %llu: %s", path,
                           (unsigned long long)off, strerror(err));
        }
        if (got == 0)
            return sp_fail(e, SP_EFORMAT,
                           "%s: truncated: %llu bytes missing at offset %llu",
                           path, (unsigned long long)len,
                           (unsigned long long)off);
        p += got;
        off += (uint64_t)got;
        len -= (uint64_t)got;
    }
    return 0;
}

int binfile_open(struct binfile *bf, int fd, const char *path,
                 const char *magic, uint32_t max_version, struct sp_err *e)
{
    struct stat st;
    uint8_t hdr[12];
    int rc;

    memset(bf, 0, sizeof(*bf));
    bf->path = path;
    if (fstat(fd, &st) < 0) {
        int err = errno;
        return sp_fail(e, -err, "%s: %s", path, strerror(err));
    }
    if (!S_ISREG(st.st_mode))
        return sp_fail(e, -EINVAL, "%s: not a regular file", path);
    bf->file_size = (uint64_t)st.st_size;
    if (bf->file_size < sizeof(hdr))
        return sp_fail(e, SP_EFORMAT, "%s: truncated: %llu bytes, too short for a %s header",
                       path, (unsigned long long)bf->file_size, magic);
    if ((rc = binfile_pread(fd, path, hdr, sizeof(hdr), 0, e)) < 0)
        return rc;
    if (memcmp(hdr, magic, 4) != 0) {
        char shown[5];
        for (int i = 0; i < 4; i++) /* the file's bytes, printable or '?' */
            shown[i] = hdr[i] >= 0x20 && hdr[i] < 0x7f ? (char)hdr[i] : '?';
        shown[4] = 0;
        return sp_fail(e, SP_EFORMAT, "%s: wrong magic \"%s\", expected \"%s\" (not a .%s file?)",
                       path, shown, magic, magic);
    }
    bf->version = binfile_u32(hdr + 4);
    bf->nsections = binfile_u32(hdr + 8);
    if (bf->version == 0 || bf->version > max_version)
        return sp_fail(e, SP_EFORMAT, "%s: %s version %u not supported (max %u)",
                       path, magic, bf->version, max_version);
    if (bf->nsections > BINFILE_MAX_SECTIONS)
        return sp_fail(e, SP_EFORMAT, "%s: %u sections is absurd (max %u)", path,
                       bf->nsections, BINFILE_MAX_SECTIONS);

    uint64_t off = sizeof(hdr);
    for (uint32_t i = 0; i < bf->nsections; i++) {
        uint8_t sh[12];
        if (off + sizeof(sh) > bf->file_size)
            return sp_fail(e, SP_EFORMAT,
                           "%s: truncated: section table entry %u past end of file (%llu bytes)",
                           path, i, (unsigned long long)bf->file_size);
        if ((rc = binfile_pread(fd, path, sh, sizeof(sh), off, e)) < 0)
            return rc;
        uint32_t id = binfile_u32(sh);
        uint64_t size = (uint64_t)binfile_u32(sh + 4) | (uint64_t)binfile_u32(sh + 8) << 32;
        off += sizeof(sh);
        if (size > bf->file_size - off)
            return sp_fail(e, SP_EFORMAT,
                           "%s: truncated: section %u claims %llu bytes but only %llu remain",
                           path, id, (unsigned long long)size,
                           (unsigned long long)(bf->file_size - off));
        if (id <= BINFILE_MAX_ID) {
            if (bf->sect[id].present) {
                bf->sect[id].repeated = 1;
                off += size;
                continue;
            }
            bf->sect[id].present = 1;
            bf->sect[id].offset = off;
            bf->sect[id].size = size;
        }
        off += size;
    }
    return 0;
}

int binfile_need(const struct binfile *bf, unsigned id, const char *what,
                 int64_t want, struct sp_err *e)
{
    if (id > BINFILE_MAX_ID || !bf->sect[id].present)
        return sp_fail(e, SP_EFORMAT, "%s: section %u (%s) is missing", bf->path, id, what);
    if (bf->sect[id].repeated)
        return sp_fail(e, SP_EFORMAT, "%s: section %u (%s) appears twice", bf->path, id, what);
    if (want >= 0 && bf->sect[id].size != (uint64_t)want)
        return sp_fail(e, SP_EFORMAT,
                       "%s: section %u (%s) has %llu bytes, header implies %llu",
                       bf->path, id, what, (unsigned long long)bf->sect[id].size,
                       (unsigned long long)want);
    return 0;
}
