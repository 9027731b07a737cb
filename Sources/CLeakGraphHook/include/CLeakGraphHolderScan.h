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

/// A word that could reference a candidate, inside a tracked object (the candidate itself included) or
/// in untracked malloc'd memory that one tracked object owns: found by `lg_scan_holders`.
typedef struct lg_holder_hit {
    /// The candidate's index.
    uint64_t candidate;
    /// The start of the tracked object holding the word (or owning the memory that holds it).
    uintptr_t holder;
    /// Where the word is; for a word in owned memory, where the owner's word leading to that memory is.
    uintptr_t location;
    /// 1 when the word is in untracked malloc'd memory `holder` owns (every word pointing into that
    /// memory lies in `holder`, or in memory it owns in turn), 0 when it is inside `holder` itself.
    uint64_t through_memory;
} lg_holder_hit;

/// Where the kernel keeps words of the program (`lg_kernel_place.kind`, and `held[i]` when such a word
/// holds candidate `i`).
typedef enum lg_kernel_place_kind {
    /// An epoll registration's `epoll_event.data` (`/proc/self/fdinfo`).
    LG_KERNEL_EPOLL = 2,
    /// Bytes in flight in a pipe.
    LG_KERNEL_PIPE = 3,
    /// Bytes in a socket's receive queue.
    LG_KERNEL_SOCKET = 4,
    /// A POSIX timer's `sigev_value` (`/proc/self/timers`).
    LG_KERNEL_TIMER = 5,
    /// An eventfd's counter.
    LG_KERNEL_EVENTFD = 6,
    /// Bytes a TCP socket has yet to send.
    LG_KERNEL_SOCKET_SEND = 7,
    /// An io_uring instance: the data of requests in flight stays in the kernel.
    LG_KERNEL_IO_URING = 8,
    /// Messages in a POSIX message queue.
    LG_KERNEL_MQUEUE = 9,
    /// Pending realtime signals, whose values (`sigqueue`) cannot be read without taking them.
    LG_KERNEL_SIGNALS = 10,
    /// AIO contexts (`io_submit`): the data of requests in flight stays in the kernel.
    LG_KERNEL_AIO = 11,
    /// The process's descriptors could not be listed (`/proc/self/fd`).
    LG_KERNEL_DESCRIPTORS = 12,
} lg_kernel_place_kind;

/// A place the kernel keeps for the program that can hold pointers and that the scan could not read:
/// while one exists, nothing the scan found proves a candidate unreferenced.
typedef struct lg_kernel_place {
    /// An `lg_kernel_place_kind`.
    uint32_t kind;
    /// The descriptor (-1 when the place has none).
    int32_t fd;
    /// Bytes not read, when known (0 otherwise).
    uint64_t bytes;
} lg_kernel_place;

/// `held[i]`: a word in memory outside every tracked object holds candidate `i` (`held_at[i]` is its
/// address). Other non-zero values are an `lg_kernel_place_kind` (`held_at[i]` is the descriptor).
#define LG_HELD_MEMORY 1

/// What `lg_scan_holders` did, for the report and the benchmark.
typedef struct lg_scan_stats {
    /// Bytes read, and mappings read.
    uint64_t bytes;
    uint64_t mappings;
    /// Threads stopped (the calling thread not counted).
    uint64_t threads;
    /// Nanoseconds the other threads were stopped.
    uint64_t stopped_ns;
    /// Passes over memory (1, plus one per level of untracked memory followed), and untracked malloc
    /// chunks followed.
    uint64_t passes;
    uint64_t chunks;
    /// Words and bytes read from the kernel's places.
    uint64_t kernel_words;
    uint64_t kernel_bytes;
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
    /// Per candidate: non-zero when something that holds could point into it: `LG_HELD_MEMORY`, a word
    /// in memory no tracked object owns, or the `lg_kernel_place_kind` of a word the kernel keeps.
    uint8_t *held;
    /// Per candidate (may be NULL): the address of the first such word (the descriptor for a place of
    /// the kernel).
    uintptr_t *held_at;
    /// Words inside tracked objects (the candidate itself included), or in untracked memory one
    /// tracked object owns, that could point into a candidate, one entry per word; `hit_capacity`
    /// entries at most.
    lg_holder_hit *hits;
    size_t hit_capacity;
    /// Output: the entries written to `hits`.
    size_t hit_count;
    /// Places of the kernel that can hold pointers and could not be read; `unread_capacity` entries at
    /// most are written, `unread_count` counts them all.
    lg_kernel_place *unread;
    size_t unread_capacity;
    size_t unread_count;
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
/// except the recorder's own tables and `request->excluded`, and the places where the kernel keeps the
/// program's words (epoll registrations, pipes' and sockets' bytes in flight, POSIX timers' values,
/// eventfd counters). Every word is masked with the pointer's spare bits (top byte) and compared with
/// the candidates; interior pointers count.
///
/// A word inside a tracked object (its whole malloc chunk), the candidate itself included, is
/// appended to `hits` (the caller compares them with the references the walk read exactly). A word in
/// a free malloc chunk holds nothing. A word in an in-use untracked malloc chunk is followed: further
/// passes look for the words pointing into that chunk, and into the chunks holding those, up to a few
/// levels; when one tracked object owns them all the word is appended to `hits` as that object's
/// (`through_memory`), when nothing points into them it holds nothing. Any other word (a stack, a
/// module's data, memory shared by two objects, the kernel) sets `held[i]`, and so does a full `hits`.
/// `held_at[i]` (when not NULL) receives where the first such word was. Places of the kernel that
/// could not be read are listed in `unread`. Then the threads are resumed.
///
/// Nothing here allocates or takes a lock another thread may hold while the threads are stopped.
/// Returns LG_SCAN_OK, or LG_SCAN_ABSTAINED (then `held` and `hits` mean nothing).
int lg_scan_holders(lg_scan_request *request);

/// The orphan search's first pass (static_holders.c): marks in `held` the candidates `[start, end)`
/// (ascending, not overlapping) that a word of the loaded modules' writable static data (`.data`,
/// `.got`, `.bss`: globals) could point into, read with `process_vm_readv` without stopping any
/// thread (a word found makes its candidate held; a holder it misses, the holder scan still finds).
/// The modules holding any of the `skip_count` addresses `skip_modules` are not read (LeakGraph's
/// own). Words are masked as `lg_scan_holders` masks them. `held` entries already set stay set.
/// Returns how many candidates it marked, or -1 when /proc/self/maps cannot be read;
/// `*bytes_read` gets the bytes read. No allocation, no loader lock: safe while frozen.
long lg_static_holders(const lg_range *candidates, size_t count, const void *const *skip_modules, size_t skip_count,
                       uint8_t *held, uint64_t *bytes_read);

/// Copies up to `length` bytes at `address` of this process into `buffer` without ever faulting
/// (`process_vm_readv`); returns the number of bytes copied (0 when unreadable).
size_t lg_read_memory(uintptr_t address, void *buffer, size_t length);

#ifdef __cplusplus
}
#endif

#endif /* CLEAKGRAPH_HOLDER_SCAN_H */
