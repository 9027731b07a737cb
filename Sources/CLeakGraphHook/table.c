// The allocation table: per-thread nurseries, the shared table of survivors, zombie sweeps, and
// the freeze that hands a consistent snapshot to the heap walk.
//
// Generational sweep. Most objects die young, so each thread appends to a nursery of
// LG_NURSERY_CAPACITY records and sweeps it when full, while the records and the objects they name
// are still in cache: dead zombies are released at once, survivors move to the shared table. The
// shared table is swept only when it has grown to twice what its last sweep left (and at least
// LG_TABLE_MIN_SWEEP), so every record is visited O(1) times on average between its allocation
// and its release.
//
// Locks, always taken in this order: registry mutex, then thread spin locks, then the table mutex.
// The hook takes only its own thread's spin lock, and the table mutex when its nursery is full.

#include "lg_internal.h"

#ifdef __linux__

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/// Set by ld.so to the stack pointer at process entry: the top of the main thread's frames.
extern void *__libc_stack_end __attribute__((weak));

static pthread_mutex_t lg_registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static lg_thread *_Atomic lg_registry_head;
static lg_thread *lg_free_threads;
static pthread_key_t lg_thread_key;

static pthread_mutex_t lg_table_mutex = PTHREAD_MUTEX_INITIALIZER;
static lg_record *lg_table_records;
static size_t lg_table_capacity;
static _Atomic size_t lg_table_count;
static size_t lg_table_next_sweep = LG_TABLE_MIN_SWEEP;

static _Atomic uint64_t lg_released_count;
static _Atomic uint64_t lg_nursery_sweep_count;
static _Atomic uint64_t lg_table_sweep_count;

static __thread unsigned lg_tls_freeze_depth __attribute__((tls_model("initial-exec")));
static __thread bool lg_tls_froze_table __attribute__((tls_model("initial-exec")));

void lg_spin_lock_slow(atomic_int *lock) {
    for (unsigned attempt = 0;; attempt++) {
        while (atomic_load_explicit(lock, memory_order_relaxed) != 0) {
            if (attempt < 64) {
#if defined(__x86_64__)
                __builtin_ia32_pause();
#elif defined(__aarch64__)
                __asm__ __volatile__("yield");
#endif
            } else if (attempt < 128) {
                sched_yield();
            } else {
                // Held for long only by a freeze, while the heap walk runs.
                struct timespec pause = {0, 50 * 1000};
                nanosleep(&pause, NULL);
            }
            attempt++;
        }
        if (!atomic_exchange_explicit(lock, 1, memory_order_acquire)) {
            return;
        }
    }
}

// MARK: Shared table

/// Appends `count` records. Called with the table mutex held. Records that cannot be stored
/// (out of memory) give their unowned reference back: their objects become untracked.
static void lg_table_append_locked(const lg_record *records, size_t count) {
    size_t used = atomic_load_explicit(&lg_table_count, memory_order_relaxed);
    if (used + count > lg_table_capacity) {
        size_t capacity = lg_table_capacity ? lg_table_capacity * 2 : 4 * LG_NURSERY_CAPACITY;
        while (capacity < used + count) {
            capacity *= 2;
        }
        lg_record *grown = realloc(lg_table_records, capacity * sizeof(lg_record));
        if (grown == NULL) {
            for (size_t index = 0; index < count; index++) {
                if (lg_map_claim(records[index].object)) {
                    swift_unownedRelease((void *)records[index].object);
                }
            }
            return;
        }
        lg_table_records = grown;
        lg_table_capacity = capacity;
    }
    memcpy(lg_table_records + used, records, count * sizeof(lg_record));
    atomic_store_explicit(&lg_table_count, used + count, memory_order_relaxed);
}

/// Releases every dead zombie of the shared table and compacts it. Table mutex held.
static void lg_table_sweep_locked(void) {
    size_t used = atomic_load_explicit(&lg_table_count, memory_order_relaxed);
    size_t kept = 0;
    for (size_t index = 0; index < used; index++) {
        void *object = (void *)lg_table_records[index].object;
        if (!lg_reap(object)) {
            lg_table_records[kept++] = lg_table_records[index];
        }
    }
    atomic_store_explicit(&lg_table_count, kept, memory_order_relaxed);
    atomic_fetch_add_explicit(&lg_released_count, used - kept, memory_order_relaxed);
    atomic_fetch_add_explicit(&lg_table_sweep_count, 1, memory_order_relaxed);
    lg_table_next_sweep = kept * 2 > LG_TABLE_MIN_SWEEP ? kept * 2 : LG_TABLE_MIN_SWEEP;
}

