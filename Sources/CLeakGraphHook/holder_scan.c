// The conservative holder scan: is there any word in the process, outside what the heap walk read
// exactly, that could be a reference to one of a few candidate objects? Only used to *add* proof
// that an object with unexplained retains is referenced from nowhere (an orphan); see
// docs/how-it-works.md, "Orphaned retains".
//
// `lg_scan_holders` decides what is never read (the caller's buffers, the recorder's tables, the
// scan's own buffers), stops every other thread (holder_scan_threads.c), reads the places where the
// kernel keeps the program's words (holder_scan_kernel.c), reads every writable mapping and compares
// its words with the candidates (holder_scan_memory.c), each stack from where its thread stopped or
// its check began (holder_scan_marks.c); then, for words found in untracked malloc chunks, reads
// everything again for the words pointing into those chunks, a level at a time
// (holder_scan_chunks.c); and resumes the threads.

#include "holder_scan.h"

#ifdef __linux__

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/// The caller's ranges, the scan's own buffers and the record table's map regions: room for all.
#define LG_SCAN_SKIP_CAPACITY (64 + 8 + LG_MAP_TOP_COUNT / 4096)
/// Passes over memory at most: the candidates, then this many levels of untracked memory less one.
#define LG_SCAN_MAX_PASSES 6

static void lg_sort_ranges(lg_range *ranges, size_t count) {
    for (size_t i = 1; i < count; i++) {
        lg_range value = ranges[i];
        size_t j = i;
        while (j > 0 && ranges[j - 1].start > value.start) {
            ranges[j] = ranges[j - 1];
            j--;
        }
        ranges[j] = value;
    }
}

/// Fills `skip` with the ranges never to read: the caller's, the scan's own buffers and the
/// recorder's tables. Returns their number, or 0 when there are too many to hold (the scan abstains).
static size_t lg_scan_skipped_ranges(const lg_scan_request *request, lg_range *skip) {
    size_t count = 0;
    for (size_t i = 0; i < request->excluded_count; i++) {
        skip[count++] = request->excluded[i];
    }
    count += lg_scan_memory_buffers(skip + count);
    count += lg_scan_kernel_buffers(skip + count);
    skip[count++] = lg_scan_chunks_buffer();
    skip[count++] = lg_scan_tasks_buffer();
    size_t table_first = count;
    for (uintptr_t top = 0; top < LG_MAP_TOP_COUNT; top++) {
        lg_map_region *region = atomic_load_explicit(&lg_state.map[top], memory_order_relaxed);
        if (region != NULL) {
            if (count - table_first >= LG_MAP_TOP_COUNT / 4096) {
                return 0;
            }
            skip[count++] = (lg_range){(uintptr_t)region, (uintptr_t)region + sizeof(lg_map_region)};
        }
    }
    return count;
}

static void lg_scan_visit_registers(uintptr_t start, uintptr_t end, void *context) {
    lg_scan_registers((lg_scan_job *)context, start, end);
}

/// One pass: every mapping, the stopped threads' registers and the kernel's places, compared with
/// `targets`.
static void lg_scan_pass(lg_scan_job *job, const lg_range *targets, size_t count, const uintptr_t *markers,
                         size_t marker_count, const lg_scan_stop *stop) {
    job->targets = targets;
    job->target_count = count;
    job->low = targets[0].start;
    job->high = targets[count - 1].end;
    lg_scan_mappings(job, markers, marker_count);
    if (!lg_scan_thread_registers(stop, lg_scan_visit_registers, job)) {
        job->failed = true;
    }
    lg_scan_kernel_compare(job);
    job->request->stats.passes++;
}

