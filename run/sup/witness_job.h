/*
 * witness_job.h — input jobs: a partition is an input.json, and synthd runs
 * the key's witness program on it (synthd/witness_program.h) instead of
 * reading a client's .wtns.
 *
 * What the supervisor does for them:
 *   - pins each input at submit: a copy in a sealed memfd of at most
 *     WITNESS_INPUT_MAX bytes (inputs are small; a retry after a synthd
 *     death reads the same bytes);
 *   - keeps the program open (a descriptor per job, its path for argv[0]
 *     and the .wasm's folder) and hands both to synthd with each SYNTH;
 *   - takes the public signals from gpud (CTL_PUBLIC messages before its
 *     PROVED: the witness exists only inside synthd and the slot), so
 *     public.json and the proof's checked public inputs are the same bytes.
 * The witness programs' limits reach each synthd as its arguments
 * --witness-mem, --witness-cpu, --witness-time (witness_limits_set).
 */
#ifndef SLOTPROVE_WITNESS_JOB_H
#define SLOTPROVE_WITNESS_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "core_state.h"
#include "ctl.h"
#include "err.h"
#include "witness_files.h"


/* Makes j an input job of the program pinned as prog_fd with its companions
 * aux[2] (witness_companions_pin; -1 where none) at prog_path (all dup'd: the
 * caller keeps its descriptors). 0 or -errno with e. */
int witness_job_attach(struct job *j, int prog_fd, const int aux[2], const char *prog_path,
                       struct sp_err *e);

/* At the end of an input job's intake (key_id known): 0 when the job has a
 * program, else -1 after failing the job with the reason. */
int witness_job_ready(struct core *c, struct job *j, uint32_t key_id);

/* A SYNTH message's text for an input: "INPUT_NAME\0PROGRAM_PATH". */
void witness_job_text(struct ctl_msg *m, const char *input_name, const char *prog_path);

/* gpud's CTL_PUBLIC for an input job's partition: values [first, first +
 * n/32) (a new sequence starts at 0: a retry sends them all again). */
void witness_job_public_part(struct core *c, struct job *j, uint32_t part, uint32_t first,
                             const char *bytes, size_t n);
/* At its PROVED: public.json from the values received. 0, or -1 after
 * failing the job with the reason. */
int witness_job_public(struct core *c, struct job *j, uint32_t part);

/* --witness-mem BYTES, --witness-cpu S, --witness-time S into o: every
 * synthd gets them as the same arguments (proc.h), and o->witness_wall_s
 * bounds the partition's deadline. */
void witness_limits_set(struct core_opts *o, uint64_t mem_bytes, unsigned cpu_s, unsigned wall_s);

#endif

