/*
 * witness_files.h — the files of an input job (witness_job.h) that need no
 * core: the witness program, opened and checked once, and each input.json,
 * pinned in a sealed memfd (intake.c calls it on its threads).
 */
#ifndef SLOTPROVE_WITNESS_FILES_H
#define SLOTPROVE_WITNESS_FILES_H

#include <stddef.h>

#include "err.h"

#define WITNESS_INPUT_MAX (16u << 20) /* bytes per input.json */
#define WITNESS_PROGRAM_MAX (256u << 20) /* bytes of a program sent with a job */

/* Opens PROGRAM (a regular file) and checks it is an ELF executable or a
 * .wasm (by magic; for a .wasm also that circom's generate_witness.js is
 * beside it). Its absolute path goes to abs_path (abs_len bytes). The
 * descriptor (CLOEXEC), or a negative code with "PROGRAM: reason" in e. */
int witness_program_open(const char *path, char *abs_path, size_t abs_len, struct sp_err *e);

/* Copies the input on fd (a regular file) into a new sealed memfd of at
 * most WITNESS_INPUT_MAX bytes. The memfd, or a negative code with
 * "name: reason" in e. Any thread. */
int witness_input_pin(int fd, const char *name, struct sp_err *e);

/* A witness program sent with a job (submit --zkey Z --program P): copies
 * the program on fd (a regular file of at most WITNESS_PROGRAM_MAX bytes)
 * into a sealed memfd, checks the copy is an ELF executable or a .wasm (by
 * its magic, never its name), and returns a read-only descriptor of it (no
 * writable descriptor stays open, so the kernel will exec it: fexecve). The
 * descriptor (CLOEXEC), or a negative code with "name: reason" in e. Any
 * thread. */
int witness_program_pin(int fd, const char *name, struct sp_err *e);

#endif
