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
#include "output.h"
#include "request.h"
#include "run.h"

#define DEFAULT_SOCKET "/run/slotprove/slotprove.sock"
#define RESPONSE_LINE_MAX ((size_t)64 << 20) /* proofs of 64 partitions fit easily */
#define TABLE_CELL_MAX 48                    /* status tables truncate wider cells */
#define TABLE_COLS_MAX 32

const char *default_socket_path(void)
{
    const char *s = getenv("SLOTPROVE_SOCKET");
    return s && *s ? s : DEFAULT_SOCKET;
}

/* ---- connection ----------------------------------------------------------- */

struct conn {
    int fd;
    const char *path;
    char *buf;      /* received bytes; buf[0..len) */
    size_t len, cap;
    size_t scanned; /* bytes of buf already searched for '\n' */
    size_t consumed; /* bytes of the line last returned, to drop on the next read */
};

static int conn_open(struct conn *c, const char *path, struct sp_err *e)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->path = path;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path))
        return sp_fail(e, -ENAMETOOLONG, "cannot connect to %s: %s", path, strerror(ENAMETOOLONG));
    memcpy(sa.sun_path, path, strlen(path) + 1);
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        int err = errno;
        return sp_fail(e, -err, "socket: %s", strerror(err));
    }
    int rc;
    do
        rc = connect(c->fd, (struct sockaddr *)&sa, sizeof(sa));
    while (rc < 0 && errno == EINTR);
    if (rc < 0) {
        int err = errno;
        close(c->fd);
        c->fd = -1;
        return sp_fail(e, -err, "cannot connect to %s: %s%s", path, strerror(err),
                       err == ENOENT || err == ECONNREFUSED ? " (is `slotprove serve` running?)"
                                                            : "");
    }
    return 0;
}

static void conn_close(struct conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->buf);
    c->fd = -1;
    c->buf = NULL;
}

/* Sends one request line, with fds attached to its first byte. */
static int conn_send(struct conn *c, const char *line, size_t len, const int *fds, unsigned nfds,
                     struct sp_err *e)
{
    union {
        char b[CMSG_SPACE(sizeof(int) * (REQUEST_MAX_WITNESSES + 1))];
        struct cmsghdr align;
    } u;
    size_t off = 0;

    if (nfds > REQUEST_MAX_WITNESSES + 1)
        return sp_fail(e, SP_EINTERNAL, "%u descriptors in one request", nfds);
    while (off < len) {
        struct iovec iov = { .iov_base = (char *)line + off, .iov_len = len - off };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        if (off == 0 && nfds > 0) {
            memset(&u, 0, sizeof(u));
            mh.msg_control = u.b;
            mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
            struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
            memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
        }
        ssize_t n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
        if (n < 0) {
            int err = errno;
            if (err == EINTR)
                continue;
            return sp_fail(e, -err, "%s: cannot send the request: %s", c->path, strerror(err));
        }
        off += (size_t)n;
    }
    return 0;
}

/* Reads the next response line; *line is NUL-terminated (the '\n' replaced)
 * and stays valid until the next call. */
static int conn_read_line(struct conn *c, char **line, size_t *len, struct sp_err *e)
{
    if (c->consumed) {
        memmove(c->buf, c->buf + c->consumed, c->len - c->consumed);
        c->len -= c->consumed;
        c->consumed = 0;
        c->scanned = 0;
    }
    for (;;) {
        char *nl = c->len > c->scanned ? memchr(c->buf + c->scanned, '\n', c->len - c->scanned)
                                       : NULL;
        if (nl) {
            *nl = 0;
            *line = c->buf;
            *len = (size_t)(nl - c->buf);
            c->consumed = *len + 1;
            return 0;
        }
        c->scanned = c->len;
        if (c->len > RESPONSE_LINE_MAX)
            return sp_fail(e, SP_EFORMAT, "%s: a response from the daemon exceeds %zu MiB",
                           c->path, RESPONSE_LINE_MAX >> 20);
        if (c->cap - c->len < 4096) {
            size_t ncap = c->cap ? c->cap * 2 : 65536;
            if (ncap > RESPONSE_LINE_MAX + 2)
                ncap = RESPONSE_LINE_MAX + 2;
            char *nb = realloc(c->buf, ncap);
            if (!nb)
                return sp_fail(e, -ENOMEM, "out of memory");
            c->buf = nb;
            c->cap = ncap;
        }
        ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
        if (n < 0) {
            int err = errno;
            if (err == EINTR)
                continue;
            return sp_fail(e, -err, "%s: %s", c->path, strerror(err));
        }
        if (n == 0)
            return sp_fail(e, -EPIPE, "%s: the daemon closed the connection%s", c->path,
                           c->len ? " in the middle of a response" : " without answering");
        c->len += (size_t)n;
    }
}

