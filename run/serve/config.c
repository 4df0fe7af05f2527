/* config.c — serve's --config FILE (see config.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_kind.h"

struct parse {
    const char *file;
    FILE *f;
    int line;             /* the line being parsed, 1-based */
    int ended_nl;         /* the last read ended a line */
    const struct option *opts;
    char **argv;
    const char **origin;
    int argc, cap;
    struct sp_err *e;
    int failed;
};

/* fgets, counting lines for the messages (libinih reads a line at a time) */
static char *reader(char *str, int num, void *stream)
{
    struct parse *p = stream;
    if (p->ended_nl)
        p->line++;
    char *s = fgets(str, num, p->f);
    p->ended_nl = s && strchr(s, '\n');
    return s;
}

static char *where(struct parse *p)
{
    char buf[600];
    snprintf(buf, sizeof(buf), "%s:%d", p->file, p->line);
    return strdup(buf);
}

static void push(struct parse *p, const char *arg, const char *origin)
{
    if (p->argc + 1 >= p->cap) {
        p->cap = p->cap ? 2 * p->cap : 32;
        p->argv = realloc(p->argv, (size_t)p->cap * sizeof(char *));
        p->origin = realloc(p->origin, (size_t)p->cap * sizeof(char *));
    }
    p->argv[p->argc] = (char *)arg;
    p->origin[p->argc++] = origin;
    p->argv[p->argc] = NULL;
    p->origin[p->argc] = NULL;
}

static int fail(struct parse *p, const char *fmt, const char *a, const char *b)
{
    char msg[300];
    snprintf(msg, sizeof(msg), fmt, a, b);
    if (!p->failed)
        sp_fail(p->e, -EINVAL, "%s:%d: %s", p->file, p->line, msg);
    p->failed = 1;
    return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct parse *p = user;
    if (p->failed)
        return 0;
    if (section[0] && strcmp(section, "serve") != 0)
        return fail(p, "section [%s]: the only section is [serve]%s", section, "");
    if (strcmp(name, "config") == 0 || strcmp(name, "help") == 0)
        return fail(p, "%s: not allowed in a config file%s", name, "");
    const struct option *o = p->opts;
    while (o->name && strcmp(o->name, name) != 0)
        o++;
    if (!o->name)
        return fail(p, "unknown option \"%s\" (the names are serve's long options, "
                       "see `slotprove serve --help`)%s", name, "");
    char flag[80];
    snprintf(flag, sizeof(flag), "--%s", name);
    if (o->has_arg == no_argument) {
        static const char *const yes[] = { "true", "yes", "on", "1" };
        static const char *const no[] = { "false", "no", "off", "0" };
        for (int i = 0; i < 4; i++) {
            if (strcasecmp(value, yes[i]) == 0) {
                push(p, strdup(flag), where(p));
                return 1;
            }
            if (strcasecmp(value, no[i]) == 0)
                return 1;
        }
        return fail(p, "%s = %s: expected true or false", name, value);
    }
    if (!value[0])
        return fail(p, "%s: needs a value%s", name, "");
    const char *w = where(p);
    push(p, strdup(flag), w);
    push(p, strdup(value), w);
    return 1;
}

/* Reads FILE whole into *buf (malloc'd, *len bytes): a regular file of at
 * most CONFIG_MAX_BYTES. Anything else would hang serve's start: a FIFO
 * blocks in open or read, /dev/zero never ends. Read into memory, so a file
 * that grows meanwhile is still cut at the limit. */
static int read_config(const char *file, char **buf, size_t *len, struct sp_err *e)
{
    struct stat st;
    /* stat first: a device or FIFO is refused without being opened */
    if (stat(file, &st) < 0)
        return sp_fail(e, -errno, "%s: %s", file, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return sp_fail(e, -EINVAL, "%s: %s, not a regular file: a config file must be one", file,
                       file_kind(st.st_mode));
    /* O_NONBLOCK: if it became a FIFO since, open must not wait for a writer */
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return sp_fail(e, -errno, "%s: %s", file, strerror(errno));
    int rc = fstat(fd, &st) < 0 ? sp_fail(e, -errno, "%s: %s", file, strerror(errno)) : 0;
    if (rc == 0 && !S_ISREG(st.st_mode))
        rc = sp_fail(e, -EINVAL, "%s: %s, not a regular file: a config file must be one", file,
                     file_kind(st.st_mode));
    if (rc == 0 && st.st_size > CONFIG_MAX_BYTES)
        rc = sp_fail(e, -EFBIG, "%s: %lld bytes, more than the %d a config file may have", file,
                     (long long)st.st_size, CONFIG_MAX_BYTES);
    char *b = rc == 0 ? malloc(CONFIG_MAX_BYTES + 1) : NULL;
    if (rc == 0 && !b)
        rc = sp_fail(e, -ENOMEM, "%s: out of memory", file);
    size_t n = 0;
    while (rc == 0 && n <= CONFIG_MAX_BYTES) {
        ssize_t got = read(fd, b + n, CONFIG_MAX_BYTES + 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            rc = sp_fail(e, -errno, "%s: %s", file, strerror(errno));
        else if (got == 0)
            break;
        else
            n += (size_t)got;
    }
    if (rc == 0 && n > CONFIG_MAX_BYTES)
        rc = sp_fail(e, -EFBIG, "%s: grew past the %d bytes a config file may have while read",
                     file, CONFIG_MAX_BYTES);
    close(fd);
    if (rc < 0) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return 0;
}

int config_args(int argc, char **argv, const struct option *opts, struct config_args *out,
                struct sp_err *e)
{
    struct parse p = { .opts = opts, .e = e, .ended_nl = 1 };
    const char *file = NULL;
    int skip1 = -1, skip2 = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        const char *f = NULL;
        if (strcmp(argv[i], "--config") == 0) {
            if (i + 1 >= argc)
                return sp_fail(e, -EINVAL, "--config needs a FILE");
            f = argv[i + 1];
            skip1 = i;
            skip2 = i + 1;
        } else if (strncmp(argv[i], "--config=", 9) == 0) {
            f = argv[i] + 9;
            skip1 = skip2 = i;
        }
        if (f && file)
            return sp_fail(e, -EINVAL, "--config given twice");
        if (f)
            file = f;
        if (skip2 > i)
            i = skip2;
    }
    push(&p, argv[0], NULL);
    if (file) {
        p.file = file;
        char *text = NULL;
        size_t len = 0;
        int rc = read_config(file, &text, &len, e);
        if (rc < 0)
            return rc;
        /* an empty file has no options (fmemopen refuses a size of 0) */
        if (len && !(p.f = fmemopen(text, len, "r"))) {
            rc = sp_fail(e, -errno, "%s: %s", file, strerror(errno));
            free(text);
            return rc;
        }
        rc = p.f ? ini_parse_stream(reader, &p, handler, &p) : 0;
        if (p.f)
            fclose(p.f);
        free(text);
        if (rc != 0 && !p.failed) /* a syntax error: libinih gives its line */
            sp_fail(e, -EINVAL, "%s:%d: expected `key = value`, a comment or [serve]", file, rc);
        if (rc != 0)
            return -EINVAL;
    }
    for (int i = 1; i < argc; i++)
        if (i != skip1 && i != skip2)
            push(&p, argv[i], NULL);
    out->argc = p.argc;
    out->argv = p.argv;
    out->origin = p.origin;
    return 0;
}
