/*
 * prove_cmd.c — `slotprove prove ZKEY WTNS PROOF PUBLIC`: one proof through
 * the real process group (rapidsnark's `prover` command line).
 *
 * This is the daemon's core (core.h) with one job and no socket: one
 * synthd, one gpud and a one-slot pool sized for the key, the same
 * dispatcher, the same crash recovery (a child that dies is respawned and
 * its partition redone; a partition that keeps crashing its process fails
 * after the usual 3 attempts). The inputs' headers are validated before any
 * process starts, the key's points while synthd and gpud start (before the
 * key is sent to them); progress lines (children, synthesis, each proving stage, totals)
 * go to stderr as each happens; both outputs are written together
 * (temporary files, then renames). It never touches slot payloads.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "prove_bellperson.h"
#include "core.h"
#include "loop.h"
#include "submit.h"
#include "stop_signals.h"
#include "log.h"
#include "output.h"
#include "payload.h"
#include "proc.h"
#include "prove_opts.h"
#include "commands.h"
#include "wtns.h"
#include "zkey.h"

struct prove_run {
    int quiet;
    const struct zkey *zk;
    pid_t synthd_pid, gpud_pid;
    char backend[200];
    int announced;
    int ended;
    uint64_t key_check_ns, key_points; /* zkey_check_points at key load */
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove prove [options] CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json\n"
            "       slotprove prove --params P.params --pce C.pce [options] WITNESS.wtns... OUT\n"
            "                       (bellperson keys: `slotprove prove --params --help`)\n"
            "\n"
            "Proves one witness against a snarkjs Groth16 key (bn128 or bls12381) through\n"
            "the multi-process pipeline (supervisor, synthd, gpud sharing a memfd slot) and\n"
            "writes snarkjs-format proof and public-signal files.\n"
            "\n"
            "options:\n");
    prove_opts_help(f, 0);
    fprintf(f,
            "\n"
            "SIGINT, SIGTERM or SIGHUP stops the children and exits 128 + the signal's\n"
            "number, writing nothing.\n"
            "\n"
            "Every proof is verified (pairing check against the key's own verifying data)\n"
            "before it is written; a witness that does not satisfy the circuit fails with\n"
            "\"the witness does not satisfy the circuit\" and writes nothing. Every point of\n"
            "the key is checked to lie on its curve when it is loaded.\n"
            "\n"
            "PROOF and PUBLIC may be regular files (replaced atomically; a symlink stays a\n"
            "link), devices, FIFOs or /dev/stdout (written directly); naming one file twice\n"
            "is a usage error.\n"
            "\n"
            "Exit status: 0 proof written, 1 bad input or proving failed (the message\n"
            "names the file and the reason), 2 usage error, 128 + N stopped by signal N.\n");
}


static void on_hello(void *ctx, const struct kid *k, const char *text)
{
    struct prove_run *r = ctx;
    if (k->role == ROLE_GPUD) {
        r->gpud_pid = k->p.pid;
        snprintf(r->backend, sizeof(r->backend), "%.199s", text);
    } else {
        r->synthd_pid = k->p.pid;
    }
    if (!r->announced && r->synthd_pid && r->gpud_pid) {
        r->announced = 1;
        if (!r->quiet)
            fprintf(stderr, "slotprove: synthd pid %d, gpud pid %d, backend %s\n",
                    (int)r->synthd_pid, (int)r->gpud_pid, r->backend);
    }
}

static void on_synthesized(void *ctx, const struct job *j, uint32_t part, uint32_t slot,
                           uint64_t synth_ns)
{
    struct prove_run *r = ctx;
    (void)j;
    (void)part;
    if (r->quiet)
        return;
    fprintf(stderr, "slotprove: %s, domain 2^%u, nVars %u, nPublic %u: synthesized into "
                    "slot %u; proving\n", r->zk->ci->name, r->zk->log_domain, r->zk->n_vars,
            r->zk->n_public, slot);
    fprintf(stderr, "  %-10s %10.3f ms (%llu zkey points on their curves)\n", "key_check",
            r->key_check_ns / 1e6, (unsigned long long)r->key_points);
    fprintf(stderr, "  %-10s %10.3f ms\n", stage_name(STAGE_SYNTH), synth_ns / 1e6);
}

static void on_progress(void *ctx, const struct job *j, uint32_t part, enum stage s, uint64_t ns)
{
    struct prove_run *r = ctx;
    (void)j;
    (void)part;
    if (!r->quiet)
        fprintf(stderr, "  %-10s %10.3f ms\n", stage_name(s), ns / 1e6);
}

static void on_job_ended(void *ctx, struct job *j)
{
    (void)j;
    ((struct prove_run *)ctx)->ended = 1;
}

/* The stages were printed as they finished; this adds the totals. */
static void print_totals(const struct prove_run *r, const struct stage_times *t, uint64_t total)
{
    if (r->quiet)
        return;
    fprintf(stderr, "  %-10s %10.3f ms (gpud: copy-off to assembled proof)\n",
            stage_name(STAGE_PROVE), t->ns[STAGE_PROVE] / 1e6);
    fprintf(stderr, "  %-10s %10.3f ms (wall, including process start and key load)\n",
            "total", total / 1e6);
}