/* Replaces control characters, so a message from the daemon cannot drive
 * the terminal. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

/*
 * Sends req (and fds) and reads the response object into *resp. An
 * {"ok":false} answer is returned as an error carrying the daemon's reason;
 * then *resp is still set (the caller may look at "state") and must be freed.
 */
static int call(struct conn *c, json_t *req, const int *fds, unsigned nfds, json_t **resp,
                struct sp_err *e)
{
    *resp = NULL;
    char *s = json_dumps(req, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!s)
        return sp_fail(e, -ENOMEM, "cannot encode the request");
    size_t n = strlen(s);
    if (n + 1 > REQUEST_LINE_MAX) {
        free(s);
        return sp_fail(e, -E2BIG, "the request is %zu bytes; the protocol allows %d", n + 1,
                       REQUEST_LINE_MAX);
    }
    char *line = realloc(s, n + 2);
    if (!line) {
        free(s);
        return sp_fail(e, -ENOMEM, "out of memory");
    }
    line[n] = '\n';
    line[n + 1] = 0;
    struct sp_err send_err = { "" };
    int src = conn_send(c, line, n + 1, fds, nfds, &send_err);
    free(line);

    /* Even when sending failed (the daemon may have rejected the request and
     * hung up), its answer may be waiting: prefer it to EPIPE. */
    char *rl = NULL;
    size_t rlen = 0;
    int rc = conn_read_line(c, &rl, &rlen, e);
    if (rc < 0) {
        if (src < 0)
            *e = send_err;
        return src < 0 ? src : rc;
    }
    json_error_t je;
    json_t *o = json_loadb(rl, rlen, 0, &je);
    if (!o || !json_is_object(o) || !json_is_boolean(json_object_get(o, "ok"))) {
        json_decref(o);
        return sp_fail(e, -EPROTO, "%s: malformed response from the daemon%s%s", c->path,
                       o ? "" : ": ", o ? "" : je.text);
    }
    *resp = o;
    if (!json_is_true(json_object_get(o, "ok"))) {
        const char *why = json_string_value(json_object_get(o, "error"));
        const char *state = json_string_value(json_object_get(o, "state"));
        int rc2 = sp_fail(e, SP_EINTERNAL, "%s", why ? why : state ? state : "request failed");
        sanitize(e->msg);
        return rc2;
    }
    return 0;
}

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

/* Fails early when an output path cannot be written (its directory is
 * missing or read-only, or the path is a directory), before any proving. */
static int check_output_path(const char *path, struct sp_err *e)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return sp_fail(e, -EISDIR, "%s: %s", path, strerror(EISDIR));
    char *dir = strdup(path);
    if (!dir)
        return sp_fail(e, -ENOMEM, "out of memory");
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash) {
        slash[slash == dir ? 1 : 0] = 0;
        d = dir;
    }
    int rc = 0;
    if (access(d, W_OK | X_OK) < 0) {
        int err = errno;
        rc = sp_fail(e, -err, "%s: %s", path, strerror(err));
    }
    free(dir);
    return rc;
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

/* ---- results -------------------------------------------------------------- */

/* snarkjs's layout (common/proof.c): indent 1, key order kept, no trailing
 * newline; an empty public array is "[\n]". */