/// Reads everything while the other threads are stopped: the kernel's places, each stack from where its
/// thread stopped (or its check began), every other writable mapping whole, but the ranges of `skip`;
/// then the levels of untracked memory that hold words into candidates.
__attribute__((noinline)) static int lg_scan_stopped(lg_scan_job *job, const lg_scan_stop *stop, int own_signal,
                                                     lg_range *skip, size_t skip_count) {
    // Spill this thread's callee-saved registers into this frame, which the stack read covers.
    __builtin_unwind_init();
    volatile uintptr_t marker = 0;
    uintptr_t markers[LG_SCAN_MAX_THREADS];
    size_t marker_count = 0;
    markers[marker_count++] = lg_scan_stack_start((int)syscall(SYS_gettid), (uintptr_t)&marker);
    marker_count += lg_scan_thread_stacks(stop, markers + marker_count);
    if (!lg_scan_read_maps()) {
        return LG_SCAN_ABSTAINED;
    }
    lg_sort_ranges(skip, skip_count);
    job->excluded = skip;
    job->excluded_count = skip_count;
    lg_scan_request *request = job->request;
    lg_scan_chunks_reset();
    lg_scan_tasks_collect(request);
    lg_scan_kernel_read(job, stop, own_signal);
    job->pass = 0;
    lg_scan_pass(job, request->candidates, request->candidate_count, markers, marker_count, stop);
    if (lg_scan_chunks_known()) {
        for (unsigned pass = 1; pass < LG_SCAN_MAX_PASSES && !job->failed; pass++) {
            const lg_range *chunks = NULL;
            size_t count = lg_scan_chunks_next_pass(request->held, request->held_at, &chunks);
            if (count == 0) {
                break;
            }
            job->pass = pass;
            lg_scan_pass(job, chunks, count, markers, marker_count, stop);
        }
        lg_scan_chunks_resolve(request);
    }
    lg_scan_kernel_clear();
    return job->failed ? LG_SCAN_ABSTAINED : LG_SCAN_OK;
}

int lg_scan_holders(lg_scan_request *request) {
    request->hit_count = 0;
    memset(&request->stats, 0, sizeof request->stats);
    if (request->candidate_count == 0) {
        return LG_SCAN_OK;
    }
    request->unread_count = 0;
    int own_signal = lg_scan_threads_prepare();
    if (!lg_scan_memory_prepare() || !lg_scan_kernel_prepare() || !lg_scan_chunks_prepare() ||
        !lg_scan_tasks_prepare() || own_signal == 0 || request->excluded_count > 64) {
        return LG_SCAN_ABSTAINED;
    }
    lg_range skip[LG_SCAN_SKIP_CAPACITY];
    size_t skip_count = lg_scan_skipped_ranges(request, skip);
    if (skip_count == 0) {
        return LG_SCAN_ABSTAINED;
    }
    // The job holds target addresses (its bounds): it lives in static memory the scan skips.
    static lg_scan_job job;
    memset(&job, 0, sizeof job);
    skip[skip_count++] = (lg_range){(uintptr_t)&job, (uintptr_t)(&job + 1)};
    job.request = request;
    job.pid = getpid();
    memset(request->held, 0, request->candidate_count);

    lg_scan_stop stop;
    bool stopped = lg_scan_stop_threads(&stop);
    if (!stopped && stop.generation == 0) {
        return LG_SCAN_ABSTAINED;  // /proc/self/task unreadable: nothing was stopped
    }
    int result = LG_SCAN_ABSTAINED;
    // A thread created meanwhile was not stopped: abstain.
    if (stopped && lg_scan_threads_unchanged(&stop)) {
        result = lg_scan_stopped(&job, &stop, own_signal, skip, skip_count);
    }
    if (!lg_scan_resume_threads(&stop)) {
        result = LG_SCAN_ABSTAINED;  // a thread ran again before the scan ended
    }
    request->stats.threads = stop.thread_count;
    request->stats.stopped_ns = lg_scan_now_ns() - stop.started_ns;
    return result;
}

#else

size_t lg_read_memory(uintptr_t address, void *buffer, size_t length) {
    (void)address, (void)buffer, (void)length;
    return 0;
}

int lg_scan_holders(lg_scan_request *request) {
    request->hit_count = 0;
    request->unread_count = 0;
    return LG_SCAN_ABSTAINED;
}

#endif /* __linux__ */
