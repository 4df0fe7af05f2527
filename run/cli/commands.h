/* commands.h — the client commands of `slotprove` (run/main.c dispatches
 * to them). Each takes the arguments after the program name (argv[0] is
 * the command) and returns the exit code: 0 success, 1 failure with a
 * message on stderr, 2 usage error. */
#ifndef SLOTPROVE_COMMANDS_H
#define SLOTPROVE_COMMANDS_H

int cmd_prove(int argc, char **argv);  /* prove_cmd.c: one-shot proof on the core */
int cmd_fullprove(int argc, char **argv); /* fullprove_cmd.c: input.json to proof */
int cmd_submit(int argc, char **argv); /* client.c */
int cmd_wait(int argc, char **argv);   /* client.c */
int cmd_cancel(int argc, char **argv); /* client.c */
int cmd_status(int argc, char **argv); /* client.c */
int cmd_verify(int argc, char **argv); /* verify_cmd.c */

#endif