static char *dump_proof(json_t *v)
{
    return json_dumps(v, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
}

static char *dump_public(json_t *v)
{
    if (json_is_array(v) && json_array_size(v) == 0)
        return strdup("[\n]");
    return json_dumps(v, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
}

/*
 * Writes a done job's outputs. One partition: the proof object and the
 * public array, as `slotprove prove` writes them. Several: an array of proofs
 * and an array of public arrays, in partition order. want is the expected
 * number of partitions, or 0 when unknown.
 */
static int write_results(json_t *resp, size_t want, const char *proof_path,
                         const char *public_path, struct sp_err *e)
{
    json_t *proofs = json_object_get(resp, "proofs"), *pub = json_object_get(resp, "public");
    if (!json_is_array(proofs) || !json_is_array(pub) || json_array_size(proofs) == 0 ||
        json_array_size(proofs) != json_array_size(pub))
        return sp_fail(e, -EPROTO, "malformed response from the daemon: \"proofs\" and "
                                   "\"public\" must be arrays of the same, non-zero length");
    size_t n = json_array_size(proofs);
    if (want && n != want)
        return sp_fail(e, -EPROTO, "the daemon returned %zu proofs for %zu witnesses", n, want);
    for (size_t i = 0; i < n; i++)
        if (!json_is_object(json_array_get(proofs, i)) || !json_is_array(json_array_get(pub, i)))
            return sp_fail(e, -EPROTO, "malformed response from the daemon: proof %zu is not "
                                       "an object with an array of public signals", i);
    char *ptext, *qtext;
    if (n == 1) {
        ptext = dump_proof(json_array_get(proofs, 0));
        qtext = dump_public(json_array_get(pub, 0));
    } else {
        ptext = dump_proof(proofs);
        qtext = json_dumps(pub, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    }
    int rc;
    if (!ptext || !qtext) {
        rc = sp_fail(e, -ENOMEM, "out of memory");
    } else {
        const char *paths[2] = { proof_path, public_path };
        const char *texts[2] = { ptext, qtext };
        rc = write_outputs(2, paths, texts, e);
    }
    free(ptext);
    free(qtext);
    return rc;
}

/*
 * Sends wait for job on c and handles the answer: writes the outputs when
 * both paths are given, else prints the final state.
 */
static int wait_job(struct conn *c, const char *job, size_t want, const char *proof_path,
                    const char *public_path, struct sp_err *e)
{
    json_t *req = json_object(), *resp = NULL;
    json_object_set_new(req, "op", json_string("wait"));
    json_object_set_new(req, "job", json_string(job));
    int rc = call(c, req, NULL, 0, &resp, e);
    json_decref(req);
    if (rc < 0)
        goto out;
    const char *state = json_string_value(json_object_get(resp, "state"));
    if (!state || strcmp(state, "done") != 0) {
        rc = sp_fail(e, -EPROTO, "job %s ended in state \"%.40s\"", job, state ? state : "?");
        sanitize(e->msg);
        goto out;
    }
    if (proof_path)
        rc = write_results(resp, want, proof_path, public_path, e);
    else if (printf("done\n") < 0 || fflush(stdout) != 0)
        rc = sp_fail(e, -EIO, "stdout: %s", strerror(errno));
out:
    json_decref(resp);
    return rc;
}

/* ---- submit --------------------------------------------------------------- */

static void submit_usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove submit [--socket PATH] (--key NAME | --zkey CIRCUIT.zkey)\n"
            "                        --witness W.wtns [--witness W.wtns ...]\n"
            "                        [--wait --proof PROOF.json --public PUBLIC.json]\n"
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
            "  --wait           stay connected until the job ends and write its outputs;\n"
            "                   needs --proof and --public\n"
            "  --proof PATH     where --wait writes the proof: with one witness snarkjs's\n"
            "                   proof.json; with several a JSON array of proofs in\n"
            "                   witness order\n"
            "  --public PATH    where --wait writes the public signals: with one witness\n"
            "                   snarkjs's public.json; with several a JSON array of arrays\n"
            "  -h, --help       this text\n"
            "\n"
            "Outputs are written atomically (temporary file + rename). Without --wait,\n"
            "fetch them later with `slotprove wait --proof ... --public ... JOB`.\n"
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
        { "proof", required_argument, NULL, 'p' },
        { "public", required_argument, NULL, 'P' },
        { "wait", no_argument, NULL, 'W' },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *sock = NULL, *key = NULL, *zkey = NULL, *proof = NULL, *pub = NULL;
    const char *wit[REQUEST_MAX_WITNESSES];
    unsigned nwit = 0, too_many = 0;
    int wait = 0, c;

    static char prog[] = "slotprove submit"; /* for getopt's messages */
    argv[0] = prog;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': sock = optarg; break;
        case 'k': key = optarg; break;
        case 'z': zkey = optarg; break;
        case 'w':
            if (nwit < REQUEST_MAX_WITNESSES)
                wit[nwit++] = optarg;
            else
                too_many = 1;
            break;
        case 'p': proof = optarg; break;
        case 'P': pub = optarg; break;
        case 'W': wait = 1; break;
        case 'h': submit_usage(stdout); return 0;
        default: return usage_error(submit_usage, NULL);
        }
    }
    if (optind < argc)
        return usage_error(submit_usage, "unexpected argument \"%s\"", argv[optind]);
    if (!key == !zkey)
        return usage_error(submit_usage, "give exactly one of --key or --zkey");
    if (nwit == 0)
        return usage_error(submit_usage, "give at least one --witness");
    if (too_many)
        return usage_error(submit_usage, "at most %d witnesses per job",
                           REQUEST_MAX_WITNESSES);
    if (wait && (!proof || !pub))
        return usage_error(submit_usage, "--wait needs --proof and --public");
    if (!wait && (proof || pub))
        return usage_error(submit_usage, "--proof and --public are written by --wait; add "
                                         "--wait, or fetch them later with `slotprove wait`");
    if (wait && strcmp(proof, pub) == 0)
        return usage_error(submit_usage, "--proof and --public must be different files");
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
    struct conn conn = { .fd = -1 };
    int fds[REQUEST_MAX_WITNESSES + 1];
    unsigned nfds = 0;
    int rc = 1;
    json_t *req = json_object(), *resp = NULL, *names = json_array();
    char job[JOB_ID_HEX + 1];

    if (wait && (check_output_path(proof, &e) < 0 || check_output_path(pub, &e) < 0))
        goto out;
    if (zkey) {
        int fd = open_input(zkey, &e);
        if (fd < 0)
            goto out;
        fds[nfds++] = fd;
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
    json_object_set(req, "witnesses", names);

    if (conn_open(&conn, sock, &e) < 0 || call(&conn, req, fds, nfds, &resp, &e) < 0)
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
    if (wait && wait_job(&conn, job, nwit, proof, pub, &e) < 0)
        goto out;
    rc = 0;
out:
    if (rc != 0)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "submit failed");
    for (unsigned i = 0; i < nfds; i++)
        close(fds[i]);
    conn_close(&conn);
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
            "usage: slotprove wait [--socket PATH] [--proof PROOF.json --public PUBLIC.json] JOB\n"
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
            "  -h, --help       this text\n"
            "\n"
            "Outputs are written atomically (temporary file + rename).\n"
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
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *sock = NULL, *proof = NULL, *pub = NULL;
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
    if (proof && strcmp(proof, pub) == 0)
        return usage_error(wait_usage, "--proof and --public must be different files");
    if (!sock)
        sock = default_socket_path();

    struct sp_err e = { "" };
    struct conn conn = { .fd = -1 };
    int rc = 1;
    if ((!proof || (check_output_path(proof, &e) == 0 && check_output_path(pub, &e) == 0)) &&
        conn_open(&conn, sock, &e) == 0 && wait_job(&conn, job, 0, proof, pub, &e) == 0)
        rc = 0;
    if (rc != 0)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "wait failed");
    conn_close(&conn);
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
    struct conn conn = { .fd = -1 };
    json_t *req = json_object(), *resp = NULL;
    int rc = 1;
    json_object_set_new(req, "op", json_string("cancel"));
    json_object_set_new(req, "job", json_string(job));
    int crc = conn_open(&conn, sock, &e);
    if (crc == 0)
        crc = call(&conn, req, NULL, 0, &resp, &e);
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
        sanitize(buf);
        if (printf("%s\n", buf) < 0 || fflush(stdout) != 0)
            sp_fail(&e, -EIO, "stdout: %s", strerror(errno));
        else
            rc = 0;
    }
    if (rc != 0)
        fprintf(stderr, "slotprove: %s\n", e.msg[0] ? e.msg : "cancel failed");
    json_decref(req);
    json_decref(resp);
    conn_close(&conn);
    return rc;
}

