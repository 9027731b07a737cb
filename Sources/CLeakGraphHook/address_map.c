// The address map: one bit per 16-byte granule of the address space, set while LeakGraph tracks an
// object at that address. It exists for one reason: some code frees Swift heap objects with plain
// `free()`, bypassing the runtime's release path and so LeakGraph's unowned retain (CoreFoundation's
// temporary CFURLs, the compiler's `__swift_deallocate_boxed_opaque_existential_1` for a failed
// throwing initializer). The preloaded `free()` asks `lg_free_intercept` whether the block is a
// tracked object; if so, the free is deferred until the tracker drops the record, so a tracked
// address is never handed out again while a record names it.
//
// Two levels: 65,536 top entries (address bits 32–47), each a lazily mmapped 32 MiB bitmap of one
// 4 GiB region (untouched pages cost nothing). Bits are claimed with an atomic test-and-clear, so
// exactly one of "the tracker releases a dead zombie" and "someone frees it behind our back" wins.
#include "lg_internal.h"

#ifdef __linux__

#include <sys/mman.h>

#define LG_MAP_TOP_COUNT (1u << 16)
#define LG_MAP_REGION_BYTES (((uint64_t)1 << 32) / 16 / 8)

static _Atomic(_Atomic uint64_t *) lg_map_top[LG_MAP_TOP_COUNT];

/// Set once the map has been used: before that `lg_free_intercept` answers at once.
LG_HIDDEN atomic_int lg_map_active;

/// The marker written over a deferred-freed object's metadata word.
LG_HIDDEN const uintptr_t lg_freed_marker = 0x4c47465245454421u;  // "LGFREED!"

static _Atomic uint64_t *lg_map_region(uintptr_t address, bool create) {
    uintptr_t top = address >> 32;
    if (top >= LG_MAP_TOP_COUNT) {
        return NULL;
    }
    _Atomic uint64_t *region = atomic_load_explicit(&lg_map_top[top], memory_order_acquire);
    if (region != NULL || !create) {
        return region;
    }
    void *memory = mmap(NULL, LG_MAP_REGION_BYTES, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
        return NULL;
    }
    _Atomic uint64_t *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&lg_map_top[top], &expected, memory,
                                                 memory_order_acq_rel, memory_order_acquire)) {
        munmap(memory, LG_MAP_REGION_BYTES);
        return expected;
    }
    return memory;
}

LG_HIDDEN bool lg_map_mark(uintptr_t address) {
    _Atomic uint64_t *region = lg_map_region(address, true);
    if (region == NULL) {
        return false;
    }
    uint64_t granule = (address & 0xFFFFFFFFu) >> 4;
    atomic_fetch_or_explicit(&region[granule >> 6], (uint64_t)1 << (granule & 63), memory_order_relaxed);
    if (LG_UNLIKELY(!atomic_load_explicit(&lg_map_active, memory_order_relaxed))) {
        atomic_store_explicit(&lg_map_active, 1, memory_order_release);
    }
    return true;
}

LG_HIDDEN bool lg_map_claim(uintptr_t address) {
    _Atomic uint64_t *region = lg_map_region(address, false);
    if (region == NULL) {
        return false;
    }
    uint64_t granule = (address & 0xFFFFFFFFu) >> 4;
    uint64_t bit = (uint64_t)1 << (granule & 63);
    _Atomic uint64_t *word = &region[granule >> 6];
    if ((atomic_load_explicit(word, memory_order_relaxed) & bit) == 0) {
        return false;
    }
    return (atomic_fetch_and_explicit(word, ~bit, memory_order_acq_rel) & bit) != 0;
}

int lg_free_intercept(void *pointer) {
    if (!atomic_load_explicit(&lg_map_active, memory_order_relaxed) || ((uintptr_t)pointer & 15) != 0) {
        return 0;
    }
    if (!lg_map_claim((uintptr_t)pointer)) {
        return 0;
    }
    // A tracked object freed behind the runtime's back: keep the memory until its record is dropped.
    __atomic_store_n((uintptr_t *)pointer, lg_freed_marker, __ATOMIC_RELEASE);
    return 1;
}

#else

int lg_free_intercept(void *pointer) {
    (void)pointer;
    return 0;
}

#endif
