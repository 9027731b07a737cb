// CLeakGraphHook: the record stage of LeakGraph.
//
// Replaces the Swift runtime's `_swift_allocObject` function pointer with a hook that records every
// Swift heap allocation (object, metadata, size, creation stack), and learns of each tracked
// object's death from `free()`: the runtime's deallocation ends in the C library's `free`, and
// CoreFoundation frees some Swift objects with plain `free()`. A free of a tracked object drops its
// record before the memory is really freed, so no record ever names reused memory; while a check
// is in progress (`lg_freeze` … `lg_unfreeze`) such frees wait, so a heap walk never reads freed
// memory.
//
// `free` is seen in one of two ways: `libLeakGraphPreload.so` interposes `free` for the whole
// process and calls `lg_free`; a program that links LeakGraph and calls `lg_install` gets the
// `free` imports (GOT entries) of its loaded modules pointed at `lg_free`.
//
// Linux only (x86_64 and arm64); elsewhere `lg_install` refuses with LG_ERR_UNSUPPORTED_PLATFORM.
// Every exported symbol is prefixed `lg_`. Nothing here calls Swift, stdio or anything that can
// allocate a Swift object from inside the hooks.

#ifndef CLEAKGRAPHHOOK_H
#define CLEAKGRAPHHOOK_H

#include <stddef.h>
#include <stdint.h>

#include "CLeakGraphContract.h"
#include "CLeakGraphAllocationCounts.h"
#include "CLeakGraphHookHistory.h"

