/*
 * witness_files.c — a witness program's and an input's files (witness_files.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "sealed_copy.h"
#include "witness_files.h"

/* A sealed memfd copy (sealed_copy.h) of the regular file on fd, at most
 * max bytes; what ("an input", "a witness program") names it in messages. */
static int pin_copy(int fd, const char *name, uint64_t max, const char *what, struct sp_err *e)
{
    char limit[64];
    snprintf(limit, sizeof(limit), "the limit for %s", what);
    const struct sealed_copy_kind k = {
        .what = what, .max_bytes = max, .too_big = -SP_ERANGE, .limit = limit, .advice = "",
    };
    return sealed_copy(fd, name, &k, e);
}

int witness_input_pin(int fd, const char *name, struct sp_err *e)
{
    return pin_copy(fd, name, WITNESS_INPUT_MAX, "an input", e);
}

int witness_program_pin(int fd, const char *name, struct sp_err *e)
{
    unsigned char m[4];
    char path[40];
    int w = pin_copy(fd, name, WITNESS_PROGRAM_MAX, "a witness program", e);
    if (w < 0)
        return w;
    ssize_t n = pread(w, m, sizeof(m), 0);
    if (n != 4 || (memcmp(m, "\x7f" "ELF", 4) != 0 && memcmp(m, "\0asm", 4) != 0)) {
        close(w);
        return sp_fail(e, -SP_EUNSUPPORTED, "%s: not a witness program (neither an ELF "
                       "executable from circom --c nor a .wasm from circom --wasm)", name);
    }
    /* exec refuses a file open for writing (ETXTBSY): keep only a read-only
     * descriptor of the sealed copy */
    snprintf(path, sizeof(path), "/proc/self/fd/%d", w);
    int r = open(path, O_RDONLY | O_CLOEXEC);
    int err = errno;
    close(w);
    if (r < 0)
        return sp_fail(e, -err, "%s: reopening its pinned copy: %s", name, strerror(err));
    return r;
}

int witness_companions_pin(int prog_fd, const char *abs_path, int aux[2], struct sp_err *e)
{
    static const char *const wasm_files[2] = { "generate_witness.js", "witness_calculator.js" };
    char path[PATH_MAX + 32];
    unsigned char m[4];
    aux[0] = aux[1] = -1;
    if (pread(prog_fd, m, sizeof(m), 0) != 4)
        return sp_fail(e, -SP_EFORMAT, "%s: not a witness program", abs_path);
    int elf = memcmp(m, "\x7f" "ELF", 4) == 0;
    const char *slash = strrchr(abs_path, '/');
    int dir = slash ? (int)(slash - abs_path) : 1;
    for (int i = 0; i < (elf ? 1 : 2); i++) {
        if (elf)
            snprintf(path, sizeof(path), "%s.dat", abs_path);
        else
            snprintf(path, sizeof(path), "%.*s/%s", dir, slash ? abs_path : ".", wasm_files[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            sp_fail(e, -err, elf ? "%s: circom's data file must be beside the witness program "
                                   "(its main.cpp opens PROGRAM.dat): %s"
                                 : "%s: circom's generate_witness.js and witness_calculator.js "
                                   "must be beside the .wasm: %s", path, strerror(err));
        } else {
            aux[i] = pin_copy(fd, path, WITNESS_PROGRAM_MAX, "a witness program's file", e);
            close(fd);
        }
        if (aux[i] < 0) {
            int rc = aux[i];
            for (int k = 0; k < 2; k++)
                if (aux[k] >= 0)
                    close(aux[k]);
            aux[0] = aux[1] = -1;
            return rc < 0 ? rc : -EIO;
        }
    }
    return 0;
}

int witness_program_open(const char *path, char *abs_path, size_t abs_len, int aux[2],
                         struct sp_err *e)
{
    char real[PATH_MAX];
    aux[0] = aux[1] = -1;
    int fd = open_input(path, e);
    if (fd < 0)
        return fd;
    if (!realpath(path, real) || strlen(real) >= abs_len) {
        int err = errno ? errno : ENAMETOOLONG;
        close(fd);
        return sp_fail(e, -err, "%s: %s", path, strerror(err));
    }
    snprintf(abs_path, abs_len, "%s", real);
    int pinned = witness_program_pin(fd, path, e);
    close(fd);
    if (pinned < 0)
        return pinned;
    unsigned char m[4];
    if (pread(pinned, m, sizeof(m), 0) == 4 && memcmp(m, "\x7f" "ELF", 4) == 0 &&
        faccessat(AT_FDCWD, real, X_OK, AT_EACCESS) != 0) {
        close(pinned);
        return sp_fail(e, -EACCES, "%s: the witness program is not executable", path);
    }
    int rc = witness_companions_pin(pinned, real, aux, e);
    if (rc < 0) {
        close(pinned);
        return rc;
    }
    return pinned;
}