/* ---- status --------------------------------------------------------------- */

/* Text of a scalar (or, compactly, of a nested value) for one line or cell. */
static char *value_text(json_t *v)
{
    char buf[64];
    switch (json_typeof(v)) {
    case JSON_STRING: {
        char *s = strdup(json_string_value(v));
        if (s)
            sanitize(s);
        return s;
    }
    case JSON_INTEGER:
        snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
        return strdup(buf);
    case JSON_REAL:
        snprintf(buf, sizeof(buf), "%.6g", json_real_value(v));
        return strdup(buf);
    case JSON_TRUE: return strdup("true");
    case JSON_FALSE: return strdup("false");
    case JSON_NULL: return strdup("-");
    default: {
        char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
        if (s)
            sanitize(s);
        return s;
    }
    }
}

static int is_scalar(json_t *v)
{
    return !json_is_object(v) && !json_is_array(v);
}

static void print_key(const char *key, int indent)
{
    char *k = strdup(key);
    if (k)
        sanitize(k);
    printf("%*s%s:", indent, "", k ? k : "?");
    free(k);
}

/* Prints an array of objects as a table: one column per key (first seen
 * order), one row per object, "-" where a row lacks the key. */
static void print_table(json_t *rows, int indent)
{
    const char *cols[TABLE_COLS_MAX];
    size_t ncols = 0, width[TABLE_COLS_MAX], i, k;
    json_t *row, *v;
    const char *key;

    json_array_foreach(rows, i, row) {
        json_object_foreach(row, key, v) {
            size_t j = 0;
            while (j < ncols && strcmp(cols[j], key) != 0)
                j++;
            if (j == ncols && ncols < TABLE_COLS_MAX)
                cols[ncols++] = key;
        }
    }
    for (k = 0; k < ncols; k++) {
        width[k] = strlen(cols[k]);
        json_array_foreach(rows, i, row) {
            json_t *cell = json_object_get(row, cols[k]);
            char *t = cell ? value_text(cell) : NULL;
            size_t w = t ? strlen(t) : 1;
            if (w > width[k])
                width[k] = w;
            free(t);
        }
        if (width[k] > TABLE_CELL_MAX)
            width[k] = TABLE_CELL_MAX;
    }
    printf("%*s", indent, "");
    for (k = 0; k < ncols; k++) {
        char *h = strdup(cols[k]);
        if (h)
            sanitize(h);
        if (k + 1 < ncols)
            printf("%-*.*s  ", (int)width[k], (int)width[k], h ? h : "?");
        else
            printf("%.*s\n", (int)width[k], h ? h : "?");
        free(h);
    }
    json_array_foreach(rows, i, row) {
        printf("%*s", indent, "");
        for (k = 0; k < ncols; k++) {
            json_t *cell = json_object_get(row, cols[k]);
            char *t = cell ? value_text(cell) : NULL;
            const char *s = t ? t : "-";
            if (strlen(s) > width[k] && width[k] > 3)
                printf("%.*s...", (int)width[k] - 3, s);
            else if (k + 1 < ncols)
                printf("%-*.*s", (int)width[k], (int)width[k], s);
            else
                printf("%.*s", (int)width[k], s);
            fputs(k + 1 < ncols ? "  " : "\n", stdout);
            free(t);
        }
    }
}

