/*
 * serve.c — `slotprove serve`: the supervisor of the proving daemon.
 *
 * The supervisor core (core.h: pool, children, dispatcher, jobs) behind a
 * unix socket: this file parses the options, makes the socket, and runs one
 * poll loop over signals, the listener, the clients (conn.c), and each
 * child's control socket and pidfd. It never blocks (non-blocking sockets,
 * bounded buffers) and never reads slot payloads, so it cannot crash with
 * its children. SIGTERM/SIGINT drain (SIGHUP is logged and ignored):
 * no new jobs, running ones finish, then the children are stopped; a second
 * signal stops at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "file_kind.h"
#include "log.h"
#include "metrics.h"
#include "metrics_http.h"
#include "http_api.h"
#include "sd.h"
#include "config.h"
#include "conn.h"
#include "core.h"
#include "keys_preload.h"
#include "server.h"
#include "loop.h"
#include "serve.h"
#include "sizing.h"
#include "sizing_host.h"
#include "sockpath.h"
#include "stop_signals.h"
#include "parallel.h"
#include "synth_plan.h"
#include "witness_serve.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: slotprove serve [options]\n"
        "\n"
        "Runs the proving daemon: this supervisor, N synthd processes and G gpuds,\n"
        "sharing a fixed pool of memfd slots. Clients talk to it with `slotprove\n"
        "submit/wait/cancel/status` over a unix socket (JSON lines, see run/README.md).\n"
        "\n"
        "options:\n"
        "  --socket PATH          socket to listen on (default %s); its directory\n"
        "                         must belong to this user with mode 0700 (0750 with\n"
        "                         --allow-gid); it is created if missing\n"
        "  --synth N              synthesizer processes (default: picked from the CPUs,\n"
        "                         GPUs, slots and keys, shown in status; max %d)\n"
        "  --gpuds G              prover processes (default: one per GPU, see --gpus;\n"
        "                         1 without a GPU; max %d; with the CPU backend more\n"
        "                         than 1 is a test option: they share the CPUs)\n"
        "  --slots M              shared-memory slots: proofs in flight at most (default\n"
        "                         synthds + 2 x gpuds, fewer if they do not fit the pool\n"
        "                         budget: 1/8 of the memory usable, at most 64 GiB)\n"
        "  --slot-bytes SIZE|auto bytes per slot, e.g. 512M, 4G; auto (default) sizes\n"
        "                         them for the largest --key, or without one the pool\n"
        "                         budget / slots (16M..16G); keys submitted later must\n"
        "                         fit. Memory usable: MemAvailable, or less left under\n"
        "                         the cgroup's memory.max. The choice is logged at start\n"
        "                         and shown in `status` (\"sizing\")\n"
        "  --synth-rss-max SIZE   kill and restart a synthd whose RssAnon passes SIZE\n"
        "  --backend auto|cpu|cuda gpud's prover backend (default auto: CUDA where this\n"
        "                         build has it and a GPU is visible, partitions the GPU\n"
        "                         cannot take proved on the CPU; else the CPU)\n"
        "  --gpus LIST            GPUs to prove on, one gpud each, e.g. 0,1 (indices or\n"
        "                         UUIDs; default: every visible GPU, CUDA_VISIBLE_DEVICES\n"
        "                         respected; with no GPU, one CPU gpud)\n"
        "  --gpu-mem SIZE         device memory each gpud may use (e.g. 16G; default: the\n"
        "                         GPU's free memory at start less 1 GiB and 1/32 of\n"
        "                         the device, divided among the gpuds on that GPU);\n"
        "                         keys that do not fit stream their points from host\n"
        "                         memory, one lean worker when two do not fit; too\n"
        "                         small for one worker: refused\n"
        "  --key NAME=PATH.zkey   preload a key, submitted by NAME (repeatable)\n"
        "  --key NAME=P.params:C.pce  preload a bellperson key (Filecoin's .params and\n"
        "                         cuzk's PCE of the same circuit; every point checked on\n"
        "                         its curve and in its subgroup once per SHA-256 of the\n"
        "                         pair); submit --bellperson OUT gets 192-byte proofs\n"
        "  --threads N            worker threads per process (default: gpud all CPUs,\n"
        "                         synthds their share of them, see status)\n"
        "  --max-attempts K       a partition whose own processing kills its process K\n"
        "                         times (crash signal, RSS limit, OOM kill; or its GPU\n"
        "                         fails it under --backend cuda) fails its job\n"
        "                         (default 3); external kills are retried\n"
        "  --result-ttl SECS      keep finished jobs for `wait` this long (default 600)\n"
        "  --file-timeout SECS    a submit's files (key, witnesses) must be read within\n"
        "                         this, or its job fails (default 30; a stalled mount)\n"
        "  --max-job-key SIZE     largest .zkey a client may attach with --zkey (default\n"
        "                         256M; it is copied and hashed); preload larger ones\n"
        "  --key-cache-max SIZE   bytes of client-attached keys held at once, all\n"
        "                         together (default 1G); past it, idle ones are dropped,\n"
        "                         else the submit is refused\n"
        "  --max-queued N         partitions submitted and not yet proved, over all jobs\n"
        "                         (default 4096); past it a submit gets \"queue full\"\n"
        "  --client-idle SECS     close a connection with nothing in or out for SECS\n"
        "                         (default 30; one waiting for a running job is not idle)\n"
        "  --max-client-conns N   idle connections one uid may hold at once (default 32;\n"
        "                         one waiting for a job is not idle)\n"
        "  --allow-uid UID        uid allowed to connect (repeatable; default: own uid);\n"
        "                         it must also reach the socket directory, so it has to\n"
        "                         be in the --allow-gid group\n"
        "  --allow-gid GID        group (number or name) allowed to connect (socket dir\n"
        "                         becomes 0750)\n"
        "  --trace-buffers        log BUFFERS[event] slot counts on every transition\n"
        "  --trace-times          log a TIMES line per proved partition: queue and slot\n"
        "                         waits, synthesis wall and CPU time, proving (ns)\n"
        "  --no-verify            gpud skips the pairing check of each proof before it is\n"
        "                         returned (for measuring raw proving speed only; by\n"
        "                         default a proof that fails is never returned and its\n"
        "                         job fails: \"the witness does not satisfy the circuit\")\n"
        "  --metrics ADDR:PORT    serve Prometheus metrics on http://ADDR:PORT/metrics\n"
        "                         (e.g. 127.0.0.1:9464; names in run/serve/README.md);\n"
        "                         one request a connection, answered within %d ms of\n"
        "                         its accept or closed; past %d connections the\n"
        "                         oldest still sending its request is closed\n"
        "  --http ADDR:PORT       serve rapidsnark proverServer's routes (POST\n"
        "                         /input/CIRCUIT, GET /status, POST /cancel) and many\n"
        "                         jobs at once (POST /jobs?circuit=CIRCUIT, GET\n"
        "                         /jobs/ID) on http://ADDR:PORT; CIRCUIT is a --key\n"
        "                         with a --witness-program; off by default; bodies of\n"
        "                         at most %u bytes; see run/serve/README.md\n"
        "  --http-token-file FILE every --http request must carry Authorization: Bearer\n"
        "                         and the token in FILE (one line, not readable by\n"
        "                         others); without it --http must be a loopback address\n"
        "  --metrics-cuzk-aliases also the cuzk_* series of cuzk's metrics (Curio's\n"
        "                         proving daemon), with cuzk's meanings: a request\n"
        "                         is a job (run/serve/README.md)\n"
        "  --config FILE          options from FILE, one `key = value` a line, key a\n"
        "                         long option without the dashes (e.g. slots = 8;\n"
        "                         no-verify = true); the command line overrides it;\n"
        "                         a regular file of at most %d bytes; see\n"
        "                         run/serve/README.md\n"
        "  -h, --help             this text\n"
        "\n"
        "SIGTERM or SIGINT: stop taking jobs, finish running ones, exit 0 (a second one:\n"
        "stop now, exit 1). SIGHUP is logged and changes nothing.\n",
        default_socket_path(), MAX_SYNTHDS, MAX_GPUDS, METRICS_HTTP_DEADLINE_MS,
        METRICS_HTTP_MAX_CONNS, (unsigned)HTTP_API_BODY_MAX, CONFIG_MAX_BYTES);
    fprintf(f, "\nwitness programs (input jobs):\n%s", witness_serve_help);
}

/* where each argument came from: "FILE:LINE" of --config, NULL: the command line */
static const char **arg_origin;

