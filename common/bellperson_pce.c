/* bellperson_pce.c - cuzk PCE file reader (see bellperson_pce.h). */
#include "bellperson_pce.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parallel.h"

static const char *const mat_names[3] = { "A", "B", "C" };

static uint64_t le64(const uint8_t *b)
{
    uint64_t v;
    memcpy(&v, b, 8);
    return v;
}

/* Reads the u64 count at *off; -SP_EFORMAT if the file ends first. */
static int take_count(const struct bp_pce *p, uint64_t *off, uint64_t *count, const char *what,
                      struct sp_err *e)
{
    if (p->len - *off < 8)
        return sp_fail(e, SP_EFORMAT, "%s: truncated: %s: the u64 count at offset %llu is missing",
                       p->path, what, (unsigned long long)*off);
    *count = le64(p->map + *off);
    *off += 8;
    return 0;
}

/* Claims count × elem bytes at *off; -SP_EFORMAT if they overrun the file. */
static int take_array(const struct bp_pce *p, uint64_t *off, uint64_t count, size_t elem,
                      const uint8_t **where, const char *what, struct sp_err *e)
{
    uint64_t left = p->len - *off;
    if (count > left / elem)
        return sp_fail(e, SP_EFORMAT,
                       "%s: %s: count %llu needs %llu bytes at offset %llu, only %llu remain",
                       p->path, what, (unsigned long long)count,
                       (unsigned long long)(count * (unsigned __int128)elem > UINT64_MAX
                                                ? UINT64_MAX
                                                : count * elem),
                       (unsigned long long)*off, (unsigned long long)left);
    *where = p->map + *off;
    *off += count * elem;
    return 0;
}

/* ---------------------------------------------------- parallel validation */

struct chk_ctx {
    const struct bp_pce *p;
    const struct bp_csr *m;
    uint64_t wires;
    atomic_uint_fast64_t first_bad_col, first_bad_val;
    /* bitmaps the columns imply (A: aux; B: inputs and aux), set atomically */
    _Atomic uint64_t *aux_bits, *in_bits;
};

static void atomic_min64(atomic_uint_fast64_t *a, uint64_t v)
{
    uint64_t cur = atomic_load(a);
    while (v < cur && !atomic_compare_exchange_weak(a, &cur, v))
        ;
}

static void chk_range(void *arg, size_t b, size_t end)
{
    struct chk_ctx *c = arg;
    uint32_t ni = c->p->num_inputs;
    for (size_t k = b; k < end; k++) {
        uint32_t col = bp_pce_u32(c->m->cols, k);
        if (col >= c->wires) {
            atomic_min64(&c->first_bad_col, k);
            continue;
        }
        uint64_t l[4];
        memcpy(l, c->m->vals + 32 * k, 32);
        if (!bls12381_fr_is_canonical(l))
            atomic_min64(&c->first_bad_val, k);
        if (col >= ni) {
            if (c->aux_bits) {
                uint64_t j = col - ni;
                atomic_fetch_or(&c->aux_bits[j / 64], (uint64_t)1 << (j % 64));
            }
        } else if (c->in_bits) {
            atomic_fetch_or(&c->in_bits[col / 64], (uint64_t)1 << (col % 64));
        }
    }
}