/* Prints "key: value", or "key:" and the nested value indented below it. */
static void print_node(const char *key, json_t *v, int indent)
{
    size_t i, n;
    json_t *x;
    const char *k;

    if (is_scalar(v)) {
        char *t = value_text(v);
        print_key(key, indent);
        printf(" %s\n", t ? t : "?");
        free(t);
        return;
    }
    if (json_is_object(v)) {
        print_key(key, indent);
        if (json_object_size(v) == 0) {
            printf(" (none)\n");
            return;
        }
        putchar('\n');
        json_object_foreach(v, k, x)
            print_node(k, x, indent + 2);
        return;
    }
    n = json_array_size(v);
    int scalars = 1, objects = 1;
    json_array_foreach(v, i, x) {
        scalars &= is_scalar(x);
        objects &= json_is_object(x);
    }
    print_key(key, indent);
    if (n == 0) {
        printf(" (none)\n");
    } else if (scalars) {
        json_array_foreach(v, i, x) {
            char *t = value_text(x);
            printf("%s%s", i ? ", " : " ", t ? t : "?");
            free(t);
        }
        putchar('\n');
    } else if (objects) {
        putchar('\n');
        print_table(v, indent + 2);
    } else {
        putchar('\n');
        json_array_foreach(v, i, x) {
            char idx[32];
            snprintf(idx, sizeof(idx), "[%zu]", i);
            print_node(idx, x, indent + 2);
        }
    }
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
    struct conn conn = { .fd = -1 };
    json_t *req = json_object(), *resp = NULL;
    int rc = 1;
    json_object_set_new(req, "op", json_string("status"));
    if (conn_open(&conn, sock, &e) < 0 || call(&conn, req, NULL, 0, &resp, &e) < 0)
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
        const char *k;
        json_t *v;
        json_object_foreach(st, k, v)
            print_node(k, v, 0);
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
    conn_close(&conn);
    return rc;
}
