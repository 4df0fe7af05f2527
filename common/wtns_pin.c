/* wtns_pin.c — see wtns_pin.h. */
#include "wtns_pin.h"

#include <errno.h>
#include <sha2.h>
#include <string.h>
#include <sys/stat.h>

static void sha256(uint8_t out[32], const uint8_t *p, size_t n)
{
    SHA2_CTX c;
    SHA256Init(&c);
    SHA256Update(&c, p, n);
    SHA256Final(out, &c);
}

static int stat_ns(int fd, uint64_t *size, int64_t *mtime, int64_t *ctime_)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    *size = (uint64_t)st.st_size;
    *mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    *ctime_ = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
    return 0;
}

int wtns_pin_take(struct wtns_pin *p, int fd, const uint8_t *pub, size_t pub_bytes,
                  const char *name, struct sp_err *e)
{
    memset(p, 0, sizeof(*p));
    int rc = stat_ns(fd, &p->size, &p->mtime_ns, &p->ctime_ns);
    if (rc < 0)
        return sp_fail(e, rc, "%s: %s", name, strerror(-rc));
    sha256(p->public_sha256, pub, pub_bytes);
    return 0;
}

int wtns_pin_check(const struct wtns_pin *p, int fd, const uint8_t *pub, size_t pub_bytes,
                   const char *name, struct sp_err *e)
{
    struct wtns_pin now;
    int rc = stat_ns(fd, &now.size, &now.mtime_ns, &now.ctime_ns);
    if (rc < 0)
        return sp_fail(e, rc, "%s: %s", name, strerror(-rc));
    sha256(now.public_sha256, pub, pub_bytes);
    const char *what = NULL;
    if (memcmp(now.public_sha256, p->public_sha256, 32) != 0)
        what = "its public signals differ from those read at submit";
    else if (now.size != p->size)
        what = "its size changed";
    else if (now.mtime_ns != p->mtime_ns || now.ctime_ns != p->ctime_ns)
        what = "it was modified";
    if (what)
        return sp_fail(e, SP_EMISMATCH, "%s: the witness changed after submit (%s); "
                       "resubmit it once it is final", name, what);
    return 0;
}