/* Compares bitmap d (name) with the bits the matrix implies. */
static int check_density(const struct bp_pce *p, const struct bp_density *d, const char *name,
                         uint64_t bit_len, _Atomic uint64_t *implied, struct sp_err *e)
{
    if (d->bit_len != bit_len)
        return sp_fail(e, SP_EFORMAT, "%s: density %s: bit_len %llu, expected %llu", p->path,
                       name, (unsigned long long)d->bit_len, (unsigned long long)bit_len);
    if (d->n_words != (bit_len + 63) / 64)
        return sp_fail(e, SP_EFORMAT, "%s: density %s: %llu words for %llu bits", p->path, name,
                       (unsigned long long)d->n_words, (unsigned long long)bit_len);
    uint64_t pop = 0;
    for (uint64_t i = 0; i < d->n_words; i++) {
        uint64_t w = le64(d->words + 8 * i);
        if (i == d->n_words - 1 && bit_len % 64 && (w >> (bit_len % 64)))
            return sp_fail(e, SP_EFORMAT, "%s: density %s: bits set past bit_len %llu", p->path,
                           name, (unsigned long long)bit_len);
        uint64_t want = atomic_load(&implied[i]);
        if (w != want) {
            uint64_t diff = w ^ want;
            uint64_t bit = i * 64 + (uint64_t)__builtin_ctzll(diff);
            return sp_fail(e, SP_EFORMAT,
                           "%s: density %s: bit %llu is %d but the matrix %s it", p->path, name,
                           (unsigned long long)bit, (int)((w >> (bit % 64)) & 1),
                           (w >> (bit % 64)) & 1 ? "never uses" : "uses");
        }
        pop += (uint64_t)__builtin_popcountll(w);
    }
    if (pop != d->popcount)
        return sp_fail(e, SP_EFORMAT, "%s: density %s: popcount %llu, bits set %llu", p->path,
                       name, (unsigned long long)d->popcount, (unsigned long long)pop);
    return 0;
}

static int check_matrix(struct bp_pce *p, int mi, unsigned nthreads, _Atomic uint64_t *aux_bits,
                        _Atomic uint64_t *in_bits, struct sp_err *e)
{
    const struct bp_csr *m = &p->m[mi];
    uint32_t prev = 0;
    for (uint64_t i = 0; i <= p->num_constraints; i++) {
        uint32_t r = bp_pce_u32(m->row_ptrs, i);
        if ((i == 0 && r != 0) || r < prev)
            return sp_fail(e, SP_EFORMAT, "%s: matrix %s: row_ptrs[%llu] = %u %s", p->path,
                           mat_names[mi], (unsigned long long)i, r,
                           i == 0 ? "(must be 0)" : "is below the row before");
        prev = r;
    }
    if (prev != m->nnz)
        return sp_fail(e, SP_EFORMAT, "%s: matrix %s: row_ptrs ends at %u, nnz is %llu", p->path,
                       mat_names[mi], prev, (unsigned long long)m->nnz);
    struct chk_ctx c = { .p = p, .m = m,
                         .wires = (uint64_t)p->num_inputs + p->num_aux,
                         .aux_bits = aux_bits, .in_bits = in_bits };
    atomic_init(&c.first_bad_col, UINT64_MAX);
    atomic_init(&c.first_bad_val, UINT64_MAX);
    parallel_for(m->nnz, 1 << 16, nthreads, chk_range, &c);
    uint64_t bc = atomic_load(&c.first_bad_col), bv = atomic_load(&c.first_bad_val);
    if (bc != UINT64_MAX && bc <= bv)
        return sp_fail(e, SP_ERANGE, "%s: matrix %s: cols[%llu] = %u >= %llu wires", p->path,
                       mat_names[mi], (unsigned long long)bc, bp_pce_u32(m->cols, bc),
                       (unsigned long long)c.wires);
    if (bv != UINT64_MAX)
        return sp_fail(e, SP_ERANGE, "%s: matrix %s: vals[%llu] is not below r", p->path,
                       mat_names[mi], (unsigned long long)bv);
    return 0;
}

/* The last num_inputs rows must be bellperson's input constraints, in
 * order: A = [1·input_i], B and C empty (cuzk-pce recording_cs.rs
 * extract_precompiled_circuit adds them after the circuit's own rows). */
