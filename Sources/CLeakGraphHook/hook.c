// The allocation hook: the function `_swift_allocObject` points at once LeakGraph is installed.
//
// Fast path, per allocation: walk the frame pointers and find the stack's id (a per-thread cache,
// else a lock-free lookup); under this thread's own uncontended spin lock release the dead zombies
// at the young end of the nursery, call the original allocator, take one unowned reference
// (non-atomic: nobody else has the object yet) and append the record. No Swift, no stdio.

#include "lg_internal.h"

#ifdef __linux__

#include <string.h>

_Atomic(lg_alloc_fn) lg_original_alloc;
atomic_int lg_current_mode;
atomic_uint lg_max_frames = LG_DEFAULT_MAX_FRAMES;
_Atomic uint64_t lg_ignored_count;

__thread unsigned lg_tls_ignore __attribute__((tls_model("initial-exec")));
__thread lg_thread *lg_tls_thread __attribute__((tls_model("initial-exec")));

/// Walks the frame-pointer chain starting at the hook's own frame `frame`.
///
/// The hook's frame holds the return address into its caller. `swift_allocObject` reaches the hook
/// with a tail jump, so that first address is already in the code that allocated (an allocating
/// initializer, `swift_allocBox`, ...) and no frame of the hook itself is recorded. The walk stops
/// at a null return address, a misaligned or non-increasing frame pointer, or one outside the
/// thread's stack (Swift async frames mark their saved frame pointer with a high bit, which lands
/// outside too).
static inline uint32_t lg_walk_frames(const lg_thread *thread, uintptr_t frame, uintptr_t *frames,
                                      uint32_t max_frames) {
    const uintptr_t low = thread->stack_low;
    const uintptr_t high = thread->stack_high;
    uint32_t count = 0;
    if (frame < low || frame >= high - 2 * sizeof(uintptr_t)) {
        return 0;
    }
    while (count < max_frames) {
        const uintptr_t *words = (const uintptr_t *)frame;
        uintptr_t return_address = words[1];
        if (return_address < 4096) {
            break;
        }
        frames[count++] = return_address;
        uintptr_t next = words[0];
        if (next <= frame || (next & 7u) != 0 || next >= high - 2 * sizeof(uintptr_t)) {
            break;
        }
        frame = next;
    }
    return count;
}

/// The stack id of `frames`, from the thread's one-entry cache or the shared intern table.
static inline uint32_t lg_stack_id(lg_thread *thread, const uintptr_t *frames, uint32_t count) {
    if (count == thread->cached_stack_count) {
        uint32_t index = 0;
        while (index < count && frames[index] == thread->cached_stack[index]) {
            index++;
        }
        if (index == count) {
            return thread->cached_stack_id;
        }
    }
    uint32_t id = lg_stack_intern(frames, count);
    memcpy(thread->cached_stack, frames, count * sizeof(uintptr_t));
    thread->cached_stack_count = count;
    thread->cached_stack_id = id;
    return id;
}

/// Releases the dead zombies among the LG_YOUNG_WINDOW youngest records (thread lock held) and
/// returns the new record count.
///
/// Most objects die within an allocation or two: a temporary before its thread's next allocation,
/// a replaced value (`x = Foo()`) right after the allocation that replaces it. Freeing them here,
/// just before the allocator runs again, lets malloc hand the same memory straight back as it does
/// without the hook, where a batch freed at the next sweep would not be reused as well. A record is
/// looked at here at most LG_YOUNG_WINDOW times and released once, so the cost stays O(1).
static inline uint32_t lg_release_dead_young(lg_thread *thread, uint32_t count) {
    uint32_t start = count > LG_YOUNG_WINDOW ? count - LG_YOUNG_WINDOW : 0;
    uint32_t kept = start;
    for (uint32_t index = start; index < count; index++) {
        void *object = (void *)thread->nursery[index].object;
        if (!lg_reap(object)) {
            if (kept != index) {
                thread->nursery[kept] = thread->nursery[index];
            }
            kept += 1;
        }
    }
    if (kept != count) {
        atomic_store_explicit(&thread->count, kept, memory_order_relaxed);
        lg_owner_add(&thread->released, count - kept);
    }
    return kept;
}

__attribute__((noinline)) void *lg_alloc_hook(const void *metadata, size_t size, size_t align_mask) {
    lg_alloc_fn original = atomic_load_explicit(&lg_original_alloc, memory_order_relaxed);
    if (LG_UNLIKELY(lg_tls_ignore != 0)) {
        atomic_fetch_add_explicit(&lg_ignored_count, 1, memory_order_relaxed);
        return original(metadata, size, align_mask);
    }
    int mode = atomic_load_explicit(&lg_current_mode, memory_order_relaxed);
    if (LG_UNLIKELY(mode == LG_MODE_PASS_THROUGH)) {
        return original(metadata, size, align_mask);
    }
    // Anything below that re-enters (a signal handler, a runtime callback) passes straight through.
    lg_tls_ignore = 1;

    lg_thread *thread = lg_tls_thread;
    if (LG_UNLIKELY(thread == NULL)) {
        thread = lg_thread_register();
        if (thread == NULL) {
            lg_tls_ignore = 0;
            return original(metadata, size, align_mask);
        }
    }

    uint32_t stack_id = LG_NO_STACK;
    uint32_t max_frames = atomic_load_explicit(&lg_max_frames, memory_order_relaxed);
    if (max_frames != 0) {
        uintptr_t frames[LG_MAX_FRAMES_LIMIT];
        uint32_t depth =
            lg_walk_frames(thread, (uintptr_t)__builtin_frame_address(0), frames, max_frames);
        stack_id = depth == 0 ? LG_NO_STACK : lg_stack_id(thread, frames, depth);
    }

    // The lock is held across the allocator (plain malloc) so that the record appears atomically
    // with respect to a freeze.
    lg_spin_lock(&thread->lock);
    uint32_t count = atomic_load_explicit(&thread->count, memory_order_relaxed);
    if (mode == LG_MODE_TRACK) {
        count = lg_release_dead_young(thread, count);
    }
    void *object = original(metadata, size, align_mask);
    // A tracked object must be in the address map (so a plain free() of it is deferred); if the map
    // cannot grow, the object is left untracked rather than kept as a zombie nobody could release.
    if (LG_LIKELY(object != NULL) &&
        (mode != LG_MODE_TRACK || LG_LIKELY(lg_map_mark((uintptr_t)object)))) {
        if (mode == LG_MODE_TRACK) {
            // The object is not published yet, so the non-atomic variant is race-free.
            swift_nonatomic_unownedRetain(object);
        }
        lg_record *record = &thread->nursery[count];
        record->object = (uintptr_t)object;
        record->metadata = (uintptr_t)metadata;
        record->size = size;
        record->stack_id = stack_id;
        count += 1;
        atomic_store_explicit(&thread->count, count, memory_order_relaxed);
        if (LG_UNLIKELY(count == LG_NURSERY_CAPACITY)) {
            lg_nursery_full(thread, mode);
        }
        lg_owner_add(&thread->allocations, 1);
    }
    lg_spin_unlock(&thread->lock);

    lg_tls_ignore = 0;
    return object;
}

void lg_thread_ignore_begin(void) {
    lg_tls_ignore += 1;
}

void lg_thread_ignore_end(void) {
    if (lg_tls_ignore > 0) {
        lg_tls_ignore -= 1;
    }
}

#else /* !__linux__ */

void lg_thread_ignore_begin(void) {}
void lg_thread_ignore_end(void) {}

#endif /* __linux__ */