// MARK: Nurseries

/// Sweeps a thread's nursery: releases dead zombies, moves survivors to the shared table.
/// Called with the thread's spin lock held; takes the table mutex unless `table_locked`.
static void lg_nursery_flush(lg_thread *thread, bool table_locked) {
    uint32_t count = atomic_load_explicit(&thread->count, memory_order_relaxed);
    uint32_t kept = 0;
    for (uint32_t index = 0; index < count; index++) {
        void *object = (void *)thread->nursery[index].object;
        if (!lg_reap(object)) {
            thread->nursery[kept++] = thread->nursery[index];
        }
    }
    if (kept > 0) {
        if (!table_locked) {
            pthread_mutex_lock(&lg_table_mutex);
        }
        lg_table_append_locked(thread->nursery, kept);
        if (!table_locked &&
            atomic_load_explicit(&lg_table_count, memory_order_relaxed) >= lg_table_next_sweep) {
            lg_table_sweep_locked();
        }
        if (!table_locked) {
            pthread_mutex_unlock(&lg_table_mutex);
        }
    }
    atomic_store_explicit(&thread->count, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&lg_released_count, count - kept, memory_order_relaxed);
    atomic_fetch_add_explicit(&lg_nursery_sweep_count, 1, memory_order_relaxed);
}

/// Empties a nursery in any mode: records of the benchmark modes hold no zombie and are dropped.
static void lg_nursery_empty(lg_thread *thread, int mode, bool table_locked) {
    if (mode == LG_MODE_TRACK) {
        lg_nursery_flush(thread, table_locked);
    } else {
        atomic_store_explicit(&thread->count, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&lg_nursery_sweep_count, 1, memory_order_relaxed);
    }
}

void lg_nursery_full(lg_thread *thread, int mode) {
    lg_nursery_empty(thread, mode, false);
}

// MARK: Threads

static void lg_thread_stack_bounds(uintptr_t *low, uintptr_t *high) {
    *low = 0;
    *high = 0;
    if (&__libc_stack_end != NULL && __libc_stack_end != NULL &&
        syscall(SYS_gettid) == getpid()) {
        // The main thread: pthread_getattr_np would parse /proc/self/maps with stdio.
        uintptr_t top = (uintptr_t)__libc_stack_end;
        struct rlimit limit;
        uintptr_t size = (uintptr_t)1 << 30;
        if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
            limit.rlim_cur < size) {
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

/// Thread-exit destructor: flushes the thread's nursery and returns its state for reuse.
static void lg_thread_exit(void *value) {
    lg_thread *thread = value;
    lg_tls_ignore += 1;
    lg_spin_lock(&thread->lock);
    lg_nursery_empty(thread, atomic_load_explicit(&lg_current_mode, memory_order_relaxed), false);
    lg_spin_unlock(&thread->lock);
    pthread_mutex_lock(&lg_registry_mutex);
    thread->next_free = lg_free_threads;
    lg_free_threads = thread;
    pthread_mutex_unlock(&lg_registry_mutex);
    lg_tls_thread = NULL;
    lg_tls_ignore -= 1;
}

lg_thread *lg_thread_register(void) {
    pthread_mutex_lock(&lg_registry_mutex);
    lg_thread *thread = lg_free_threads;
    if (thread != NULL) {
        lg_free_threads = thread->next_free;
    } else {
        thread = calloc(1, sizeof(lg_thread));
        if (thread != NULL) {
            atomic_store_explicit(&thread->next,
                                  atomic_load_explicit(&lg_registry_head, memory_order_relaxed),
                                  memory_order_relaxed);
            atomic_store_explicit(&lg_registry_head, thread, memory_order_release);
        }
    }
    pthread_mutex_unlock(&lg_registry_mutex);
    if (thread == NULL) {
        return NULL;
    }
    thread->next_free = NULL;
    lg_thread_stack_bounds(&thread->stack_low, &thread->stack_high);
    pthread_setspecific(lg_thread_key, thread);
    lg_tls_thread = thread;
    return thread;
}

static int lg_table_init_result = -1;

static void lg_table_init_once(void) {
    lg_table_init_result = pthread_key_create(&lg_thread_key, lg_thread_exit) == 0 ? 0 : -1;
}

int lg_table_init(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, lg_table_init_once);
    return lg_table_init_result;
}

// MARK: Freeze

static int lg_compare_records(const void *left, const void *right) {
    uintptr_t a = ((const lg_record *)left)->object;
    uintptr_t b = ((const lg_record *)right)->object;
    return (a > b) - (a < b);
}

size_t lg_freeze(lg_record **out_records) {
    *out_records = NULL;
    lg_tls_ignore += 1;
    if (lg_tls_freeze_depth++ == 0 && atomic_load_explicit(&lg_installed, memory_order_acquire)) {
        pthread_mutex_lock(&lg_registry_mutex);
        lg_thread *head = atomic_load_explicit(&lg_registry_head, memory_order_acquire);
        for (lg_thread *thread = head; thread != NULL;
             thread = atomic_load_explicit(&thread->next, memory_order_relaxed)) {
            lg_spin_lock(&thread->lock);
        }
        pthread_mutex_lock(&lg_table_mutex);
        int mode = atomic_load_explicit(&lg_current_mode, memory_order_relaxed);
        for (lg_thread *thread = head; thread != NULL;
             thread = atomic_load_explicit(&thread->next, memory_order_relaxed)) {
            lg_nursery_empty(thread, mode, true);
        }
        lg_table_sweep_locked();
        lg_tls_froze_table = true;
    }
    if (!lg_tls_froze_table) {
        return 0;
    }
    size_t count = atomic_load_explicit(&lg_table_count, memory_order_relaxed);
    if (count == 0) {
        return 0;
    }
    lg_record *copy = malloc(count * sizeof(lg_record));
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, lg_table_records, count * sizeof(lg_record));
    qsort(copy, count, sizeof(lg_record), lg_compare_records);
    *out_records = copy;
    return count;
}

