/*
 * witness_job.c — input jobs (witness_job.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "job_end.h"
#include "proof.h"
#include "witness_job.h"

int witness_program_open(const char *path, char *abs_path, size_t abs_len, struct sp_err *e)
{
    char real[PATH_MAX], script[PATH_MAX + 32];
    unsigned char m[4];
    int fd = open_input(path, e);
    if (fd < 0)
        return fd;
    if (!realpath(path, real) || strlen(real) >= abs_len) {
        int err = errno ? errno : ENAMETOOLONG;
        close(fd);
        return sp_fail(e, -err, "%s: %s", path, strerror(err));
    }
    snprintf(abs_path, abs_len, "%s", real);
    ssize_t n = pread(fd, m, sizeof(m), 0);
    int elf = n == 4 && memcmp(m, "\x7f" "ELF", 4) == 0;
    int wasm = n == 4 && memcmp(m, "\0asm", 4) == 0;
    if (!elf && !wasm) {
        close(fd);
        return sp_fail(e, -SP_EUNSUPPORTED, "%s: not a witness program (neither an ELF "
                       "executable from circom --c nor a .wasm from circom --wasm)", path);
    }
    if (elf && faccessat(AT_FDCWD, real, X_OK, AT_EACCESS) != 0) {
        close(fd);
        return sp_fail(e, -EACCES, "%s: the witness program is not executable", path);
    }
    if (wasm) {
        snprintf(script, sizeof(script), "%.*s/generate_witness.js",
                 (int)(strrchr(real, '/') - real), real);
        if (access(script, R_OK) != 0) {
            close(fd);
            return sp_fail(e, -ENOENT, "%s: circom's generate_witness.js (and "
                           "witness_calculator.js) must be beside the .wasm", path);
        }
    }
    return fd;
}

int witness_input_pin(int fd, const char *name, struct sp_err *e)
{
    struct stat st;
    char buf[65536];
    if (fstat(fd, &st) < 0)
        return sp_fail(e, -errno, "%s: %s", name, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return sp_fail(e, -EINVAL, "%s: not a regular file", name);
    if ((uint64_t)st.st_size > WITNESS_INPUT_MAX)
        return sp_fail(e, -SP_ERANGE, "%s: %lld bytes, over the %u-byte limit for an input",
                       name, (long long)st.st_size, WITNESS_INPUT_MAX);
    int m = memfd_create("input.json", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (m < 0)
        return sp_fail(e, -errno, "memfd_create: %s", strerror(errno));
    uint64_t off = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof(buf), (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            close(m);
            return sp_fail(e, -err, "%s: %s", name, strerror(err));
        }
        if (n == 0)
            break;
        if ((off += (uint64_t)n) > WITNESS_INPUT_MAX) {
            close(m);
            return sp_fail(e, -SP_ERANGE, "%s: grew past the %u-byte limit for an input", name,
                           WITNESS_INPUT_MAX);
        }
        if (write(m, buf, (size_t)n) != n) {
            int err = errno ? errno : EIO;
            close(m);
            return sp_fail(e, -err, "memfd write: %s", strerror(err));
        }
    }
    if (off == 0) {
        close(m);
        return sp_fail(e, -SP_EFORMAT, "%s: empty input", name);
    }
    if (fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
        int err = errno;
        close(m);
        return sp_fail(e, -err, "memfd seal: %s", strerror(err));
    }
    return m;
}

int witness_job_attach(struct job *j, int prog_fd, const char *prog_path, struct sp_err *e)
{
    int fd = fcntl(prog_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return sp_fail(e, -errno, "%s: dup: %s", prog_path, strerror(errno));
    if (j->prog_fd >= 0)
        close(j->prog_fd);
    j->prog_fd = fd;
    snprintf(j->prog_path, sizeof(j->prog_path), "%s", prog_path);
    return 0;
}

void witness_job_text(struct ctl_msg *m, const char *input_name, const char *prog_path)
{
    char t[CTL_TEXT_MAX];
    int a = snprintf(t, sizeof(t), "%s", input_name);
    if (a < 0 || (size_t)a + 1 >= sizeof(t))
        a = 0;
    int b = snprintf(t + a + 1, sizeof(t) - (size_t)a - 1, "%s", prog_path);
    if (b < 0)
        b = 0;
    size_t len = (size_t)a + 1 + (size_t)b;
    ctl_bytes(m, t, (uint32_t)(len < sizeof(t) ? len : sizeof(t)));
}

void witness_job_public_part(struct core *c, struct job *j, uint32_t part, uint32_t first,
                             const char *bytes, size_t n)
{
    const struct zkey *zk = &c->keys.keys[j->d.key_id].zk;
    struct job_part *p = &j->parts[part];
    if (first == 0)
        p->public_next = 0;
    if (first != p->public_next || n % 32 || first + n / 32 > zk->n_public)
        return; /* out of sequence: PROVED will find them missing */
    if (!p->public_raw && !(p->public_raw = malloc((size_t)zk->n_public * 32 + 32)))
        return;
    memcpy(p->public_raw + (size_t)first * 32, bytes, n);
    p->public_next = first + (uint32_t)(n / 32);
}

int witness_job_public(struct core *c, struct job *j, uint32_t part)
{
    const struct zkey *zk = &c->keys.keys[j->d.key_id].zk;
    struct job_part *p = &j->parts[part];
    if (zk->n_public && (!p->public_raw || p->public_next != zk->n_public)) {
        core_fail_job(c, j, "%s: gpud sent %u of the %u public signals", p->wname,
                      p->public_next, zk->n_public);
        return -1;
    }
    static const uint8_t none[32];
    if (!(p->public_json = public_to_json(p->public_raw ? p->public_raw : none, zk->n_public))) {
        core_fail_job(c, j, "out of memory for public signals");
        return -1;
    }
    return 0;
}

void witness_limits_export(struct core_opts *o, uint64_t mem_bytes, unsigned cpu_s,
                           unsigned wall_s)
{
    char v[32];
    snprintf(v, sizeof(v), "%llu", (unsigned long long)mem_bytes);
    setenv("SLOTPROVE_WITNESS_MEM", v, 1);
    snprintf(v, sizeof(v), "%u", cpu_s);
    setenv("SLOTPROVE_WITNESS_CPU", v, 1);
    snprintf(v, sizeof(v), "%u", wall_s);
    setenv("SLOTPROVE_WITNESS_TIME", v, 1);
    o->witness_wall_s = wall_s;
}

int witness_job_ready(struct core *c, struct job *j, uint32_t key_id)
{
    const struct key_entry *k = &c->keys.keys[key_id];
    if (j->prog_fd < 0) {
        core_fail_job(c, j, "%s: no witness program for this key (serve --witness-program "
                      "NAME=PROGRAM)", k->alias[0] ? k->alias : k->name);
        return -1;
    }
    return 0;
}
