/*
 * state.h — what gpud's parts share: the child's arguments (child.h), the
 * slot pool (payloads mapped read-only) and the backend. main.c sets them
 * up once, before the first worker starts; after that they are read (the
 * pool's slots change only through its atomic operations).
 */
#ifndef SLOTPROVE_GPUD_STATE_H
#define SLOTPROVE_GPUD_STATE_H

#include "backend.h"
#include "child.h"
#include "pool.h"

extern struct child_args gpud_args;
extern struct pool gpud_pool;
extern struct backend gpud_backend;
extern int gpud_trace_buffers; /* trace slot counts at take/release (tests) */

#endif
