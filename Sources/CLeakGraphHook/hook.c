// The two paths that see objects come and go, and the freeze that stops them.
//
// Allocation (`lg_alloc_hook`, what `_swift_allocObject` points at): walk the frame pointers, find
// the stack's id (a per-thread cache, else a lock-free lookup), call the original allocator, then
// store the record under the thread's own shard lock (uncontended unless a free of one of its
// records or a freeze is running).
//
// Free (`lg_free`, called by the preloaded `free` or through the patched `free` imports): one
// lock-free map lookup; an untracked pointer goes straight to the C library. A tracked object's
// record is removed under its shard lock, then the memory is freed — so no record ever names
// memory that malloc could hand out again. A freeze holds every shard lock, so other threads'
// frees of tracked objects wait for it; the freezing thread's own are queued and performed by
// `lg_unfreeze`.
//
// No Swift, no stdio. While a shard lock is held nothing here calls `free` or `malloc`.

#include "lg_internal.h"

#include "CLeakGraphMetadata.h"
#include "alloc_counts.h"

#ifdef __linux__

#include <stdlib.h>
#include <malloc.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Set by ld.so to the stack pointer at process entry: the top of the main thread's frames.
extern void *__libc_stack_end __attribute__((weak));

// MARK: Threads

/// The calling thread's stack range, which bounds the frame-pointer walk so that it never reads
/// outside the stack (a corrupt or foreign frame pointer ends the walk instead of faulting).
static void lg_thread_stack_bounds(uintptr_t *low, uintptr_t *high) {
    *low = 0;
    *high = 0;
    if (&__libc_stack_end != NULL && __libc_stack_end != NULL && syscall(SYS_gettid) == getpid()) {
        // The main thread: pthread_getattr_np would parse /proc/self/maps with stdio.
        uintptr_t top = (uintptr_t)__libc_stack_end;
        struct rlimit limit;
        uintptr_t size = (uintptr_t)1 << 30;
        if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < size) {
            size = limit.rlim_cur;
        }
        *high = top;
        *low = top > size ? top - size : 0;
        return;
    }
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
        void *address = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(&attributes, &address, &size) == 0) {
            *low = (uintptr_t)address;
            *high = (uintptr_t)address + size;
        }
        pthread_attr_destroy(&attributes);
    }
}

/// Thread-exit destructor: the thread's records stay in their shard; only its cache goes.
static void lg_thread_exit(void *value) {
    lg_tls_thread = NULL;
    free(value);
}

/// Creates the calling thread's recording state at its first recorded allocation.
static lg_thread *lg_thread_register(void) {
    lg_thread *thread = calloc(1, sizeof(lg_thread));
    if (thread == NULL) {
        return NULL;
    }
    thread->shard = atomic_fetch_add_explicit(&lg_state.next_shard, 1, memory_order_relaxed) % LG_SHARD_COUNT;
    lg_thread_stack_bounds(&thread->stack_low, &thread->stack_high);
    if (lg_state.thread_key_ready) {
        pthread_setspecific(lg_state.thread_key, thread);
    }
    lg_tls_thread = thread;
    return thread;
}

int lg_hook_init(void) {
    if (!lg_state.thread_key_ready) {
        if (pthread_key_create(&lg_state.thread_key, lg_thread_exit) != 0) {
            return -1;
        }
        lg_state.thread_key_ready = 1;
    }
    return 0;
}

// MARK: Allocation

/// Walks the frame-pointer chain starting at the hook's own frame `frame`, hashing the frames
/// into `*hash` on the way.
///
/// The hook's frame holds the return address into its caller. `swift_allocObject` reaches the hook
/// with a tail jump, so that first address is already in the code that allocated (an allocating
/// initializer, `swift_allocBox`, ...) and no frame of the hook itself is recorded. The walk stops
/// at a null return address, a misaligned or non-increasing frame pointer, or one outside the
/// thread's stack (Swift async frames mark their saved frame pointer with a high bit, which lands
/// outside too).
static inline uint32_t lg_walk_frames(const lg_thread *thread, uintptr_t frame, uintptr_t *frames, uint32_t max_frames,
                                      uint64_t *hash) {
    const uintptr_t low = thread->stack_low;
    const uintptr_t high = thread->stack_high;
    uint64_t running = LG_STACK_HASH_SEED;
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
        running = lg_stack_hash_add(running, return_address);
        uintptr_t next = words[0];
        if (next <= frame || (next & 7u) != 0 || next >= high - 2 * sizeof(uintptr_t)) {
            break;
        }
        frame = next;
    }
    *hash = running;
    return count;
}