int cmd_prove(int argc, char **argv)
{
    /* before any thread exists: SIGTERM/SIGINT/SIGHUP reach the loop's
     * signalfd only, never a worker's default action (stop_signals.h) */
    stop_signals_block(NULL);
    if (bellperson_wanted(argc, argv, "--params")) /* prove_bellperson.c */
        return cmd_prove_bellperson(argc, argv);
    static struct core core;
    struct prove_run r;
    struct prove_opts po;
    int first;

    memset(&r, 0, sizeof(r));
    int prc = prove_opts_parse("prove", argc, argv, 0, 4,
                               "CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json", usage, &po,
                               &first);
    if (prc >= 0)
        return prc;
    r.quiet = po.quiet;
    const char *zkey_path = argv[first], *wtns_path = argv[first + 1];
    const char *proof_path = argv[first + 2], *public_path = argv[first + 3];
    int orc = output_check_args("prove", proof_path, public_path);
    if (orc != 0)
        return orc;
    uint64_t t_start = now_ns();
    struct sp_err e = { "" };
    struct zkey zk;
    struct wtns w;
    int zfd = -1, wfd = -1, rc = 1, sfd = stop_signals_fd(), sig;
    memset(&zk, 0, sizeof(zk));
    core_init(&core);
    log_setup("slotprove", 0, LOG_WARN, r.quiet);

    /* Headers up front, so bad input fails before any process starts. */
    if ((zfd = open_input(zkey_path, &e)) < 0 || zkey_open(&zk, zfd, zkey_path, &e) < 0 ||
        (wfd = open_input(wtns_path, &e)) < 0 || wtns_open(&w, wfd, wtns_path, &e) < 0 ||
        wtns_check_key(&w, &zk, &e) < 0)
        goto out;
    r.zk = &zk;

    core.o = (struct core_opts){
        .synthds = 1, .gpuds = 1, .slots = 1, .slot_bytes = payload_layout(zk.domain_size, zk.n_vars).total,
        .backend = po.backend, .gpu_mem = po.gpu_mem, .threads = po.threads, .max_attempts = 3,
        .result_ttl_s = 3600, .file_timeout_s = 3600, .max_queued = 1, .no_verify = po.no_verify,
        .one_job = 1,
    };
    core.hooks = (struct core_hooks){ .ctx = &r, .hello = on_hello,
                                      .synthesized = on_synthesized, .progress = on_progress,
                                      .job_ended = on_job_ended };
    uint32_t key_id;
    int kfd = dup(zfd); /* the key cache keeps its own descriptor */
    if (kfd < 0) {
        sp_fail(&e, -errno, "%s: dup: %s", zkey_path, strerror(errno));
        goto out;
    }
    /* synthd and gpud start (exec, map the pool) while this process checks
     * every point of the key: the check is whole before the key is sent */
    if (core_start(&core, &e) < 0) {
        close(kfd);
        goto out;
    }
    if (keys_add_fd(&core.keys, kfd, zkey_path, "prove", &key_id, &e) < 0)
        goto out;
    r.key_check_ns = core.keys.keys[key_id].check_ns;
    r.key_points = core.keys.keys[key_id].check_points;

    struct submission sub = { .key = "prove", .zkey = "", .n_witnesses = 1,
                              .witnesses = { wtns_path } };
    struct job *j;
    int fds[1] = { wfd };
    if (core_submit(&core, getuid(), &sub, fds, 1, &j, &e) < 0)
        goto out;
    wfd = fds[0]; /* -1: the job owns it */
    if ((sig = core_loop_until(&core, &r.ended, sfd)) > 0) {
        rc = stopped_by_signal(sig, &e);
        goto out;
    }
    if (j->state != JOB_DONE) {
        sp_fail(&e, SP_EINTERNAL, "%s", j->error[0] ? j->error : "proving failed");
        goto out;
    }
    /* both temporary files are written before either is renamed: a failure
     * leaves neither a new proof next to an old public.json nor the reverse */
    const char *paths[2] = { proof_path, public_path };
    char *proof_text = proof_to_json(&j->parts[0].proof);
    const char *texts[2] = { proof_text, j->parts[0].public_json };
    if (!proof_text)
        sp_fail(&e, -ENOMEM, "out of memory");
    if (!proof_text || write_outputs(2, paths, texts, &e) < 0) {
        free(proof_text);
        goto out;
    }
    free(proof_text);
    print_totals(&r, &j->parts[0].times, now_ns() - t_start);
    rc = 0;
out:
    core_shutdown(&core);
    if (rc != 0)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "proving failed");
    zkey_close(&zk);
    if (zfd >= 0)
        close(zfd);
    if (wfd >= 0)
        close(wfd);
    if (sfd >= 0)
        close(sfd);
    return rc;
}
