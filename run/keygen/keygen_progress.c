/* keygen_progress.c — `slotprove keygen`'s progress on stderr (a bar on a
 * terminal, one line a finished phase otherwise) and its work count
 * (keygen_progress.h). */
#include "keygen_progress.h"

#include <stdio.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define BAR_WIDTH 30

void keygen_phase(struct keygen_progress *p, const char *phase)
{
    p->total = p->done = 0;
    p->phase = phase;
    p->t_phase = now_s();
    p->last_pct = -1;
    if (!p->quiet && p->tty)
        fprintf(stderr, "  %-24s ...", phase);
}

void keygen_phase_units(struct keygen_progress *p, uint64_t total)
{
    p->total = total;
    p->done = 0;
}

void keygen_advance(struct keygen_progress *p, uint64_t units)
{
    p->done += units;
    if (p->quiet || !p->tty || p->total == 0)
        return;
    int pct = (int)(100 * (p->done < p->total ? p->done : p->total) / p->total);
    if (pct == p->last_pct)
        return;
    p->last_pct = pct;
    char bar[BAR_WIDTH + 1];
    int fill = pct * BAR_WIDTH / 100;
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '-';
    bar[BAR_WIDTH] = 0;
    fprintf(stderr, "\r  %-24s [%s] %3d%%", p->phase, bar, pct);
}

void keygen_phase_end(struct keygen_progress *p)
{
    if (p->quiet)
        return;
    double dt = now_s() - p->t_phase;
    if (p->tty)
        fprintf(stderr, "\r\033[K");
    fprintf(stderr, "  %-24s %9.3f s\n", p->phase, dt);
}

uint64_t keygen_work(const struct keygen_shape *s)
{
    /* G1: IC, A, B1, C, H; G2: B2 (counted 3 each) */
    return (uint64_t)s->n_public + 1 + 3 * (uint64_t)s->n_vars - s->n_public - 1 +
           s->domain_size + 3 * (uint64_t)s->n_vars;
}
