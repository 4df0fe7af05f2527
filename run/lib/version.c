/* version.c — the commit this build came from (version.h). */
#include "version.h"

#include "commit.h" /* build/commit.h: #define SLOTPROVE_COMMIT "…" (Makefile) */

const char slotprove_commit[] = SLOTPROVE_COMMIT;
