/*
 * binfile.h — the iden3 binary container used by .zkey, .wtns, .r1cs, .ptau.
 *
 * Layout (iden3 binfileutils, snarkjs src/binfileutils.js): 4-byte ASCII
 * magic, u32 LE version, u32 LE nSections, then nSections × {u32 id, u64 size,
 * body}. Sections may come in any order: readers index them by id.
 */
#ifndef SLOTPROVE_BINFILE_H
#define SLOTPROVE_BINFILE_H

#include <stdint.h>
#include "err.h"

#define BINFILE_MAX_ID 15       /* ids above this are skipped (still bounds-checked) */
#define BINFILE_MAX_SECTIONS 64 /* more than this is treated as corruption */

struct binfile_section {
    uint64_t offset; /* byte offset of the body in the file */
    uint64_t size;   /* body bytes */
    int present;
    int repeated; /* the id appeared more than once; the first one is kept */
};

struct binfile {
    const char *path;
    uint32_t version;
    uint32_t nsections;
    uint64_t file_size;
    struct binfile_section sect[BINFILE_MAX_ID + 1];
};

/*
 * Reads the container header and section table of the regular file behind fd
 * (pread only; the file offset is not used). magic is 4 chars ("zkey").
 * Errors: -SP_EFORMAT for a wrong magic, a version above max_version, a
 * section that runs past the end of the file or a duplicated id; -errno for
 * I/O or a non-regular file. Messages name path.
 * A repeated id is not an error here: snarkjs tolerates repeats of sections
 * it never reads (section 10, contributions, say), so only binfile_need —
 * asked for a section a reader uses — refuses one that appears twice.
 */
int binfile_open(struct binfile *bf, int fd, const char *path,
                 const char *magic, uint32_t max_version, struct sp_err *e);

/* pread exactly len bytes at off; a short read is -SP_EFORMAT ("truncated"). */
int binfile_pread(int fd, const char *path, void *dst, uint64_t len,
                  uint64_t off, struct sp_err *e);

/* Requires section id to be present exactly once with exactly `want` bytes
 * (want < 0 skips the size check); names `what` in the message. A section a
 * reader needs must not repeat: "section 2 (Groth16 header) appears twice". */
int binfile_need(const struct binfile *bf, unsigned id, const char *what,
                 int64_t want, struct sp_err *e);

static inline uint32_t binfile_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

#endif
