// The internals of the holder scan (CLeakGraphHolderScan.h), split by concern:
//
//   holder_scan.c          lg_scan_holders: what to skip, stop, read (in passes), resume
//   holder_scan_threads.c  stopping every other thread with a signal and resuming it
//   holder_scan_memory.c   reading the process's memory and comparing every word with a pass's targets
//   holder_scan_chunks.c   untracked malloc chunks: their bounds, and which object owns them
//   holder_scan_kernel.c   the places where the kernel keeps the program's words
//   holder_scan_tasks.c    memory owned by tasks: their allocators' slabs (async frames)
//   holder_scan_marks.c    check-entry marks: where a checking thread's stack is read from
//
// A scan reads everything once for the candidates (pass 0); a word found in an untracked malloc chunk
// makes that chunk a target of the next pass, which looks for the words pointing into it.
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

/// Installs the stop handler once, for good. Returns its signal, or 0 when the program already
/// handles it or memory for the thread table cannot be had: the scan abstains.
LG_HIDDEN int lg_scan_threads_prepare(void);
/// Stops every thread but the caller: returns true when every thread listed stopped (or exited). The
/// threads must be resumed with `lg_scan_resume_threads` whatever it returns.
LG_HIDDEN bool lg_scan_stop_threads(lg_scan_stop *stop);
/// Whether no thread was created since the stop began (a thread created meanwhile was not stopped).
LG_HIDDEN bool lg_scan_threads_unchanged(const lg_scan_stop *stop);
/// Resumes the threads of `stop`. Returns false when a stopped thread left before the resume (it
/// waited too long): what was read while it ran proves nothing.
LG_HIDDEN bool lg_scan_resume_threads(const lg_scan_stop *stop);
/// The thread id of stopped thread `index` (below `stop->thread_count`).
LG_HIDDEN int lg_scan_thread_id(unsigned index);
/// Where the scan reads each stopped thread's stack from: `markers[i]` for up to `thread_count`
/// threads (see `lg_scan_stack_start`). Returns how many it wrote.
LG_HIDDEN size_t lg_scan_thread_stacks(const lg_scan_stop *stop, uintptr_t *markers);
/// A range of memory to read, handed to a visitor with its context.
typedef void (*lg_scan_range_visitor)(uintptr_t start, uintptr_t end, void *context);
/// Hands `visit` each range of a stopped thread's signal frame that holds its registers at the
/// interruption (x86_64: the general-purpose registers and the vector state XSAVE wrote); the stack
/// read begins above them (`lg_scan_thread_stacks`), so the frame's unwritten gaps are never read.
/// Elsewhere nothing: the stacks are read from the handlers' frames up, registers included. Returns false
/// when a stopped thread's signal frame cannot be read: the scan must abstain.
LG_HIDDEN bool lg_scan_thread_registers(const lg_scan_stop *stop, lg_scan_range_visitor visit, void *context);

// MARK: holder_scan_memory.c — reading memory

/// Pointer bits Swift may use for tags (spare bits of a heap object reference, bridge-object flags):
/// the top byte on x86_64 and arm64 (where the hardware ignores it). The three low bits need no mask:
/// a word pointing anywhere inside a target counts.
#define LG_SCAN_POINTER_MASK 0x00FFFFFFFFFFFFFFull

