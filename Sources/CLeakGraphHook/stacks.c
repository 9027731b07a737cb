// Creation stacks, interned: a million allocations from one call site store one stack.
//
// Stacks live in an append-only arena (`lg_state.stacks`) and are never freed, so `lg_stack`
// results stay valid for the life of the process. An id is an index into a two-level directory. The hash table maps a stack's
// hash to its id; lookups are lock-free (the common case: the stack is known), inserts take a mutex.
// A table that grows is replaced, never freed, so a reader holding an older table still reads
// valid memory; a miss there falls back to the locked path, which looks again in the newest table.

#include "lg_internal.h"

#ifdef __linux__

#include <stdlib.h>
#include <string.h>

#define LG_STACK_ARENA_CHUNK (256u * 1024u)

typedef struct lg_stack_entry {
    uint64_t hash;
    uint32_t count;
    uint32_t reserved;
    uintptr_t frames[];
} lg_stack_entry;

typedef struct lg_stack_index {
    uint32_t mask;
    _Atomic uint32_t slots[];  // stack id + 1; 0 is empty
} lg_stack_index;

/// The entry of stack `id` through the two-level directory, or NULL while it is being published.
static inline lg_stack_entry *lg_stack_entry_for(uint32_t id) {
    lg_stack_entry **segment =
        atomic_load_explicit(&lg_state.stacks.directory[id >> LG_STACK_SEGMENT_BITS], memory_order_acquire);
    return segment ? __atomic_load_n(&segment[id & (LG_STACK_SEGMENT_SIZE - 1)], __ATOMIC_ACQUIRE) : NULL;
}

/// Whether `entry` is exactly the stack `frames` (hash first, then the frames).
static inline bool lg_stack_matches(const lg_stack_entry *entry, uint64_t hash, const uintptr_t *frames,
                                    uint32_t count) {
    return entry->hash == hash && entry->count == count &&
           memcmp(entry->frames, frames, count * sizeof(uintptr_t)) == 0;
}

/// Looks `frames` up in `table`; returns the id or LG_NO_STACK.
static uint32_t lg_stack_find(const lg_stack_index *table, uint64_t hash, const uintptr_t *frames, uint32_t count) {
    for (uint32_t slot = (uint32_t)hash & table->mask;; slot = (slot + 1) & table->mask) {
        uint32_t value = atomic_load_explicit(&table->slots[slot], memory_order_acquire);
        if (value == 0) {
            return LG_NO_STACK;
        }
        const lg_stack_entry *entry = lg_stack_entry_for(value - 1);
        if (entry != NULL && lg_stack_matches(entry, hash, frames, count)) {
            return value - 1;
        }
    }
}

/// An empty hash index of `capacity` slots (a power of two); indexes are replaced, never freed.
static lg_stack_index *lg_stack_index_new(uint32_t capacity) {
    lg_stack_index *table = calloc(1, sizeof(lg_stack_index) + capacity * sizeof(uint32_t));
    if (table != NULL) {
        table->mask = capacity - 1;
    }
    return table;
}

/// Adds stack `id` to `table` (insertion mutex held); linear probing.
static void lg_stack_index_put(lg_stack_index *table, uint64_t hash, uint32_t id) {
    uint32_t slot = (uint32_t)hash & table->mask;
    while (atomic_load_explicit(&table->slots[slot], memory_order_relaxed) != 0) {
        slot = (slot + 1) & table->mask;
    }
    atomic_store_explicit(&table->slots[slot], id + 1, memory_order_release);
}

int lg_stacks_init(void) {
    pthread_mutex_lock(&lg_state.stacks.mutex);
    int result = 0;
    if (atomic_load_explicit(&lg_state.stacks.index, memory_order_relaxed) == NULL) {
        lg_stack_index *table = lg_stack_index_new(4096);
        if (table == NULL) {
            result = -1;
        } else {
            atomic_store_explicit(&lg_state.stacks.index, table, memory_order_release);
        }
    }
    pthread_mutex_unlock(&lg_state.stacks.mutex);
    return result;
}

