/*
 * client.c — `slotprove submit|wait|cancel|status`: clients of a running
 * `slotprove serve`, speaking the line protocol of request.h over its unix
 * socket.
 *
 * The client opens the key and witness files itself and passes them as
 * descriptors (SCM_RIGHTS) with the submit line, so the daemon never opens a
 * path a client names. The proof and public-signal files are written here,
 * atomically, in snarkjs's layout (the same bytes as `slotprove prove`).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "err.h"
#include "args.h"
#include "client_conn.h"
#include "client_status.h"
#include "client_results.h"
#include "output.h"
#include "request.h"
#include "sockpath.h"
#include "commands.h"

/* ---- arguments ------------------------------------------------------------ */


/*
 * The name sent for a file (request.h: for the daemon's messages only): the
 * path as given. A path longer than REQUEST_NAME_MAX bytes is sent as "..."
 * plus its tail; invalid UTF-8 bytes are sent as '?'.
 */
static json_t *name_json(const char *path)
{
    char buf[REQUEST_NAME_MAX + 1];
    size_t n = strlen(path);
    if (n <= REQUEST_NAME_MAX) {
        json_t *j = json_string(path);
        if (j)
            return j;
        memcpy(buf, path, n + 1);
    } else {
        const char *t = path + n - (REQUEST_NAME_MAX - 3);
        while (((unsigned char)*t & 0xc0) == 0x80)
            t++;
        snprintf(buf, sizeof(buf), "...%s", t);
        json_t *j = json_string(buf);
        if (j)
            return j;
    }
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    return json_string(buf);
}

/* Accepts 32 hex digits in either case; stores them lowercase. */
static int parse_job_arg(const char *s, char job[JOB_ID_HEX + 1])
{
    if (strlen(s) != JOB_ID_HEX)
        return -1;
    for (int i = 0; i < JOB_ID_HEX; i++) {
        char ch = s[i];
        if (ch >= 'A' && ch <= 'F')
            ch = (char)(ch - 'A' + 'a');
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
            return -1;
        job[i] = ch;
    }
    job[JOB_ID_HEX] = 0;
    return 0;
}

/* Prints "slotprove: <why>" (when fmt is given) and the usage; returns 2. */
static int usage_error(void (*usage)(FILE *), const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int usage_error(void (*usage)(FILE *), const char *fmt, ...)
{
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        fputs("slotprove: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputs("\n\n", stderr);
        va_end(ap);
    }
    usage(stderr);
    return 2;
}

/* ---- submit --------------------------------------------------------------- */

static void submit_usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove submit [--socket PATH] (--key NAME | --zkey CIRCUIT.zkey)\n"
            "                        (--witness W.wtns [--witness W.wtns ...] |\n"
            "                         [--program PROGRAM] --input IN.json [--input ...])\n"
            "                        [--wait [--proof PROOF.json --public PUBLIC.json]\n"
            "                                [--bellperson PROOFS.bin]]\n"
            "\n"
            "Submits a job to a running `slotprove serve`: one Groth16 proof per witness\n"
            "(each witness is a partition of the job, at most %d). The key and witness\n"
            "files are opened here and handed to the daemon as open descriptors.\n"
            "Prints the job id (32 hex digits) on stdout.\n"
            "\n"
            "options:\n"
            "  --socket PATH    the daemon's socket (default: $SLOTPROVE_SOCKET, else\n"
            "                   %s)\n"
            "  --key NAME       prove with a key the daemon has preloaded under NAME\n"
            "  --zkey PATH      prove with this snarkjs .zkey file\n"
            "  --witness PATH   a circom .wtns witness; repeat for more partitions, in order\n"
            "  --input PATH     a circuit input (input.json, at most 16 MiB): the daemon\n"
            "                   computes its witness with the key's witness program\n"
            "                   (serve --witness-program, or --program); not mixed\n"
            "                   with --witness\n"
            "  --program PATH   with --zkey and --input: the witness program, sent with the\n"
            "                   job (circom --c's executable, its .dat beside it, or its\n"
            "                   .wasm, generate_witness.js beside it; at most 256 MiB,\n"
            "                   copied at submit); it runs as the daemon's user, so the\n"
            "                   daemon takes one only from that user\n"
            "  --wait           stay connected until the job ends and write its outputs;\n"
            "                   needs --proof and --public, or --bellperson, or all three\n"
            "  --proof PATH     where --wait writes the proof: with one witness snarkjs's\n"
            "                   proof.json; with several a JSON array of proofs in\n"
            "                   witness order\n"
            "  --public PATH    where --wait writes the public signals: with one witness\n"
            "                   snarkjs's public.json; with several a JSON array of arrays\n"
            "  --bellperson PATH  where --wait writes the proofs as bellperson returns them\n"
            "                   (a BLS12-381 key, e.g. serve --key NAME=P.params:C.pce):\n"
            "                   192 bytes per witness, concatenated in witness order\n"
            "  -h, --help       this text\n"
            "\n"
            "PROOF and PUBLIC may be regular files (replaced atomically; a symlink stays a\n"
            "link), devices, FIFOs or /dev/stdout (written directly); naming one file\n"
            "twice is a usage error. Without --wait, fetch the outputs later with\n"
            "`slotprove wait --proof ... --public ... JOB`.\n"
            "Exit status: 0 submitted (with --wait: proved and written), 1 failure (an\n"
            "unreadable file, no daemon, or the daemon's error, on stderr), 2 usage error.\n",
            REQUEST_MAX_WITNESSES, DEFAULT_SOCKET);
}

