/*
 * synth_index_share.h — one synthesis index per key for every synthd.
 *
 * The first synthd to load a key builds its index (synth_index.h) into a
 * memfd, seals it (no write, shrink or grow; no further seals) and maps it
 * read-only; it hands the descriptor to the supervisor with KEY_OK. The
 * supervisor keeps it beside the key and sends it, after the key's own
 * descriptor, with every later KEY_LOAD to a synthd (restarted ones too),
 * which map the same pages read-only: one copy per key in memory, counted
 * once in the group's Pss, however many synthds there are. The receiving
 * side checks the seals and the whole index (synth_index_check) before it
 * reads a term; one that does not check out is not used (synthd builds a
 * private index from the key instead), so a damaged block costs memory,
 * never a crash or a wrong vector.
 */
#ifndef SLOTPROVE_SYNTH_INDEX_SHARE_H
#define SLOTPROVE_SYNTH_INDEX_SHARE_H

#include "err.h"
#include "synth_index.h"
#include "zkey.h"

/* Builds zk's index in a sealed memfd, mapped read-only into ix. *fd
 * receives the memfd (the caller closes it), or -1 when a memfd could not be
 * made or sealed: ix is then built in private memory (still usable).
 * Errors: synth_index_build's. */
int synth_index_build_shared(struct synth_index *ix, const struct zkey *zk, int *fd,
                             struct sp_err *e);

/* Maps the index another synthd built (fd from KEY_LOAD) read-only into ix,
 * after checking its seals (write, shrink, grow), its header against zk and
 * every row and term (synth_index_check). -SP_EFORMAT naming the key, or
 * -errno. */
int synth_index_map_shared(struct synth_index *ix, const struct zkey *zk, int fd,
                           struct sp_err *e);

/* Walks the whole stream of an attached index: chunk rows and words
 * increasing and within the stream, row headers and terms within their
 * chunk, every signal < nVars, every class payload present. O(stream),
 * on all threads. 0 or -SP_EFORMAT naming `what`. */
int synth_index_check(const struct synth_index *ix, uint32_t n_vars, const char *what,
                      struct sp_err *e);

#endif
