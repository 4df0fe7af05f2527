/*
 * sd.h — serve under systemd (libsystemd's sd_notify and sd_listen_fds;
 * both do nothing outside systemd: no NOTIFY_SOCKET, no LISTEN_FDS).
 *
 * Type=notify: READY=1 once the slot pool is made (core_start; prefaulted
 * unless no key sized it, pool_create_lazy) and
 * every synthd and gpud has said hello; STATUS= lines (jobs, queue,
 * proofs, deaths) when they change, at most once a second; STOPPING=1 when
 * a signal starts the drain. WatchdogSec=: WATCHDOG=1 every half of it from
 * the supervisor's loop, only while the loop turns and each role (synthd,
 * gpud) still has a child that is not stopped for good.
 *
 * Socket activation: one LISTEN_FDS socket, a unix stream socket listening,
 * becomes the client socket (slotprove.socket's ListenStream=); serve then
 * neither creates nor removes the socket file.
 */
#ifndef SLOTPROVE_SD_H
#define SLOTPROVE_SD_H

#include <stdint.h>

#include "core_state.h"
#include "err.h"

struct sd_state {
    int ready;                 /* READY=1 sent */
    int stopping;              /* STOPPING=1 sent */
    uint64_t watchdog_ns;      /* WATCHDOG_USEC, 0: off */
    uint64_t last_ping_ns, last_status_ns;
    char last_status[256];
};

/* The socket systemd passed: its fd (non-blocking, close-on-exec), -1 when
 * none was passed, or < -1 ... an error: e names it (more than one, or not
 * a listening unix stream socket). */
int sd_activated_socket(struct sp_err *e);

/* Reads WATCHDOG_USEC (sd_watchdog_enabled). */
void sd_setup(struct sd_state *s);

/* Each loop turn: READY=1, STATUS=, WATCHDOG=1 and STOPPING=1 as above. */
void sd_tick(struct sd_state *s, struct core *c, uint64_t now_ns);

#endif