int cmd_submit(int argc, char **argv)
{
    static const struct option opts[] = {
        { "socket", required_argument, NULL, 's' },
        { "key", required_argument, NULL, 'k' },
        { "zkey", required_argument, NULL, 'z' },
        { "witness", required_argument, NULL, 'w' },
        { "input", required_argument, NULL, 'i' },
        { "program", required_argument, NULL, 'g' },
        { "proof", required_argument, NULL, 'p' },
        { "public", required_argument, NULL, 'P' },
        { "wait", no_argument, NULL, 'W' },
        { "bellperson", required_argument, NULL, 'B' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *sock = NULL, *key = NULL, *zkey = NULL, *proof = NULL, *pub = NULL, *bp = NULL;
    const char *program = NULL;
    const char *wit[REQUEST_MAX_WITNESSES];
    unsigned nwit = 0, too_many = 0, ninputs = 0;
    int wait = 0, c;

    static char prog[] = "slotprove submit"; /* for getopt's messages */
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': sock = optarg; break;
        case 'k': key = optarg; break;
        case 'z': zkey = optarg; break;
        case 'g': program = optarg; break;
        case 'w':
        case 'i':
            ninputs += c == 'i';
            if (nwit < REQUEST_MAX_WITNESSES)
                wit[nwit++] = optarg;
            else
                too_many = 1;
            break;
        case 'p': proof = optarg; break;
        case 'P': pub = optarg; break;
        case 'W': wait = 1; break;
        case 'B': bp = optarg; break;
        case 'h': submit_usage(stdout); return 0;
        default: return usage_error(submit_usage, NULL);
        }
    }
    if (optind < argc)
        return usage_error(submit_usage, "unexpected argument \"%s\"", argv[optind]);
    if (!key == !zkey)
        return usage_error(submit_usage, "give exactly one of --key or --zkey");
    if (nwit == 0)
        return usage_error(submit_usage, "give at least one --witness or --input");
    if (ninputs && ninputs != nwit + too_many)
        return usage_error(submit_usage, "--input and --witness cannot be mixed in one job");
    if (program && (!zkey || !ninputs))
        return usage_error(submit_usage, "--program goes with --zkey and --input (a preloaded "
                                         "key's program is serve --witness-program)");
    if (too_many)
        return usage_error(submit_usage, "at most %d witnesses per job",
                           REQUEST_MAX_WITNESSES);
    if (wait && !proof != !pub)
        return usage_error(submit_usage, "give both --proof and --public, or neither");
    if (wait && !proof && !bp)
        return usage_error(submit_usage, "--wait needs --proof and --public, or --bellperson");
    if (!wait && (proof || pub || bp))
        return usage_error(submit_usage, "--proof, --public and --bellperson are written by "
                                         "--wait; add --wait, or fetch them later with "
                                         "`slotprove wait`");
    if (bp && proof && (strcmp(bp, proof) == 0 || strcmp(bp, pub) == 0))
        return usage_error(submit_usage, "--bellperson %s is also --proof or --public", bp);
    int orc = wait && proof ? output_check_args("submit", proof, pub) : 0;
    if (orc != 0)
        return orc;
    json_t *keyname = NULL;
    if (key) {
        keyname = json_string(key);
        if (!keyname || strlen(key) == 0 || strlen(key) > REQUEST_NAME_MAX) {
            json_decref(keyname);
            return usage_error(submit_usage, "--key \"%s\": a key name is 1..255 bytes of UTF-8",
                               key);
        }
    }
    if (!sock)
        sock = default_socket_path();

    struct sp_err e = { "" };
    struct client_conn conn = { .fd = -1 };
    int fds[REQUEST_MAX_FDS];
    char prog_abs[PATH_MAX];
    unsigned nfds = 0;
    int rc = 1;
    json_t *req = json_object(), *resp = NULL, *names = json_array();
    char job[JOB_ID_HEX + 1];

    if (zkey) {
        int fd = open_input(zkey, &e);
        if (fd < 0)
            goto out;
        fds[nfds++] = fd;
    }
    if (program) {
        int fd = open_input(program, &e);
        if (fd < 0)
            goto out;
        fds[nfds++] = fd;
        if (!realpath(program, prog_abs)) {
            sp_fail(&e, -errno, "%s: %s", program, strerror(errno));
            goto out;
        }
        if (strlen(prog_abs) > REQUEST_PATH_MAX) {
            sp_fail(&e, -ENAMETOOLONG, "%s: its absolute path is over %d bytes", program,
                    REQUEST_PATH_MAX);
            goto out;
        }
    }
    for (unsigned i = 0; i < nwit; i++) {
        int fd = open_input(wit[i], &e);
        if (fd < 0)
            goto out;
        fds[nfds++] = fd;
        json_array_append_new(names, name_json(wit[i]));
    }
    json_object_set_new(req, "op", json_string("submit"));
    if (key)
        json_object_set(req, "key", keyname);
    else
        json_object_set_new(req, "zkey", name_json(zkey));
    if (program)
        json_object_set_new(req, "program", json_string(prog_abs));
    json_object_set(req, ninputs ? "inputs" : "witnesses", names);

    if (client_open(&conn, sock, &e) < 0 || client_call(&conn, req, fds, nfds, &resp, &e) < 0)
        goto out;
    /* the daemon holds its own references now */
    for (unsigned i = 0; i < nfds; i++)
        close(fds[i]);
    nfds = 0;
    const char *id = json_string_value(json_object_get(resp, "job"));
    if (!id || parse_job_arg(id, job) < 0) {
        sp_fail(&e, -EPROTO, "%s: malformed response from the daemon: no job id", sock);
        goto out;
    }
    json_t *parts = json_object_get(resp, "partitions");
    if (parts && (!json_is_integer(parts) || json_integer_value(parts) != (json_int_t)nwit)) {
        sp_fail(&e, -EPROTO, "the daemon made a job of %lld partitions from %u witnesses",
                json_is_integer(parts) ? (long long)json_integer_value(parts) : -1LL, nwit);
        goto out;
    }
    if (printf("%s\n", job) < 0 || fflush(stdout) != 0) {
        sp_fail(&e, -EIO, "stdout: %s", strerror(errno));
        goto out;
    }
    if (wait && client_wait_job(&conn, job, nwit, proof, pub, bp, &e) < 0)
        goto out;
    rc = 0;
out:
    if (rc != 0)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "submit failed");
    for (unsigned i = 0; i < nfds; i++)
        close(fds[i]);
    client_close(&conn);
    json_decref(req);
    json_decref(resp);
    json_decref(names);
    json_decref(keyname);
    return rc;
}

