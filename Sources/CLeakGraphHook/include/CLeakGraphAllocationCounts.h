// Allocation counts: how many Swift heap objects were made, and their bytes, per type metadata and
// creation stack — for an allocation scope (a budget in a test, `LeakChecker.countingAllocations`)
// or for the whole process (`leakgraph run --allocations`). Records only know the objects still
// alive; these counts also remember the ones that died. Included by CLeakGraphHook.h.
//
// The hook adds each recorded allocation to a table of the allocating thread (no lock, no atomic
// read-modify-write: the thread's shard lock is held anyway), keyed by (what is counted, metadata,
// stack); reading the counts takes every shard lock and sums the threads' tables. Nothing is
// counted, and the hook pays one relaxed load, while no scope is counted and no profile runs.

#ifndef CLEAKGRAPH_ALLOCATION_COUNTS_H
#define CLEAKGRAPH_ALLOCATION_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Objects of one type metadata made at one creation stack: a row of `lg_count_end` or
/// `lg_count_profile_rows`. Rows are not summed across threads: one (metadata, stack) may appear in
/// several rows, each a part of the total.
typedef struct lg_count_row {
    /// The objects' type metadata (their first word when made).
    uintptr_t metadata;
    /// Objects made.
    uint64_t objects;
    /// Their sizes as the runtime asked for them, summed.
    uint64_t bytes;
    /// The creation stack (`lg_stack`), or `LG_NO_STACK`.
    uint32_t stack_id;
    uint32_t reserved;
} lg_count_row;

/// Opens an allocation scope nested in the open scope `parent_token` (0: none), as `lg_scope_begin`
/// does. While the open scopes form one chain (each nested in the one before), an allocation the
/// scope source cannot attribute (no task) goes to the innermost. Returns the token, or 0 (see
/// `lg_scope_begin`).
uint64_t lg_scope_begin_within(uint64_t parent_token);

/// Closes the scope of `token` as `lg_scope_end` does, but its records get the id of the scope it is
/// nested in (when that one is still open) instead of none: an allocation count inside a leak check
/// leaves what it counted to the check.
void lg_scope_end_into_parent(uint64_t token);

/// Starts counting the allocations of the open scope `token` — those stamped with it and with the
/// scopes nested in it — until `lg_count_end`. Returns 1, or 0 when the scope is not open, is
/// already counted, or the hook is not installed.
int lg_count_begin(uint64_t token);

/// Stops counting scope `token` and stores in `*out_rows` what it made (release with
/// `lg_count_rows_free`), returning the number of rows (0 and NULL when none). The nearest enclosing
/// scope that is counted too gets the same counts added to its own. Call it before `lg_scope_end`.
/// Takes every shard lock for a pass over the threads' tables (not when the calling thread holds
/// the freeze).
size_t lg_count_end(uint64_t token, lg_count_row **out_rows);

/// Starts counting every recorded allocation of the process (the allocation profile) from now on.
/// Returns 1, or 0 when the hook is not installed.
int lg_count_profile_start(void);

/// Whether the allocation profile runs.
int lg_count_profile_running(void);

/// The allocation profile so far: stores the rows in `*out_rows` (release with `lg_count_rows_free`)
/// and returns their number. Takes every shard lock (not when the calling thread holds the freeze).
size_t lg_count_profile_rows(lg_count_row **out_rows);

/// Releases rows from `lg_count_end` or `lg_count_profile_rows` (`count` as returned).
void lg_count_rows_free(lg_count_row *rows, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* CLEAKGRAPH_ALLOCATION_COUNTS_H */
