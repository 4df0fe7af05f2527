/*
 * ctl.h — control messages between the supervisor and its children.
 *
 * One SOCK_SEQPACKET socketpair per child: message boundaries are kept, and a
 * dead peer shows as EOF. A message is a fixed header plus up to
 * CTL_TEXT_MAX bytes of text (an error message, a path for messages, or a
 * proof's JSON), and may carry up to CTL_MAX_FDS descriptors (SCM_RIGHTS),
 * e.g. an opened .zkey or .wtns. Slot payloads never travel here: they are
 * in the shared pool (shm/), and the slot table says who owns what.
 */
#ifndef SLOTPROVE_CTL_H
#define SLOTPROVE_CTL_H

#include <stdint.h>

#include "stages.h"
#include "wtns_pin.h"

#define CTL_TEXT_MAX 8192
#define CTL_MAX_FDS 4
/* Key ids are below this: the children's key tables have this many entries
 * and the supervisor keeps bit masks of loaded keys in a uint64_t. */
#define CTL_MAX_KEYS 64

enum ctl_type {
    CTL_HELLO = 1,   /* child → sup: started, attached to the pool */
    CTL_KEY_LOAD,    /* sup → child: fd[0] = .zkey, text = its name; key_id; job_id = a
                        load sequence; to a synthd, fd[1] = the key's shared synthesis
                        index once one exists (synthd/synth_index_share.h); key_kind
                        CTL_KEY_BELLPERSON: fd[0] = bellperson .params, fd[1] = its cuzk
                        PCE, to every child */
    CTL_KEY_OK,      /* child → sup; job_id echoed; a synthd that built the index may
                        send its sealed memfd as fd[0] */
    CTL_KEY_ERR,     /* child → sup: text = reason */
    CTL_SYNTH,       /* sup → synthd: fd[0] = .wtns, text = its name; job, partition, key_id, gpud;
                        or an input: fd[0] = input.json (sealed memfd), fd[1] = the witness
                        program, text = "INPUT_NAME\0PROGRAM_PATH" (synthd/witness_program.h) */
    CTL_SYNTH_DONE,  /* synthd → sup: slot, gen published; times[STAGE_SYNTH] (claimed
                        slot to publish), slot_wait_ns, cpu_ns */
    CTL_SYNTH_ERR,   /* synthd → sup: text = reason (bad witness …) */
    CTL_PROVED,      /* gpud → sup: text = the proof, a struct groth16_proof in binary
                        (proof.h; same build on both ends); times */
    CTL_PROVE_ERR,   /* gpud → sup: text = reason */
    CTL_SHUTDOWN,    /* sup → child: finish and exit 0 */
    CTL_TAKEN,       /* gpud → sup: took the slot of (job, partition) */
    CTL_PROGRESS,    /* gpud → sup: stage `stage` of (job, partition) finished
                        after times.ns[stage] ns */
    CTL_KEY_DROP,    /* sup → child: forget key_id (evicted from the cache) */
    CTL_BACKEND,     /* gpud → sup: text = its backend's state for `status`
                        (device, memory in use, resident keys) */
    CTL_PUBLIC,      /* gpud → sup, before its PROVED on the same socket: public signals
                        [slot, slot + text_len/32) of (job, partition), 32-byte values from
                        the slot's witness, the ones the proof was checked against (an input
                        job's public.json: run/witness_job.h) */
};

/* What a SYNTH asks for (its descriptors follow from it). */
enum ctl_synth_mode {
    CTL_SYNTH_WITNESS = 0, /* fd[0]: the partition's .wtns */
    CTL_SYNTH_INPUT = 1,   /* fd[0]: the input .json, fd[1]: the witness program, then
                              its companions (a .dat, or two .js files): an input job */
};

/* What a KEY_LOAD carries. */
enum ctl_key_kind {
    CTL_KEY_ZKEY = 0,       /* a snarkjs .zkey */
    CTL_KEY_BELLPERSON = 1, /* a bellperson .params and cuzk's PCE (common/README-bellperson.md) */
    CTL_KEY_KINDS           /* how many: the formats' tables are indexed by kind */
};

struct ctl_msg {
    uint32_t type;       /* enum ctl_type */
    uint32_t key_id;
    uint64_t job_id;
    uint32_t partition;
    uint32_t slot;
    uint32_t gen;
    uint32_t gpud;       /* SYNTH: the gpud whose ring and doorbell get the ticket */
    uint32_t synth_mode; /* SYNTH: enum ctl_synth_mode */
    uint32_t stage;      /* PROGRESS: the enum stage that finished */
    uint32_t key_kind;   /* KEY_LOAD: enum ctl_key_kind */
    uint32_t first;      /* PUBLIC: the index of the first public signal in text */
    uint32_t reproved;   /* PROVED: 1 when the backend's first proof failed its check and
                            this one is its reprove's (gpud/prove_work.c) */
    uint64_t load_seq;   /* KEY_LOAD: the supervisor's load sequence, echoed by a
                            synthd's KEY_OK and KEY_ERR (a late answer for an
                            evicted key under the same id is told apart) */
    int32_t status;      /* 0 or a negative error code */
    struct stage_times times;
    uint64_t slot_wait_ns; /* SYNTH_DONE: time synthd waited for a FREE slot */
    uint64_t cpu_ns;       /* SYNTH_DONE: synthd's CPU time on the partition, all threads */
    uint64_t dev_budget_bytes; /* BACKEND: device memory the backend may use (its ledger's
                                * budget); 0: no device memory figures (the CPU backend) */
    uint64_t dev_held_bytes;   /* BACKEND: device memory its ledger holds now */
    struct wtns_pin pin; /* SYNTH: the witness as it was at submit (wtns_pin.h) */
    uint32_t text_len;   /* bytes of text, not NUL-terminated on the wire */
    char text[CTL_TEXT_MAX + 1]; /* NUL-terminated after ctl_recv */
};

/* A message of type with every header field zero and no text: start every
 * message here. */
void ctl_init(struct ctl_msg *m, enum ctl_type type);

/* Sets text to len raw bytes (len <= CTL_TEXT_MAX): a binary payload. */
void ctl_bytes(struct ctl_msg *m, const void *p, uint32_t len);

/* Sets text (truncated to CTL_TEXT_MAX) from a printf format. */
void ctl_text(struct ctl_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sends m (header + text_len bytes) with nfds descriptors. 0 or -errno
 * (-EPIPE when the peer is gone). Never raises SIGPIPE. */
int ctl_send(int sock, const struct ctl_msg *m, const int *fds, int nfds);

/* Receives one message; fds (CLOEXEC) go to fds[0..*nfds). Returns 1 for a
 * message, 0 on EOF (peer closed), -EAGAIN on a non-blocking socket with
 * nothing queued, -EPROTO for a malformed message (short, truncated, too
 * many fds: every received fd is closed), or -errno. */
int ctl_recv(int sock, struct ctl_msg *m, int *fds, int *nfds);

const char *ctl_type_name(uint32_t type);

#endif