/* ---- wait, cancel --------------------------------------------------------- */

static void wait_usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove wait [--socket PATH] [--proof PROOF.json --public PUBLIC.json]\n"
            "                      [--bellperson PROOFS.bin] JOB\n"
            "\n"
            "Waits until job JOB (the id `slotprove submit` printed) ends. With --proof\n"
            "and --public, writes its outputs: for a job of one witness snarkjs's\n"
            "proof.json and public.json; for several, a JSON array of proofs and a JSON\n"
            "array of public-signal arrays, in witness order. Without them, prints \"done\".\n"
            "\n"
            "options:\n"
            "  --socket PATH    the daemon's socket (default: $SLOTPROVE_SOCKET, else\n"
            "                   %s)\n"
            "  --proof PATH     where to write the proof(s)\n"
            "  --public PATH    where to write the public signals\n"
            "  --bellperson PATH  where to write the proofs as bellperson returns them (a\n"
            "                   BLS12-381 key): 192 bytes per witness, in witness order\n"
            "  -h, --help       this text\n"
            "\n"
            "PROOF and PUBLIC may be regular files (replaced atomically; a symlink stays a\n"
            "link), devices, FIFOs or /dev/stdout (written directly); naming one file\n"
            "twice is a usage error.\n"
            "Exit status: 0 the job is done (and its outputs written), 1 the job failed or\n"
            "was cancelled, or another failure (the reason on stderr), 2 usage error.\n",
            DEFAULT_SOCKET);
}