static int bad_opt(const char *opt, const char *val, const char *want)
{
    /* called right after getopt_long took "--opt val": val is argv[optind - 1] */
    const char *from = arg_origin && optind > 0 ? arg_origin[optind - 1] : NULL;
    if (from)
        fprintf(stderr, "slotprove serve: %s: %s = %s: expected %s\n", from, opt + 2, val, want);
    else
        fprintf(stderr, "slotprove serve: %s %s: expected %s\n", opt, val, want);
    return 2;
}

static int parse_opts(struct server *d, int argc, char **argv, char ***keys, int *nkeys)
{
    static const struct option opts[] = {
        { "socket", required_argument, NULL, 's' },
        { "synth", required_argument, NULL, 'n' },
        { "slots", required_argument, NULL, 'm' },
        { "gpuds", required_argument, NULL, 'G' },
        { "gpus", required_argument, NULL, 'P' },
        { "gpu-mem", required_argument, NULL, 0x101 }, /* long only */
        { "slot-bytes", required_argument, NULL, 'B' },
        { "synth-rss-max", required_argument, NULL, 'R' },
        { "backend", required_argument, NULL, 'b' },
        { "key", required_argument, NULL, 'k' },
        { "threads", required_argument, NULL, 't' },
        { "max-attempts", required_argument, NULL, 'a' },
        { "result-ttl", required_argument, NULL, 'T' },
        { "file-timeout", required_argument, NULL, 'F' },
        { "key-cache-max", required_argument, NULL, 'M' },
        { "max-queued", required_argument, NULL, 'Q' },
        { "client-idle", required_argument, NULL, 'I' },
        { "max-client-conns", required_argument, NULL, 'C' },
        { "allow-uid", required_argument, NULL, 'u' },
        { "allow-gid", required_argument, NULL, 'g' },
        { "max-job-key", required_argument, NULL, 'K' },
        { "trace-buffers", no_argument, NULL, 'x' },
        { "trace-times", no_argument, NULL, 'X' },
        { "no-verify", no_argument, NULL, 'V' },
        { "witness-program", required_argument, NULL, 'W' },
        { "witness-mem", required_argument, NULL, 'E' },
        { "witness-cpu", required_argument, NULL, 'U' },
        { "witness-time", required_argument, NULL, 'L' },
        { "config", required_argument, NULL, 'c' },
        { "metrics", required_argument, NULL, 0x100 }, /* long only */
        { "http", required_argument, NULL, 0x102 },
        { "http-token-file", required_argument, NULL, 0x103 },
        { "metrics-cuzk-aliases", no_argument, NULL, 0x1c0 },
        { "help", no_argument, NULL, 'h' },
        { 0, 0, 0, 0 },
    };
    struct config_args ca;
    struct sp_err ce;
    if (config_args(argc, argv, opts, &ca, &ce) < 0) {
        fprintf(stderr, "slotprove serve: --config: %s\n", ce.msg);
        return 2;
    }
    argc = ca.argc;
    argv = ca.argv;
    arg_origin = ca.origin;
    struct core_opts *o = &d->core.o;
    struct server_opts *so = &d->o;
    int c, gpuds_given = 0, gpus_given = 0;
    d->slots_given = d->slot_bytes_given = 0;
    so->socket_path = default_socket_path();
    o->gpuds = 1;
    o->synthds = 2;
    o->slots = 4;
    o->backend = "auto";
    o->max_attempts = 3;
    o->result_ttl_s = 600;
    o->file_timeout_s = 30;
    so->max_job_key = 256ull << 20;
    so->client_idle_s = 30;
    so->max_user_conns = 32;
    o->max_queued = 4096;
    o->key_cache_max = 1ull << 30;
    *keys = calloc((size_t)argc, sizeof(char *));
    *nkeys = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        unsigned v;
        switch (c) {
        case 's': so->socket_path = optarg; break;
        case 'n':
            if (parse_count(optarg, 1, MAX_SYNTHDS, &v) < 0)
                return bad_opt("--synth", optarg, "1..64");
            o->synthds = v;
            o->synthds_given = 1;
            break;
        case 'G':
            if (parse_count(optarg, 1, MAX_GPUDS, &v) < 0)
                return bad_opt("--gpuds", optarg, "1..16");
            o->gpuds = v;
            gpuds_given = 1;
            break;
        case 'P': {
            struct sp_err e;
            if (gpus_parse(&d->gpus, optarg, &e) < 0) {
                if (arg_origin[optind - 1])
                    fprintf(stderr, "slotprove serve: %s: gpus = %s: %s\n",
                            arg_origin[optind - 1], optarg, e.msg);
                else
                    fprintf(stderr, "slotprove serve: --gpus %s: %s\n", optarg, e.msg);
                return 2;
            }
            gpus_given = d->gpus_listed = 1;
            break;
        }
        case 'm':
            if (parse_count(optarg, 1, POOL_MAX_SLOTS, &v) < 0)
                return bad_opt("--slots", optarg, "1..256");
            o->slots = v;
            d->slots_given = 1;
            break;
        case 'B':
            o->slot_bytes = 0;
            if (strcmp(optarg, "auto") != 0 && !(o->slot_bytes = parse_size(optarg)))
                return bad_opt("--slot-bytes", optarg, "SIZE (512M, 4G) or auto");
            d->slot_bytes_given = o->slot_bytes != 0;
            break;
        case 'R':
            if (!(o->synth_rss_max = parse_size(optarg)))
                return bad_opt("--synth-rss-max", optarg, "SIZE (e.g. 2G)");
            break;
        case 'b': o->backend = optarg; break;
        case 0x101: /* --gpu-mem */
            if (!(o->gpu_mem = parse_size(optarg)))
                return bad_opt("--gpu-mem", optarg, "SIZE (e.g. 16G)");
            break;
        case 'k': (*keys)[(*nkeys)++] = optarg; break;
        case 't':
            if (parse_count(optarg, 0, 1024, &o->threads) < 0)
                return bad_opt("--threads", optarg, "0..1024 (0 = all CPUs)");
            o->threads_given = 1;
            break;
        case 'a':
            if (parse_count(optarg, 1, 1000, &o->max_attempts) < 0)
                return bad_opt("--max-attempts", optarg, "1..1000");
            break;
        case 'F':
            if (parse_count(optarg, 1, 3600, &o->file_timeout_s) < 0)
                return bad_opt("--file-timeout", optarg, "seconds, 1..3600");
            break;
        case 'T':
            if (parse_count(optarg, 0, 30 * 86400, &o->result_ttl_s) < 0)
                return bad_opt("--result-ttl", optarg, "seconds, 0..2592000");
            break;
        case 'u':
            if (so->n_allow_uid >= 16)
                return bad_opt("--allow-uid", optarg, "at most 16 of them");
            if (parse_count(optarg, 0, 0xfffffffe, &v) < 0)
                return bad_opt("--allow-uid", optarg, "a numeric uid");
            so->allow_uid[so->n_allow_uid++] = (uid_t)v;
            break;
        case 'g': {
            struct group *gr = NULL;
            if (parse_count(optarg, 0, 0xfffffffe, &v) < 0 && !(gr = getgrnam(optarg)))
                return bad_opt("--allow-gid", optarg, "a numeric gid or a group's name");
            so->allow_gid = gr ? gr->gr_gid : (gid_t)v;
            so->has_allow_gid = 1;
            break;
        }
        case 'K':
            if (!(so->max_job_key = parse_size(optarg)))
                return bad_opt("--max-job-key", optarg, "SIZE (e.g. 256M)");
            break;
        case 'M':
            if (!(o->key_cache_max = parse_size(optarg)))
                return bad_opt("--key-cache-max", optarg, "SIZE (e.g. 1G)");
            break;
        case 'Q':
            if (parse_count(optarg, 1, 1u << 24, &o->max_queued) < 0)
                return bad_opt("--max-queued", optarg, "partitions, 1..16777216");
            break;
        case 'I':
            if (parse_count(optarg, 1, 86400, &so->client_idle_s) < 0)
                return bad_opt("--client-idle", optarg, "seconds, 1..86400");
            break;
        case 'C':
            if (parse_count(optarg, 1, MAX_CONNS, &so->max_user_conns) < 0)
                return bad_opt("--max-client-conns", optarg, "1..256");
            break;
        case 'x': o->trace_buffers = 1; break;
        case 'X': o->trace_times = 1; break;
        case 'V': o->no_verify = 1; break; /* passed to gpud as --no-verify 1 */
        case 'W': case 'E': case 'U': case 'L':
            if (witness_serve_opt(c, optarg) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return -1; /* done: exit 0 */
        case 'c': break; /* taken out by config_args */
        case 0x100: d->metrics_addr = optarg; break; /* --metrics */
        case 0x102: d->http_addr = optarg; break;
        case 0x103: d->http_token_file = optarg; break;
        case 0x1c0: d->metrics_cuzk = 1; break;      /* --metrics-cuzk-aliases */
        default:
            fprintf(stderr, "see `slotprove serve --help`\n");
            return 2;
        }
    }
    if (optind != argc) {
        if (arg_origin[optind])
            fprintf(stderr, "slotprove serve: %s: unexpected %s\n", arg_origin[optind], argv[optind]);
        else
            fprintf(stderr, "slotprove serve: unexpected argument %s\n", argv[optind]);
        return 2;
    }
    arg_origin = NULL; /* bad_opt below is not about the argument at optind - 1 */
    if (!backend_name_ok(o->backend))
        return bad_opt("--backend", o->backend, "auto, cpu or cuda");
#ifndef SLOTPROVE_CUDA_BUILT
    if (strcmp(o->backend, "cuda") == 0) {
        fprintf(stderr, "slotprove serve: --backend cuda: this build has no CUDA backend "
                        "(nvcc was not found when it was built)\n");
        return 2;
    }
#endif
    /* one gpud per GPU: --gpus, else every visible GPU unless --gpuds says */
    if (gpus_given && strcmp(o->backend, "cpu") == 0) {
        fprintf(stderr, "slotprove serve: --gpus needs --backend cuda or auto\n");
        return 2;
    }
    if (gpus_given && gpuds_given && o->gpuds != d->gpus.n) {
        fprintf(stderr, "slotprove serve: --gpuds %u but --gpus names %u GPUs\n", o->gpuds,
                d->gpus.n);
        return 2;
    }
#ifdef SLOTPROVE_CUDA_BUILT
    if (!gpus_given && strcmp(o->backend, "cpu") != 0) {
        gpus_visible(&d->gpus);
        d->gpus_seen = d->gpus.n; /* the synthesis plan's GPU count, --gpuds or not */
        gpus_given = !gpuds_given && d->gpus.n > 0;
    }
#endif
    if (gpus_given)
        d->gpus_seen = d->gpus.n;
    d->sizing.gpuds_from = gpus_given ? (d->gpus_listed ? "--gpus" : "visible GPUs")
                           : gpuds_given ? "--gpuds" : "one CPU gpud (no GPU used)";
    if (gpus_given) {
        o->gpuds = d->gpus.n;
        o->gpus = d->gpus.ptr;
    }
    return 0;
}

