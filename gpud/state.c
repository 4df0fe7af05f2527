/* state.c — gpud's shared state (see state.h). */
#include "state.h"

struct child_args gpud_args;
struct pool gpud_pool;
struct backend gpud_backend;
int gpud_trace_buffers; /* --trace-buffers 1 from the supervisor */
