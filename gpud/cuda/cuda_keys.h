/*
 * cuda_keys.h — keys resident on the GPU: each key's points (A, B1, C, H in
 * one G1 engine, B2 in a G2 engine) are uploaded once and stay until the
 * key is dropped or device memory runs short, when the least recently used
 * idle key is evicted.
 *
 *   cuda_key_get(p, zk)        zk's entry (made if new; the table full, the
 *                              least recently used idle one is forgotten),
 *                              marked busy; NULL when every entry is busy.
 *   cuda_key_put(p, k)         the job using k is done with it.
 *   cuda_key_upload(p, k, e)   k's MSM engines within the device budget
 *                              (cuda_budget.h: points resident, or
 *                              streamed from the page-locked key mapping),
 *                              evicting idle keys as needed; with p->gpu
 *                              held. -E2BIG when the key cannot fit the
 *                              budget even alone and streamed (the message
 *                              gives the figure needed), -ENOMEM when other
 *                              work holds the memory now, or the CUDA error.
 *   cuda_key_pin(p, zk)        page-locks a streamed key's points when gpud
 *                              loads it (cuda_key_check), so the first
 *                              proof does not pay the one-time
 *                              cudaHostRegister of the whole key file;
 *                              a failure only says the copies are staged.
 *                              The lock goes through gpu_mem_register,
 *                              its device cost charged ("pinned").
 *   cuda_key_pin_planned(k, zk) what a streamed plan of zk counts for its
 *                              key file's lock: its charge when locked (k
 *                              may be NULL), else gpu_mem_pin_ceiling.
 *   cuda_key_evict(k)          frees k's device memory, unlocks its key
 *                              file and forgets k.
 *   cuda_evict_lru(p, keep)    evicts the least recently used idle key other
 *                              than keep (on the GPU or only locked); 0 if
 *                              one went, -1 if none could.
 *   cuda_device_free(p, &total) the device's free memory in bytes (and its
 *                              total), as the driver counts it.
 */
#ifndef SLOTPROVE_CUDA_KEYS_H
#define SLOTPROVE_CUDA_KEYS_H

#include "cuda_priv.h"
#include "err.h"

struct cuda_key *cuda_key_get(struct cuda_priv *p, const struct zkey *zk);
void cuda_key_put(struct cuda_priv *p, struct cuda_key *k);
int cuda_key_upload(struct cuda_priv *p, struct cuda_key *k, struct sp_err *e);
void cuda_key_pin(struct cuda_priv *p, const struct zkey *zk);
size_t cuda_key_pin_planned(const struct cuda_key *k, const struct zkey *zk);
void cuda_key_evict(struct cuda_key *k);
int cuda_evict_lru(struct cuda_priv *p, const struct cuda_key *keep);
size_t cuda_device_free(struct cuda_priv *p, size_t *total);

#endif