#ifdef __cplusplus
extern "C" {
#endif

/// One tracked Swift heap object, as returned by `lg_freeze`.
///
/// `object` is the address of the heap object, `metadata` its type metadata pointer (its first
/// word), `size` the size the runtime was asked to allocate, `stack_id` the creation stack (see
/// `lg_stack`) or `LG_NO_STACK`, `scope` the allocation scope the object was made in (see
/// `lg_scope_begin`) or 0.
typedef struct lg_record {
    uintptr_t object;
    uintptr_t metadata;
    size_t size;
    uint32_t stack_id;
    uint32_t scope;
} lg_record;

/// The most allocation scopes open at once (`lg_scope_begin`); ids are 1...LG_SCOPE_LIMIT.
#define LG_SCOPE_LIMIT 4095u

/// The scope id inside a scope token from `lg_scope_begin` (the low 32 bits; the high ones are a
/// generation that tells a reused id from its earlier use).
#define LG_SCOPE_ID(token) ((uint32_t)((token)&0xFFFFFFFFu))

/// What a scope source returns for "the one open scope, if exactly one is open".
#define LG_SCOPE_SOLE 0xFFFFFFFFFFFFFFFFull

/// Where the hook asks which scope an allocation belongs to: returns a token from
/// `lg_scope_begin`, `LG_SCOPE_SOLE`, or 0 for none. Called inside the allocation hook (its own
/// allocations pass through unrecorded) only while a scope is open; it must not block. A token of
/// a scope that has ended counts as none.
typedef uint64_t (*lg_scope_source)(void);

/// The stack id of a record that has no creation stack (stacks disabled or the stack table full).
#define LG_NO_STACK UINT32_MAX

/// The number of frames recorded per allocation when the caller has no preference.
#define LG_DEFAULT_MAX_FRAMES ((unsigned)LG_FRAMES_DEFAULT)

/// The largest number of frames `lg_install` accepts.
#define LG_MAX_FRAMES_LIMIT ((unsigned)LG_FRAMES_LIMIT)

/// Result codes of `lg_install` and `lg_install_mode`. Zero is success.
typedef enum lg_status {
    /// Installed (or already installed in the same mode).
    LG_OK = 0,
    /// Not Linux on x86_64 or arm64.
    LG_ERR_UNSUPPORTED_PLATFORM = 1,
    /// The Swift runtime's hook points (`_swift_allocObject`, `swift_retain`, ...) were not found:
    /// no Swift runtime is loaded, or it is linked statically without exported symbols.
    LG_ERR_RUNTIME_NOT_FOUND = 2,
    /// The Swift runtime was found but cannot be hooked safely (unknown version, the 6.3
    /// retain-adapter workaround cannot be applied, or `free` cannot be intercepted).
    LG_ERR_UNSUPPORTED_RUNTIME = 3,
    /// An argument is out of range (`max_frames` above `LG_MAX_FRAMES_LIMIT`, unknown mode).
    LG_ERR_INVALID_ARGUMENT = 4,
    /// Already installed in a different mode, or the allocator is already hooked by someone else
    /// (for example another copy of LeakGraph).
    LG_ERR_CONFLICT = 5,
    /// Memory for the hook's tables could not be allocated.
    LG_ERR_OUT_OF_MEMORY = 6,
} lg_status;

/// What the hook does with each allocation. Only `LG_MODE_TRACK` is meant for leak checking; the
/// other two exist so that a benchmark can measure the cost of each layer.
typedef enum lg_mode {
    /// Record every allocation until its memory is freed. What `lg_install` uses.
    LG_MODE_TRACK = 0,
    /// Capture and intern the stack, then discard: nothing is stored, nothing survives to
    /// `lg_freeze`. Benchmark only.
    LG_MODE_RECORD_ONLY = 1,
    /// Call the original allocator and return. Benchmark only.
    LG_MODE_PASS_THROUGH = 2,
} lg_mode;

/// How frees of tracked objects reach LeakGraph (`lg_stats_t.free_interception`).
typedef enum lg_free_interception {
    /// Not installed yet.
    LG_FREE_NOT_INTERCEPTED = 0,
    /// A preloaded library interposes `free` for the whole process (`leakgraph run`).
    LG_FREE_PRELOADED = 1,
    /// The `free` imports (GOT entries) of the modules loaded at installation point at `lg_free`.
    LG_FREE_PATCHED_IMPORTS = 2,
} lg_free_interception;

/// Counters describing the hook's work so far (`lg_stats`). Read without stopping other threads,
/// so the figures are approximate while other threads allocate.
typedef struct lg_stats_t {
    /// Allocations the hook recorded.
    uint64_t allocations;
    /// Allocations that passed through unrecorded because their thread was ignored.
    uint64_t ignored;
    /// Records held now: objects allocated and not yet freed.
    uint64_t records;
    /// Frees of tracked objects seen (each dropped its record).
    uint64_t tracked_frees;
    /// Of those, frees made by the thread holding a freeze, performed at `lg_unfreeze`.
    uint64_t deferred_frees;
    /// Distinct creation stacks interned.
    uint64_t stacks;
    /// Bytes the hook holds for its records now: record slabs and the touched pages of the
    /// address map (creation stacks not included).
    uint64_t record_bytes;
    /// The Swift runtime's version as `major << 16 | minor << 8 | patch` (0 before install).
    uint32_t runtime_version;
    /// 1 when the Swift 6.3 retain-adapter workaround is in place.
    uint32_t retain_adapter_replaced;
    /// An `lg_free_interception`.
    uint32_t free_interception;
    /// With LG_FREE_PATCHED_IMPORTS: how many `free` imports were pointed at `lg_free`.
    uint32_t patched_free_imports;
    /// With LG_FREE_PATCHED_IMPORTS: how many `swift_task_create` imports were pointed at the task hook
    /// (tasks are recorded where they are created: they are not allocated through `_swift_allocObject`).
    uint32_t patched_task_imports;
} lg_stats_t;

/// Installs the allocation hook in `LG_MODE_TRACK`, recording up to `max_frames` return addresses
/// per allocation (0 records no stacks).
///
/// Unless a preloaded library already sends every `free` to `lg_free` (see
/// `lg_install_preloaded`), this first points the `free` imports of every loaded module (except the
/// C library and the dynamic loader) at `lg_free`. Modules loaded later and `free` reached through
/// `dlsym` are not covered.
///
/// Returns 0 (LG_OK) on success, including when already installed in this mode (then only
/// `max_frames` is updated). Otherwise returns an `lg_status`, writes one sentence saying why into
/// `error` (NUL-terminated, truncated to `error_len`; `error` may be NULL) and changes nothing.
/// Safe to call from any thread; never crashes the program on an unsupported runtime.
int lg_install(unsigned max_frames, char *error, size_t error_len);

/// Like `lg_install`, for a preloaded library whose own `free` calls `lg_free` for the whole
/// process: no import is patched.
int lg_install_preloaded(unsigned max_frames, char *error, size_t error_len);

/// Like `lg_install` with an explicit `mode`; installing again in a different mode fails with
/// LG_ERR_CONFLICT. Exists for benchmarks.
int lg_install_mode(unsigned max_frames, lg_mode mode, char *error, size_t error_len);

/// `TaskCreateFlags` bit: the task function consumes its context (then the task holds no retain on it).
#define LG_TASK_CREATE_FUNCTION_CONSUMED ((size_t)1 << 15)

/// What the concurrency runtime's `swift_task_create` returns: the task and its initial async context.
typedef struct lg_task_and_context {
    void *task;
    void *initial_context;
} lg_task_and_context;

#if !defined(__swift__)
/// The type of `swift_task_create` (the Swift calling convention), which the preloaded library
/// interposes and in-process recording patches (`task_imports.c`). Not imported into Swift.
typedef __attribute__((swiftcall))
lg_task_and_context (*lg_task_create_fn)(size_t flags, void *options, const void *result_type, void *closure_entry,
                                         void *closure_context);
#endif

/// Records a task `swift_task_create` just returned (`task`, `initial_context`), created with
/// `closure_context` and `create_flags`; `caller_frame` is the frame pointer of the function that
/// intercepted the call, so that the creation stack starts in the code that made the task.
///
/// Tasks are allocated with `malloc`, not through `_swift_allocObject`, so without this they are
/// invisible. Recorded only when the runtime's task layout is the one LeakGraph reads, the task is not a
/// child task, and the word LeakGraph will read as its closure context holds `closure_context` retained
/// (not a consumed function); the record's size is the task's header up to its initial context. The task
/// is freed with `free()` like any object, which drops the record. Called by the preloaded library's
/// `swift_task_create`.
void lg_task_created(void *task, void *initial_context, void *closure_context, size_t create_flags,
                     uintptr_t caller_frame);

/// Returns 1 once `lg_install` has succeeded, otherwise 0.
int lg_is_installed(void);

/// `free` with LeakGraph's bookkeeping: when `pointer` is a tracked object its record is dropped
/// first (waiting while another thread holds a freeze; deferred to `lg_unfreeze` when the calling
/// thread holds it), then the memory is freed with the C library's `free`. Any other pointer goes
/// straight through after one lock-free lookup. Safe on any thread, before and after installation.
void lg_free(void *pointer);

/// From now on the calling thread's allocations pass through unrecorded. Nestable: each call must
/// be balanced by `lg_thread_ignore_end`.
void lg_thread_ignore_begin(void);

/// Ends one `lg_thread_ignore_begin`.
void lg_thread_ignore_end(void);

/// Stops the world of recording and returns a snapshot of every live tracked object.
///
/// Ignores the calling thread's allocations and takes every lock of the record table: until
/// `lg_unfreeze`, other threads that allocate or free a tracked object wait, and the calling
/// thread's own frees of tracked objects are deferred. So the memory of every returned object may
/// be read until `lg_unfreeze`. Stores in `*out_records` a malloc'd array of the records, sorted by
/// object address, whose count it returns. Returns 0 with `*out_records` NULL when not installed or
/// out of memory. A nested call on the same thread returns a fresh copy of the same snapshot. Every
/// call must be balanced by `lg_unfreeze`.
size_t lg_freeze(lg_record **out_records);

/// Frees `records` (from `lg_freeze`, may be NULL) and, at the outermost level, performs the frees
/// deferred during the freeze, releases the locks taken by `lg_freeze` and stops ignoring the
/// calling thread.
void lg_unfreeze(lg_record *records);

/// Like `lg_freeze`, but stores in `*out_objects` a malloc'd array of the tracked objects' addresses
/// only, ascending (8 bytes per object instead of 32): a heap walk reads each object's metadata from
/// its first word and asks `lg_frozen_record` for the size and stack of the objects it reports. Every
/// call must be balanced by `lg_unfreeze_objects`.
size_t lg_freeze_objects(uintptr_t **out_objects);

/// While the calling thread holds a freeze (`lg_freeze` or `lg_freeze_objects`): stores the record
/// of the tracked object at `object` in `*out_record` and returns 1; returns 0 when `object` is not
/// a tracked object or no freeze is held. One lookup in the address map, no locking.
int lg_frozen_record(uintptr_t object, lg_record *out_record);

/// `lg_frozen_record` for each of the `count` addresses at `objects`, into `out_records` (an address
/// that is not a tracked object gets a record with metadata 0): one call for a run of objects, as a
/// walk reads them in address order. Returns `count`, or 0 when no freeze is held.
size_t lg_frozen_records(const uintptr_t *objects, size_t count, lg_record *out_records);

/// Frees `objects` (from `lg_freeze_objects`, may be NULL) and ends that freeze as `lg_unfreeze`
/// does.
void lg_unfreeze_objects(uintptr_t *objects);

/// Freezes the heap as `lg_freeze_objects` does, without a snapshot: returns 1 when the calling thread
/// now holds the freeze (balance it with `lg_unfreeze_only`), 0 when it does not (recording not
/// running, or another copy of LeakGraph owns the hook without this call: nothing to balance). A
/// `lg_freeze_objects` inside it nests and gives the snapshot. For a fork whose child takes the
/// snapshot itself (CLeakGraphForkedWalk.h).
int lg_freeze_only(void);

/// Ends a freeze of `lg_freeze_only` that returned 1.
void lg_unfreeze_only(void);

/// The return addresses of stack `stack_id`, innermost first, with their number in `*count`.
/// Valid for the life of the process. Returns NULL with `*count` 0 for `LG_NO_STACK` or an unknown
/// id.
const uintptr_t *lg_stack(uint32_t stack_id, size_t *count);

/// Fills `stats` with the hook's counters.
void lg_stats(lg_stats_t *stats);

/// Opens an allocation scope and returns its token (`LG_SCOPE_ID(token)` in 1...LG_SCOPE_LIMIT),
/// or 0 when every id is in use or the hook is not installed. While any scope is open, each recorded allocation is stamped with the scope the scope
/// source names (`lg_set_scope_source`); when the source names none and exactly one scope is open,
/// with that one (so allocations of threads the source cannot see, such as Dispatch workers, are
/// attributed exactly when scopes are used one at a time).
uint64_t lg_scope_begin(void);

/// Closes the scope of `token`: every record stamped with it goes back to no scope (so the id can
/// be reused without naming older objects), and the id is freed. Takes every shard lock briefly
/// (a pass over the records) unless the calling thread holds the freeze.
void lg_scope_end(uint64_t token);

/// The scope id `object` was allocated in: 0 when it is not a tracked object or has no scope.
uint32_t lg_scope_of(uintptr_t object);

/// Sets the function the hook asks for the current scope (NULL for none).
void lg_set_scope_source(lg_scope_source source);

/// Opens a test scope labelled `label` (copied; may be NULL) and returns its token, or 0 when the
/// hook is not installed or this copy of LeakGraph forwards to another one. A test scope marks the
/// objects one test makes: an allocation no check scope claims (see `lg_scope_begin`) is stamped
/// with the token the test source returns (`lg_set_test_scope_source`). A test scope is never
/// ended: its stamps stay on its objects for the report at exit, until its id is recycled — when
/// every id is in use, opening one recycles the oldest test scope (its objects lose their stamp;
/// `lg_test_scopes_recycled` counts them). A check scope opened while a test runs belongs to that
/// test: when it ends, its records are stamped with the test's scope instead of none.
uint64_t lg_test_scope_begin(const char *label);

/// Sets the function the hook asks for the test the current allocation belongs to, when no check
/// scope claims it: a token from `lg_test_scope_begin`, or 0 for none (NULL: no test source). Called
/// inside the allocation hook (allocations it makes pass through unrecorded) and in
/// `lg_scope_begin`; it must not block on anything an allocating thread may hold.
void lg_set_test_scope_source(lg_scope_source source);

/// The label of test scope `scope` (an id from `lg_scope_of`), or NULL when `scope` is not a test
/// scope. Valid until the scope's id is recycled.
const char *lg_scope_label(uint32_t scope);

/// How many test scopes were recycled because every scope id was in use (their objects read as
/// made outside any test).
uint32_t lg_test_scopes_recycled(void);

// MARK: Holder scan

// The conservative holder scan behind orphans has its own header.
#include "CLeakGraphHolderScan.h"
#include "CLeakGraphForkedWalk.h"

#ifdef __cplusplus
}
#endif

#endif /* CLEAKGRAPHHOOK_H */