/// Inserts a new stack. Called with `lg_state.stacks.mutex` held.
static uint32_t lg_stack_insert_locked(uint64_t hash, const uintptr_t *frames, uint32_t count) {
    uint32_t id = atomic_load_explicit(&lg_state.stacks.next_id, memory_order_relaxed);
    if (id >= LG_STACK_SEGMENTS * LG_STACK_SEGMENT_SIZE - 1) {
        return LG_NO_STACK;
    }
    lg_stack_index *table = atomic_load_explicit(&lg_state.stacks.index, memory_order_relaxed);
    if ((uint64_t)(id + 1) * 2 > (uint64_t)table->mask + 1) {
        // Grow: the old table stays readable for lock-free readers and is never freed.
        uint32_t capacity = (table->mask + 1) * 2;
        lg_stack_index *bigger = lg_stack_index_new(capacity);
        if (bigger == NULL) {
            return LG_NO_STACK;
        }
        for (uint32_t existing = 0; existing < id; existing++) {
            lg_stack_index_put(bigger, lg_stack_entry_for(existing)->hash, existing);
        }
        atomic_store_explicit(&lg_state.stacks.index, bigger, memory_order_release);
        table = bigger;
    }

    size_t bytes = sizeof(lg_stack_entry) + count * sizeof(uintptr_t);
    if (bytes > lg_state.stacks.arena_left) {
        char *chunk = malloc(LG_STACK_ARENA_CHUNK);
        if (chunk == NULL) {
            return LG_NO_STACK;
        }
        lg_state.stacks.arena = chunk;
        lg_state.stacks.arena_left = LG_STACK_ARENA_CHUNK;
    }
    lg_stack_entry *entry = (lg_stack_entry *)lg_state.stacks.arena;
    lg_state.stacks.arena += bytes;
    lg_state.stacks.arena_left -= bytes;
    entry->hash = hash;
    entry->count = count;
    entry->reserved = 0;
    memcpy(entry->frames, frames, count * sizeof(uintptr_t));

    uint32_t segment_index = id >> LG_STACK_SEGMENT_BITS;
    lg_stack_entry **segment = atomic_load_explicit(&lg_state.stacks.directory[segment_index], memory_order_relaxed);
    if (segment == NULL) {
        segment = calloc(LG_STACK_SEGMENT_SIZE, sizeof(lg_stack_entry *));
        if (segment == NULL) {
            return LG_NO_STACK;
        }
        atomic_store_explicit(&lg_state.stacks.directory[segment_index], segment, memory_order_release);
    }
    // Publish the entry, then the id, then the slot that leads readers to it.
    __atomic_store_n(&segment[id & (LG_STACK_SEGMENT_SIZE - 1)], entry, __ATOMIC_RELEASE);
    atomic_store_explicit(&lg_state.stacks.next_id, id + 1, memory_order_release);
    lg_stack_index_put(table, hash, id);
    return id;
}

uint32_t lg_stack_intern(const uintptr_t *frames, uint32_t count, uint64_t hash) {
    if (count == 0) {
        return LG_NO_STACK;
    }
    lg_stack_index *table = atomic_load_explicit(&lg_state.stacks.index, memory_order_acquire);
    if (LG_UNLIKELY(table == NULL)) {
        return LG_NO_STACK;
    }
    uint32_t id = lg_stack_find(table, hash, frames, count);
    if (LG_LIKELY(id != LG_NO_STACK)) {
        return id;
    }
    pthread_mutex_lock(&lg_state.stacks.mutex);
    table = atomic_load_explicit(&lg_state.stacks.index, memory_order_relaxed);
    id = lg_stack_find(table, hash, frames, count);
    if (id == LG_NO_STACK) {
        id = lg_stack_insert_locked(hash, frames, count);
    }
    pthread_mutex_unlock(&lg_state.stacks.mutex);
    return id;
}

void lg_stacks_lock(void) { pthread_mutex_lock(&lg_state.stacks.mutex); }

void lg_stacks_unlock(void) { pthread_mutex_unlock(&lg_state.stacks.mutex); }

uint64_t lg_stack_count(void) { return atomic_load_explicit(&lg_state.stacks.next_id, memory_order_acquire); }

const uintptr_t *lg_stack(uint32_t stack_id, size_t *count) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return lg_state.delegate.stack(stack_id, count);
    }
    *count = 0;
    if (stack_id == LG_NO_STACK || stack_id >= atomic_load_explicit(&lg_state.stacks.next_id, memory_order_acquire)) {
        return NULL;
    }
    const lg_stack_entry *entry = lg_stack_entry_for(stack_id);
    if (entry == NULL) {
        return NULL;
    }
    *count = entry->count;
    return entry->frames;
}

#else /* !__linux__ */

const uintptr_t *lg_stack(uint32_t stack_id, size_t *count) {
    (void)stack_id;
    *count = 0;
    return NULL;
}

#endif /* __linux__ */