/// The stack id of `frames`, from the thread's cache or the shared intern table.
static inline uint32_t lg_stack_id(lg_thread *thread, const uintptr_t *frames, uint32_t count, uint64_t hash) {
    uint32_t line = (uint32_t)(hash ^ (hash >> 32)) & (LG_THREAD_STACK_CACHE - 1);
    if (thread->stack_cache[line].hash == hash && thread->stack_cache[line].count == count) {
        return thread->stack_cache[line].id;
    }
    uint32_t id = lg_stack_intern(frames, count, hash);
    thread->stack_cache[line].hash = hash;
    thread->stack_cache[line].count = count;
    thread->stack_cache[line].id = id;
    return id;
}

/// The calling thread's recording state, registered at its first record (NULL when out of memory).
static inline lg_thread *lg_current_thread(void) {
    lg_thread *thread = lg_tls_thread;
    return LG_LIKELY(thread != NULL) ? thread : lg_thread_register();
}

/// Where a recorded object was made: its creation stack and its allocation scope.
typedef struct lg_site {
    uint32_t stack_id;
    uint64_t scope;
} lg_site;

/// The site of an object being recorded now: the creation stack walked from the frame pointer
/// `frame` (LG_NO_STACK when stacks are off or the walk found nothing) and the current scope (read
/// before any shard lock is taken: the scope source is Swift code).
static inline lg_site lg_capture_site(lg_thread *thread, uintptr_t frame) {
    lg_site site = {LG_NO_STACK, 0};
    uint32_t max_frames = atomic_load_explicit(&lg_state.max_frames, memory_order_relaxed);
    if (max_frames != 0) {
        uintptr_t frames[LG_MAX_FRAMES_LIMIT];
        uint64_t hash = 0;
        uint32_t depth = lg_walk_frames(thread, frame, frames, max_frames, &hash);
        site.stack_id = depth == 0 ? LG_NO_STACK : lg_stack_id(thread, frames, depth, hash);
    }
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.scopes_open, memory_order_relaxed) != 0)) {
        site.scope = lg_current_scope();
    }
    return site;
}

/// Stores the record of `object` (`size` bytes of `metadata`, made at `site`) in the thread's own shard,
/// and counts the allocation (alloc_counts.h). An object that cannot be stored (out of memory) is simply
/// not tracked. A class instance of exactly its class's size (`sized_class`) outside any scope needs no
/// slab record (LG_ENTRY_INLINE): its size is read back from the metadata.
static inline void lg_store_record(const lg_thread *thread, uintptr_t object, const void *metadata, size_t size,
                                   lg_site site, bool sized_class) {
    lg_shard *shard = &lg_state.shards[thread->shard];
    lg_spin_lock(&shard->lock);
    uint32_t scope_id = lg_scope_stamp(site.scope);
    lg_table_insert_locked(thread->shard, object, lg_slot_make(size, site.stack_id, scope_id),
                           sized_class && scope_id == 0 ? LG_ENTRY_INLINE | lg_slot_stack_bits(site.stack_id) : 0);
    // Allocation counts (budgets, the profile): one relaxed load unless something is counted.
    lg_count_allocation(metadata, size, site.stack_id, site.scope);
    lg_spin_unlock(&shard->lock);
}

__attribute__((noinline)) void *lg_alloc_hook(const void *metadata, size_t size, size_t align_mask) {
    lg_alloc_fn original = atomic_load_explicit(&lg_state.original_alloc, memory_order_relaxed);
    if (LG_UNLIKELY(lg_tls_ignore != 0)) {
        atomic_fetch_add_explicit(&lg_state.ignored, 1, memory_order_relaxed);
        return original(metadata, size, align_mask);
    }
    int mode = atomic_load_explicit(&lg_state.mode, memory_order_relaxed);
    if (LG_UNLIKELY(mode == LG_MODE_PASS_THROUGH)) {
        return original(metadata, size, align_mask);
    }
    // Anything below that re-enters (a signal handler, a runtime callback) passes straight through.
    lg_tls_ignore = 1;

    lg_thread *thread = lg_current_thread();
    if (LG_UNLIKELY(thread == NULL)) {
        lg_tls_ignore = 0;
        return original(metadata, size, align_mask);
    }
    lg_site site = lg_capture_site(thread, (uintptr_t)__builtin_frame_address(0));

    void *object = original(metadata, size, align_mask);
    if (LG_LIKELY(object != NULL) && mode == LG_MODE_TRACK) {
        // A class instance of exactly its class's size needs no slab record: its size is read back
        // from the metadata. Metadata kind 0 (or an isa pointer) is a class.
        uintptr_t kind = *(const uintptr_t *)metadata;
        bool sized_class = (kind == 0 || kind > 0x7FF) &&
                           *(const uint32_t *)((const char *)metadata + LG_CLASS_INSTANCE_SIZE_OFFSET) == size;
        // Nobody else has the object yet, so nobody can free it before its record exists.
        lg_store_record(thread, (uintptr_t)object, metadata, size, site, sized_class);
    }

    lg_tls_ignore = 0;
    return object;
}

