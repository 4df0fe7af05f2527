/*
 * metrics.h — `serve --metrics ADDR:PORT`: the Prometheus text exposition
 * format (version 0.0.4) on GET /metrics, served by a libmicrohttpd thread.
 *
 * The supervisor never waits on a scraper: every METRICS_EVERY_MS its loop
 * renders the page from the core (the figures `status` shows) into a new
 * buffer and swaps it in under a mutex held for a pointer swap; the HTTP
 * thread copies the latest page under that mutex. A scraper therefore sees
 * figures at most METRICS_EVERY_MS old. The HTTP side (metrics_http.h)
 * gives each connection a deadline from its accept that bytes do not move,
 * and past its connection limit closes the oldest connection still
 * receiving, so slow or silent clients cannot keep a scraper out.
 *
 * Names (base units, `_total` counters) are listed in run/serve/README.md;
 * slotprove_build_info{version,commit} is 1. With cuzk_aliases
 * (--metrics-cuzk-aliases) the page also has the cuzk_* series of cuzk's
 * metrics (Curio's proving daemon), with cuzk's meanings: a cuzk request is
 * a job.
 */
#ifndef SLOTPROVE_METRICS_H
#define SLOTPROVE_METRICS_H

#include <stdint.h>

#include "core_state.h"
#include "err.h"

#define METRICS_EVERY_MS 250

struct metrics;

/* Starts the HTTP thread on ADDR:PORT (an IPv4 address or host name, or
 * [IPv6]; PORT 1..65535); cuzk_aliases 1 adds the cuzk_* series. NULL with
 * e naming the address and the reason. */
struct metrics *metrics_start(const char *addr_port, int cuzk_aliases, struct sp_err *e);

/* On the supervisor's thread, each loop turn: renders a new page when the
 * last is METRICS_EVERY_MS old. */
void metrics_tick(struct metrics *m, struct core *c, uint64_t now_ns);

/* On the supervisor's thread, when a job ends: its latency (submit to end)
 * goes into the histogram, its state into slotprove_jobs_ended_total. */
void metrics_job_ended(struct metrics *m, const struct job *j);

/* On the supervisor's thread, when a partition's proof is accepted: its
 * gpud's take-to-checked-proof time goes into slotprove_proof_duration_seconds. */
void metrics_proved(struct metrics *m, uint64_t busy_ns);

/* Stops the thread and frees m (NULL: nothing). */
void metrics_stop(struct metrics *m);

#endif
