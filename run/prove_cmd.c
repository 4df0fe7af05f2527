/*
 * prove_cmd.c — `slotprove prove ZKEY WTNS PROOF PUBLIC`: one proof through
 * the real process group (rapidsnark's `prover` command line).
 *
 * The command is the supervisor: it validates the inputs, creates a one-slot
 * pool sized for the key, starts one synthd and one gpud, hands both the key
 * (as an open descriptor), hands synthd the witness, and waits for gpud's
 * proof. It reads the public signals from the witness file itself and writes
 * both outputs atomically (temporary file + rename). It never touches slot
 * payloads.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"
#include "args.h"
#include "output.h"
#include "pool.h"
#include "proc.h"
#include "proof.h"
#include "run.h"
#include "wtns.h"
#include "zkey.h"
#include "zkey_check.h"

struct prove_run {
    int quiet;
    struct child_proc kids[2]; /* 0 synthd, 1 gpud */
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove prove [options] CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json\n"
            "\n"
            "Proves one witness against a snarkjs Groth16 key (bn128 or bls12381) through\n"
            "the multi-process pipeline (supervisor, synthd, gpud sharing a memfd slot) and\n"
            "writes snarkjs-format proof and public-signal files.\n"
            "\n"
            "options:\n"
            "  --backend auto|cpu       prover backend for gpud (default auto; this build has\n"
            "                           only the CPU backend, CUDA comes later)\n"
            "  --threads N              worker threads per process, 0..1024 (default 0: all CPUs)\n"
            "  -q, --quiet              no progress or timings on stderr\n"
            "  --no-verify              skip the pairing check of the proof before it is\n"
            "                           written (for measuring raw proving speed only: an\n"
            "                           invalid proof is then written with exit 0)\n"
            "  -h, --help               this text\n"
            "\n"
            "Every proof is verified (pairing check against the key's own verifying data)\n"
            "before it is written; a witness that does not satisfy the circuit fails with\n"
            "\"the witness does not satisfy the circuit\" and writes nothing.\n"
            "\n"
            "Exit status: 0 proof written, 1 bad input or proving failed (the message\n"
            "names the file and the reason), 2 usage error.\n");
}


/*
 * Waits for the next message from kid k. Fails if any child exits or closes
 * its socket first (the one-shot command has no one to retry with; the
 * daemon does).
 */