// MARK: Tasks

void lg_task_created(void *task, void *initial_context, void *closure_context, size_t create_flags,
                     uintptr_t caller_frame) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return;  // the preloaded copy records tasks itself
    }
    if (task == NULL || closure_context == NULL || lg_tls_ignore != 0 ||
        !atomic_load_explicit(&lg_state.installed, memory_order_acquire) ||
        atomic_load_explicit(&lg_state.mode, memory_order_relaxed) != LG_MODE_TRACK) {
        return;
    }
    // A consumed task function releases its own context: the prefix then holds no retain on it.
    if (create_flags & LG_TASK_CREATE_FUNCTION_CONSUMED) {
        return;
    }
    ptrdiff_t offset = lg_task_closure_context_offset(task);
    if (offset < 0 || (char *)task + offset + 16 != (char *)initial_context ||
        *(void **)((char *)task + offset) != closure_context) {
        return;  // not the layout LeakGraph reads: the task stays untracked (everything it holds is held)
    }
    if (((const uint64_t *)task)[1] >> 62 == 2) {
        return;  // immortal refcounts (async let tasks)
    }
    lg_tls_ignore = 1;
    lg_thread *thread = lg_current_thread();
    if (LG_UNLIKELY(thread == NULL)) {
        lg_tls_ignore = 0;
        return;
    }
    // The task may already be running on another thread, but it cannot be freed before the caller
    // drops the reference swift_task_create returned: the record exists before any free of it.
    lg_store_record(thread, (uintptr_t)task, *(void **)task, (size_t)offset + 16, lg_capture_site(thread, caller_frame),
                    false);
    lg_tls_ignore = 0;
}

void lg_thread_ignore_begin(void) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        lg_state.delegate.ignore_begin();
        return;
    }
    lg_tls_ignore += 1;
}

void lg_thread_ignore_end(void) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        lg_state.delegate.ignore_end();
        return;
    }
    if (lg_tls_ignore > 0) {
        lg_tls_ignore -= 1;
    }
}

// MARK: Free