/* The socket's directory: ours, and closed to everyone else. */
static int check_socket_dir(struct server *d, struct sp_err *e)
{
    char buf[sizeof(((struct sockaddr_un *)0)->sun_path)];
    if (strlen(d->o.socket_path) >= sizeof(buf)) {
        return sp_fail(e, -ENAMETOOLONG, "%s: socket path too long (max %zu bytes)",
                       d->o.socket_path, sizeof(buf) - 1);
    }
    strcpy(buf, d->o.socket_path);
    const char *dir = dirname(buf);
    mode_t want = d->o.has_allow_gid ? 0750 : 0700;
    struct stat st;
    if (stat(dir, &st) < 0) {
        if (errno != ENOENT || mkdir(dir, want) < 0 || stat(dir, &st) < 0) {
            return sp_fail(e, -errno, "%s: cannot create the socket directory: %s", dir,
                           strerror(errno));
        }
        if (d->o.has_allow_gid && chown(dir, (uid_t)-1, d->o.allow_gid) == 0)
            stat(dir, &st);
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
        return sp_fail(e, -EPERM, "%s: socket directory must be a directory owned by uid %u",
                       dir, (unsigned)geteuid());
    }
    mode_t bad = d->o.has_allow_gid ? 027 : 077;
    if ((st.st_mode & bad) || (d->o.has_allow_gid && st.st_gid != d->o.allow_gid)) {
        return sp_fail(e, -EPERM, "%s: socket directory is mode %04o%s; it must be %04o so "
                       "only allowed users can reach the socket", dir,
                       (unsigned)(st.st_mode & 07777),
                       d->o.has_allow_gid ? " or not in the allowed group" : "", (unsigned)want);
    }
    return 0;
}

