/* keygen_cmd.h — `slotprove keygen` (keygen.c): INSECURE test keys. Returns
 * the exit code (0 success, 1 failure with a message on stderr, 2 usage). */
#ifndef SLOTPROVE_KEYGEN_CMD_H
#define SLOTPROVE_KEYGEN_CMD_H

int cmd_keygen(int argc, char **argv);

#endif
