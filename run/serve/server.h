/*
 * server.h — `slotprove serve`: the supervisor core (core.h) behind a unix
 * socket.
 *
 * serve.c parses the options, creates the socket directory and socket,
 * and runs the poll loop over signals, the listener, the clients (conn.c)
 * and the core's children. conn.c speaks the socket protocol (request.h)
 * and nothing else: it turns requests into core calls and job ends into
 * answers (conn.h); status.c the status answer (status.h). This header
 * holds the shared types only.
 */
#ifndef SLOTPROVE_SERVER_H
#define SLOTPROVE_SERVER_H

#include <sys/types.h>

#include "core_state.h"
#include "ctl.h"
#include "gpus.h"
#include "request.h"
#include "sd.h"
#include "sizing.h"

struct metrics;
struct http_api;

#define MAX_CONNS 1024
/* Table slots only the daemon's own uid may take, so its `status` answers
 * while other users fill the rest; and the most connections of any kind one
 * uid may hold, so no one user fills the table (--max-client-conns caps a
 * uid's idle ones: see conn_accept). */
#define CONN_RESERVED_OWN 16
#define CONN_MAX_PER_UID (MAX_CONNS / 4)

/* A connection's way out (CONN_OPEN while it is served). */
enum conn_closing {
    CONN_OPEN = 0,
    CONN_CLOSE_FLUSHED = 1, /* close once out is flushed */
    CONN_CLOSE_NOW = 2,     /* close now (not reading, or it went wrong) */
};

struct conn {
    int fd;
    uid_t uid;
    gid_t gid;
    char *in;
    size_t inlen;
    int fds[REQUEST_MAX_FDS];
    int nfds;
    char *out;
    size_t outlen, outcap;
    struct job *waiting;       /* answer when this job ends */
    struct job *streaming;     /* results being sent, one partition a line */
    uint32_t stream_next;      /* the next partition to send */
    uint64_t last_active_ns;   /* last byte in or out: for the idle timeout */
    int closing;               /* enum conn_closing */
};

struct server_opts {
    const char *socket_path;
    uint64_t max_job_key;      /* bytes: largest key a client may attach */
    unsigned client_idle_s;    /* a connection with nothing to wait for is closed */
    unsigned max_user_conns;   /* idle connections one uid may hold at once */
    uid_t allow_uid[16];
    unsigned n_allow_uid;
    gid_t allow_gid;
    int has_allow_gid;
};

struct server {
    struct core core;
    struct gpu_list gpus;      /* --gpus, or the visible GPUs */
    int gpus_listed;           /* --gpus was given */
    unsigned gpus_seen;        /* GPUs listed by --gpus or visible (also under --gpuds) */
    int slots_given, slot_bytes_given; /* --slots, --slot-bytes SIZE were given */
    struct sizing sizing;      /* where the defaults came from (sizing.h) */
    const char *metrics_addr;  /* --metrics ADDR:PORT, or NULL */
    int metrics_cuzk;          /* --metrics-cuzk-aliases */
    struct metrics *metrics;   /* its HTTP thread (metrics.h), or NULL */
    const char *http_addr;     /* --http ADDR:PORT, or NULL */
    const char *http_token_file; /* --http-token-file, or NULL */
    struct http_api *http;     /* its threads (http_api.h), or NULL */
    struct sd_state sd;        /* systemd notifications (sd.h) */
    int activated;             /* listen_fd came from systemd: do not unlink the socket */
    struct server_opts o;
    int listen_fd;
    int spare_fd;              /* released to accept-and-close on EMFILE */
    struct conn *conns[MAX_CONNS];
    uint64_t last_tick_ns;     /* conns_tick's last run: a stall is not client idleness */
    uint64_t flush_deadline_ns; /* draining with no job left: answers flushed until then */
};

/* How long a drain waits, once its last job has ended, for clients to read
 * their answers before serve exits anyway. */
#define DRAIN_FLUSH_NS (5ull * 1000000000ull)

#endif
