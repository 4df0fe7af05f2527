/* pool_guard.c — the pool's layout kept by the supervisor, and repaired (pool_guard.h). */
#include "pool_guard.h"
#include "futex.h"
#include "ring_types.h"
#include "slot_types.h"

void pool_guard_init(struct pool_guard *g, const struct pool *p)
{
    const struct pool_header *h = p->hdr;
    *g = (struct pool_guard){
        .magic = h->magic, .version = h->version, .nslots = h->nslots,
        .slot_bytes = h->slot_bytes, .ring_cap = h->ring_cap, .page_size = h->page_size,
        .ctl_bytes = h->ctl_bytes, .payload_bytes = h->payload_bytes, .ring_off = h->ring_off,
        .slots_off = h->slots_off, .cursors_off = h->cursors_off, .nrings = h->nrings,
        .lazy = h->lazy,
    };
}

#define FIX(field)                     \
    do {                               \
        if (h->field != g->field) {    \
            h->field = g->field;       \
            (*fields)++;               \
        }                              \
    } while (0)

/* Flag bits of a ring position (ring.h: BUSY, DEAD, DONE): no cursor has them. */
#define POS_FLAGS (7ULL << 61)

/* A ring whose cursors or cells no run of the protocol can produce. */
static int ring_torn(const struct ring_cell *cells, const struct ring_cursor *cur, uint64_t cap)
{
    uint64_t head = atomic_load(&cur->head), tail = atomic_load(&cur->tail);
    if ((head | tail) & POS_FLAGS || head > tail || tail - head > cap)
        return 1;
    for (uint64_t i = 0; i < cap; i++)
        if ((atomic_load(&cells[i].seq) & ~POS_FLAGS) > tail + cap)
            return 1;
    return 0;
}

void pool_guard_check(const struct pool_guard *g, struct pool *p, unsigned *fields,
                      unsigned *slots)
{
    struct pool_header *h = p->hdr;
    *fields = *slots = 0;
    FIX(magic);
    FIX(version);
    FIX(nslots);
    FIX(slot_bytes);
    FIX(ring_cap);
    FIX(page_size);
    FIX(ctl_bytes);
    FIX(payload_bytes);
    FIX(ring_off);
    FIX(slots_off);
    FIX(cursors_off);
    FIX(nrings);
    FIX(lazy);
    /* a torn ring starts again empty: it only orders work, the slot table
     * decides, and a READY slot without a ticket is found by gpud's scan
     * (ring.h, pool_scan.h) */
    for (uint32_t r = 0; r < p->nrings; r++) {
        struct ring_cell *cells = p->rings + (uint64_t)r * g->ring_cap;
        if (ring_torn(cells, &p->cursors[r], g->ring_cap)) {
            ring_init_cells(cells, &p->cursors[r], g->ring_cap);
            (*fields)++;
        }
    }
    /* the supervisor's own view (p->slots, p->nslots) came from its copy */
    for (uint32_t i = 0; i < p->nslots; i++) {
        uint64_t w = atomic_load(&p->slots[i].word);
        if (slot_state_of(w) < SLOT_NSTATES)
            continue;
        uint64_t fresh = slot_word_make(SLOT_FREE, 0, slot_gen_of(w) + 1);
        if (atomic_compare_exchange_strong(&p->slots[i].word, &w, fresh)) {
            (*slots)++;
            shm_futex_bump_wake(&h->free_seq); /* a synthd waiting for a slot looks again */
        }
    }
}
