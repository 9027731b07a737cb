// The record table: one 24-byte record per tracked object, found from the object's address in O(1)
// without a hash, inserted and removed in O(1) from any thread.
//
// Records live in LG_SHARD_COUNT shards. Each shard is a slab of records (chunks of
// LG_CHUNK_RECORDS, mmapped on demand) with a free list, under one spin lock. A thread always
// inserts into its own shard, so allocating threads do not contend; a free locks whichever shard
// holds the record, usually its own thread's, briefly.
//
// The address map turns an address into its record: one 32-bit entry per 16-byte granule of the
// address space (`shard << LG_SLOT_BITS | index + 1`, 0 for "not tracked"), in lazily mmapped
// regions. Reading an entry is lock-free, which is what lets `lg_free` pass every untracked
// pointer after one lookup. Entries are written only under the lock of the shard they name.

#include "lg_internal.h"

#ifdef __linux__

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LG_MAP_REGION_BYTES ((size_t)LG_MAP_REGION_ENTRIES * sizeof(uint32_t))
#define LG_CHUNK_BYTES ((size_t)LG_CHUNK_RECORDS * sizeof(lg_slot))

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

/// The map region holding `address`'s entry, mapped on first use. NULL when out of memory.
static _Atomic uint32_t *lg_map_region(uintptr_t address) {
    uintptr_t top = address >> LG_MAP_REGION_SHIFT;
    _Atomic uint32_t *region = atomic_load_explicit(&lg_state.map[top], memory_order_acquire);
    if (region != NULL) {
        return region;
    }
    void *memory = mmap(NULL, LG_MAP_REGION_BYTES, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
        return NULL;
    }
    _Atomic uint32_t *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&lg_state.map[top], &expected, memory,
                                                 memory_order_acq_rel, memory_order_acquire)) {
        munmap(memory, LG_MAP_REGION_BYTES);
        return expected;
    }
    return memory;
}

static inline _Atomic uint32_t *lg_map_entry_slot(_Atomic uint32_t *region, uintptr_t address) {
    return &region[(address & ((1ull << LG_MAP_REGION_SHIFT) - 1)) >> 4];
}

// MARK: Slabs

static inline lg_slot *lg_shard_slot(lg_shard *shard, uint32_t index) {
    return &shard->chunks[index >> LG_CHUNK_BITS][index & (LG_CHUNK_RECORDS - 1)];
}

