/* sockpath.h — the socket `serve` listens on and the clients connect to
 * when --socket is not given. */
#ifndef SLOTPROVE_SOCKPATH_H
#define SLOTPROVE_SOCKPATH_H

#define DEFAULT_SOCKET "/run/slotprove/slotprove.sock"

/* $SLOTPROVE_SOCKET when set and not empty, else /run/slotprove/slotprove.sock. */
const char *default_socket_path(void);

#endif
