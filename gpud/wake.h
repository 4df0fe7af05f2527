/*
 * wake.h — gpud's main loop. It sleeps in io_uring_wait_cqe on two
 * requests: a read of its doorbell eventfd (rung by synthd after each
 * publish) and a poll of its control socket (keys to load, shutdown). On
 * every wake, and at least once a second, it takes the READY slots
 * (take_ready) and refreshes the status line (status_send).
 *
 *   wake_init()  the ring and both requests; 0, or -1 with the reason on
 *                stderr.
 *   wake_loop()  runs until gpud is to stop (SHUTDOWN, the supervisor gone,
 *                workers_lost()): 0; -1 when io_uring fails (said on
 *                stderr).
 *   wake_exit()  frees the ring (after the workers are stopped).
 */
#ifndef SLOTPROVE_GPUD_WAKE_H
#define SLOTPROVE_GPUD_WAKE_H

int wake_init(void);
int wake_loop(void);
void wake_exit(void);

#endif
