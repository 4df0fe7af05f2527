/*
 * http_token.h — the bearer token of `serve --http` (http_api.h).
 */
#ifndef SLOTPROVE_HTTP_TOKEN_H
#define SLOTPROVE_HTTP_TOKEN_H

#include <stddef.h>

#include "err.h"

/* Reads the token file at path into token (cap bytes, NUL included): a
 * regular file of fewer than cap bytes, not readable by others, holding
 * one line of printable ASCII without spaces (a final newline is dropped).
 * 0, or -errno / -EINVAL with e naming the file and the reason. */
int http_token_read(const char *path, char *token, size_t cap, struct sp_err *e);

/* 1 when the Authorization header's value (NULL: none) is "Bearer TOKEN",
 * compared in time that depends on the given value's length only. */
int http_token_ok(const char *token, const char *authorization);

#endif
