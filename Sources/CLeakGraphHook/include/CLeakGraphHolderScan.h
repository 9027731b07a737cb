// The conservative holder scan behind orphan detection (holder_scan.c and the files it uses): which of
// a few candidate objects could some word of the process point at, outside what the heap walk read
// exactly? See docs/how-it-works.md, "Orphaned retains". Included by CLeakGraphHook.h.

#ifndef CLEAKGRAPH_HOLDER_SCAN_H
#define CLEAKGRAPH_HOLDER_SCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A half-open address range `[start, end)`.
typedef struct lg_range {
    uintptr_t start;
    uintptr_t end;
} lg_range;

/// A word inside a tracked object that could reference a candidate: found by `lg_scan_holders`.
typedef struct lg_holder_hit {
    /// The candidate's index.
    uint64_t candidate;
    /// The start of the tracked object holding the word.
    uintptr_t holder;
} lg_holder_hit;

/// What `lg_scan_holders` did, for the report and the benchmark.
typedef struct lg_scan_stats {
    /// Bytes read, and mappings read.
    uint64_t bytes;
    uint64_t mappings;
    /// Threads stopped (the calling thread not counted).
    uint64_t threads;
    /// Nanoseconds the other threads were stopped.
    uint64_t stopped_ns;
} lg_scan_stats;

/// One holder scan: what it compares against, the caller's buffers it must not read, and where it
/// writes what it found. The caller fills the inputs and the result buffers; `lg_scan_holders` fills
/// `hit_count` and `stats`.
typedef struct lg_scan_request {
    /// The candidates' memory, sorted ascending, not overlapping.
    const lg_range *candidates;
    size_t candidate_count;
    /// Every tracked object's address, ascending (the frozen snapshot).
    const uintptr_t *objects;
    size_t object_count;
    /// The caller's buffers that hold candidates' or objects' addresses: never read (at most 64).
    const lg_range *excluded;
    size_t excluded_count;
    /// Per candidate: set when a word outside every tracked object could point into it.
    uint8_t *held;
    /// Per candidate (may be NULL): the address of the first such word.
    uintptr_t *held_at;
    /// Words inside tracked objects (other than the candidate itself) that could point into a
    /// candidate, one entry per word; `hit_capacity` entries at most.
    lg_holder_hit *hits;
    size_t hit_capacity;
    /// Output: the entries written to `hits`.
    size_t hit_count;
    /// Output: what the scan read and how long the threads were stopped.
    lg_scan_stats stats;
} lg_scan_request;

/// The scan ran: every result is valid.
#define LG_SCAN_OK 0
/// The scan did not run or was abandoned (unsupported platform, a thread that did not stop, a
/// thread created meanwhile, /proc unreadable, the signal taken by the program): nothing is proven.
#define LG_SCAN_ABSTAINED 1

/// Zeroes 64 KiB of the stack below the caller's frame, so that dead frames hold no stale copies of
/// pointers when a holder scan runs on this thread later (call it before the check's deep calls).
void lg_scan_scrub_stack(void);

/// Marks the start of a check on this thread: a holder scan run on it later reads this thread's
/// stack from this caller's frame up (its callers' frames), not the check's own frames below it, whose
/// slots hold the check's working copies of object addresses. The callee-saved registers at this point
/// (the callers' values) are kept where the scan reads them. Nested calls keep the outermost mark.
void lg_scan_enter_check(void);
/// Ends what the matching `lg_scan_enter_check` began.
void lg_scan_leave_check(void);

/// The conservative holder scan behind orphan detection. Must be called while the calling thread
/// holds a freeze (`lg_freeze_objects`), so no tracked object moves or is freed.
///
/// Stops every other thread of the process with a signal (its handler spills the thread's registers
/// onto the thread's own stack and waits), then reads, with `process_vm_readv` on the process
/// itself (never faulting on memory unmapped meanwhile), every readable and writable mapping in
/// `/proc/self/maps` — module data and bss, the malloc heap and arenas, anonymous mappings, and each
/// thread's stack from its stack pointer up (the calling thread's registers are spilled first) —
/// except the recorder's own tables and `request->excluded`. Every word is masked with the pointer's
/// spare bits (top byte) and compared with the candidates; interior pointers count. A word outside
/// every tracked object sets `held[i]`; a word inside a tracked object other than the candidate
/// itself is appended to `hits` (the caller compares them with the references the walk read
/// exactly); when `hits` is full the candidate is marked held. `held_at[i]` (when not NULL) receives
/// the address of the first such untracked word. Then the threads are resumed.
///
/// Nothing here allocates or takes a lock another thread may hold while the threads are stopped.
/// Returns LG_SCAN_OK, or LG_SCAN_ABSTAINED (then `held` and `hits` mean nothing).
int lg_scan_holders(lg_scan_request *request);

/// Copies up to `length` bytes at `address` of this process into `buffer` without ever faulting
/// (`process_vm_readv`); returns the number of bytes copied (0 when unreadable).
size_t lg_read_memory(uintptr_t address, void *buffer, size_t length);

#ifdef __cplusplus
}
#endif

#endif /* CLEAKGRAPH_HOLDER_SCAN_H */