static int check_input_rows(const struct bp_pce *p, struct sp_err *e)
{
    if (p->num_constraints < p->num_inputs)
        return sp_fail(e, SP_EFORMAT,
                       "%s: %u constraints, fewer than the %u input rows a PCE ends with", p->path,
                       p->num_constraints, p->num_inputs);
    bls12381_fr_t one;
    bls12381_fr_set_one(&one);
    for (uint32_t i = 0; i < p->num_inputs; i++) {
        uint64_t row = (uint64_t)p->num_constraints - p->num_inputs + i;
        uint32_t a0 = bp_pce_u32(p->m[BP_PCE_A].row_ptrs, row);
        uint32_t a1 = bp_pce_u32(p->m[BP_PCE_A].row_ptrs, row + 1);
        int ok = a1 == a0 + 1 && bp_pce_u32(p->m[BP_PCE_A].cols, a0) == i &&
                 memcmp(p->m[BP_PCE_A].vals + 32 * (uint64_t)a0, &one, 32) == 0;
        for (int m = BP_PCE_B; m <= BP_PCE_C && ok; m++)
            ok = bp_pce_u32(p->m[m].row_ptrs, row) == bp_pce_u32(p->m[m].row_ptrs, row + 1);
        if (!ok)
            return sp_fail(e, SP_EFORMAT,
                           "%s: row %llu is not the input constraint of input %u (A = [1 x "
                           "input %u], B and C empty), which cuzk appends after the circuit's rows",
                           p->path, (unsigned long long)row, i, i);
    }
    return 0;
}