static int listen_socket(struct server *d, struct sp_err *e)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    strcpy(a.sun_path, d->o.socket_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return sp_fail(e, -errno, "socket: %s", strerror(errno));
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
        close(fd);
        return sp_fail(e, -EADDRINUSE, "%s: another daemon is already listening there",
                       d->o.socket_path);
    }
    close(fd);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct stat st;
    if (lstat(a.sun_path, &st) == 0 && S_ISSOCK(st.st_mode))
        unlink(a.sun_path); /* stale socket of a dead daemon */
    else if (lstat(a.sun_path, &st) == 0) {
        close(fd);
        return sp_fail(e, -EEXIST, "%s: %s, not a socket: remove it or choose another "
                       "--socket", d->o.socket_path, file_kind(st.st_mode));
    }
    mode_t old = umask(0117);
    int rc = bind(fd, (struct sockaddr *)&a, sizeof(a));
    umask(old);
    /* with --allow-gid the group must be able to connect(): the socket is
     * 0660, so it has to belong to that group, not to ours */
    if (rc < 0 || chmod(a.sun_path, 0660) < 0 ||
        (d->o.has_allow_gid && chown(a.sun_path, (uid_t)-1, d->o.allow_gid) < 0) ||
        listen(fd, 128) < 0) {
        int rc = sp_fail(e, -errno, "%s: %s", d->o.socket_path, strerror(errno));
        close(fd);
        return rc;
    }
    return fd;
}