static int expect(struct prove_run *r, int k, struct ctl_msg *m, int *fds, int *nfds,
                  struct sp_err *e)
{
    for (;;) {
        struct pollfd p[3] = {
            { .fd = r->kids[k].ctl, .events = POLLIN },
            { .fd = r->kids[0].pidfd, .events = POLLIN },
            { .fd = r->kids[1].pidfd, .events = POLLIN },
        };
        int n = poll(p, 3, 600000);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            return sp_fail(e, -ETIMEDOUT, "%s did not answer for 10 minutes", r->kids[k].role);
        if (p[0].revents & POLLIN) {
            int rc = ctl_recv(r->kids[k].ctl, m, fds, nfds);
            if (rc == 1)
                return 0;
            if (rc == -EPROTO)
                continue;
        }
        for (int i = 0; i < 2; i++) {
            if ((p[1 + i].revents & POLLIN) || (i == k && (p[0].revents & (POLLHUP | POLLERR)))) {
                char why[128];
                proc_wait(&r->kids[i], 1000);
                proc_describe(&r->kids[i], why, sizeof(why));
                return sp_fail(e, SP_EINTERNAL, "%s (pid %d) %s", r->kids[i].role,
                               (int)r->kids[i].pid, why);
            }
        }
    }
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

/* Fails before any work when the outputs cannot be written (missing or
 * read-only directory, a directory, a block device): 1; or when both name one
 * file: a usage error, 2. Returns 0 when both can be written. */
static int check_outputs(const char *proof_path, const char *public_path)
{
    const char *paths[2] = { proof_path, public_path };
    struct output_target t[2];
    struct sp_err e = { "" };
    int rc = output_check(2, paths, t, &e);
    if (rc == 0)
        return 0;
    fprintf(stderr, "slotprove%s: %s\n", rc == -SP_EUSAGE ? " prove" : "", e.msg);
    return rc == -SP_EUSAGE ? 2 : 1;
}

int cmd_prove(int argc, char **argv)
{
    static const struct option opts[] = {
        { "backend", required_argument, NULL, 'b' },
        { "threads", required_argument, NULL, 't' },
        { "quiet", no_argument, NULL, 'q' },
        { "no-verify", no_argument, NULL, 'V' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    struct prove_run r;
    const char *backend = "auto";
    unsigned threads = 0;
    int c;

    memset(&r, 0, sizeof(r));
    r.kids[0].pidfd = r.kids[1].pidfd = r.kids[0].ctl = r.kids[1].ctl = -1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            backend = optarg;
            if (strcmp(backend, "cuda") == 0) {
                fprintf(stderr, "slotprove prove: --backend cuda: this build has no CUDA backend yet\n");
                return 2;
            }
            if (strcmp(backend, "auto") != 0 && strcmp(backend, "cpu") != 0) {
                fprintf(stderr, "slotprove prove: --backend must be auto or cpu\n");
                return 2;
            }
            break;
        case 't':
            if (parse_count(optarg, 0, 1024, &threads) < 0) {
                fprintf(stderr, "slotprove prove: --threads %s: expected 0..1024 (0 = all CPUs)\n", optarg);
                return 2;
            }
            break;
        case 'q': r.quiet = 1; break;
        case 'V': setenv("SLOTPROVE_NO_VERIFY", "1", 1); break; /* read by gpud */
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (argc - optind != 4) {
        usage(stderr);
        return 2;
    }
    const char *zkey_path = argv[optind], *wtns_path = argv[optind + 1];
    const char *proof_path = argv[optind + 2], *public_path = argv[optind + 3];
    int orc = check_outputs(proof_path, public_path);
    if (orc != 0)
        return orc;
    uint64_t t_start = now_ns();
    struct sp_err e = { "" };
    struct zkey zk;
    struct wtns w;
    struct pool pool = { .ctl_fd = -1, .payload_fd = -1 };
    int zfd = -1, wfd = -1, bell = -1, rc = 1;
    memset(&zk, 0, sizeof(zk));

    /* Validate up front, so bad input fails before any process starts. */
    if ((zfd = open_input(zkey_path, &e)) < 0 || zkey_open(&zk, zfd, zkey_path, &e) < 0 ||
        (wfd = open_input(wtns_path, &e)) < 0 || wtns_open(&w, wfd, wtns_path, &e) < 0 ||
        wtns_check_key(&w, &zk, &e) < 0)
        goto out;
    uint64_t key_check_ns = now_ns(), key_points = 0;
    if (zkey_check_points(&zk, threads, &key_points, &e) < 0) /* every point on its curve */
        goto out;
    key_check_ns = now_ns() - key_check_ns;

    int prc = pool_create(&pool, 1, zkey_slot_payload_bytes(&zk));
    if (prc < 0) {
        sp_fail(&e, prc, "cannot create a %llu-byte slot pool: %s",
                (unsigned long long)zkey_slot_payload_bytes(&zk), strerror(-prc));
        goto out;
    }
    if ((bell = eventfd(0, EFD_CLOEXEC)) < 0) {
        sp_fail(&e, -errno, "eventfd: %s", strerror(errno));
        goto out;
    }
    const char *roles[2] = { "synthd", "gpud" };
    for (int k = 0; k < 2; k++) {
        char exe[4096];
        if (proc_sibling_path(exe, sizeof(exe), roles[k]) < 0) {
            sp_fail(&e, -ENOENT, "cannot locate the %s binary", roles[k]);
            goto out;
        }
        struct spawn_opts o = {
            .exe = exe, .pool_ctl_fd = pool.ctl_fd, .pool_payload_fd = pool.payload_fd,
            .doorbell_fd = bell, .incarnation = (uint32_t)k + 1, .threads = threads,
            .backend = k == 1 ? backend : NULL,
        };
        if (proc_spawn(&r.kids[k], roles[k], &o, &e) < 0)
            goto out;
    }

    static struct ctl_msg m;
    int fds[CTL_MAX_FDS], nfds;
    for (int k = 0; k < 2; k++) {
        if (expect(&r, k, &m, fds, &nfds, &e) < 0)
            goto out;
        if (m.type != CTL_HELLO) {
            sp_fail(&e, SP_EINTERNAL, "%s: expected HELLO, got %s", roles[k], ctl_type_name(m.type));
            goto out;
        }
        if (k == 1 && !r.quiet)
            fprintf(stderr, "slotprove: synthd pid %d, gpud pid %d (%s backend)\n",
                    (int)r.kids[0].pid, (int)r.kids[1].pid, m.text);
    }
    for (int k = 0; k < 2; k++) {
        memset(&m, 0, sizeof(m));
        m.type = CTL_KEY_LOAD;
        ctl_text(&m, "%s", zkey_path);
        if ((prc = ctl_send(r.kids[k].ctl, &m, &zfd, 1)) < 0) {
            sp_fail(&e, prc, "%s: cannot send the key: %s", roles[k], strerror(-prc));
            goto out;
        }
    }
    for (int k = 0; k < 2; k++) {
        if (expect(&r, k, &m, fds, &nfds, &e) < 0)
            goto out;
        if (m.type != CTL_KEY_OK) {
            sp_fail(&e, m.status ? m.status : SP_EINTERNAL, "%s", m.text);
            goto out;
        }
    }
    memset(&m, 0, sizeof(m));
    m.type = CTL_SYNTH;
    m.job_id = 1;
    ctl_text(&m, "%s", wtns_path);
    if ((prc = ctl_send(r.kids[0].ctl, &m, &wfd, 1)) < 0) {
        sp_fail(&e, prc, "synthd: cannot send the witness: %s", strerror(-prc));
        goto out;
    }
    if (expect(&r, 0, &m, fds, &nfds, &e) < 0)
        goto out;
    if (m.type != CTL_SYNTH_DONE) {
        sp_fail(&e, m.status ? m.status : SP_EINTERNAL, "%s", m.text);
        goto out;
    }
    uint64_t synth_ns = m.times.ns[STAGE_SYNTH];
    if (!r.quiet) {
        fprintf(stderr, "slotprove: %s, domain 2^%u, nVars %u, nPublic %u: synthesized into "
                        "slot %u; proving\n", zk.ci->name, zk.log_domain, zk.n_vars,
                zk.n_public, m.slot);
        fprintf(stderr, "  %-10s %10.3f ms (%llu zkey points on their curves)\n", "key_check",
                key_check_ns / 1e6, (unsigned long long)key_points);
        fprintf(stderr, "  %-10s %10.3f ms\n", stage_name(STAGE_SYNTH), synth_ns / 1e6);
    }
    for (;;) { /* TAKEN (the daemon's business), PROGRESS per stage, then the proof */
        if (expect(&r, 1, &m, fds, &nfds, &e) < 0)
            goto out;
        if (m.type == CTL_PROGRESS && !r.quiet && m.gen < STAGE_COUNT)
            fprintf(stderr, "  %-10s %10.3f ms\n", stage_name((enum stage)m.gen),
                    m.times.ns[m.gen] / 1e6);
        if (m.type != CTL_TAKEN && m.type != CTL_PROGRESS)
            break;
    }
    if (m.type != CTL_PROVED) {
        if (m.status == -SP_EVERIFY) /* "the witness does not satisfy the circuit" */
            sp_fail(&e, m.status, "%s: %s", wtns_path, m.text);
        else
            sp_fail(&e, m.status ? m.status : SP_EINTERNAL, "%s", m.text);
        goto out;
    }
    struct stage_times t = m.times;
    t.ns[STAGE_SYNTH] = synth_ns;

    /* public signals straight from the witness file */
    uint8_t *pub = malloc((size_t)zk.n_public * 32 + 32);
    char *pub_json = NULL;
    if (!pub || wtns_read(&w, wfd, pub, 1, zk.n_public, &e) < 0 ||
        !(pub_json = public_to_json(pub, zk.n_public))) {
        if (!e.msg[0])
            sp_fail(&e, -ENOMEM, "out of memory");
        free(pub);
        goto out;
    }
    free(pub);
    /* both temporary files are written before either is renamed: a failure
     * leaves neither a new proof next to an old public.json nor the reverse */
    const char *paths[2] = { proof_path, public_path }, *texts[2] = { m.text, pub_json };
    int wrc = write_outputs(2, paths, texts, &e);
    free(pub_json);
    if (wrc < 0)
        goto out;
    print_totals(&r, &t, now_ns() - t_start);
    rc = 0;
out:
    for (int k = 0; k < 2; k++) {
        if (r.kids[k].pid > 0 && !r.kids[k].exited) {
            memset(&m, 0, sizeof(m));
            m.type = CTL_SHUTDOWN;
            ctl_send(r.kids[k].ctl, &m, NULL, 0);
            proc_wait(&r.kids[k], 5000);
        }
        proc_close(&r.kids[k]);
    }
    if (rc != 0)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "proving failed");
    if (bell >= 0)
        close(bell);
    pool_detach(&pool);
    zkey_close(&zk);
    if (zfd >= 0)
        close(zfd);
    if (wfd >= 0)
        close(wfd);
    return rc;
}
