/* run.h — the `slotprove` subcommands. Each returns the process exit code
 * (0 success, 1 failure with a message on stderr, 2 usage error). */
#ifndef SLOTPROVE_RUN_H
#define SLOTPROVE_RUN_H

int cmd_prove(int argc, char **argv);  /* prove_cmd.c: one-shot proof */
int cmd_fullprove(int argc, char **argv); /* fullprove_cmd.c: input.json to proof */
int cmd_serve(int argc, char **argv);  /* serve.c: the daemon */
int cmd_submit(int argc, char **argv); /* client.c */
int cmd_wait(int argc, char **argv);   /* client.c */
int cmd_cancel(int argc, char **argv); /* client.c */
int cmd_status(int argc, char **argv); /* client.c */
int cmd_verify(int argc, char **argv); /* verify_cmd.c */
int cmd_keygen(int argc, char **argv); /* keygen.c: INSECURE test keys */

/* Socket path when --socket is not given: $SLOTPROVE_SOCKET, else
 * /run/slotprove/slotprove.sock. */
const char *default_socket_path(void);

#endif
