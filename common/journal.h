/*
 * journal.h — is stderr the systemd journal? systemd sets JOURNAL_STREAM to
 * "DEV:INODE" of the stream it connects to stdout/stderr (systemd.exec(5));
 * when stderr's fstat matches, log lines get a syslog priority prefix
 * ("<4>" warning, "<5>" notice, sd-daemon(3)) and no time stamp of their own.
 */
#ifndef SLOTPROVE_JOURNAL_H
#define SLOTPROVE_JOURNAL_H

/* 1 when fd 2 is the stream JOURNAL_STREAM names, else 0. */
int stderr_is_journal(void);

#endif