void lg_unfreeze(lg_record *records) {
    free(records);
    if (lg_tls_freeze_depth == 0) {
        return;
    }
    lg_tls_freeze_depth -= 1;
    if (lg_tls_freeze_depth == 0 && lg_tls_froze_table) {
        lg_tls_froze_table = false;
        pthread_mutex_unlock(&lg_table_mutex);
        for (lg_thread *thread = atomic_load_explicit(&lg_registry_head, memory_order_acquire);
             thread != NULL; thread = atomic_load_explicit(&thread->next, memory_order_relaxed)) {
            lg_spin_unlock(&thread->lock);
        }
        pthread_mutex_unlock(&lg_registry_mutex);
    }
    lg_thread_ignore_end();
}

// MARK: Statistics

void lg_table_stats(lg_stats_t *stats) {
    uint64_t allocations = 0;
    uint64_t released = atomic_load_explicit(&lg_released_count, memory_order_relaxed);
    uint64_t in_nurseries = 0;
    for (lg_thread *thread = atomic_load_explicit(&lg_registry_head, memory_order_acquire);
         thread != NULL; thread = atomic_load_explicit(&thread->next, memory_order_relaxed)) {
        allocations += atomic_load_explicit(&thread->allocations, memory_order_relaxed);
        released += atomic_load_explicit(&thread->released, memory_order_relaxed);
        in_nurseries += atomic_load_explicit(&thread->count, memory_order_relaxed);
    }
    bool tracking = atomic_load_explicit(&lg_current_mode, memory_order_relaxed) == LG_MODE_TRACK;
    stats->allocations = allocations;
    stats->ignored = atomic_load_explicit(&lg_ignored_count, memory_order_relaxed);
    stats->records =
        tracking ? atomic_load_explicit(&lg_table_count, memory_order_relaxed) + in_nurseries : 0;
    stats->zombies_released = released;
    stats->stacks = lg_stack_count();
    stats->nursery_sweeps = atomic_load_explicit(&lg_nursery_sweep_count, memory_order_relaxed);
    stats->table_sweeps = atomic_load_explicit(&lg_table_sweep_count, memory_order_relaxed);
}

#else /* !__linux__ */

size_t lg_freeze(lg_record **out_records) {
    *out_records = NULL;
    return 0;
}

void lg_unfreeze(lg_record *records) {
    (void)records;
}

#endif /* __linux__ */
