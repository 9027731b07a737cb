// A check's walk in a forked child (fork_walk.c): the checking thread, holding the freeze, forks;
// the parent releases the freeze at once and waits for the child's result on a pipe while the
// program runs on; the child, which holds the freeze on its copy-on-write copy of the process (an
// instant of the whole heap, the hook's table consistent), walks it, writes the result and ends
// with `_exit`. docs/monitoring.md, "The walk in a forked child". Included by CLeakGraphHook.h.

#ifndef CLEAKGRAPH_FORKED_WALK_H
#define CLEAKGRAPH_FORKED_WALK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A child forked for a walk, as `lg_fork_walk_start` made it.
typedef struct lg_forked_child {
    /// The child's process id (in the parent; 0 in the child).
    int pid;
    /// A pidfd of the child (in the parent), or -1 when the kernel has none: the child is reaped and
    /// killed through it, so a pid reused after the program reaped the child is never touched.
    int pidfd;
    /// The pipe's read end (in the parent; -1 in the child).
    int read_fd;
    /// The pipe's write end (in the child; -1 in the parent).
    int write_fd;
} lg_forked_child;

/// What `lg_fork_walk_receive` got.
typedef enum lg_fork_walk_outcome {
    /// The child's whole result.
    LG_FORK_WALK_DONE = 0,
    /// The child did not finish in time: it was killed.
    LG_FORK_WALK_TIMEOUT = 1,
    /// The child ended without a whole result (it crashed, or could not write).
    LG_FORK_WALK_DIED = 2,
    /// The parent could not hold the result (out of memory): the child was killed.
    LG_FORK_WALK_NO_MEMORY = 3,
} lg_fork_walk_outcome;

/// Forks the calling thread, which should hold the freeze (`lg_freeze_objects`) so that the child's
/// copy of the hook's table is consistent. Every signal is blocked in the calling thread across the
/// fork: the child keeps them all blocked (it never runs the program's handlers; a fault still ends
/// it), the parent's mask is restored. The child dies with its parent (`PR_SET_PDEATHSIG`).
///
/// Returns 1 in the parent, 0 in the child (`child` filled in for each side), -1 when no child was
/// made (`errno` says why; nothing to clean up).
int lg_fork_walk_start(lg_forked_child *child);

/// In the child: writes an 8-byte length and then `count` bytes of `bytes` to the pipe, and returns 0
/// (-1 when the write failed): a message the child sends before the last one (its result, then a
/// follow-up), each read by one `lg_fork_walk_receive`.
int lg_fork_walk_send(int write_fd, const void *bytes, size_t count);

/// In the child: writes an 8-byte length and then `count` bytes of `bytes` to the pipe, and ends the
/// child with `_exit` (no atexit handler, no stdio flush; status 1 when the write failed). Never
/// returns.
__attribute__((noreturn)) void lg_fork_walk_finish(int write_fd, const void *bytes, size_t count);

/// In the parent: reads one message of the child (`lg_fork_walk_send`, `lg_fork_walk_finish`) until it
/// is whole or `timeout_ms` milliseconds passed, leaving the child and the pipe as they are (end them
/// with `lg_fork_walk_end`). On `LG_FORK_WALK_DONE`, `*bytes` (malloc'd: free it with
/// `lg_fork_walk_free`) holds `*count` bytes.
lg_fork_walk_outcome lg_fork_walk_receive(lg_forked_child *child, int timeout_ms, uint8_t **bytes, size_t *count);

/// In the parent: closes the pipe, kills the child when `kill_child` is non-zero (a child that was not
/// waited for to the end) and reaps it (through its pidfd when there is one; a child the program reaped
/// first, with its own `wait(-1)` or with SIGCHLD ignored, is fine: its messages came through the
/// pipe); returns its `wait` status, or -1 when it could not be reaped here.
int lg_fork_walk_end(lg_forked_child *child, int kill_child);

/// Frees a message read by `lg_fork_walk_receive`.
void lg_fork_walk_free(uint8_t *bytes);

#ifdef __cplusplus
}
#endif

#endif /* CLEAKGRAPH_FORKED_WALK_H */
