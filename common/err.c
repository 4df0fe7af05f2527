/* err.c — see err.h. */
#include "err.h"

#include "escape.h"

#include <stdio.h>
#include <string.h>

int sp_fail(struct sp_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
        va_end(ap);
        escape_ctl_inplace(e->msg, sizeof(e->msg)); /* names come from clients */
    }
    return code < 0 ? code : -code;
}

const char *sp_code_name(int code)
{
    if (code < 0)
        code = -code;
    switch (code) {
    case SP_EFORMAT: return "bad format";
    case SP_EUNSUPPORTED: return "unsupported";
    case SP_EMISMATCH: return "mismatch";
    case SP_ERANGE: return "out of range";
    case SP_EINTERNAL: return "internal error";
    case SP_EUSAGE: return "usage error";
    case SP_EVERIFY: return "verification failed";
    case SP_EDEVICE: return "device failure";
    case SP_ESLOTSIZE: return "needs larger slots";
    default: return strerror(code);
    }
}