/// Queues a free of a tracked object made by the thread holding the freeze (all shard locks held:
/// the record and the memory stay until `lg_unfreeze`). The queue is mmapped so that growing it
/// never calls malloc. Returns false when it cannot grow; the caller then leaks the block, which
/// is safe, rather than free memory a walk may read.
static bool lg_defer_free(void *pointer) {
    if (lg_state.deferred_count == lg_state.deferred_capacity) {
        size_t capacity = lg_state.deferred_capacity ? lg_state.deferred_capacity * 2 : 4096;
        void *grown = mmap(NULL, capacity * sizeof(void *), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (grown == MAP_FAILED) {
            return false;
        }
        if (lg_state.deferred != NULL) {
            memcpy(grown, lg_state.deferred, lg_state.deferred_count * sizeof(void *));
            munmap(lg_state.deferred, lg_state.deferred_capacity * sizeof(void *));
        }
        lg_state.deferred = grown;
        lg_state.deferred_capacity = capacity;
    }
    lg_state.deferred[lg_state.deferred_count++] = pointer;
    return true;
}

/// The slow path of `lg_free`: this thread holds the freeze, or the entry of `pointer` changed
/// before its shard lock was taken (then `entry` is the new one, 0 when no longer tracked).
__attribute__((noinline)) static void lg_free_tracked(void *pointer, uint32_t entry) {
    uintptr_t address = (uintptr_t)pointer;
    if (entry == 0) {
        atomic_load_explicit(&lg_state.next_free, memory_order_relaxed)(pointer);
        return;
    }
    if (lg_tls_holds_freeze) {
        // This thread holds every shard lock: the walk may still read this object.
        if (!lg_defer_free(pointer)) {
            return;
        }
        atomic_fetch_add_explicit(&lg_state.deferred_frees, 1, memory_order_relaxed);
        return;
    }
    for (;;) {
        lg_shard *shard = lg_table_lock_shard(entry, address);
        lg_spin_lock(&shard->lock);
        bool removed = lg_table_remove_locked(address, entry);
        lg_spin_unlock(&shard->lock);
        if (removed) {
            break;
        }
        // The entry changed before the lock was taken: only a different record for this address
        // can have replaced it, which means this free raced with another free of the same block.
        entry = lg_table_entry(address);
        if (entry == 0) {
            break;
        }
    }
    atomic_load_explicit(&lg_state.next_free, memory_order_relaxed)(pointer);
}

void lg_free(void *pointer) {
    if (LG_LIKELY(atomic_load_explicit(&lg_state.map_active, memory_order_relaxed))) {
        uint32_t entry = lg_table_entry((uintptr_t)pointer);
        if (entry != 0) {
            // The common case inline: not frozen by this thread, entry unchanged under the lock.
            if (LG_LIKELY(!lg_tls_holds_freeze)) {
                lg_shard *shard = lg_table_lock_shard(entry, (uintptr_t)pointer);
                lg_spin_lock(&shard->lock);
                bool removed = lg_table_remove_locked((uintptr_t)pointer, entry);
                lg_spin_unlock(&shard->lock);
                if (LG_LIKELY(removed)) {
                    atomic_load_explicit(&lg_state.next_free, memory_order_relaxed)(pointer);
                    return;
                }
                entry = lg_table_entry((uintptr_t)pointer);
            }
            lg_free_tracked(pointer, entry);
            return;
        }
    }
    if (LG_UNLIKELY(lg_tls_ignore != 0) && pointer != NULL) {
        // A check's own memory (this thread is checking, or installing) is zeroed before malloc gets
        // it back: a freed chunk keeps its bytes, and the object addresses a check handled would be
        // read by a later holder scan as holders (missed orphans). Only checking threads pay.
        memset(pointer, 0, malloc_usable_size(pointer));
    }
    atomic_load_explicit(&lg_state.next_free, memory_order_relaxed)(pointer);
}

// MARK: Freeze

/// Enters a freeze on this thread (taking every shard lock at the outermost level, when tracking);
/// returns whether this thread holds the freeze.
static bool lg_freeze_enter(void) {
    lg_tls_ignore += 1;
    if (lg_tls_freeze_depth++ == 0 && atomic_load_explicit(&lg_state.installed, memory_order_acquire) &&
        atomic_load_explicit(&lg_state.mode, memory_order_relaxed) == LG_MODE_TRACK) {
        lg_table_lock_all();
        lg_tls_holds_freeze = true;
    }
    return lg_tls_holds_freeze;
}

size_t lg_freeze(lg_record **out_records) {
    *out_records = NULL;
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return lg_state.delegate.freeze(out_records);
    }
    return lg_freeze_enter() ? lg_table_snapshot_locked(out_records) : 0;
}

size_t lg_freeze_objects(uintptr_t **out_objects) {
    *out_objects = NULL;
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return lg_state.delegate.freeze_objects(out_objects);
    }
    return lg_freeze_enter() ? lg_table_objects_locked(out_objects) : 0;
}

int lg_frozen_record(uintptr_t object, lg_record *out_record) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return lg_state.delegate.frozen_record(object, out_record);
    }
    return lg_tls_holds_freeze && lg_table_record_locked(object, out_record);
}

size_t lg_frozen_records(const uintptr_t *objects, size_t count, lg_record *out_records) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        if (lg_state.delegate.frozen_records != NULL) {
            return lg_state.delegate.frozen_records(objects, count, out_records);
        }
        for (size_t index = 0; index < count; index++) {
            if (!lg_state.delegate.frozen_record(objects[index], &out_records[index])) {
                out_records[index] = (lg_record){.object = objects[index], .stack_id = LG_NO_STACK};
            }
        }
        return count;
    }
    if (!lg_tls_holds_freeze) {
        return 0;
    }
    for (size_t index = 0; index < count; index++) {
        if (!lg_table_record_locked(objects[index], &out_records[index])) {
            out_records[index] = (lg_record){.object = objects[index], .stack_id = LG_NO_STACK};
        }
    }
    return count;
}