static void raise_fd_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
}

static void protect_from_oom(void)
{
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "-1000", 5) != 5)
        sup_log(LOG_NOTE, "note: cannot set oom_score_adj to -1000: %s", strerror(errno));
    if (fd >= 0)
        close(fd);
}

enum { PF_SIGNAL, PF_LISTEN, PF_CONN };

static int loop(struct server *d, int sfd)
{
    struct pollfd pf[2 + 2 * (MAX_SYNTHDS + MAX_GPUDS) + MAX_CONNS];
    int kind[sizeof(pf) / sizeof(pf[0])];
    struct conn *who[sizeof(pf) / sizeof(pf[0])];
    struct core *core = &d->core;

    for (;;) {
        int n = 0;
        pf[n] = (struct pollfd){ sfd, POLLIN, 0 };
        kind[n++] = PF_SIGNAL;
        pf[n] = (struct pollfd){ d->listen_fd, POLLIN, 0 };
        kind[n++] = PF_LISTEN;
        for (int i = 0; i < MAX_CONNS; i++) {
            struct conn *c = d->conns[i];
            if (!c)
                continue;
            pf[n] = (struct pollfd){ c->fd, (short)((conn_wants_input(c) ? POLLIN : 0) |
                                                    (c->outlen ? POLLOUT : 0)), 0 };
            kind[n] = PF_CONN;
            who[n++] = c;
        }
        /* the core's descriptors go after these, and are handled first */
        int rc = core_loop_turn(core, pf, n, (int)(sizeof(pf) / sizeof(pf[0])), 100);
        if (rc < 0) {
            sup_log(LOG_ERR, "event=error|poll: %s", strerror(-rc));
            return 1;
        }
        for (int i = 0; i < n; i++) {
            if (!pf[i].revents)
                continue;
            if (kind[i] == PF_SIGNAL) {
                struct signalfd_siginfo si;
                while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
                    if (si.ssi_signo == SIGHUP) {
                        sup_log(LOG_NOTE, "event=sighup|SIGHUP: nothing to reload (restart serve to "
                                "change its configuration); carrying on");
                        continue;
                    }
                    if (core->draining) {
                        sup_log(LOG_WARN, "event=stop_now|second signal: stopping now");
                        return 1;
                    }
                    sup_log(LOG_NOTE, "event=drain signal=%u running=%d|signal %u: draining (no new "
                            "jobs; %d running)", si.ssi_signo, jobs_active(&core->jobs),
                            si.ssi_signo, jobs_active(&core->jobs));
                    core->draining = DRAIN_NO_JOBS;
                }
            } else if (kind[i] == PF_LISTEN) {
                conn_accept(d);
            } else {
                struct conn *c = who[i];
                int still = 0;
                for (int q = 0; q < MAX_CONNS; q++)
                    still |= d->conns[q] == c;
                if (!still)
                    continue;
                if (pf[i].revents & POLLOUT)
                    conn_writable(d, c);
                if ((pf[i].revents & (POLLHUP | POLLERR)) && !(pf[i].events & POLLIN))
                    conn_hangup(d, c);
                else if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
                    conn_readable(d, c);
            }
        }
        for (int q = 0; q < MAX_CONNS; q++) {
            struct conn *c = d->conns[q];
            if (c && (c->closing == CONN_CLOSE_NOW || (c->closing == CONN_CLOSE_FLUSHED && c->outlen == 0)))
                conn_close(d, c);
        }
        uint64_t now = now_ns();
        conns_tick(d, now);
        core_tick(core, now);
        metrics_tick(d->metrics, core, now);
        sd_tick(&d->sd, core, now);
        if (core->draining && jobs_active(&core->jobs) == 0) {
            int pending = 0;
            for (int q = 0; q < MAX_CONNS; q++)
                if (d->conns[q] && d->conns[q]->outlen)
                    pending = 1;
            if (!d->flush_deadline_ns) { /* jobs done: flush the answers for up to 5 s */
                d->flush_deadline_ns = now + DRAIN_FLUSH_NS;
                core->draining = DRAIN_NO_DISPATCH; /* core_state.h */
            }
            if (!pending || now >= d->flush_deadline_ns)
                return 0;
        }
    }
}

