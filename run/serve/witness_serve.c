/*
 * witness_serve.c — `serve`'s witness-program options (witness_serve.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "log.h"
#include "sandbox_check.h"
#include "witness_job.h"
#include "witness_serve.h"

#define SERVE_MAX_PROGRAMS CTL_MAX_KEYS

static const char *programs[SERVE_MAX_PROGRAMS]; /* "NAME=PROGRAM" */
static unsigned nprograms;
static char names[SERVE_MAX_PROGRAMS][JOB_NAME_MAX + 1]; /* their NAMEs, at setup */
static const char *name_list[SERVE_MAX_PROGRAMS];
static unsigned nnames;
static uint64_t mem = 8ull << 30; /* synthd/witness_program.h's defaults */
static unsigned cpu_s = 3600, wall_s = 3600;

const char witness_serve_help[] =
    "  --witness-program NAME=PROGRAM  the witness program of --key NAME, for\n"
    "                         `submit --key NAME --input IN.json`: circom --c's\n"
    "                         executable (its .dat beside it) or its .wasm (node\n"
    "                         and generate_witness.js beside it); for a bellperson\n"
    "                         key an executable of the same contract writing\n"
    "                         bellperson's [inputs | aux] (README-bellperson.md)\n"
    "                         (repeatable)\n"
    "  --witness-mem SIZE     memory limit of each witness program (default 8G; the\n"
    "                         group's memory bound gains --synth × SIZE)\n"
    "  --witness-cpu S        CPU-second limit of a witness program (default 3600)\n"
    "  --witness-time S       wall-clock limit of a witness program (default 3600)\n";

int witness_serve_opt(int opt, const char *arg)
{
    switch (opt) {
    case 'W':
        if (nprograms >= SERVE_MAX_PROGRAMS || !strchr(arg, '=')) {
            fprintf(stderr, "slotprove serve: --witness-program %s: expected NAME=PROGRAM (at "
                    "most %d)\n", arg, SERVE_MAX_PROGRAMS);
            return -1;
        }
        programs[nprograms++] = arg;
        return 0;
    case 'E':
        if (!(mem = parse_size(arg))) {
            fprintf(stderr, "slotprove serve: --witness-mem %s: expected a SIZE (e.g. 4G)\n", arg);
            return -1;
        }
        return 0;
    default:
        if (parse_count(arg, 1, 30 * 86400, opt == 'U' ? &cpu_s : &wall_s) < 0) {
            fprintf(stderr, "slotprove serve: --witness-%s %s: expected 1..2592000 seconds\n",
                    opt == 'U' ? "cpu" : "time", arg);
            return -1;
        }
        return 0;
    }
}

int witness_serve_setup(struct core *c, struct sp_err *e)
{
    struct key_cache *kc = &c->keys;
    witness_limits_set(&c->o, mem, cpu_s, wall_s);
    /* never run a program outside its box (sandbox_check.h) */
    if (witness_sandbox_check(c->no_sandbox, sizeof(c->no_sandbox)) < 0) {
        if (nprograms)
            return sp_fail(e, -EPERM, "--witness-program: %s", c->no_sandbox);
        sup_log(LOG_WARN, "event=no_sandbox|input jobs will be refused: %s", c->no_sandbox);
    }
    for (unsigned i = 0; i < nprograms; i++) {
        const char *eq = strchr(programs[i], '=');
        char name[JOB_NAME_MAX + 1];
        uint32_t id;
        snprintf(name, sizeof(name), "%.*s", (int)(eq - programs[i]), programs[i]);
        if (keys_lookup(kc, name, &id) < 0)
            return sp_fail(e, -2, "--witness-program %s: no --key named \"%s\"", programs[i],
                           name);
        struct key_entry *k = &kc->keys[id];
        int aux[2];
        int fd = witness_program_open(eq + 1, k->program_path, sizeof(k->program_path), aux, e);
        if (fd < 0)
            return fd;
        if (k->has_program) {
            close(k->program_fd);
            for (int a = 0; a < 2; a++)
                if (k->program_aux[a] >= 0)
                    close(k->program_aux[a]);
        }
        k->program_fd = fd;
        k->program_aux[0] = aux[0];
        k->program_aux[1] = aux[1];
        k->has_program = 1;
        unsigned n;
        for (n = 0; n < nnames && strcmp(name_list[n], name) != 0; n++)
            ;
        if (n == nnames) {
            memcpy(names[n], name, sizeof(name));
            name_list[nnames++] = names[n];
        }
    }
    return 0;
}

const char *const *witness_serve_names(unsigned *n)
{
    *n = nnames;
    return name_list;
}