/// A free record of `shard` (lock held): from the free list, else the next unused one. Returns
/// its index, or UINT32_MAX when the shard is full or out of memory.
static uint32_t lg_shard_take(lg_shard *shard) {
    if (shard->free_head != 0) {
        uint32_t index = shard->free_head - 1;
        shard->free_head = (uint32_t)lg_shard_slot(shard, index)->metadata;
        return index;
    }
    uint32_t index = shard->used;
    if (index >= LG_SLOT_MASK - 1) {
        return UINT32_MAX;
    }
    uint32_t chunk = index >> LG_CHUNK_BITS;
    if (chunk >= shard->chunk_count) {
        void *memory = mmap(NULL, LG_CHUNK_BYTES, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (memory == MAP_FAILED) {
            return UINT32_MAX;
        }
        shard->chunks[chunk] = memory;
        shard->chunk_count = chunk + 1;
    }
    shard->used = index + 1;
    return index;
}

bool lg_table_insert_locked(uint32_t shard_index, uintptr_t object, uintptr_t metadata, size_t size,
                            uint32_t stack_id) {
    if ((object & 15u) != 0 || (object >> LG_MAP_REGION_SHIFT) >= LG_MAP_TOP_COUNT) {
        return false;
    }
    _Atomic uint32_t *region = lg_map_region(object);
    if (region == NULL) {
        return false;
    }
    lg_shard *shard = &lg_state.shards[shard_index];
    uint32_t index = lg_shard_take(shard);
    if (index == UINT32_MAX) {
        return false;
    }
    lg_slot *slot = lg_shard_slot(shard, index);
    uint64_t stack = stack_id == LG_NO_STACK ? LG_SLOT_NO_STACK : stack_id;
    slot->object = object;
    slot->metadata = metadata;
    slot->packed = ((uint64_t)size << LG_SLOT_STACK_BITS) | stack;
    atomic_store_explicit(lg_map_entry_slot(region, object),
                          (shard_index << LG_SLOT_BITS) | (index + 1), memory_order_release);
    atomic_store_explicit(&shard->live, atomic_load_explicit(&shard->live, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&shard->allocations,
                          atomic_load_explicit(&shard->allocations, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    if (LG_UNLIKELY(!atomic_load_explicit(&lg_state.map_active, memory_order_relaxed))) {
        atomic_store_explicit(&lg_state.map_active, 1, memory_order_release);
    }
    return true;
}

bool lg_table_remove_locked(uintptr_t object, uint32_t entry) {
    _Atomic uint32_t *region =
        atomic_load_explicit(&lg_state.map[object >> LG_MAP_REGION_SHIFT], memory_order_relaxed);
    _Atomic uint32_t *map_entry = lg_map_entry_slot(region, object);
    if (atomic_load_explicit(map_entry, memory_order_relaxed) != entry) {
        return false;
    }
    lg_shard *shard = lg_table_shard_of(entry);
    uint32_t index = (entry & LG_SLOT_MASK) - 1;
    lg_slot *slot = lg_shard_slot(shard, index);
    atomic_store_explicit(map_entry, 0, memory_order_release);
    slot->object = 0;
    slot->metadata = shard->free_head;
    shard->free_head = index + 1;
    atomic_store_explicit(&shard->live, atomic_load_explicit(&shard->live, memory_order_relaxed) - 1,
                          memory_order_relaxed);
    atomic_store_explicit(&shard->frees, atomic_load_explicit(&shard->frees, memory_order_relaxed) + 1,
                          memory_order_relaxed);
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

/// Sorts `records` by object address: an LSD radix sort on the 48 address bits above the granule
/// (three passes of 16 bits), O(n) where qsort's comparator calls would dominate a large snapshot.
/// Falls back to qsort when the scratch buffer cannot be allocated.
static int lg_compare_records(const void *left, const void *right) {
    uintptr_t a = ((const lg_record *)left)->object;
    uintptr_t b = ((const lg_record *)right)->object;
    return (a > b) - (a < b);
}

static void lg_sort_records(lg_record *records, size_t count) {
    if (count < 4096) {
        qsort(records, count, sizeof(lg_record), lg_compare_records);
        return;
    }
    lg_record *scratch = malloc(count * sizeof(lg_record));
    size_t *counts = malloc(65536 * sizeof(size_t));
    if (scratch == NULL || counts == NULL) {
        free(scratch);
        free(counts);
        qsort(records, count, sizeof(lg_record), lg_compare_records);
        return;
    }
    lg_record *from = records;
    lg_record *to = scratch;
    for (unsigned shift = 4; shift < 52; shift += 16) {
        memset(counts, 0, 65536 * sizeof(size_t));
        for (size_t index = 0; index < count; index++) {
            counts[(from[index].object >> shift) & 0xFFFF]++;
        }
        size_t total = 0;
        for (size_t bucket = 0; bucket < 65536; bucket++) {
            size_t here = counts[bucket];
            counts[bucket] = total;
            total += here;
        }
        for (size_t index = 0; index < count; index++) {
            to[counts[(from[index].object >> shift) & 0xFFFF]++] = from[index];
        }
        lg_record *swap = from;
        from = to;
        to = swap;
    }
    // Three passes: the sorted result is in `scratch`.
    memcpy(records, from, count * sizeof(lg_record));
    free(scratch);
    free(counts);
}

size_t lg_table_snapshot_locked(lg_record **out_records) {
    *out_records = NULL;
    size_t count = 0;
    for (uint32_t index = 0; index < LG_SHARD_COUNT; index++) {
        count += atomic_load_explicit(&lg_state.shards[index].live, memory_order_relaxed);
    }
    if (count == 0) {
        return 0;
    }
    lg_record *records = malloc(count * sizeof(lg_record));
    if (records == NULL) {
        return 0;
    }
    size_t filled = 0;
    for (uint32_t shard_index = 0; shard_index < LG_SHARD_COUNT; shard_index++) {
        lg_shard *shard = &lg_state.shards[shard_index];
        for (uint32_t index = 0; index < shard->used && filled < count; index++) {
            const lg_slot *slot = lg_shard_slot(shard, index);
            if (slot->object == 0) {
                continue;
            }
            uint32_t stack = (uint32_t)(slot->packed & LG_SLOT_NO_STACK);
            records[filled++] = (lg_record){
                .object = slot->object,
                .metadata = slot->metadata,
                .size = (size_t)(slot->packed >> LG_SLOT_STACK_BITS),
                .stack_id = stack == LG_SLOT_NO_STACK ? LG_NO_STACK : stack,
            };
        }
    }
    lg_sort_records(records, filled);
    *out_records = records;
    return filled;
}

// MARK: Statistics

/// Resident bytes of the address map's regions (mincore over each mapped region).
static uint64_t lg_map_resident_bytes(void) {
    size_t page = 4096;
    size_t pages = LG_MAP_REGION_BYTES / page;
    unsigned char *vector = malloc(pages);
    if (vector == NULL) {
        return 0;
    }
    uint64_t resident = 0;
    for (uint32_t top = 0; top < LG_MAP_TOP_COUNT; top++) {
        _Atomic uint32_t *region = atomic_load_explicit(&lg_state.map[top], memory_order_acquire);
        if (region == NULL || mincore((void *)region, LG_MAP_REGION_BYTES, vector) != 0) {
            continue;
        }
        for (size_t index = 0; index < pages; index++) {
            resident += (vector[index] & 1) ? page : 0;
        }
    }
    free(vector);
    return resident;
}

void lg_table_stats(lg_stats_t *stats) {
    uint64_t slots = 0;
    for (uint32_t index = 0; index < LG_SHARD_COUNT; index++) {
        const lg_shard *shard = &lg_state.shards[index];
        stats->allocations += atomic_load_explicit(&shard->allocations, memory_order_relaxed);
        stats->records += atomic_load_explicit(&shard->live, memory_order_relaxed);
        stats->tracked_frees += atomic_load_explicit(&shard->frees, memory_order_relaxed);
        slots += __atomic_load_n(&shard->used, __ATOMIC_RELAXED);
    }
    stats->record_bytes = slots * sizeof(lg_slot) + lg_map_resident_bytes();
}

#endif /* __linux__ */