/// What one scan compares against and writes to.
typedef struct lg_scan_job {
    lg_scan_request *request;
    /// The pass: 0 looks for the candidates, later passes for untracked malloc chunks.
    unsigned pass;
    /// The pass's targets (the candidates, or chunks), ascending, not overlapping.
    const lg_range *targets;
    size_t target_count;
    /// The lowest and highest target address (a word outside is no target's).
    uintptr_t low;
    uintptr_t high;
    /// The mapping being read; whether malloc chunks can be in it (anonymous or the main heap), and
    /// whether it is the main heap (whose first chunk is at its start).
    uintptr_t map_start;
    uintptr_t map_end;
    bool map_heap;
    bool map_main_heap;
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
/// Whether a line of the maps just read contains `text`.
LG_HIDDEN bool lg_scan_maps_contain(const char *text);
/// Compares every word of every readable and writable mapping of the maps just read with the pass's
/// targets; a mapping holding one of the `markers` (a stack) is read from the lowest marker in it up.
LG_HIDDEN void lg_scan_mappings(lg_scan_job *job, const uintptr_t *markers, size_t marker_count);
/// Compares every word of `[start, end)` — a stopped thread's registers in its signal frame — with the
/// pass's targets, as memory in no malloc chunk.
LG_HIDDEN void lg_scan_registers(lg_scan_job *job, uintptr_t start, uintptr_t end);
/// Sorts `count` elements of `size` bytes (at most 64) in place, `before(a, b)` the order: a heap sort,
/// O(n log n) with no allocation (glibc's qsort may call malloc, whose lock a stopped thread may hold).
LG_HIDDEN void lg_scan_sort(void *base, size_t count, size_t size, bool (*before)(const void *a, const void *b));
/// The target of the pass containing `value` (already masked), or -1.
LG_HIDDEN long lg_scan_target(const lg_scan_job *job, uintptr_t value);
/// A word pointing into `target` was found at `location` (`place` `LG_HELD_MEMORY`), or in a place of
/// the kernel (`place` an `lg_kernel_place_kind`, `location` its descriptor).
LG_HIDDEN void lg_scan_found(lg_scan_job *job, size_t target, uintptr_t location, unsigned place);

// MARK: holder_scan_chunks.c — untracked malloc chunks

/// What `lg_scan_chunk_at` found.
typedef struct lg_chunk_lookup {
    enum { LG_CHUNK_UNKNOWN, LG_CHUNK_IN_USE, LG_CHUNK_FREE } state;
    /// The chunk's bytes (from its user pointer to the next chunk's size word).
    lg_range range;
} lg_chunk_lookup;

/// What holds a word pointing into a chunk.
typedef struct lg_chunk_holder {
    enum { LG_CHUNK_HOLDER_ROOT, LG_CHUNK_HOLDER_OBJECT, LG_CHUNK_HOLDER_CHUNK } kind;
    uintptr_t object;
    lg_range chunk;
} lg_chunk_holder;

/// Checks glibc's chunk layout once and maps the chunk tables. Returns false when memory for the
/// tables cannot be had (the scan abstains); a layout that does not match only turns chunks off.
LG_HIDDEN bool lg_scan_chunks_prepare(void);
/// The chunk tables' memory, which the scan never reads.
LG_HIDDEN lg_range lg_scan_chunks_buffer(void);
/// Forgets the chunks of the last scan.
LG_HIDDEN void lg_scan_chunks_reset(void);
/// Whether chunks are followed (glibc's layout matched).
LG_HIDDEN bool lg_scan_chunks_known(void);
/// Where the memory of the tracked object at `object` (`size` bytes asked for) ends: the end of its
/// malloc chunk when the layout is known, else `object + size`.
LG_HIDDEN uintptr_t lg_scan_object_end(uintptr_t object, size_t size);
/// The malloc chunk holding `location`, in the mapping `job` is reading.
LG_HIDDEN lg_chunk_lookup lg_scan_chunk_at(const lg_scan_job *job, uintptr_t location);
/// Pass 0: the word at `location`, in untracked chunk `chunk`, points into `candidate`. False when the
/// tables are full (the candidate is then held).
LG_HIDDEN bool lg_scan_chunk_hit(uint64_t candidate, lg_range chunk, uintptr_t location);
/// Later passes: `holder` holds a word, at `location`, pointing into target chunk `target`.
LG_HIDDEN void lg_scan_chunk_found(size_t target, lg_chunk_holder holder, uintptr_t location);
/// The next pass's targets: the chunks not looked at yet that hold a word into a candidate or chunk not
/// held. Candidates a held chunk holds are marked held first (`held`, `held_at`). Returns their number (0:
/// no further pass), their ranges in `*ranges`, ascending.
LG_HIDDEN size_t lg_scan_chunks_next_pass(uint8_t *held, uintptr_t *held_at, const lg_range **ranges);
/// After the last pass: decides which object owns each chunk and turns the candidates' words in
/// chunks into `hits` (an owner's) or `held` (a chunk that holds), or nothing (garbage).
LG_HIDDEN void lg_scan_chunks_resolve(lg_scan_request *request);

// MARK: holder_scan_tasks.c — memory owned by tasks

/// Maps the task-slab table once and reads the runtime's slab layout (never while threads are stopped:
/// it may look up symbols). Returns false when the table cannot be had: the scan abstains.
LG_HIDDEN bool lg_scan_tasks_prepare(void);
/// The task-slab table's memory, which the scan never reads.
LG_HIDDEN lg_range lg_scan_tasks_buffer(void);
/// Collects the allocator slabs of every tracked task (the other threads stopped).
LG_HIDDEN void lg_scan_tasks_collect(const lg_scan_request *request);
/// The task whose allocator slab holds `address`, or 0; `*dead` is set when the address lies past the
/// slab's allocations in use (popped frames: its words hold nothing).
LG_HIDDEN uintptr_t lg_scan_task_owning(uintptr_t address, bool *dead);

// MARK: holder_scan_kernel.c — the kernel's places

/// Maps the kernel reader's buffers once. Returns false when that fails: the scan abstains.
LG_HIDDEN bool lg_scan_kernel_prepare(void);
/// The kernel reader's buffers, which the scan never reads (two ranges).
LG_HIDDEN size_t lg_scan_kernel_buffers(lg_range *out);
/// Reads every place where the kernel keeps the program's words (the other threads stopped; the maps
/// read), listing in the request those that cannot be read. `own_signal` is the scan's stop signal.
LG_HIDDEN void lg_scan_kernel_read(lg_scan_job *job, const lg_scan_stop *stop, int own_signal);
/// Compares what `lg_scan_kernel_read` read with the pass's targets.
LG_HIDDEN void lg_scan_kernel_compare(lg_scan_job *job);
/// Zeroes the copies of the program's bytes and words the kernel reader kept.
LG_HIDDEN void lg_scan_kernel_clear(void);

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
