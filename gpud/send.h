/*
 * send.h — gpud's messages to the supervisor (ctl.h), from any thread: one
 * message at a time on the control socket, each built in its thread's own
 * buffer.
 *
 *   send_ctl(m)        sends a built message.
 *   send_msg(type, job, part, key_id, status, t, text)
 *                      builds and sends one: t (may be NULL) the stage
 *                      times, text (may be NULL) the message's text.
 *   send_progress      a stage_progress_fn (stages.h): each finished stage
 *                      of the partition the calling thread proves (set with
 *                      progress_set), else of arg (a struct progress_ctx *).
 */
#ifndef SLOTPROVE_GPUD_SEND_H
#define SLOTPROVE_GPUD_SEND_H

#include <stdint.h>

#include "ctl.h"
#include "stages.h"

struct progress_ctx {
    uint64_t job;
    uint32_t partition;
};

void send_ctl(const struct ctl_msg *m);
void send_msg(uint32_t type, uint64_t job, uint32_t part, uint32_t key_id, int status,
              const struct stage_times *t, const char *text);
/* the partition the calling thread proves now, or NULL */
void progress_set(struct progress_ctx *pc);
void send_progress(void *arg, enum stage s, uint64_t ns);

#endif
