/* pool.c - pool creation, attach, layout (see pool.h). */
#include "pool.h"

#include "ring_types.h"
#include "slot_types.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(struct pool_header) == 2 * POOL_CACHELINE,
               "pool_header is two cache lines");
_Static_assert(sizeof(struct ring_cursor) == 2 * POOL_CACHELINE,
               "ring_cursor is two cache lines");

struct layout {
    uint32_t ring_cap, nrings;
    uint64_t slot_bytes, cursors_off, ring_off, slots_off, ctl_bytes, payload_bytes;
};

static uint64_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);

    return p > 0 ? (uint64_t)p : 4096;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Everything about the layout follows from (nslots, slot_bytes, page), so
 * attach recomputes it and compares instead of trusting stored offsets. */
static int compute_layout(uint32_t nslots, uint64_t slot_bytes, uint32_t nrings,
                          uint64_t page, struct layout *l)
{
    uint32_t cap = 2;

    /* The 2^40 cap keeps every product below comfortably within off_t. */
    if (nslots == 0 || nslots > POOL_MAX_SLOTS || slot_bytes == 0 ||
        slot_bytes > (1ULL << 40) || nrings == 0 || nrings > POOL_MAX_RINGS)
        return -EINVAL;
    /* >= 2 * nslots: every READY slot plus a full lap of stale tickets fit,
     * so the ring never fills while slots are the scarce resource. */
    while (cap < 2 * nslots)
        cap <<= 1;
    l->ring_cap = cap;
    l->nrings = nrings;
    l->slot_bytes = round_up(slot_bytes, page);
    l->cursors_off = round_up(sizeof(struct pool_header), POOL_CACHELINE);
    l->ring_off = l->cursors_off + (uint64_t)nrings * sizeof(struct ring_cursor);
    l->slots_off = round_up(l->ring_off + (uint64_t)nrings * cap * sizeof(struct ring_cell),
                            sizeof(struct slot_desc));
    l->ctl_bytes = round_up(l->slots_off + (uint64_t)nslots * sizeof(struct slot_desc),
                            page);
    l->payload_bytes = (uint64_t)nslots * l->slot_bytes;
    return 0;
}

/* A sealed, fully allocated memfd of size bytes (lazy: allocated on first
 * touch).  fallocate charges the pages to the creator now (ENOSPC/ENOMEM
 * here, not SIGBUS later); the seals stop anyone from shrinking it under
 * another process's mapping. */
static int make_memfd(const char *name, uint64_t size, int lazy, int *out)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING), rc = 0;

    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)size) < 0 ||
        (!lazy && fallocate(fd, 0, 0, (off_t)size) < 0) ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
        rc = -errno;
    if (rc < 0) {
        close(fd);
        return rc == -EFBIG ? -ENOSPC : rc;
    }
    *out = fd;
    return 0;
}

/* Map the pages writable now.  MADV_POPULATE_WRITE (5.14+) reports failure
 * as an error; on older kernels (EINVAL) fall back to touching each page,
 * which cannot fault for lack of memory because fallocate reserved it. */
static int prefault(void *addr, uint64_t len, uint64_t page)
{
    if (madvise(addr, len, MADV_POPULATE_WRITE) == 0)
        return 0;
    if (errno == ENOMEM || errno == EFAULT || errno == EHWPOISON)
        return -ENOMEM;
    if (errno != EINVAL)
        return -errno;
    for (uint64_t off = 0; off < len; off += page) {
        volatile uint8_t *p = (volatile uint8_t *)addr + off;
        *p = *p;
    }
    return 0;
}

/* Map an attached process's view of the payload now, page-table entries
 * only (the pages themselves are the creator's: fallocate allocated them and
 * prefault touched them). Without it each process pays a fault on the first
 * touch of every 4 KiB page of every slot: synthd's witness read and its
 * stores of a and b wrote 512 MiB in 225 ms on first touch against 21 ms
 * after (2-vCPU EPYC box, 2026-12-03), and with 4 slots of a 2^24 key that
 * was most of the partitions of a short run. MADV_POPULATE_WRITE / _READ
 * (Linux 5.14) does the whole view in about half the time the faults take.
 * Best effort: on an older kernel, or if it fails, the pages fault in on
 * first touch as before (the memory is reserved either way). */
static void populate_view(void *addr, uint64_t len, int prot)
{
    int advice = (prot & PROT_WRITE) ? MADV_POPULATE_WRITE : MADV_POPULATE_READ;

    (void)madvise(addr, len, advice);
}

static void *map_fd(int fd, uint64_t len, int prot)
{
    void *p = mmap(NULL, len, prot, MAP_SHARED, fd, 0);

    return p == MAP_FAILED ? NULL : p;
}

