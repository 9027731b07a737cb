// Declarations shared by the files of CLeakGraphHook. Not part of the public header.

#ifndef LG_INTERNAL_H
#define LG_INTERNAL_H

#include "CLeakGraphHook.h"

#ifdef __linux__

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define LG_HIDDEN __attribute__((visibility("hidden")))
#define LG_LIKELY(x) __builtin_expect(!!(x), 1)
#define LG_UNLIKELY(x) __builtin_expect(!!(x), 0)

_Static_assert(sizeof(lg_record) == 32, "lg_record is shared with Swift: 4 words");
_Static_assert(sizeof(lg_stats_t) == 64, "lg_stats_t is shared with Swift: 7 counters + 2 words");
_Static_assert(sizeof(uintptr_t) == 8, "CLeakGraphHook supports 64-bit targets only");

/// Records a thread appends before its nursery is swept. Small enough that the nursery and the
/// objects it names are still in cache when swept (1024 * 32 bytes = 32 KiB).
#define LG_NURSERY_CAPACITY 1024u

/// The hook releases dead zombies among this many youngest records of its nursery before each
/// allocation (see `lg_release_dead_young` in hook.c).
#define LG_YOUNG_WINDOW 4u

/// The shared table is swept when it holds at least this many records and twice as many as the
/// last sweep left.
#define LG_TABLE_MIN_SWEEP 16384u

/// The signature of `_swift_allocObject` and of the hook.
typedef void *(*lg_alloc_fn)(const void *metadata, size_t size, size_t align_mask);

// Swift runtime entry points (libswiftCore). Plain C calling convention.
extern void swift_nonatomic_unownedRetain(void *object);
extern void swift_unownedRelease(void *object);
extern bool swift_isDeallocating(void *object);
extern void swift_slowDealloc(void *pointer, size_t bytes, size_t align_mask);

/// Per-thread recording state. Owned by one thread at a time; reused after its thread exits.
typedef struct lg_thread {
    /// Spin lock over `nursery` and `count`: taken by the owner for each record, by `lg_freeze`
    /// for the whole freeze, and by the thread-exit flush.
    atomic_int lock;
    /// Number of valid entries in `nursery` (written under `lock`, read relaxed by `lg_stats`).
    _Atomic uint32_t count;
    /// Stack bounds of the owning thread: a frame-pointer walk stays inside [stack_low, stack_high).
    uintptr_t stack_low;
    uintptr_t stack_high;
    /// Counters written only by the owner (relaxed), summed by `lg_stats`.
    _Atomic uint64_t allocations;
    _Atomic uint64_t released;
    /// The owner's last interned stack: a loop allocating from one call site skips the hash table.
    uint32_t cached_stack_count;
    uint32_t cached_stack_id;
    uintptr_t cached_stack[LG_MAX_FRAMES_LIMIT];
    /// Next in the registry (push-only, never unlinked).
    struct lg_thread *_Atomic next;
    /// Next in the free list (under the registry mutex).
    struct lg_thread *next_free;
    /// The youngest records of this thread.
    lg_record nursery[LG_NURSERY_CAPACITY];
} lg_thread;

// install.c
LG_HIDDEN extern atomic_int lg_installed;

// hook.c
LG_HIDDEN extern _Atomic(lg_alloc_fn) lg_original_alloc;
LG_HIDDEN extern atomic_int lg_current_mode;
LG_HIDDEN extern atomic_uint lg_max_frames;
LG_HIDDEN extern _Atomic uint64_t lg_ignored_count;
LG_HIDDEN void *lg_alloc_hook(const void *metadata, size_t size, size_t align_mask);

// thread-local state (hook.c)
LG_HIDDEN extern __thread unsigned lg_tls_ignore __attribute__((tls_model("initial-exec")));
LG_HIDDEN extern __thread lg_thread *lg_tls_thread __attribute__((tls_model("initial-exec")));

// table.c
LG_HIDDEN int lg_table_init(void);
LG_HIDDEN lg_thread *lg_thread_register(void);
LG_HIDDEN void lg_nursery_full(lg_thread *thread, int mode);
LG_HIDDEN void lg_table_stats(lg_stats_t *stats);

// stacks.c
LG_HIDDEN int lg_stacks_init(void);
LG_HIDDEN uint32_t lg_stack_intern(const uintptr_t *frames, uint32_t count);
LG_HIDDEN uint64_t lg_stack_count(void);