/* synthds and their threads, unless --synth and --threads said (synth_plan.h) */
static void plan_synthesis(struct server *d)
{
    struct core *core = &d->core;
    struct core_opts *o = &core->o;
#ifdef SLOTPROVE_CUDA_BUILT
    int cuda_built = 1;
#else
    int cuda_built = 0;
#endif
    struct synth_plan_in in = {
        .cpus = parallel_threads(), .gpuds = o->gpuds,
        .gpu = synth_plan_gpu(o->backend, cuda_built, d->gpus_seen),
        .slots = d->slots_given ? o->slots : 0, .synthds = o->synthds_given ? o->synthds : 0,
        .threads_given = o->threads_given, .threads = o->threads, .max_synthds = MAX_SYNTHDS,
    };
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++) {
        const struct key_entry *k = &core->keys.keys[i];
        if (k->used && k->shape.domain_size > in.key_rows) {
            in.key_rows = k->shape.domain_size;
            in.key_coefs = k->shape.n_coefs;
        }
    }
    struct synth_plan p;
    synth_plan_pick(&in, &p);
    o->synthds = p.synthds;
    o->synth_threads = p.threads;
    snprintf(o->synth_plan, sizeof(o->synth_plan), "%s", p.why);
}

/* Bellperson keys' host memory (sizing_host.h): the .params decoded in
 * every gpud, the PCE mapped once, the slots, the partitions gpud workers
 * hold off their slots. Sets the slots and synthds not given; 0, or 2 with
 * the bytes needed on stderr when even the least plan does not fit. */
