/*
 * fuzz_wtns.c — libFuzzer target for the .wtns reader: the input becomes a
 * memfd, then wtns_open and, when that accepts it, wtns_read of its values
 * (at most FUZZ_MAX_VALUES of them) into a buffer.
 *
 * Besides the sanitizers, it checks that a rejected file has a message that
 * names it and that an accepted one has its values inside the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_memfd.h"
#include "wtns.h"

#define NAME "fuzz.wtns"
#define FUZZ_MAX_VALUES ((1u << 20) / 32) /* 1 MiB of values */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t values[FUZZ_MAX_VALUES * 32];

static int names_file(const struct sp_err *e)
{
    return strncmp(e->msg, NAME ": ", sizeof(NAME ": ") - 1) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = fuzz_memfd(data, size);
    struct wtns w;
    struct sp_err e;

    memset(&e, 0, sizeof(e));
    if (wtns_open(&w, fd, NAME, &e) == 0) {
        if (w.n8 != 32 || w.curve >= CURVE_COUNT || w.values_offset > size ||
            (uint64_t)w.n_witness * 32 > size - w.values_offset)
            abort();
        uint64_t n = w.n_witness < FUZZ_MAX_VALUES ? w.n_witness : FUZZ_MAX_VALUES;
        memset(&e, 0, sizeof(e));
        if (wtns_read(&w, fd, values, 0, n, &e) < 0 && !names_file(&e))
            abort();
        /* a range past the end is refused, not read */
        memset(&e, 0, sizeof(e));
        if (wtns_read(&w, fd, values, w.n_witness, 1, &e) == 0 || !names_file(&e))
            abort();
    } else if (!names_file(&e)) {
        abort();
    }
    close(fd);
    return 0;
}
