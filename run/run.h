/* run.h — the `slotprove` subcommands. Each returns the process exit code. */
#ifndef SLOTPROVE_RUN_H
#define SLOTPROVE_RUN_H

int cmd_prove(int argc, char **argv);

#endif