static int fit_host(struct server *d)
{
    struct core *core = &d->core;
    struct core_opts *o = &core->o;
    struct sizing_host_in in = { .usable = d->sizing.usable_bytes, .gpuds = o->gpuds,
                                 .slot_bytes = o->slot_bytes,
                                 /* the wanted count, not sizing_pick's pool-limited one: this
                                  * plan counts the children's memory itself */
                                 .slots = d->slots_given ? o->slots : o->synthds + 2 * o->gpuds,
                                 .synthds = o->synthds, .slots_given = d->slots_given,
                                 .synthds_given = o->synthds_given };
    for (uint32_t i = 0; i < CTL_MAX_KEYS; i++) {
        const struct key_entry *k = &core->keys.keys[i];
        struct stat ps, cs;
        /* the keys whose synthesis reads a PCE (bellperson's): their .params
         * are decoded in each gpud, the PCE mapped in every synthd */
        if (!k->used || k->pce_fd < 0 || fstat(k->fd, &ps) < 0 || fstat(k->pce_fd, &cs) < 0)
            continue;
        /* a worker's copy of a, b, c (domain_size each) and the witness (n_vars), 32 B a value */
        uint64_t w = 3 * (uint64_t)k->shape.domain_size * 32 + (uint64_t)k->shape.n_vars * 32;
        if ((uint64_t)ps.st_size > in.srs_bytes)
            in.srs_bytes = (uint64_t)ps.st_size;
        in.pce_bytes += (uint64_t)cs.st_size;
        if (w > in.worker_bytes)
            in.worker_bytes = w;
    }
    if (!in.srs_bytes || !in.usable)
        return 0;
    const char *ws = getenv("SLOTPROVE_GPUD_WORKERS"); /* gpud/main.c reads the same */
    in.workers_given = ws && atoi(ws) >= 1;
    in.workers = in.workers_given ? (unsigned)atoi(ws) : strcmp(o->backend, "cpu") == 0 ? 1 : 2;
    if (in.slots > POOL_MAX_SLOTS)
        in.slots = POOL_MAX_SLOTS;
    struct sizing_host h;
    sizing_host_plan(&in, &h);
    double G = 1073741824.0;
    if (!h.fits) {
        fprintf(stderr, "slotprove serve: not enough memory for the bellperson keys: %u gpud, %u "
                        "slots, %u synthds need %llu bytes (%.1f GiB: .params %.1f GiB per gpud, "
                        "PCE %.1f GiB, %u partitions of %.1f GiB off the slots per gpud, slots "
                        "of %.1f GiB), only %llu bytes (%.1f GiB) are usable%s\n",
                in.gpuds, h.slots, h.synthds, (unsigned long long)h.need_bytes, h.need_bytes / G,
                in.srs_bytes / G, in.pce_bytes / G, in.workers, in.worker_bytes / G,
                in.slot_bytes / G, (unsigned long long)in.usable, in.usable / G,
                in.workers_given && in.workers > 1 ? " (SLOTPROVE_GPUD_WORKERS=1 holds one partition per gpud)" : "");
        return 2;
    }
    if (h.workers < in.workers) {
        fprintf(stderr, "slotprove serve: bellperson keys: one partition per gpud at a time: "
                        "%u would not fit %.1f GiB of host memory\n", in.workers, in.usable / G);
        o->gpud_workers = h.workers;
    }
    if (h.slots != o->slots || h.synthds != o->synthds)
        fprintf(stderr, "slotprove serve: bellperson keys: %u slots and %u synthds (of %u and %u) "
                        "fit %.1f GiB of host memory: %.1f GiB planned\n",
                h.slots, h.synthds, o->slots, o->synthds, in.usable / G, h.need_bytes / G);
    o->slots = h.slots;
    o->synthds = h.synthds;
    return 0;
}

/* the core's proved hook: the proof-duration histogram */
static void proved(void *ctx, uint64_t busy_ns)
{
    metrics_proved(((struct server *)ctx)->metrics, busy_ns);
}

/* the core's job_ended hook: the metrics, then the waiting clients */
static void job_ended(void *ctx, struct job *j)
{
    struct server *d = ctx;
    metrics_job_ended(d->metrics, j);
    conns_job_ended(ctx, j);
}

/* --http: its threads reach the core through the listening socket, as
 * any client (http_api.h); the socket's path is asked of the socket itself,
 * which is systemd's under socket activation. */
static int start_http(struct server *d, struct sp_err *e)
{
    static struct sockaddr_un a;
    socklen_t len = sizeof(a);
    if (getsockname(d->listen_fd, (struct sockaddr *)&a, &len) < 0 || a.sun_family != AF_UNIX ||
        !a.sun_path[0])
        return sp_fail(e, -ENOTSOCK, "--http: the daemon's socket has no path to connect to");
    unsigned n;
    const char *const *names = witness_serve_names(&n);
    struct http_api_opts o = { .addr = d->http_addr, .token_file = d->http_token_file,
                               .socket_path = a.sun_path, .circuits = names, .ncircuits = n };
    int rc = http_api_start(&o, &d->http, e);
    if (rc == 0)
        sup_log(LOG_NOTE, "event=http|http on %s (%s; %u circuits)", d->http_addr,
                d->http_token_file ? "bearer token" : "loopback, no token", n);
    return rc;
}

