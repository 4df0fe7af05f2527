/* journal.c — is stderr the journal (journal.h). */
#include "journal.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int stderr_is_journal(void)
{
    const char *s = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    if (!s || sscanf(s, "%llu:%llu", &dev, &ino) != 2 || fstat(2, &st) < 0)
        return 0;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}
