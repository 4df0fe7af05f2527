/* metrics_http.c — the metrics endpoint's HTTP thread (see metrics_http.h). */
#include "metrics_http.h"

#include <errno.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "http_server.h"

struct metrics_http {
    struct http_server *srv;
    metrics_page_fn page;
    void *page_ctx;
};

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **state)
{
    struct metrics_http *h = cls;
    (void)version;
    (void)upload;
    if (!*state) { /* the headers: answer when the request is complete */
        *state = h;
        return MHD_YES;
    }
    if (*upload_len) { /* a GET has no body: ignore one */
        *upload_len = 0;
        return MHD_YES;
    }
    struct MHD_Response *r;
    unsigned code = MHD_HTTP_OK;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        static char msg[] = "only GET /metrics\n";
        r = MHD_create_response_from_buffer(sizeof(msg) - 1, msg, MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_METHOD_NOT_ALLOWED;
    } else if (strcmp(url, "/metrics") != 0) {
        static char msg[] = "not found: the metrics are at /metrics\n";
        r = MHD_create_response_from_buffer(sizeof(msg) - 1, msg, MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_NOT_FOUND;
    } else {
        size_t len = 0;
        char *page = h->page(h->page_ctx, &len);
        if (!page)
            return MHD_NO;
        r = MHD_create_response_from_buffer(len, page, MHD_RESPMEM_MUST_FREE);
        if (!r)
            free(page);
        else
            MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    }
    if (!r)
        return MHD_NO;
    /* one request a connection: the deadline from accept covers all of it */
    enum MHD_Result rc = http_server_queue(h->srv, conn, code, r);
    MHD_destroy_response(r);
    return rc;
}

int metrics_http_start(const char *addr_port, metrics_page_fn page, void *ctx,
                       struct metrics_http **out, struct sp_err *e)
{
    static const struct http_rules rules = {
        .opt = "--metrics", .max_conns = METRICS_HTTP_MAX_CONNS,
        .spare_conns = METRICS_HTTP_SPARE_CONNS, .deadline_ms = METRICS_HTTP_DEADLINE_MS,
        .backstop_s = METRICS_HTTP_DEADLINE_MS / 1000 + 1,
    };
    struct metrics_http *h = calloc(1, sizeof(*h));
    if (!h)
        return sp_fail(e, -ENOMEM, "--metrics %s: out of memory", addr_port);
    h->page = page;
    h->page_ctx = ctx;
    int rc = http_server_start(addr_port, &rules, answer, NULL, h, &h->srv, e);
    if (rc < 0) {
        free(h);
        return rc;
    }
    *out = h;
    return 0;
}

void metrics_http_stop(struct metrics_http *h)
{
    if (!h)
        return;
    http_server_stop(h->srv);
    free(h);
}
