/*
 * keys.h — the supervisor's key cache.
 *
 * Keys are identified by the SHA-256 of their content, not by name: two
 * submissions of the same file share one entry (and the children's mapped
 * copy), and two different files with the same name never do. Each entry
 * keeps the descriptor so a restarted child can load it again, and a header
 * view (zkey_open) for validation and slot sizing. Preloaded keys (--key
 * NAME=PATH) are also found by NAME. Key ids index the children's key
 * tables and the key bitmasks (< CTL_MAX_KEYS).
 */
#ifndef SLOTPROVE_KEYS_H
#define SLOTPROVE_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "ctl.h"
#include "err.h"
#include "job_limits.h"
#include "key_shape.h"
#include "zkey.h"

struct key_entry {
    int used;
    uint32_t kind;             /* enum ctl_key_kind: a .zkey, or bellperson .params + PCE */
    int pce_fd;                /* bellperson: the PCE, sent with fd to every child */
    char name[JOB_NAME_MAX + 1];
    char alias[JOB_NAME_MAX + 1]; /* --key NAME of a preloaded key */
    uint8_t hash[32];          /* SHA-256 of the file: the cache key */
    int fd;                    /* kept to load it into restarted children */
    int has_synth_index;       /* synth_index_fd holds the key's shared synthesis */
    int synth_index_fd;        /* index (synthd/synth_index_share.h), sent to synthds */
    uint64_t load_seq;         /* KEY_LOAD's job_id, echoed by KEY_OK: a late KEY_OK
                                  for an evicted key under the same id is told apart */
    struct key_shape shape;    /* every format's: sizes, witness checks (common/key_shape.h) */
    struct zkey zk;            /* a zkey's mapped view (other formats: zeroed) */
    int preloaded;
    int failed;                /* a child could not load it */
    uint64_t last_used_ns;     /* for eviction when the table is full */
    uint64_t check_ns;         /* zkey_check_points at load: ns, and points checked */
    uint64_t check_points;
    char error[600];
    int has_program;           /* serve --witness-program NAME=PROGRAM (witness_job.h) */
    int program_fd;            /* pinned (witness_program_open), with its companions: */
    int program_aux[2];        /* the .dat, or generate_witness.js + witness_calculator.js */
    char program_path[4096];   /* absolute: argv[0] of a native program, the .wasm's folder */
};

struct key_cache {
    struct key_entry keys[CTL_MAX_KEYS];
    uint64_t slot_bytes;       /* the pool's slot size (0 before the pool exists) */
    uint64_t max_job_key;      /* bytes: largest key a client may attach */
    int hash_keys;             /* 0: no SHA-256, no sharing (`prove`'s one key) */
    /* further --key NAMEs of a preloaded key that an earlier NAME loaded
     * already (the same SHA-256): found by keys_lookup too */
    struct key_alias {
        uint32_t id;
        char name[JOB_NAME_MAX + 1];
    } more_aliases[CTL_MAX_KEYS];
    unsigned n_more_aliases;
};

/* KEY_OK from a synthd brought fd, the key's synthesis index in a sealed
 * memfd: kept (and sent with the key to every later synthd) if the key has
 * none yet and the seals are there, else closed. run/synth_share.c */
void keys_adopt_synth_index(struct key_entry *k, int fd);

/* A preloaded key from an open descriptor (consumed, also on failure):
 * found by alias, messages name `name`. 0 with *key_id, or a negative code
 * with e. */
int keys_add_fd(struct key_cache *kc, int fd, const char *name, const char *alias,
                uint32_t *key_id, struct sp_err *e);

struct key_prep;

/* The id of the cached key whose SHA-256 is hash, or -ENOENT (always
 * without hashing). */
int keys_find_hash(const struct key_cache *kc, const uint8_t hash[32]);

/* Inserts a prepared preloaded key (consumed on every path) found by alias,
 * its messages naming name. 0 with *key_id, or a negative code with e. */
int keys_insert_alias(struct key_cache *kc, struct key_prep *p, const char *name,
                      const char *alias, uint32_t *key_id, struct sp_err *e);

/* A key a client attached (or a preloaded one), opened but not yet in the
 * cache. */
struct key_prep {
    uint32_t kind;             /* enum ctl_key_kind */
    int fd;                    /* sealed memfd copy; a preloaded key's file */
    int pce_fd;                /* bellperson: the PCE (-1 otherwise) */
    struct key_shape shape;    /* its shape, whatever the format */
    struct zkey zk;            /* a zkey's mapped view (other formats: zeroed) */
    uint8_t hash[32];          /* SHA-256, or zeros without hashing */
    uint64_t check_ns, check_points; /* zkey_check_points: ns, points checked */
};

/* Off the event loop (intake.h): copies the client's key on fd (consumed)
 * into a sealed memfd (sealed_copy.h: a client could otherwise truncate or
 * rewrite a file every child maps) of at most max_bytes (-EFBIG above; an
 * empty file is -SP_EFORMAT), validates it and hashes it when hash is set. 0 with *out, or a negative code with e naming the
 * file. Touches no shared state: safe on any thread. */
int keys_prepare(int fd, const char *name, uint64_t max_bytes, int hash, struct key_prep *out,
                 struct sp_err *e);

/* On the event loop: adds a prepared key (consumed on every path) or finds
 * the cached one with the same hash. When the table is full, the least
 * recently used key that is neither preloaded nor in busy_keys (bit per key
 * id) is dropped first: *evicted is its id, else CTL_MAX_KEYS (the caller
 * tells the children). 0 with *key_id, or a negative code with e. */
int keys_insert(struct key_cache *kc, struct key_prep *p, const char *name, uint64_t busy_keys,
                uint32_t *key_id, uint32_t *evicted, struct sp_err *e);

/* A preloaded key by its NAME: 0 with *key_id, or -ENOENT. */
int keys_lookup(const struct key_cache *kc, const char *name, uint32_t *key_id);

/* Drops the least recently used client-attached key not in busy_keys (bit
 * per key id), whether or not the table is full, logging why; returns its id
 * for the caller to tell the children, or CTL_MAX_KEYS when none can go. */
uint32_t keys_evict_idle(struct key_cache *kc, uint64_t busy_keys, const char *why);

/* Bytes of client-attached keys (sealed memfd copies) held now. */
uint64_t keys_client_bytes(const struct key_cache *kc);

/* Bytes of slot payload the largest cached key needs (0 if none). */
uint64_t keys_max_slot_bytes(const struct key_cache *kc);

#endif
