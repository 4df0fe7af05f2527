/*
 * witness_mismatch.c — a witness program of another circuit, named as such
 * (witness_mismatch.h).
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "witness_mismatch.h"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* nWitness from a .wtns header: magic "wtns" (0), version (4), nSections
 * (8), then section 1's type (12) and size (16, u64), n8 (24), the prime
 * (28, n8 bytes), nWitness (28 + n8). 0 with *n, or -1 when the bytes are
 * not such a header (too short, another magic, section 1 not first). */
static int header_wires(int fd, uint32_t *n)
{
    uint8_t h[28 + 64 + 4];
    ssize_t got = pread(fd, h, sizeof(h), 0);
    if (got < 28 || memcmp(h, "wtns", 4) != 0 || le32(h + 12) != 1)
        return -1;
    uint32_t n8 = le32(h + 24);
    if (n8 == 0 || n8 > 64 || got < (ssize_t)(32 + n8))
        return -1;
    *n = le32(h + 28 + n8);
    return 0;
}

int witness_mismatch_check(int wtns_fd, int stopped, uint64_t limit_bytes, const char *input_name,
                           const char *prog_path, const char *key_name, uint32_t key_wires,
                           struct sp_err *e)
{
    uint32_t wires;
    if (header_wires(wtns_fd, &wires) == 0) {
        if (wires == key_wires && !stopped)
            return 0;
        if (wires != key_wires)
            return sp_fail(e, -SP_EMISMATCH, "%s: the witness program %s writes a witness of "
                           "%u wires, the key %s has %u: made for another circuit?", input_name,
                           prog_path, wires, key_name, key_wires);
    }
    if (!stopped)
        return 0;
    struct stat st;
    unsigned long long wrote = fstat(wtns_fd, &st) == 0 ? (unsigned long long)st.st_size : 0;
    return sp_fail(e, -SP_EMISMATCH, "%s: the witness program %s was stopped after writing %llu "
                   "bytes, the most a witness of the key %s (%u wires) takes with its headers "
                   "(%llu bytes): made for another circuit?", input_name, prog_path, wrote,
                   key_name, key_wires, (unsigned long long)limit_bytes);
}
