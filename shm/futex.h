/* futex.h - process-shared futex wait/wake on a 32-bit word in shared memory.
 *
 * The words live in the memfd-backed control region, mapped by several
 * processes, so these use the shared (non-PRIVATE) futex ops: the kernel keys
 * the wait queue on the backing page, not on the caller's mm.
 */
#ifndef SHM_FUTEX_H
#define SHM_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>

/* Sleep while *word == expected, for at most timeout_ms milliseconds
 * (relative; < 0 = no limit).  The word must be 4-byte aligned.
 * Returns 0 when woken (possibly spuriously: re-check the condition),
 * -EAGAIN if *word != expected already, -ETIMEDOUT, -EINTR (signal),
 * -EINVAL (NULL word), or another -errno from the syscall. */
int shm_futex_wait(_Atomic uint32_t *word, uint32_t expected, int timeout_ms);

/* Wake every waiter on word (any process).  Returns 0 or -errno. */
int shm_futex_wake_all(_Atomic uint32_t *word);

/* Bump *word by one (release, so what the caller wrote before is visible to a
 * waiter that re-reads the word with acquire) and wake all waiters. */
void shm_futex_bump_wake(_Atomic uint32_t *word);

#endif
