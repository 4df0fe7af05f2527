/* state.c — gpud's shared state (see state.h). */
#include "state.h"

struct child_args gpud_args;
struct pool gpud_pool;
struct backend gpud_backend;
int gpud_trace_buffers; /* $SLOTPROVE_TRACE_BUFFERS, read once at start */
