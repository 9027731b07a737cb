// The record table: what LeakGraph knows about each tracked object, found from the object's address
// in O(1) without a hash, inserted and removed in O(1) from any thread.
//
// The address map turns an address into its record: one 32-bit entry per granule (32 bytes under
// glibc's malloc, else 16) of the address space, 0 for "not tracked", in lazily mmapped regions.
// Reading an entry is lock-free, which is what lets `lg_free` pass every untracked pointer after one
// lookup. The map is also the list of live objects: a snapshot reads the written map pages in
// address order, so it comes out sorted.
//
// Most entries are the whole record (inline: a class instance of its class's size, made outside a
// scope: its stack id; the size is read back from the metadata). The others name an 8-byte record
// (size, scope, stack id) in one of LG_SHARD_COUNT shards: a slab of records (chunks of
// LG_CHUNK_RECORDS, mmapped on demand) with a free list, under one spin lock. A thread always
// inserts into its own shard, so allocating threads do not contend; a free locks the shard of the
// record (an inline one: a shard picked by address), briefly. Entries are written only under a
// shard lock, so a freeze, which holds them all, stops every insert and removal.

#include "lg_internal.h"

#ifdef __linux__

#include <malloc.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

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

// MARK: Address map

#define LG_MAP_REGION_BYTES sizeof(lg_map_region)
#define LG_CHUNK_BYTES ((size_t)LG_CHUNK_RECORDS * sizeof(lg_slot))

/// The map region holding `address`'s entry, mapped on first use. NULL when out of memory.
static lg_map_region *lg_map_region_for(uintptr_t address) {
    uintptr_t top = address >> LG_MAP_REGION_SHIFT;
    lg_map_region *region = atomic_load_explicit(&lg_state.map[top], memory_order_acquire);
    if (region != NULL) {
        return region;
    }
    void *memory =
        mmap(NULL, LG_MAP_REGION_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
        return NULL;
    }
    lg_map_region *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&lg_state.map[top], &expected, memory, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        munmap(memory, LG_MAP_REGION_BYTES);
        return expected;
    }
    return memory;
}

// MARK: Slabs

