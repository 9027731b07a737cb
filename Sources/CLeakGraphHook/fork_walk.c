// The plumbing of a walk in a forked child (CLeakGraphForkedWalk.h): the fork with every signal
// blocked, the child's writes (its result, then at most one follow-up) and `_exit`, and the parent's
// bounded reads, kill and reap.
//
// The child is made with the C library's `fork()`, so its handlers run: glibc makes malloc usable in
// the child, and the hook's own handlers (hook.c, `lg_fork_prepare`…) leave the shard locks held by
// the forking thread, which holds the freeze. The child's exit still sends SIGCHLD to the program (a
// `clone` without it would skip glibc's fork handlers, and malloc's locks could stay held in the
// child); a program that reaps every child (`wait(-1)`, SIGCHLD ignored) may reap it first: the result
// comes through the pipe, and the pidfd names this child alone, so nothing here depends on the reap.
// No Swift, no stdio.

#include "CLeakGraphForkedWalk.h"

#ifdef __linux__

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

int lg_fork_walk_start(lg_forked_child *child) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
        return -1;
    }
    sigset_t all;
    sigset_t previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        // The child: every signal stays blocked; it dies with the parent (and if the parent died
        // before this line, at once).
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) {
            _exit(1);
        }
        close(pipe_fds[0]);
        child->pid = 0;
        child->pidfd = -1;
        child->read_fd = -1;
        child->write_fd = pipe_fds[1];
        return 0;
    }
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    close(pipe_fds[1]);
    if (pid < 0) {
        close(pipe_fds[0]);
        errno = saved;
        return -1;
    }
    child->pid = pid;
    child->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    child->read_fd = pipe_fds[0];
    child->write_fd = -1;
    return 1;
}

/// Writes all of `bytes`; false on an error.
static bool lg_write_all(int fd, const uint8_t *bytes, size_t count) {
    while (count > 0) {
        ssize_t written = write(fd, bytes, count);
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        bytes += written;
        count -= (size_t)written;
    }
    return true;
}

int lg_fork_walk_send(int write_fd, const void *bytes, size_t count) {
    uint64_t length = count;
    bool written = lg_write_all(write_fd, (const uint8_t *)&length, sizeof length) &&
                   lg_write_all(write_fd, (const uint8_t *)bytes, count);
    return written ? 0 : -1;
}

void lg_fork_walk_finish(int write_fd, const void *bytes, size_t count) {
    _exit(lg_fork_walk_send(write_fd, bytes, count) == 0 ? 0 : 1);
}

/// Milliseconds on the monotonic clock.
static int64_t lg_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/// Reads into `buffer` until `count` bytes are there, the pipe ends, or `deadline` (ms) passes.
/// Returns the bytes read.
static size_t lg_read_until(int fd, uint8_t *buffer, size_t count, int64_t deadline) {
    size_t done = 0;
    while (done < count) {
        int64_t left = deadline - lg_now_ms();
        if (left <= 0) {
            break;
        }
        struct pollfd entry = {.fd = fd, .events = POLLIN};
        int ready = poll(&entry, 1, left > 1000000 ? 1000000 : (int)left);
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            break;
        }
        ssize_t got = read(fd, buffer + done, count - done);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            break;
        }
        done += (size_t)got;
    }
    return done;
}

/// Kills the child (through its pidfd when there is one).
static void lg_kill_child(const lg_forked_child *child) {
    if (child->pidfd >= 0) {
        syscall(SYS_pidfd_send_signal, child->pidfd, SIGKILL, NULL, 0);
    } else {
        kill(child->pid, SIGKILL);
    }
}

/// Waits for the child to end and reaps it; its wait status, or -1 when it was reaped elsewhere.
static int lg_reap_child(const lg_forked_child *child) {
    if (child->pidfd >= 0) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        int result;
        do {
            result = waitid((idtype_t)P_PIDFD, (id_t)child->pidfd, &info, WEXITED);
        } while (result != 0 && errno == EINTR);
        if (result != 0) {
            return -1;
        }
        return info.si_code == CLD_EXITED ? (info.si_status & 0xff) << 8 : info.si_status & 0x7f;
    }
    int status = 0;
    pid_t result;
    do {
        result = waitpid(child->pid, &status, 0);
    } while (result < 0 && errno == EINTR);
    return result == child->pid ? status : -1;
}

lg_fork_walk_outcome lg_fork_walk_receive(lg_forked_child *child, int timeout_ms, uint8_t **bytes, size_t *count) {
    *bytes = NULL;
    *count = 0;
    int64_t deadline = lg_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    uint64_t length = 0;
    size_t header = lg_read_until(child->read_fd, (uint8_t *)&length, sizeof length, deadline);
    if (header != sizeof length) {
        return lg_now_ms() >= deadline ? LG_FORK_WALK_TIMEOUT : LG_FORK_WALK_DIED;
    }
    uint8_t *buffer = malloc(length > 0 ? (size_t)length : 1);
    if (buffer == NULL) {
        return LG_FORK_WALK_NO_MEMORY;
    }
    if (lg_read_until(child->read_fd, buffer, (size_t)length, deadline) != length) {
        free(buffer);
        return lg_now_ms() >= deadline ? LG_FORK_WALK_TIMEOUT : LG_FORK_WALK_DIED;
    }
    *bytes = buffer;
    *count = (size_t)length;
    return LG_FORK_WALK_DONE;
}

int lg_fork_walk_end(lg_forked_child *child, int kill_child) {
    if (child->read_fd >= 0) {
        close(child->read_fd);
        child->read_fd = -1;
    }
    if (kill_child) {
        lg_kill_child(child);
    }
    int status = lg_reap_child(child);
    if (child->pidfd >= 0) {
        close(child->pidfd);
        child->pidfd = -1;
    }
    return status;
}

void lg_fork_walk_free(uint8_t *bytes) { free(bytes); }

#else /* !__linux__ */

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int lg_fork_walk_start(lg_forked_child *child) {
    (void)child;
    errno = ENOSYS;
    return -1;
}

int lg_fork_walk_send(int write_fd, const void *bytes, size_t count) {
    (void)write_fd;
    (void)bytes;
    (void)count;
    return -1;
}

void lg_fork_walk_finish(int write_fd, const void *bytes, size_t count) {
    (void)write_fd;
    (void)bytes;
    (void)count;
    _exit(1);
}

lg_fork_walk_outcome lg_fork_walk_receive(lg_forked_child *child, int timeout_ms, uint8_t **bytes, size_t *count) {
    (void)child;
    (void)timeout_ms;
    *bytes = NULL;
    *count = 0;
    return LG_FORK_WALK_DIED;
}

int lg_fork_walk_end(lg_forked_child *child, int kill_child) {
    (void)child;
    (void)kill_child;
    return -1;
}

void lg_fork_walk_free(uint8_t *bytes) { free(bytes); }

#endif /* __linux__ */