int cmd_serve(int argc, char **argv)
{
    static struct server d;
    struct core *core = &d.core;
    struct sp_err e = { "" };
    char **keys;
    int nkeys, rc;

    /* before anything can start a thread (the key loader's worker pool,
     * intake readers, libmicrohttpd): every thread inherits the mask, so
     * SIGTERM/SIGINT reach only the loop's signalfd (stop_signals.h) */
    if ((rc = stop_signals_block(NULL)) < 0) {
        fprintf(stderr, "slotprove serve: cannot block SIGTERM/SIGINT/SIGHUP: %s\n", strerror(-rc));
        return 1;
    }
    memset(&d, 0, sizeof(d));
    core_init(core);
    d.listen_fd = d.spare_fd = -1;
    log_setup("slotprove serve", 1, LOG_NOTE, 0);
    core->o.log_stamp = 1; /* the children's lines too */
    if ((rc = parse_opts(&d, argc, argv, &keys, &nkeys)) != 0)
        return rc < 0 ? 0 : rc; /* < 0: --help was printed */
    core->keys.max_job_key = d.o.max_job_key;
    core->keys.hash_keys = 1;
    core->hooks = (struct core_hooks){ .ctx = &d, .job_ended = job_ended, .proved = proved };
    signal(SIGPIPE, SIG_IGN);
    raise_fd_limit();
    for (int i = 0; i < nkeys; i++)
        if (keys_preload(&core->keys, keys[i], &e) < 0) {
            fprintf(stderr, "slotprove serve: %s\n", e.msg);
            return 1;
        }
    free(keys);
    if (witness_serve_setup(core, &e) < 0) {
        fprintf(stderr, "slotprove serve: %s\n", e.msg);
        return 1;
    }
    if (!core->o.slot_bytes) /* auto: the largest --key, else from memory (sizing.h) */
        core->o.slot_bytes = keys_max_slot_bytes(&core->keys);
    plan_synthesis(&d); /* synthds first: the default slot count follows them */
    sizing_pick(&d.sizing, core->o.synthds, core->o.gpuds, d.slots_given, d.slot_bytes_given,
                keys_max_slot_bytes(&core->keys), &core->o.slots, &core->o.slot_bytes);
    if ((rc = fit_host(&d)) != 0)
        return rc;
    /* no key and no --slot-bytes: the slots are sized for the largest key
     * memory allows, so their pages come as jobs write them (sizing.h) */
    core->o.lazy_pool = strcmp(d.sizing.slot_bytes_from, "memory") == 0;
    if (keys_max_slot_bytes(&core->keys) > core->o.slot_bytes) {
        fprintf(stderr, "slotprove serve: --slot-bytes %llu is too small: the largest --key needs "
                        "%llu-byte slots\n", (unsigned long long)core->o.slot_bytes,
                (unsigned long long)keys_max_slot_bytes(&core->keys));
        return 2;
    }
    /* systemd's socket (sd.h), else our own */
    if ((d.listen_fd = sd_activated_socket(&e)) < -1) {
        fprintf(stderr, "slotprove serve: %s\n", e.msg);
        return 1;
    }
    d.activated = d.listen_fd >= 0;
    if (!d.activated && (check_socket_dir(&d, &e) < 0 || (d.listen_fd = listen_socket(&d, &e)) < 0)) {
        fprintf(stderr, "slotprove serve: %s\n", e.msg);
        return 1;
    }
    sd_setup(&d.sd);
    d.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    protect_from_oom();

    int sfd = stop_signals_fd(); /* the set was blocked first thing, above */
    if (sfd < 0) {
        fprintf(stderr, "slotprove serve: signalfd: %s\n", strerror(-sfd));
        if (!d.activated)
            unlink(d.o.socket_path);
        return 1;
    }
    if (d.metrics_addr && !(d.metrics = metrics_start(d.metrics_addr, d.metrics_cuzk, &e))) {
        fprintf(stderr, "slotprove serve: %s\n", e.msg);
        if (!d.activated)
            unlink(d.o.socket_path);
        return 1;
    }
    if (d.http_addr && (rc = start_http(&d, &e)) < 0) {
        fprintf(stderr, "slotprove serve: %s\n", e.msg);
        metrics_stop(d.metrics);
        if (!d.activated)
            unlink(d.o.socket_path);
        return rc == -EINVAL ? 2 : 1;
    }

    if ((rc = core_start(core, &e)) < 0) {
        fprintf(stderr, "slotprove serve: %s\n", e.msg);
        http_api_stop(d.http);
        core_shutdown(core);
        metrics_stop(d.metrics);
        if (!d.activated)
            unlink(d.o.socket_path);
        return 1;
    }
    sup_log(LOG_NOTE, "event=listening synthds=%u gpuds=%u slots=%u slot_bytes=%llu|listening on %s: "
            "%u synthd, %u gpud (%s; %s), %u slots (%s) of %.1f MiB "
            "(%s%s); memory usable %.1f GiB (%s), pool budget %.1f GiB",
            core->o.synthds, core->o.gpuds, core->o.slots, (unsigned long long)core->pool.slot_bytes,
            d.activated ? "the socket systemd passed" : d.o.socket_path,
            core->o.synthds, core->o.gpuds, core->o.backend,
            d.sizing.gpuds_from, core->o.slots, d.sizing.slots_from,
            core->o.slot_bytes / 1048576.0, d.sizing.slot_bytes_from,
            core->o.lazy_pool ? "; not prefaulted: pages are allocated as jobs fill the slots" : "",
            d.sizing.usable_bytes / 1073741824.0, d.sizing.usable_from,
            d.sizing.pool_budget_bytes / 1073741824.0);
    sup_log(LOG_NOTE, "event=synthesis|synthesis %s", core->o.synth_plan);
    rc = loop(&d, sfd);
    http_api_stop(d.http); /* its jobs still in the daemon are abandoned with it */
    core_shutdown(core);
    for (int i = 0; i < MAX_CONNS; i++)
        if (d.conns[i]) {
            conn_writable(&d, d.conns[i]);
            conn_close(&d, d.conns[i]);
        }
    metrics_stop(d.metrics);
    if (!d.activated) /* systemd's socket stays for the next start */
        unlink(d.o.socket_path);
    sup_log(LOG_NOTE, "event=stopped|stopped");
    return rc;
}
