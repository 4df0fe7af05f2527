/* futex.c - shared futex helpers (see futex.h). */
#include "futex.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int shm_futex_wait(_Atomic uint32_t *word, uint32_t expected, int timeout_ms)
{
    struct timespec ts, *tsp = NULL;

    if (word == NULL)
        return -EINVAL;
    if (timeout_ms >= 0) {
        ts.tv_sec = timeout_ms / 1000;
        ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
        tsp = &ts;
    }
    /* FUTEX_WAIT (not FUTEX_WAIT_PRIVATE): wakers are other processes.  The
     * kernel compares *word with expected under its queue lock, so a bump +
     * wake that happens after the caller read `expected` is never lost. */
    if (syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, tsp,
                NULL, 0) == 0)
        return 0;
    if (errno == EWOULDBLOCK)
        return -EAGAIN;
    return -errno;
}

int shm_futex_wake_all(_Atomic uint32_t *word)
{
    if (word == NULL)
        return -EINVAL;
    if (syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL,
                NULL, 0) < 0)
        return -errno;
    return 0;
}

void shm_futex_bump_wake(_Atomic uint32_t *word)
{
    atomic_fetch_add_explicit(word, 1, memory_order_release);
    (void)shm_futex_wake_all(word);
}
