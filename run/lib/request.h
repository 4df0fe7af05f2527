/*
 * request.h — the daemon's socket protocol: one JSON object per line.
 *
 * Transport: a unix stream socket. Each request is one line of at most
 * REQUEST_LINE_MAX bytes (UTF-8 JSON object + '\n'). Files travel as open
 * descriptors (SCM_RIGHTS) attached to the sendmsg that carries the line —
 * the daemon never opens a client-named path. Each response is one line.
 *
 *   submit  {"op":"submit","key":"NAME","witnesses":["w0.wtns",…]}
 *           {"op":"submit","zkey":"circuit.zkey","witnesses":["w0.wtns",…]}
 *           fds: [zkey (only with "zkey")] + one per witness, in partition
 *           order. The names are for messages only.
 *           {"op":"submit","key":"NAME","inputs":["in0.json",…]}
 *           an input job (run/sup/witness_job.h): one fd per input.json (a
 *           regular file of at most 16 MiB, copied at submit), whose witness
 *           the key's witness program (serve --witness-program NAME=PROGRAM)
 *           computes inside synthd; "inputs" and "witnesses" are not mixed.
 *           {"op":"submit","zkey":"c.zkey","program":"/abs/c_cpp/c","inputs":[…]}
 *           an input job whose witness program travels with it: fds [zkey,
 *           program, inputs…]. "program" (only with "zkey" and "inputs") is
 *           the program's absolute path, at most REQUEST_PATH_MAX bytes: its
 *           argv[0] (circom's native program reads PATH.dat beside it; a
 *           .wasm's generate_witness.js is looked up in its folder), never
 *           opened by the daemon itself. The descriptor's bytes are pinned at
 *           submit (a sealed copy of at most 256 MiB, told apart by content:
 *           ELF or wasm magic) and run as the daemon's user, so only the
 *           daemon's own uid may send one.
 *           → {"ok":true,"job":"<32 hex>","partitions":N}
 *   wait    {"op":"wait","job":"ID"}  (answers when the job ends)
 *           → {"ok":true,"job":ID,"state":"done","partitions":N}, then N
 *             lines {"partition":i,"proof":{…},"public":[…]}, i = 0..N-1,
 *             proofs in snarkjs's proof.json form (one line per partition,
 *             sent as the client reads, so no job is too large to fetch)
 *           → {"ok":false,"job":ID,"state":"failed"|"cancelled","error":"…"}
 *   cancel  {"op":"cancel","job":"ID"} → {"ok":true,"job":ID,"state":…}
 *   status  {"op":"status"}            → {"ok":true,"status":{…}}
 * Any error: {"ok":false,"error":"reason"}. Jobs belong to the uid that
 * submitted them; another uid gets "no such job".
 */
#ifndef SLOTPROVE_REQUEST_H
#define SLOTPROVE_REQUEST_H

#include <stddef.h>

#include "job_limits.h"

#define REQUEST_LINE_MAX 65536
#define REQUEST_MAX_WITNESSES JOB_MAX_PARTS
#define REQUEST_MAX_FDS (REQUEST_MAX_WITNESSES + 2) /* one job: key, program, witnesses */
#define REQUEST_NAME_MAX JOB_NAME_MAX
#define REQUEST_PATH_MAX 4095 /* bytes of "program" */

enum request_op { REQ_SUBMIT = 1, REQ_WAIT, REQ_CANCEL, REQ_STATUS };

struct request {
    enum request_op op;
    char job[JOB_ID_HEX + 1];            /* wait, cancel */
    char key[REQUEST_NAME_MAX + 1];      /* submit: preloaded key name, or "" */
    char zkey[REQUEST_NAME_MAX + 1];     /* submit: name of the attached key, or "" */
    int inputs;                          /* submit: witnesses[] are input.json files (witness_job.h) */
    char program[REQUEST_PATH_MAX + 1];  /* submit with zkey and inputs: the program's path, or "" */
    unsigned n_witnesses;
    char witnesses[REQUEST_MAX_WITNESSES][REQUEST_NAME_MAX + 1];
};

/* Parses one request line (len bytes, no NUL needed). Returns 0, or -1 with
 * a reason in err (errlen bytes) — malformed JSON, unknown op, missing or
 * ill-typed fields, too many witnesses, over-long names, a job id that is
 * not 32 hex digits. Never reads past len. */
int request_parse(const char *line, size_t len, struct request *r, char *err, size_t errlen);

/* Descriptors a parsed request must carry. */
unsigned request_fd_count(const struct request *r);

#endif