int bp_pce_open(struct bp_pce *p, int fd, const char *path, unsigned nthreads,
                struct sp_err *e)
{
    memset(p, 0, sizeof *p);
    p->path = path;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return sp_fail(e, -errno, "%s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return sp_fail(e, SP_EFORMAT, "%s: not a regular file", path);
    if ((size_t)st.st_size < BP_PCE_HEADER_BYTES)
        return sp_fail(e, SP_EFORMAT, "%s: truncated: %zu bytes, a PCE header is 32", path,
                       (size_t)st.st_size);
    void *mp = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (mp == MAP_FAILED)
        return sp_fail(e, -errno, "%s: mmap: %s", path, strerror(errno));
    p->map = mp;
    p->len = (size_t)st.st_size;
    int rc;
    _Atomic uint64_t *bits[3] = { NULL, NULL, NULL }; /* a_aux, b_input, b_aux */

    if (memcmp(p->map, BP_PCE_MAGIC, 4) != 0) {
        rc = sp_fail(e, SP_EFORMAT, "%s: not a cuzk PCE file (magic is not \"PCE\\x02\")", path);
        goto fail;
    }
    uint32_t version = bp_pce_u32(p->map, 1);
    if (version != BP_PCE_VERSION) {
        rc = sp_fail(e, SP_EUNSUPPORTED, "%s: PCE version %u, only version 2 is read", path,
                     version);
        goto fail;
    }
    p->num_inputs = bp_pce_u32(p->map, 2);
    p->num_aux = bp_pce_u32(p->map, 3);
    p->num_constraints = bp_pce_u32(p->map, 4);
    p->total_nnz = le64(p->map + 20);
    if (p->num_inputs == 0) {
        rc = sp_fail(e, SP_EFORMAT, "%s: num_inputs 0 (the wire \"one\" is an input)", path);
        goto fail;
    }
    if ((uint64_t)p->num_inputs + p->num_aux > UINT32_MAX) {
        rc = sp_fail(e, SP_ERANGE, "%s: %u inputs + %u aux wires exceed 2^32", path,
                     p->num_inputs, p->num_aux);
        goto fail;
    }

    uint64_t off = BP_PCE_HEADER_BYTES, sum = 0;
    for (int mi = 0; mi < 3; mi++) {
        struct bp_csr *m = &p->m[mi];
        char what[64];
        uint64_t n = 0;
        snprintf(what, sizeof what, "matrix %s row_ptrs", mat_names[mi]);
        if ((rc = take_count(p, &off, &n, what, e)) < 0)
            goto fail;
        if (n != (uint64_t)p->num_constraints + 1) {
            rc = sp_fail(e, SP_EFORMAT, "%s: %s: count %llu, expected num_constraints + 1 = %llu",
                         path, what, (unsigned long long)n,
                         (unsigned long long)p->num_constraints + 1);
            goto fail;
        }
        if ((rc = take_array(p, &off, n, 4, &m->row_ptrs, what, e)) < 0)
            goto fail;
        snprintf(what, sizeof what, "matrix %s cols", mat_names[mi]);
        if ((rc = take_count(p, &off, &m->nnz, what, e)) < 0 ||
            (rc = take_array(p, &off, m->nnz, 4, &m->cols, what, e)) < 0)
            goto fail;
        snprintf(what, sizeof what, "matrix %s vals", mat_names[mi]);
        if ((rc = take_count(p, &off, &n, what, e)) < 0)
            goto fail;
        if (n != m->nnz) {
            rc = sp_fail(e, SP_EFORMAT, "%s: %s: count %llu, cols has %llu", path, what,
                         (unsigned long long)n, (unsigned long long)m->nnz);
            goto fail;
        }
        if ((rc = take_array(p, &off, n, 32, &m->vals, what, e)) < 0)
            goto fail;
        sum += m->nnz;
    }
    struct bp_density *ds[3] = { &p->a_aux, &p->b_input, &p->b_aux };
    static const char *const dnames[3] = { "a_aux", "b_input", "b_aux" };
    for (int k = 0; k < 3; k++) {
        char what[64];
        snprintf(what, sizeof what, "density %s", dnames[k]);
        if ((rc = take_count(p, &off, &ds[k]->n_words, what, e)) < 0 ||
            (rc = take_array(p, &off, ds[k]->n_words, 8, &ds[k]->words, what, e)) < 0)
            goto fail;
        if (p->len - off < 16) {
            rc = sp_fail(e, SP_EFORMAT, "%s: truncated: %s: bit_len and popcount missing at "
                         "offset %llu", path, what, (unsigned long long)off);
            goto fail;
        }
        ds[k]->bit_len = le64(p->map + off);
        ds[k]->popcount = le64(p->map + off + 8);
        off += 16;
    }
    if (off != p->len) {
        rc = sp_fail(e, SP_EFORMAT, "%s: %llu trailing bytes after density b_aux (offset %llu)",
                     path, (unsigned long long)(p->len - off), (unsigned long long)off);
        goto fail;
    }
    if (sum != p->total_nnz) {
        rc = sp_fail(e, SP_EFORMAT, "%s: header total_nnz %llu, matrices hold %llu", path,
                     (unsigned long long)p->total_nnz, (unsigned long long)sum);
        goto fail;
    }

    uint64_t aux_words = ((uint64_t)p->num_aux + 63) / 64, in_words = ((uint64_t)p->num_inputs + 63) / 64;
    bits[0] = calloc(aux_words + 1, 8);
    bits[1] = calloc(in_words + 1, 8);
    bits[2] = calloc(aux_words + 1, 8);
    if (!bits[0] || !bits[1] || !bits[2]) {
        rc = sp_fail(e, -ENOMEM, "%s: no memory for the density check", path);
        goto fail;
    }
    if ((rc = check_matrix(p, BP_PCE_A, nthreads, bits[0], NULL, e)) < 0 ||
        (rc = check_matrix(p, BP_PCE_B, nthreads, bits[2], bits[1], e)) < 0 ||
        (rc = check_matrix(p, BP_PCE_C, nthreads, NULL, NULL, e)) < 0)
        goto fail;
    if ((rc = check_input_rows(p, e)) < 0)
        goto fail;
    if ((rc = check_density(p, &p->a_aux, "a_aux", p->num_aux, bits[0], e)) < 0 ||
        (rc = check_density(p, &p->b_input, "b_input", p->num_inputs, bits[1], e)) < 0 ||
        (rc = check_density(p, &p->b_aux, "b_aux", p->num_aux, bits[2], e)) < 0)
        goto fail;
    for (int k = 0; k < 3; k++)
        free((void *)bits[k]);
    return 0;
fail:
    for (int k = 0; k < 3; k++)
        free((void *)bits[k]);
    bp_pce_close(p);
    return rc;
}

void bp_pce_close(struct bp_pce *p)
{
    if (p->map)
        munmap((void *)p->map, p->len);
    p->map = NULL;
    p->len = 0;
}

size_t bp_pce_domain_size(const struct bp_pce *p, unsigned *log_n)
{
    uint64_t need = p->num_constraints; /* the input rows included */
    unsigned k = 0;
    while (((uint64_t)1 << k) < need)
        k++;
    if (log_n)
        *log_n = k;
    return (size_t)1 << k;
}
