/* output.c — see output.h. */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TMP_PATH_MAX 4096

/* Writes text into tmp (path.tmp.PID) and syncs it; removes it on failure. */
static int write_tmp(const char *path, char *tmp, const char *text, struct sp_err *e)
{
    if ((size_t)snprintf(tmp, TMP_PATH_MAX, "%s.tmp.%d", path, (int)getpid()) >= TMP_PATH_MAX)
        return sp_fail(e, -ENAMETOOLONG, "%s: path too long", path);
    FILE *f = fopen(tmp, "we");
    if (!f) {
        int err = errno;
        return sp_fail(e, -err, "%s: %s", path, strerror(err));
    }
    int ok = fputs(text, f) >= 0 && fflush(f) == 0 && fsync(fileno(f)) == 0;
    int err = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (!ok) {
        unlink(tmp);
        return sp_fail(e, -err, "%s: %s", path, strerror(err));
    }
    return 0;
}

int write_outputs(unsigned n, const char *const *paths, const char *const *texts,
                  struct sp_err *e)
{
    char tmp[OUTPUT_MAX_FILES][TMP_PATH_MAX];
    unsigned done = 0;
    int rc = 0;

    if (n > OUTPUT_MAX_FILES)
        return sp_fail(e, SP_EINTERNAL, "write_outputs: %u files", n);
    for (; done < n; done++)
        if ((rc = write_tmp(paths[done], tmp[done], texts[done], e)) < 0)
            break;
    for (unsigned i = 0; i < done; i++) {
        if (rc == 0 && rename(tmp[i], paths[i]) < 0) {
            int err = errno;
            rc = sp_fail(e, -err, "%s: %s", paths[i], strerror(err));
        }
        if (rc < 0)
            unlink(tmp[i]); /* this one and every later one are still temporary */
    }
    return rc;
}

int write_output(const char *path, const char *text, struct sp_err *e)
{
    return write_outputs(1, &path, &text, e);
}
