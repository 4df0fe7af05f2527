/* serve.h — `slotprove serve`, the daemon (serve.c): the supervisor core
 * behind a unix socket. Returns the exit code (0 after a drain, 1 on a
 * failure, 2 on a usage error). */
#ifndef SLOTPROVE_SERVE_H
#define SLOTPROVE_SERVE_H

int cmd_serve(int argc, char **argv);

#endif