/// Leaves one level of this thread's freeze: at the outermost level, performs the deferred frees
/// and releases the locks.
static void lg_freeze_leave(void) {
    if (lg_tls_freeze_depth == 0) {
        return;
    }
    lg_tls_freeze_depth -= 1;
    if (lg_tls_freeze_depth == 0 && lg_tls_holds_freeze) {
        // Perform the frees this thread made while frozen: drop each record, then free the memory,
        // all before the locks go — the queue belongs to whoever holds them, and the next freeze
        // may start the moment they are released. glibc's free never calls back into the hook.
        lg_free_fn next_free = atomic_load_explicit(&lg_state.next_free, memory_order_relaxed);
        for (size_t index = 0; index < lg_state.deferred_count; index++) {
            void *pointer = lg_state.deferred[index];
            uint32_t entry = lg_table_entry((uintptr_t)pointer);
            if (entry != 0) {
                lg_table_remove_locked((uintptr_t)pointer, entry);
            }
            next_free(pointer);
        }
        lg_state.deferred_count = 0;
        lg_tls_holds_freeze = false;
        lg_table_unlock_all();
    }
    lg_thread_ignore_end();
}

void lg_unfreeze(lg_record *records) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        lg_state.delegate.unfreeze(records);
        return;
    }
    // The locks go first: the array is this thread's own, and zeroing it (after a fork, every page of
    // it is copied on write) need not make other threads wait.
    lg_freeze_leave();
    // Zeroed before it goes back to malloc: a freed chunk keeps its bytes, and a later holder scan
    // would read the snapshot's object addresses there as holders (missed orphans).
    if (records != NULL) {
        memset(records, 0, malloc_usable_size(records));
    }
    free(records);
}

int lg_freeze_only(void) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return lg_state.delegate.freeze_only != NULL ? lg_state.delegate.freeze_only() : 0;
    }
    if (lg_freeze_enter()) {
        return 1;
    }
    lg_freeze_leave();
    return 0;
}

void lg_unfreeze_only(void) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        if (lg_state.delegate.unfreeze_only != NULL) {
            lg_state.delegate.unfreeze_only();
        }
        return;
    }
    lg_freeze_leave();
}

void lg_unfreeze_objects(uintptr_t *objects) {
    // The same as for a record snapshot: free the array, leave the freeze (in the delegate too).
    lg_unfreeze((lg_record *)objects);
}

// MARK: fork

/// Set in the forking thread between prepare and parent/child: it held a freeze when it forked,
/// so the shard locks are its own and must be left alone.
static __thread bool lg_tls_forked_frozen __attribute__((tls_model("initial-exec")));

void lg_fork_prepare(void) {
    pthread_mutex_lock(&lg_state.install_mutex);
    pthread_mutex_lock(&lg_state.scope_mutex);
    lg_stacks_lock();
    lg_tls_forked_frozen = lg_tls_holds_freeze;
    if (!lg_tls_forked_frozen) {
        lg_table_lock_all();
    }
}

void lg_fork_parent(void) {
    if (!lg_tls_forked_frozen) {
        lg_table_unlock_all();
    }
    lg_stacks_unlock();
    pthread_mutex_unlock(&lg_state.scope_mutex);
    pthread_mutex_unlock(&lg_state.install_mutex);
}

void lg_fork_child(void) {
    // Only the forking thread exists in the child, and it holds every lock taken in prepare.
    if (!lg_tls_forked_frozen) {
        lg_table_unlock_all();
    }
    lg_stacks_unlock();
    pthread_mutex_unlock(&lg_state.scope_mutex);
    pthread_mutex_unlock(&lg_state.install_mutex);
}

#else /* !__linux__ */

#include <stdlib.h>

void lg_thread_ignore_begin(void) {}
void lg_thread_ignore_end(void) {}
void lg_task_created(void *task, void *initial_context, void *closure_context, size_t create_flags,
                     uintptr_t caller_frame) {
    (void)task;
    (void)initial_context;
    (void)closure_context;
    (void)create_flags;
    (void)caller_frame;
}
void lg_free(void *pointer) { free(pointer); }

size_t lg_freeze(lg_record **out_records) {
    *out_records = NULL;
    return 0;
}

void lg_unfreeze(lg_record *records) { (void)records; }

size_t lg_freeze_objects(uintptr_t **out_objects) {
    *out_objects = NULL;
    return 0;
}

int lg_frozen_record(uintptr_t object, lg_record *out_record) {
    (void)object;
    (void)out_record;
    return 0;
}

size_t lg_frozen_records(const uintptr_t *objects, size_t count, lg_record *out_records) {
    (void)objects;
    (void)count;
    (void)out_records;
    return 0;
}

void lg_unfreeze_objects(uintptr_t *objects) { (void)objects; }

int lg_freeze_only(void) { return 0; }

void lg_unfreeze_only(void) {}

#endif /* __linux__ */