int cmd_wait(int argc, char **argv)
{
    static const struct option opts[] = {
        { "socket", required_argument, NULL, 's' },
        { "proof", required_argument, NULL, 'p' },
        { "public", required_argument, NULL, 'P' },
        { "bellperson", required_argument, NULL, 'B' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *sock = NULL, *proof = NULL, *pub = NULL, *bp = NULL;
    char job[JOB_ID_HEX + 1];
    int c;

    static char prog[] = "slotprove wait"; /* for getopt's messages */
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': sock = optarg; break;
        case 'p': proof = optarg; break;
        case 'P': pub = optarg; break;
        case 'B': bp = optarg; break;
        case 'h': wait_usage(stdout); return 0;
        default: return usage_error(wait_usage, NULL);
        }
    }
    if (argc - optind != 1)
        return usage_error(wait_usage, "give one JOB id");
    if (parse_job_arg(argv[optind], job) < 0)
        return usage_error(wait_usage, "\"%s\" is not a job id (32 hex digits)", argv[optind]);
    if (!proof != !pub)
        return usage_error(wait_usage, "give both --proof and --public, or neither");
    if (bp && proof && (strcmp(bp, proof) == 0 || strcmp(bp, pub) == 0))
        return usage_error(wait_usage, "--bellperson %s is also --proof or --public", bp);
    int orc = proof ? output_check_args("wait", proof, pub) : 0;
    if (orc != 0)
        return orc;
    if (!sock)
        sock = default_socket_path();

    struct sp_err e = { "" };
    struct client_conn conn = { .fd = -1 };
    int rc = 1;
    if (client_open(&conn, sock, &e) == 0 && client_wait_job(&conn, job, 0, proof, pub, bp, &e) == 0)
        rc = 0;
    if (rc != 0)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "wait failed");
    client_close(&conn);
    return rc;
}

static void cancel_usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove cancel [--socket PATH] JOB\n"
            "\n"
            "Cancels job JOB and prints the state the daemon reports for it.\n"
            "\n"
            "options:\n"
            "  --socket PATH    the daemon's socket (default: $SLOTPROVE_SOCKET, else\n"
            "                   %s)\n"
            "  -h, --help       this text\n"
            "\n"
            "Exit status: 0 the daemon accepted the cancel, 1 failure (the reason on\n"
            "stderr, e.g. no such job), 2 usage error.\n",
            DEFAULT_SOCKET);
}

