/* job_limits.h — the sizes a job has everywhere: on the socket (request.h),
 * in the supervisor's tables (sup/) and in the clients. Header only. */
#ifndef SLOTPROVE_JOB_LIMITS_H
#define SLOTPROVE_JOB_LIMITS_H

#define JOB_ID_HEX 32     /* a job id: 32 lowercase hex digits (128 random bits) */
#define JOB_MAX_PARTS 64  /* witnesses (partitions, proofs) of one job */
#define JOB_NAME_MAX 255  /* bytes of a file name sent for messages */

#endif
