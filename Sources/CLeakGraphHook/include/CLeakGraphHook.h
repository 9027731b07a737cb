// CLeakGraphHook: the record stage of LeakGraph.
//
// Replaces the Swift runtime's `_swift_allocObject` function pointer with a hook that records every
// Swift heap allocation (object, metadata, size, creation stack) and keeps the object's memory alive
// after `deinit` as a "zombie" (an unowned retain), so that a heap walk never reads freed memory.
// Dead zombies are released in amortized O(1) per allocation: each thread appends to its own small
// nursery, swept when full; survivors move to a shared table that is swept when it has doubled.
//
// Linux only (x86_64 and arm64); elsewhere `lg_install` refuses with LG_ERR_UNSUPPORTED_PLATFORM.
// Every exported symbol is prefixed `lg_`. Nothing here calls Swift, stdio or anything that can
// allocate a Swift object from inside the hook.

#ifndef CLEAKGRAPHHOOK_H
#define CLEAKGRAPHHOOK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One tracked Swift heap object, as returned by `lg_freeze`.
///
/// `object` is the address of the heap object, `metadata` its type metadata pointer (its first
/// word), `size` the size the runtime was asked to allocate, `stack_id` the creation stack (see
/// `lg_stack`) or `LG_NO_STACK`.
typedef struct lg_record {
    uintptr_t object;
    uintptr_t metadata;
    size_t size;
    uint32_t stack_id;
} lg_record;

/// The stack id of a record that has no creation stack (stacks disabled or the stack table full).
#define LG_NO_STACK UINT32_MAX

/// The number of frames recorded per allocation when the caller has no preference.
#define LG_DEFAULT_MAX_FRAMES 16u

/// The largest number of frames `lg_install` accepts.
#define LG_MAX_FRAMES_LIMIT 64u

/// Result codes of `lg_install` and `lg_install_mode`. Zero is success.
typedef enum lg_status {
    /// Installed (or already installed in the same mode).
    LG_OK = 0,
    /// Not Linux on x86_64 or arm64.
    LG_ERR_UNSUPPORTED_PLATFORM = 1,
    /// The Swift runtime's hook points (`_swift_allocObject`, `swift_retain`, ...) were not found:
    /// no Swift runtime is loaded, or it is linked statically without exported symbols.
    LG_ERR_RUNTIME_NOT_FOUND = 2,
    /// The Swift runtime was found but cannot be hooked safely (unknown version, or the 6.3
    /// retain-adapter workaround cannot be applied).
    LG_ERR_UNSUPPORTED_RUNTIME = 3,
    /// An argument is out of range (`max_frames` above `LG_MAX_FRAMES_LIMIT`, unknown mode).
    LG_ERR_INVALID_ARGUMENT = 4,
    /// Already installed in a different mode.
    LG_ERR_CONFLICT = 5,
    /// Memory for the hook's tables could not be allocated.
    LG_ERR_OUT_OF_MEMORY = 6,
} lg_status;

/// What the hook does with each allocation. Only `LG_MODE_TRACK` is meant for leak checking; the
/// other two exist so that a benchmark can measure the cost of each layer.
typedef enum lg_mode {
    /// Record, keep as a zombie until dead, release dead zombies. What `lg_install` uses.
    LG_MODE_TRACK = 0,
    /// Capture and intern the stack and append to the nursery, then discard: no zombies, nothing
    /// survives to `lg_freeze`. Benchmark only.
    LG_MODE_RECORD_ONLY = 1,
    /// Call the original allocator and return. Benchmark only.
    LG_MODE_PASS_THROUGH = 2,
} lg_mode;

/// Counters describing the hook's work so far (`lg_stats`). Read without stopping other threads,
/// so the figures are approximate while other threads allocate.
typedef struct lg_stats_t {
    /// Allocations the hook recorded.
    uint64_t allocations;
    /// Allocations that passed through unrecorded because their thread was ignored.
    uint64_t ignored;
    /// Records held now: live objects plus dead ones not yet swept.
    uint64_t records;
    /// Zombies found dead and released (their memory freed).
    uint64_t zombies_released;
    /// Distinct creation stacks interned.
    uint64_t stacks;
    /// Per-thread nursery sweeps.
    uint64_t nursery_sweeps;
    /// Sweeps of the shared table of survivors.
    uint64_t table_sweeps;
    /// The Swift runtime's version as `major << 16 | minor << 8 | patch` (0 before install).
    uint32_t runtime_version;
    /// 1 when the Swift 6.3 retain-adapter workaround is in place.
    uint32_t retain_adapter_replaced;
} lg_stats_t;

/// Installs the allocation hook in `LG_MODE_TRACK`, recording up to `max_frames` return addresses
/// per allocation (0 records no stacks).
///
/// Returns 0 (LG_OK) on success, including when already installed in this mode (then only
/// `max_frames` is updated). Otherwise returns an `lg_status`, writes one sentence saying why into
/// `error` (NUL-terminated, truncated to `error_len`; `error` may be NULL) and changes nothing.
/// Safe to call from any thread; never crashes the program on an unsupported runtime.
int lg_install(unsigned max_frames, char *error, size_t error_len);

/// Like `lg_install` with an explicit `mode`; installing again in a different mode fails with
/// LG_ERR_CONFLICT. Exists for benchmarks.
int lg_install_mode(unsigned max_frames, lg_mode mode, char *error, size_t error_len);

/// Returns 1 once `lg_install` has succeeded, otherwise 0.
int lg_is_installed(void);

/// From now on the calling thread's allocations pass through unrecorded. Nestable: each call must
/// be balanced by `lg_thread_ignore_end`.
void lg_thread_ignore_begin(void);

/// Ends one `lg_thread_ignore_begin`.
void lg_thread_ignore_end(void);

/// Stops the world of recording and returns a snapshot of every live tracked object.
///
/// Ignores the calling thread's allocations, takes every lock of the allocation table (other
/// threads that allocate block until `lg_unfreeze`), moves every nursery into the table, releases
/// every dead zombie, and stores in `*out_records` a malloc'd array of the remaining records,
/// sorted by object address, whose count it returns. Until `lg_unfreeze` no zombie is released, so
/// the memory of every returned object may be read. Returns 0 with `*out_records` NULL when not
/// installed or out of memory. A nested call on the same thread returns a fresh copy of the same
/// snapshot. Every call must be balanced by `lg_unfreeze`.
size_t lg_freeze(lg_record **out_records);

/// Frees `records` (from `lg_freeze`, may be NULL) and, at the outermost level, releases the locks
/// taken by `lg_freeze` and stops ignoring the calling thread.
void lg_unfreeze(lg_record *records);

/// The return addresses of stack `stack_id`, innermost first, with their number in `*count`.
/// Valid for the life of the process. Returns NULL with `*count` 0 for `LG_NO_STACK` or an unknown
/// id.
const uintptr_t *lg_stack(uint32_t stack_id, size_t *count);

/// For a preloaded `free()` wrapper: returns 1 when `pointer` is an object LeakGraph tracks (freed
/// with plain `free()` behind the Swift runtime's back, as CoreFoundation and some compiler-emitted
/// helpers do). The free is then deferred — the caller must not free the block — and the memory is
/// released when the tracker drops the record, so no record ever names reused memory. Returns 0 for
/// every other pointer, which the caller frees as usual. Safe on any thread, lock-free.
int lg_free_intercept(void *pointer);

/// Fills `stats` with the hook's counters.
void lg_stats(lg_stats_t *stats);

#ifdef __cplusplus
}
#endif

#endif /* CLEAKGRAPHHOOK_H */
