// The internals of the holder scan (CLeakGraphHolderScan.h), split by concern:
//
//   holder_scan.c          lg_scan_holders: what to skip, stop, read, resume
//   holder_scan_threads.c  stopping every other thread with a signal and resuming it
//   holder_scan_memory.c   reading the process's memory and comparing every word with the candidates
//   holder_scan_marks.c    check-entry marks: where a checking thread's stack is read from
//
// Nothing here allocates or takes a lock another thread may hold while the threads are stopped:
// buffers are mmapped up front and /proc is read with raw system calls.

#ifndef LG_HOLDER_SCAN_H
#define LG_HOLDER_SCAN_H

#include "lg_internal.h"

#ifdef __linux__

/// Threads the scan can stop at once; more make it abstain.
#define LG_SCAN_MAX_THREADS 4096u

// MARK: holder_scan_threads.c — stopping the world

/// The threads one scan stopped.
typedef struct lg_scan_stop {
    /// The calling thread (never stopped).
    int self;
    /// The generation of this stop: a late stop request of an earlier scan is dropped.
    uint32_t generation;
    /// Threads listed in /proc/self/task (but the caller).
    unsigned thread_count;
    /// When the stop began (CLOCK_MONOTONIC, nanoseconds).
    uint64_t started_ns;
} lg_scan_stop;

/// Installs the stop handler once, for good. Returns false when the program already handles its
/// signal or memory for the thread table cannot be had: the scan abstains.
LG_HIDDEN bool lg_scan_threads_prepare(void);
/// Stops every thread but the caller: returns true when every thread listed stopped (or exited). The
/// threads must be resumed with `lg_scan_resume_threads` whatever it returns.
LG_HIDDEN bool lg_scan_stop_threads(lg_scan_stop *stop);
/// Whether no thread was created since the stop began (a thread created meanwhile was not stopped).
LG_HIDDEN bool lg_scan_threads_unchanged(const lg_scan_stop *stop);
/// Resumes the threads of `stop`. Returns false when a stopped thread left before the resume (it
/// waited too long): what was read while it ran proves nothing.
LG_HIDDEN bool lg_scan_resume_threads(const lg_scan_stop *stop);
/// Where the scan reads each stopped thread's stack from: `markers[i]` for up to `thread_count`
/// threads (see `lg_scan_stack_start`). Returns how many it wrote.
LG_HIDDEN size_t lg_scan_thread_stacks(const lg_scan_stop *stop, uintptr_t *markers);

// MARK: holder_scan_memory.c — reading memory

/// What one scan compares against and writes to.
typedef struct lg_scan_job {
    lg_scan_request *request;
    /// The lowest and highest candidate address (a word outside is no candidate's).
    uintptr_t low;
    uintptr_t high;
    /// Ranges never to read, sorted ascending.
    const lg_range *excluded;
    size_t excluded_count;
    pid_t pid;
    bool failed;
} lg_scan_job;

/// Maps the scan's buffers once. Returns false when that fails: the scan abstains.
LG_HIDDEN bool lg_scan_memory_prepare(void);
/// The scan's own buffers, which it never reads (two ranges).
LG_HIDDEN size_t lg_scan_memory_buffers(lg_range *out);
/// Reads /proc/self/maps into the scan's buffer. Returns false when it does not fit.
LG_HIDDEN bool lg_scan_read_maps(void);
/// Scans every readable and writable mapping of the maps just read; a mapping holding one of the
/// `markers` (a stack) is read from the lowest marker in it up.
LG_HIDDEN void lg_scan_mappings(lg_scan_job *job, const uintptr_t *markers, size_t marker_count);

// MARK: holder_scan_marks.c — check-entry marks

/// Where the scan reads thread `tid`'s stack from, given the lowest live address `low` it knows (the
/// scanning thread's frame, a stopped thread's stack pointer): the thread's check-entry mark when it
/// set one above `low` in the same stack, else `low`.
LG_HIDDEN uintptr_t lg_scan_stack_start(int tid, uintptr_t low);

// MARK: Shared helpers

/// CLOCK_MONOTONIC in nanoseconds.
LG_HIDDEN uint64_t lg_scan_now_ns(void);
/// Parses lowercase hexadecimal digits at `*cursor`, advancing it past them.
LG_HIDDEN uintptr_t lg_scan_parse_hex(const char **cursor);

#endif /* __linux__ */

#endif /* LG_HOLDER_SCAN_H */