int cmd_cancel(int argc, char **argv)
{
    static const struct option opts[] = {
        { "socket", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *sock = NULL;
    char job[JOB_ID_HEX + 1];
    int c;

    static char prog[] = "slotprove cancel"; /* for getopt's messages */
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': sock = optarg; break;
        case 'h': cancel_usage(stdout); return 0;
        default: return usage_error(cancel_usage, NULL);
        }
    }
    if (argc - optind != 1)
        return usage_error(cancel_usage, "give one JOB id");
    if (parse_job_arg(argv[optind], job) < 0)
        return usage_error(cancel_usage, "\"%s\" is not a job id (32 hex digits)", argv[optind]);
    if (!sock)
        sock = default_socket_path();

    struct sp_err e = { "" };
    struct client_conn conn = { .fd = -1 };
    json_t *req = json_object(), *resp = NULL;
    int rc = 1;
    json_object_set_new(req, "op", json_string("cancel"));
    json_object_set_new(req, "job", json_string(job));
    int crc = client_open(&conn, sock, &e);
    if (crc == 0)
        crc = client_call(&conn, req, NULL, 0, &resp, &e);
    const char *state = json_string_value(json_object_get(resp, "state"));
    /* request.h answers a cancel with {"ok":true,...}; an {"ok":false} that
     * reports this job as cancelled means the same, so accept it too. */
    if (crc < 0 && resp && state && strcmp(state, "cancelled") == 0 &&
        json_is_string(json_object_get(resp, "job")) &&
        strcmp(json_string_value(json_object_get(resp, "job")), job) == 0)
        crc = 0;
    if (crc == 0) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%s", state ? state : "cancelled");
        client_sanitize(buf);
        if (printf("%s\n", buf) < 0 || fflush(stdout) != 0)
            sp_fail(&e, -EIO, "stdout: %s", strerror(errno));
        else
            rc = 0;
    }
    if (rc != 0)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "cancel failed");
    json_decref(req);
    json_decref(resp);
    client_close(&conn);
    return rc;
}

static void status_usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove status [--socket PATH] [--json]\n"
            "\n"
            "Prints the daemon's status: its processes (role, pid, state, memory,\n"
            "restarts, last exit), slots and jobs by state, throughput and counters.\n"
            "\n"
            "options:\n"
            "  --socket PATH    the daemon's socket (default: $SLOTPROVE_SOCKET, else\n"
            "                   %s)\n"
            "  --json           print the daemon's status object as JSON (indent 2)\n"
            "  -h, --help       this text\n"
            "\n"
            "Exit status: 0 printed, 1 failure (e.g. no daemon), 2 usage error.\n",
            DEFAULT_SOCKET);
}

int cmd_status(int argc, char **argv)
{
    static const struct option opts[] = {
        { "socket", required_argument, NULL, 's' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *sock = NULL;
    int as_json = 0, c;

    static char prog[] = "slotprove status"; /* for getopt's messages */
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': sock = optarg; break;
        case 'j': as_json = 1; break;
        case 'h': status_usage(stdout); return 0;
        default: return usage_error(status_usage, NULL);
        }
    }
    if (optind < argc)
        return usage_error(status_usage, "unexpected argument \"%s\"", argv[optind]);
    if (!sock)
        sock = default_socket_path();

    struct sp_err e = { "" };
    struct client_conn conn = { .fd = -1 };
    json_t *req = json_object(), *resp = NULL;
    int rc = 1;
    json_object_set_new(req, "op", json_string("status"));
    if (client_open(&conn, sock, &e) < 0 || client_call(&conn, req, NULL, 0, &resp, &e) < 0)
        goto out;
    json_t *st = json_object_get(resp, "status");
    if (!json_is_object(st)) {
        sp_fail(&e, -EPROTO, "%s: malformed response from the daemon: no status object", sock);
        goto out;
    }
    if (as_json) {
        char *s = json_dumps(st, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (!s) {
            sp_fail(&e, -ENOMEM, "out of memory");
            goto out;
        }
        printf("%s\n", s);
        free(s);
    } else {
        client_print_status(st);
    }
    if (fflush(stdout) != 0) {
        sp_fail(&e, -EIO, "stdout: %s", strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (rc != 0)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "status failed");
    json_decref(req);
    json_decref(resp);
    client_close(&conn);
    return rc;
}