// retain_adapter.c
/// Finds `_swift_retain_adapter` in the runtime's symbol table and checks that it can be replaced.
/// Returns 0 and fills `*slot` or returns non-zero with a sentence in `error`.
LG_HIDDEN int lg_retain_adapter_prepare(void ***slot, char *error, size_t error_len);
/// Points the prepared slot at LeakGraph's adapter.
LG_HIDDEN void lg_retain_adapter_apply(void **slot);

// install.c
LG_HIDDEN void lg_set_error(char *error, size_t error_len, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

// address_map.c
LG_HIDDEN extern atomic_int lg_map_active;
LG_HIDDEN extern const uintptr_t lg_freed_marker;
/// Marks a tracked object's address; false when the map could not grow (the object is then not kept).
LG_HIDDEN bool lg_map_mark(uintptr_t address);
/// Atomically clears an address's mark; true for the one caller that cleared it.
LG_HIDDEN bool lg_map_claim(uintptr_t address);

/// glibc's own free, which the preloaded `free` wrapper forwards to.
extern void __libc_free(void *pointer);

// spin lock (inline: on the hook's fast path)
LG_HIDDEN void lg_spin_lock_slow(atomic_int *lock);

static inline void lg_spin_lock(atomic_int *lock) {
    if (LG_LIKELY(!atomic_exchange_explicit(lock, 1, memory_order_acquire))) {
        return;
    }
    lg_spin_lock_slow(lock);
}

static inline void lg_spin_unlock(atomic_int *lock) {
    atomic_store_explicit(lock, 0, memory_order_release);
}

/// Whether a tracked object has been deinitialized: `swift_isDeallocating` without the call.
///
/// The inline refcount word at +8 (Swift 5+ ABI, 64-bit) has IsDeiniting at bit 32 unless bit 63
/// (UseSlowRC) says the counts live in a side table, which only the runtime reads. The runtime's own
/// fast path makes the same test: `bits >= 0 || low 32 bits all ones` (immortal) reads bit 32.
static inline bool lg_is_dead(void *object) {
    uint64_t bits = __atomic_load_n((const uint64_t *)object + 1, __ATOMIC_RELAXED);
    if (LG_LIKELY((int64_t)bits >= 0 || (uint32_t)bits == UINT32_MAX)) {
        return (bits >> 32) & 1;
    }
    return swift_isDeallocating(object);
}

/// Releases LeakGraph's unowned reference to a dead object, freeing its memory.
///
/// When the refcount word reads "deinitialized, no strong count, one unowned reference, no side
/// table" (`0x1_0000_0002`, bit 0 aside), that one reference is ours and nothing else can reach the
/// object, so it is freed exactly as `swift_unownedRelease` would free it (`swift_slowDealloc` with
/// the class's instance size and alignment mask), minus its atomic decrement. Only class instances
/// take this path (their metadata holds those sizes); everything else goes through the runtime.
static inline void lg_release_zombie(void *object) {
    uint64_t bits = __atomic_load_n((const uint64_t *)object + 1, __ATOMIC_RELAXED);
    const uintptr_t *metadata = *(const uintptr_t *const *)object;
    uintptr_t kind = metadata[0];
    if ((bits & ~(uint64_t)1) == (((uint64_t)1 << 32) | 2) && (kind == 0 || kind > 0x7FF)) {
        const char *class_metadata = (const char *)metadata;
        swift_slowDealloc(object, *(const uint32_t *)(class_metadata + 0x18),
                          *(const uint16_t *)(class_metadata + 0x1C));
        return;
    }
    swift_unownedRelease(object);
}

/// Drops a record if its object is gone, releasing what LeakGraph holds; returns whether it did.
///
/// Two ways an object goes: it was freed with plain `free()` behind the runtime's back (the
/// preloaded `free` deferred it and wrote `lg_freed_marker` over its metadata word: free it now), or
/// it was deinitialized (release LeakGraph's unowned reference). The address-map claim decides who
/// frees a dead object that is also being freed behind our back at this moment: if the claim is
/// lost, the other side writes the marker and the next sweep frees it.
static inline bool lg_reap(void *object) {
    if (LG_UNLIKELY(__atomic_load_n((const uintptr_t *)object, __ATOMIC_ACQUIRE) == lg_freed_marker)) {
        __libc_free(object);
        return true;
    }
    if (!lg_is_dead(object)) {
        return false;
    }
    if (LG_UNLIKELY(!lg_map_claim((uintptr_t)object))) {
        return false;
    }
    lg_release_zombie(object);
    return true;
}

/// Adds to a counter that only one thread writes: a plain load and store, no locked instruction.
static inline void lg_owner_add(_Atomic uint64_t *counter, uint64_t amount) {
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + amount,
                          memory_order_relaxed);
}

#endif /* __linux__ */

#endif /* LG_INTERNAL_H */
