// Allocation counts (alloc_counts.c), the part the allocation hook calls: one inline check, and
// the counting itself only while a scope is counted or the profile runs. Internal to CLeakGraphHook.

#ifndef LG_ALLOC_COUNTS_H
#define LG_ALLOC_COUNTS_H

#include "lg_internal.h"

#ifdef __linux__

/// Bit 0: the allocation profile runs (`lg_count_profile_start`); above it, twice the number of
/// scopes being counted. Zero: nothing is counted.
LG_HIDDEN extern atomic_uint lg_counts_active;

/// Counts one recorded allocation of `size` bytes of `metadata`, made at `stack_id` in scope `scope`
/// (the id stamped on its record, 0 for none; `token` the scope's token), for the profile and the
/// counted scope that encloses it. Called with the allocating thread's shard lock held.
LG_HIDDEN void lg_count_slow(uintptr_t metadata, size_t size, uint32_t stack_id, uint32_t scope, uint64_t token);

/// The allocation hook's one call (with its shard lock held, after the record is stored): nothing
/// but a relaxed load unless something is counted. `scope_token` is the hook's token (not yet
/// checked against the scope's generation).
static inline void lg_count_allocation(const void *metadata, size_t size, uint32_t stack_id, uint64_t scope_token) {
    if (LG_LIKELY(atomic_load_explicit(&lg_counts_active, memory_order_relaxed) == 0)) {
        return;
    }
    lg_count_slow((uintptr_t)metadata, size, stack_id, lg_scope_stamp(scope_token), scope_token);
}

// From scopes.c, the layer below:

/// The id of the scope `id` is nested in, when that scope is still open; else 0.
LG_HIDDEN uint32_t lg_scope_parent_id(uint32_t id);

/// The same function of the copy of LeakGraph this one forwards to (`lg_state.delegated`), found by
/// name in that copy's module; NULL when it has none (an older copy). Resolved once per name by the
/// caller.
LG_HIDDEN void *lg_delegate_symbol(const char *name);

#endif /* __linux__ */

#endif /* LG_ALLOC_COUNTS_H */