static void set_detached(struct pool *pool)
{
    memset(pool, 0, sizeof(*pool));
    pool->ctl_fd = -1;
    pool->payload_fd = -1;
}

/* Fill the process-local view from a validated header. */
static void bind_view(struct pool *pool, const struct layout *l)
{
    uint8_t *base = (uint8_t *)pool->hdr;

    pool->rings = (struct ring_cell *)(base + l->ring_off);
    pool->cursors = (struct ring_cursor *)(base + l->cursors_off);
    pool->nrings = l->nrings;
    pool->slots = (struct slot_desc *)(base + l->slots_off);
    pool->nslots = pool->hdr->nslots;
    pool->slot_bytes = l->slot_bytes;
    pool->ring_mask = l->ring_cap - 1;
    pool->ctl_bytes = l->ctl_bytes;
    pool->payload_bytes = l->payload_bytes;
}

int pool_create(struct pool *pool, uint32_t nslots, uint64_t slot_bytes)
{
    return pool_create_rings(pool, nslots, slot_bytes, 1);
}

static int create(struct pool *pool, uint32_t nslots, uint64_t slot_bytes, uint32_t nrings,
                  int lazy);

int pool_create_rings(struct pool *pool, uint32_t nslots, uint64_t slot_bytes, uint32_t nrings)
{
    return create(pool, nslots, slot_bytes, nrings, 0);
}

int pool_create_lazy(struct pool *pool, uint32_t nslots, uint64_t slot_bytes, uint32_t nrings)
{
    return create(pool, nslots, slot_bytes, nrings, 1);
}

static int create(struct pool *pool, uint32_t nslots, uint64_t slot_bytes, uint32_t nrings,
                  int lazy)
{
    struct layout l;
    struct pool_header *h;
    uint64_t page = page_size();
    int rc;

    if (pool == NULL)
        return -EINVAL;
    set_detached(pool);
    rc = compute_layout(nslots, slot_bytes, nrings, page, &l);
    if (rc == 0)
        rc = make_memfd("slotprove-ctl", l.ctl_bytes, 0, &pool->ctl_fd);
    if (rc == 0)
        rc = make_memfd("slotprove-payload", l.payload_bytes, lazy, &pool->payload_fd);
    if (rc < 0)
        goto fail;
    pool->ctl_bytes = l.ctl_bytes;          /* sizes first: detach unmaps */
    pool->payload_bytes = l.payload_bytes;
    pool->hdr = map_fd(pool->ctl_fd, l.ctl_bytes, PROT_READ | PROT_WRITE);
    pool->payload = map_fd(pool->payload_fd, l.payload_bytes, PROT_READ | PROT_WRITE);
    if (pool->hdr == NULL || pool->payload == NULL) {
        rc = -errno;
        goto fail;
    }
    pool->payload_prot = PROT_READ | PROT_WRITE;
    rc = prefault(pool->hdr, l.ctl_bytes, page);
    if (rc == 0 && !lazy)
        rc = prefault(pool->payload, l.payload_bytes, page);
    if (rc < 0)
        goto fail;

    /* Nobody else can see the memory yet: plain initialisation. */
    h = pool->hdr;
    h->magic = POOL_MAGIC;
    h->version = POOL_VERSION;
    h->nslots = nslots;
    h->slot_bytes = l.slot_bytes;
    h->ring_cap = l.ring_cap;
    h->page_size = (uint32_t)page;
    h->ctl_bytes = l.ctl_bytes;
    h->payload_bytes = l.payload_bytes;
    h->ring_off = l.ring_off;
    h->slots_off = l.slots_off;
    h->cursors_off = l.cursors_off;
    h->nrings = l.nrings;
    h->lazy = lazy != 0;
    atomic_init(&h->free_seq, 0);
    atomic_init(&h->ready_seq, 0);
    atomic_init(&h->claim_hint, 0);
    atomic_init(&h->publish_counter, 1);   /* publish_seq 0 = never */
    bind_view(pool, &l);
    for (uint32_t r = 0; r < nrings; r++)
        ring_init_cells(pool->rings + (uint64_t)r * l.ring_cap, pool->cursors + r, l.ring_cap);
    for (uint32_t s = 0; s < nslots; s++)
        atomic_init(&pool->slots[s].word, slot_word_make(SLOT_FREE, 0, 0));
    /* The fds reach other processes only after this returns (fork/exec),
     * which orders these stores before any of their loads. */
    return 0;
fail:
    pool_detach(pool);
    return rc;
}

/* The fd must be a memfd sealed against resizing, so our mapping cannot be
 * cut short under us. */