/// A free record of `shard` (lock held): from the free list, else the next unused one. Returns
/// its index, or UINT32_MAX when the shard is full or out of memory.
static uint32_t lg_shard_take(lg_shard *shard) {
    if (shard->free_head != 0) {
        uint32_t index = shard->free_head - 1;
        shard->free_head = (uint32_t)*lg_shard_slot(shard, index);
        return index;
    }
    uint32_t index = shard->used;
    if (index >= LG_SHARD_RECORD_LIMIT) {
        return UINT32_MAX;
    }
    uint32_t chunk = index >> LG_CHUNK_BITS;
    if (chunk >= shard->chunk_count) {
        void *memory =
            mmap(NULL, LG_CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (memory == MAP_FAILED) {
            return UINT32_MAX;
        }
        shard->chunks[chunk] = memory;
        shard->chunk_count = chunk + 1;
    }
    shard->used = index + 1;
    return index;
}

bool lg_table_insert_slow(uint32_t shard_index, uintptr_t object, lg_slot record, uint32_t inline_entry) {
    lg_map_region *region = lg_map_region_for(object);
    if (region == NULL) {
        atomic_fetch_add_explicit(&lg_state.untracked, 1, memory_order_relaxed);
        return false;
    }
    uint32_t taken = atomic_load_explicit(&region->entries[lg_map_granule(object)], memory_order_relaxed);
    if (taken != 0 && (taken & LG_ENTRY_HALF) != lg_entry_half(object)) {
        // Another live object starts in this granule (an allocator with chunks closer than the
        // granule): this one is not tracked. Never with glibc's malloc.
        atomic_fetch_add_explicit(&lg_state.untracked, 1, memory_order_relaxed);
        return false;
    }
    // A taken entry of the same address is stale (a free LeakGraph did not see, e.g. through a `free`
    // found with dlsym in-process): the memory was handed out again, so that object is gone. Its slab
    // record, if any, stays used.
    lg_shard *shard = &lg_state.shards[shard_index];
    uint32_t entry = inline_entry;
    if (entry == 0) {
        uint32_t index = lg_shard_take(shard);
        if (index == UINT32_MAX) {
            atomic_fetch_add_explicit(&lg_state.untracked, 1, memory_order_relaxed);
            return false;
        }
        *lg_shard_slot(shard, index) = record;
        entry = (shard_index << LG_ENTRY_SHARD_SHIFT) | (index + 1);
    }
    lg_table_publish(shard, region, object, entry);
    if (LG_UNLIKELY(!atomic_load_explicit(&lg_state.map_active, memory_order_relaxed))) {
        atomic_store_explicit(&lg_state.map_active, 1, memory_order_release);
    }
    return true;
}

// MARK: Freeze support

void lg_table_lock_all(void) {
    for (uint32_t index = 0; index < LG_SHARD_COUNT; index++) {
        lg_spin_lock(&lg_state.shards[index].lock);
    }
}

void lg_table_unlock_all(void) {
    for (uint32_t index = LG_SHARD_COUNT; index > 0; index--) {
        lg_spin_unlock(&lg_state.shards[index - 1].lock);
    }
}

/// Visits the tracked objects in address order (read off the written pages of the address map),
/// at most `count`, calling `visit(context, i, object, entry)` for the `i`-th; returns how many.
static size_t lg_table_visit_locked(size_t count,
                                    void (*visit)(void *context, size_t i, uintptr_t object, uint32_t entry),
                                    void *context) {
    const uint32_t shift = lg_state.granule_shift;
    size_t filled = 0;
    for (uintptr_t top = 0; top < LG_MAP_TOP_COUNT && filled < count; top++) {
        lg_map_region *region = atomic_load_explicit(&lg_state.map[top], memory_order_acquire);
        if (region == NULL) {
            continue;
        }
        for (uint32_t page = 0; page < LG_MAP_REGION_PAGES && filled < count; page++) {
            if ((atomic_load_explicit(&region->touched[page >> 6], memory_order_relaxed) &
                 ((uint64_t)1 << (page & 63))) == 0) {
                continue;
            }
            uint32_t first = page * LG_MAP_PAGE_ENTRIES;
            for (uint32_t granule = first; granule < first + LG_MAP_PAGE_ENTRIES; granule++) {
                uint32_t entry = atomic_load_explicit(&region->entries[granule], memory_order_relaxed);
                if (entry == 0) {
                    continue;
                }
                uintptr_t object =
                    (top << LG_MAP_REGION_SHIFT) | ((uintptr_t)granule << shift) | ((entry & LG_ENTRY_HALF) ? 16u : 0u);
                visit(context, filled++, object, entry);
                if (filled == count) {
                    break;
                }
            }
        }
    }
    return filled;
}

/// The number of live records (every shard lock held).
static size_t lg_table_live_locked(void) {
    size_t count = 0;
    for (uint32_t index = 0; index < LG_SHARD_COUNT; index++) {
        count += atomic_load_explicit(&lg_state.shards[index].live, memory_order_relaxed);
    }
    return count;
}

/// The record of the tracked `object` whose map entry is `entry`; its metadata is its first word,
/// and an inline record's size the class's instance size (see `LG_ENTRY_INLINE`).
static lg_record lg_table_record(uintptr_t object, uint32_t entry) {
    uintptr_t metadata = *(const uintptr_t *)object;
    if (entry & LG_ENTRY_INLINE) {
        uint32_t stack = entry & LG_SLOT_NO_STACK;
        return (lg_record){
            .object = object,
            .metadata = metadata,
            .size = *(const uint32_t *)(metadata + LG_CLASS_INSTANCE_SIZE_OFFSET),
            .stack_id = stack == LG_SLOT_NO_STACK ? LG_NO_STACK : stack,
            .scope = 0,
        };
    }
    lg_slot slot = *lg_entry_slot(entry);
    uint32_t stack = (uint32_t)(slot & LG_SLOT_NO_STACK);
    size_t size = (size_t)(slot >> LG_SLOT_SIZE_SHIFT);
    if (LG_UNLIKELY(size == LG_SLOT_SIZE_SATURATED)) {
        size = malloc_usable_size((void *)object);
    }
    return (lg_record){
        .object = object,
        .metadata = metadata,
        .size = size,
        .stack_id = stack == LG_SLOT_NO_STACK ? LG_NO_STACK : stack,
        .scope = lg_slot_scope(slot),
    };
}

static void lg_table_visit_record(void *context, size_t i, uintptr_t object, uint32_t entry) {
    ((lg_record *)context)[i] = lg_table_record(object, entry);
}

static void lg_table_visit_object(void *context, size_t i, uintptr_t object, uint32_t entry) {
    (void)entry;
    ((uintptr_t *)context)[i] = object;
}

/// A malloc'd array of one `element_size`-byte element per live record, filled by `visit` in address
/// order, in `*out`; its length is returned (NULL and 0 when empty or out of memory).
static size_t lg_table_collect_locked(void **out, size_t element_size,
                                      void (*visit)(void *context, size_t i, uintptr_t object, uint32_t entry)) {
    *out = NULL;
    size_t count = lg_table_live_locked();
    void *elements = count == 0 ? NULL : malloc(count * element_size);
    if (elements == NULL) {
        return 0;
    }
    *out = elements;
    return lg_table_visit_locked(count, visit, elements);
}

size_t lg_table_snapshot_locked(lg_record **out_records) {
    return lg_table_collect_locked((void **)out_records, sizeof(lg_record), lg_table_visit_record);
}

size_t lg_table_objects_locked(uintptr_t **out_objects) {
    return lg_table_collect_locked((void **)out_objects, sizeof(uintptr_t), lg_table_visit_object);
}

bool lg_table_record_locked(uintptr_t object, lg_record *out_record) {
    uint32_t entry = lg_table_entry(object);
    if (entry == 0) {
        return false;
    }
    *out_record = lg_table_record(object, entry);
    return true;
}

// MARK: Scopes

void lg_table_restamp_scope_locked(uint32_t scope, uint32_t replacement) {
    const lg_slot mask = (lg_slot)LG_SLOT_SCOPE_MASK << LG_SLOT_STACK_BITS;
    const lg_slot stamp = (lg_slot)(replacement & LG_SLOT_SCOPE_MASK) << LG_SLOT_STACK_BITS;
    for (uint32_t index = 0; index < LG_SHARD_COUNT; index++) {
        lg_shard *shard = &lg_state.shards[index];
        for (uint32_t record = 0; record < shard->used; record++) {
            lg_slot *slot = lg_shard_slot(shard, record);
            if (lg_slot_is_live(*slot) && lg_slot_scope(*slot) == scope) {
                *slot = (*slot & ~mask) | stamp;
            }
        }
    }
}

uint32_t lg_table_scope_of(uintptr_t object) {
    uint32_t entry = lg_table_entry(object);
    if (entry == 0 || (entry & LG_ENTRY_INLINE)) {
        return 0;  // inline records are made outside every scope
    }
    lg_shard *shard = lg_table_lock_shard(entry, object);
    bool lock = !lg_tls_holds_freeze;
    if (lock) {
        lg_spin_lock(&shard->lock);
    }
    uint32_t scope = 0;
    if (lg_table_entry(object) == entry) {
        scope = lg_slot_scope(*lg_entry_slot(entry));
    }
    if (lock) {
        lg_spin_unlock(&shard->lock);
    }
    return scope;
}

// MARK: Statistics

void lg_table_stats(lg_stats_t *stats) {
    uint64_t slots = 0;
    uint64_t map_pages = 0;
    for (uint32_t index = 0; index < LG_SHARD_COUNT; index++) {
        const lg_shard *shard = &lg_state.shards[index];
        stats->allocations += atomic_load_explicit(&shard->allocations, memory_order_relaxed);
        stats->records += atomic_load_explicit(&shard->live, memory_order_relaxed);
        stats->tracked_frees += atomic_load_explicit(&shard->frees, memory_order_relaxed);
        slots += __atomic_load_n(&shard->used, __ATOMIC_RELAXED);
    }
    for (uintptr_t top = 0; top < LG_MAP_TOP_COUNT; top++) {
        lg_map_region *region = atomic_load_explicit(&lg_state.map[top], memory_order_acquire);
        if (region == NULL) {
            continue;
        }
        map_pages += sizeof(region->touched) / 4096;
        for (uint32_t word = 0; word < LG_MAP_REGION_PAGES / 64; word++) {
            map_pages +=
                (uint64_t)__builtin_popcountll(atomic_load_explicit(&region->touched[word], memory_order_relaxed));
        }
    }
    stats->record_bytes = slots * sizeof(lg_slot) + map_pages * 4096;
}

#endif /* __linux__ */
