/* wake.c — gpud's main loop (see wake.h). */
#include "wake.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "control.h"
#include "state.h"
#include "status.h"
#include "take.h"
#include "log_stamp.h"

enum { TAG_DOORBELL = 1, TAG_CTL = 2 };

static struct io_uring ring;
static uint64_t doorbell_value;

static int arm(int tag)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    if (!sqe)
        return -EBUSY;
    if (tag == TAG_DOORBELL)
        io_uring_prep_read(sqe, gpud_args.doorbell_fd, &doorbell_value, sizeof(doorbell_value), 0);
    else
        io_uring_prep_poll_add(sqe, gpud_args.ctl_fd, POLLIN);
    io_uring_sqe_set_data64(sqe, (uint64_t)tag);
    return io_uring_submit(&ring) < 0 ? -EIO : 0;
}

int wake_init(void)
{
    int rc;
    if ((rc = io_uring_queue_init(8, &ring, 0)) < 0) {
        diag(LOG_ERR, "gpud: io_uring_queue_init: %s", strerror(-rc));
        return -1;
    }
    fcntl(gpud_args.ctl_fd, F_SETFL, fcntl(gpud_args.ctl_fd, F_GETFL) | O_NONBLOCK);
    if (arm(TAG_DOORBELL) < 0 || arm(TAG_CTL) < 0) {
        diag(LOG_ERR, "gpud: cannot submit io_uring requests");
        return -1;
    }
    return 0;
}

int wake_loop(void)
{
    for (;;) {
        struct io_uring_cqe *cqe;
        struct __kernel_timespec ts = { .tv_sec = 1 };
        take_ready();
        status_send();
        if (control_stopping())
            return 0;
        int rc = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
        if (!child_supervisor_alive(&gpud_args))
            return 0;
        if (rc == -ETIME || rc == -EINTR)
            continue;
        if (rc < 0) {
            diag(LOG_ERR, "gpud: io_uring_wait_cqe: %s", strerror(-rc));
            return -1;
        }
        unsigned head, seen = 0;
        int quit = 0;
        io_uring_for_each_cqe(&ring, head, cqe) {
            uint64_t tag = io_uring_cqe_get_data64(cqe);
            seen++;
            if (tag == TAG_DOORBELL)
                arm(TAG_DOORBELL);
            else if (tag == TAG_CTL) {
                quit |= control_handle();
                if (!quit)
                    arm(TAG_CTL);
            }
        }
        io_uring_cq_advance(&ring, seen);
        if (quit)
            return 0;
    }
}

void wake_exit(void)
{
    io_uring_queue_exit(&ring);
}