static int check_sealed(int fd)
{
    int seals = fcntl(fd, F_GET_SEALS);

    if (seals < 0)
        return errno == EBADF ? -EBADF : -EINVAL;
    return (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) == (F_SEAL_SHRINK | F_SEAL_GROW)
               ? 0 : -EINVAL;
}

static int check_header(const struct pool_header *h, uint64_t ctl_size,
                        uint64_t payload_size, struct layout *l)
{
    if (h->magic != POOL_MAGIC || h->version != POOL_VERSION ||
        h->page_size != page_size() ||
        compute_layout(h->nslots, h->slot_bytes, h->nrings, h->page_size, l) != 0)
        return -EINVAL;
    if (l->slot_bytes != h->slot_bytes || l->ring_cap != h->ring_cap ||
        l->ring_off != h->ring_off || l->slots_off != h->slots_off ||
        l->cursors_off != h->cursors_off ||
        l->ctl_bytes != h->ctl_bytes || l->payload_bytes != h->payload_bytes ||
        l->ctl_bytes != ctl_size || l->payload_bytes != payload_size)
        return -EINVAL;
    return 0;
}

int pool_attach(struct pool *pool, int ctl_fd, int payload_fd, int payload_prot)
{
    struct stat cst, pst;
    struct layout l;
    int rc;

    if (pool == NULL)
        return -EINVAL;
    set_detached(pool);
    if (payload_prot != PROT_READ && payload_prot != (PROT_READ | PROT_WRITE))
        return -EINVAL;
    /* Own copies, so detach can close them whatever the caller does. */
    pool->ctl_fd = fcntl(ctl_fd, F_DUPFD_CLOEXEC, 0);
    if (pool->ctl_fd < 0)
        return -errno;
    pool->payload_fd = fcntl(payload_fd, F_DUPFD_CLOEXEC, 0);
    if (pool->payload_fd < 0) {
        rc = -errno;
        goto fail;
    }
    if (fstat(pool->ctl_fd, &cst) < 0 || fstat(pool->payload_fd, &pst) < 0) {
        rc = -errno;
        goto fail;
    }
    rc = check_sealed(pool->ctl_fd);
    if (rc == 0)
        rc = check_sealed(pool->payload_fd);
    if (rc == 0 && (uint64_t)cst.st_size < sizeof(struct pool_header))
        rc = -EINVAL;
    if (rc < 0)
        goto fail;
    pool->hdr = map_fd(pool->ctl_fd, (uint64_t)cst.st_size, PROT_READ | PROT_WRITE);
    if (pool->hdr == NULL) {
        rc = -errno;
        goto fail;
    }
    /* Until validated, ctl_bytes describes our mapping (for detach). */
    pool->ctl_bytes = (uint64_t)cst.st_size;
    rc = check_header(pool->hdr, (uint64_t)cst.st_size, (uint64_t)pst.st_size, &l);
    if (rc < 0)
        goto fail;
    pool->payload_bytes = l.payload_bytes;
    pool->payload = map_fd(pool->payload_fd, l.payload_bytes, payload_prot);
    if (pool->payload == NULL) {
        rc = -errno;
        goto fail;
    }
    pool->payload_prot = payload_prot;
    if (!pool->hdr->lazy) /* a lazy pool's pages come as jobs write them */
        populate_view(pool->payload, l.payload_bytes, payload_prot);
    bind_view(pool, &l);
    return 0;
fail:
    pool_detach(pool);
    return rc;
}

void pool_detach(struct pool *pool)
{
    if (pool == NULL)
        return;
    if (pool->hdr != NULL)
        munmap(pool->hdr, pool->ctl_bytes);
    if (pool->payload != NULL)
        munmap(pool->payload, pool->payload_bytes);
    if (pool->ctl_fd >= 0)
        close(pool->ctl_fd);
    if (pool->payload_fd >= 0)
        close(pool->payload_fd);
    set_detached(pool);
}

void *pool_payload(const struct pool *pool, uint32_t slot)
{
    if (pool == NULL || pool->payload == NULL || slot >= pool->nslots)
        return NULL;
    return pool->payload + (uint64_t)slot * pool->slot_bytes;
}

uint32_t pool_free_seq(const struct pool *pool)
{
    if (pool == NULL || pool->hdr == NULL)
        return 0;
    return atomic_load_explicit(&pool->hdr->free_seq, memory_order_acquire);
}

uint32_t pool_ready_seq(const struct pool *pool)
{
    if (pool == NULL || pool->hdr == NULL)
        return 0;
    return atomic_load_explicit(&pool->hdr->ready_seq, memory_order_acquire);
}
