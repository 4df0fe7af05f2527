/*
 * http_access.h — who may use `serve --http` (http_api.h): its address and
 * its bearer token.
 */
#ifndef SLOTPROVE_HTTP_ACCESS_H
#define SLOTPROVE_HTTP_ACCESS_H

#include <netdb.h>
#include <stddef.h>

#include "err.h"

/* ADDR:PORT (an IPv4 address or host name, or [IPv6]; PORT 1..65535) →
 * *ai (freeaddrinfo). 0, or -EINVAL with e naming opt ("--http") and the
 * reason. */
int http_resolve(const char *opt, const char *addr_port, struct addrinfo **ai, struct sp_err *e);

/* 1 when ai's address is loopback (127.0.0.0/8, ::1), else 0. */
int http_is_loopback(const struct addrinfo *ai);

/* Reads the token file at path into token (cap bytes, NUL included): a
 * regular file of fewer than cap bytes, not readable by others, holding
 * one line of printable ASCII without spaces (a final newline is dropped).
 * 0, or -errno / -EINVAL with e naming the file and the reason. */
int http_token_read(const char *path, char *token, size_t cap, struct sp_err *e);

/* 1 when the Authorization header's value (NULL: none) is "Bearer TOKEN",
 * compared in time that depends on the given value's length only. */
int http_token_ok(const char *token, const char *authorization);

#endif
