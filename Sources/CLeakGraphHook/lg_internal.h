// The internals of CLeakGraphHook: its one state struct and the functions each layer offers the
// layer above. Not part of the public header.
//
// Layers call downward only:
//
//   install.c   (+ free_imports.c, retain_adapter.c)   checks, patches, swaps the allocator
//       ↓
//   hook.c      the allocation hook, lg_free, freeze/unfreeze, fork handlers
//       ↓
//   alloc_counts.c   objects made per type and stack, for counted scopes and the profile
//       ↓
//   scopes.c    allocation scopes: ids, the scope source, stamping and clearing
//       ↓
//   table.c     records: sharded slabs + the address map
//       ↓
//   stacks.c    interned creation stacks
//
// state.c owns `lg_state`, the only mutable global besides the thread-local `lg_tls_*`.

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
_Static_assert(sizeof(lg_stats_t) == 80, "lg_stats_t is shared with Swift: 7 counters + 5 words, padded");
_Static_assert(sizeof(uintptr_t) == 8, "CLeakGraphHook supports 64-bit targets only");

/// The signature of `_swift_allocObject` and of the hook.
typedef void *(*lg_alloc_fn)(const void *metadata, size_t size, size_t align_mask);
/// The signature of `free`.
typedef void (*lg_free_fn)(void *pointer);

/// glibc's own `free`, where `lg_free` sends memory unless the imports were patched over another
/// `free` (an interposed allocator).
extern void __libc_free(void *pointer);

// MARK: Records (table.c)

/// Number of record shards. Each thread appends to one shard (threads are dealt shards round
/// robin), so allocating threads rarely contend; a free locks the shard its record is in.
#define LG_SHARD_BITS 6u
#define LG_SHARD_COUNT (1u << LG_SHARD_BITS)
/// Records per slab chunk (mmapped on demand, never returned).
#define LG_CHUNK_BITS 14u
#define LG_CHUNK_RECORDS (1u << LG_CHUNK_BITS)

/// An address-map entry, 32 bits, 0 for "not tracked". Two kinds, told apart by the top bit:
///
/// - **inline** (`LG_ENTRY_INLINE`): a class instance allocated at exactly its class's instance
///   size, outside any allocation scope — most Swift objects. The entry is the whole record: its
///   creation stack id in the low 24 bits; its size is the 32-bit word at `metadata + 24` (the
///   instance size on this runtime), which the hook compared with the size asked for before choosing
///   this kind, so reading it back gives exactly that size whatever the word is named. No slab
///   record.
/// - **slab**: `shard << 24 | (index + 1)`, naming an 8-byte record in a shard's slab (arrays,
///   closure contexts, boxes, strings, tasks, objects made in a scope).
///
/// Both keep bit 4 of the object's address (`LG_ENTRY_HALF`): with 32-byte granules two objects
/// could share a granule under an allocator with 16-byte chunks, and a lookup must name the object
/// that starts exactly at the address it is given.
#define LG_ENTRY_INLINE 0x80000000u
#define LG_ENTRY_HALF 0x40000000u
#define LG_ENTRY_SHARD_SHIFT 24u
#define LG_ENTRY_INDEX_MASK ((1u << LG_ENTRY_SHARD_SHIFT) - 1u)
#define LG_ENTRY_SHARD_MASK (LG_SHARD_COUNT - 1u)
/// Records a shard can hold (index + 1 fits the entry's 24 bits).
#define LG_SHARD_RECORD_LIMIT (LG_ENTRY_INDEX_MASK - 1u)
/// Chunks per shard: enough for every index an entry can hold.
#define LG_SHARD_CHUNKS ((LG_ENTRY_INDEX_MASK + 1u) >> LG_CHUNK_BITS)
/// Where an inline record's size is read from the class metadata.
#define LG_CLASS_INSTANCE_SIZE_OFFSET 24u

/// The address map covers user-space addresses below 2^48 in regions of 2^30 bytes; each region is
/// a lazily mmapped array of one 32-bit entry per granule (256 MiB of address space at 16-byte
/// granules, half used at 32-byte ones; untouched pages cost nothing), preceded by a bitmap of the
/// entry pages ever written, so that a snapshot reads only those.
///
/// The granule is 32 bytes (`lg_state.granule_shift` 5) when `malloc` is glibc's: its chunks are at
/// least 32 bytes apart, so no two live objects share one. Under any other allocator it is 16 bytes,
/// the alignment of every Swift object. A map entry costs 4 bytes per granule of the span tracked
/// objects occupy: 6 bytes for an object in a 48-byte chunk at 32-byte granules.
#define LG_MAP_REGION_SHIFT 30u
#define LG_MAP_TOP_COUNT (1u << (48u - LG_MAP_REGION_SHIFT))
#define LG_MAP_REGION_ENTRIES (1u << (LG_MAP_REGION_SHIFT - 4u))
/// Entries per 4 KiB page of the map.
#define LG_MAP_PAGE_ENTRIES 1024u
#define LG_MAP_REGION_PAGES (LG_MAP_REGION_ENTRIES / LG_MAP_PAGE_ENTRIES)

typedef struct lg_map_region {
    /// One bit per page of `entries` that an insert has written.
    _Atomic uint64_t touched[LG_MAP_REGION_PAGES / 64];
    _Atomic uint32_t entries[LG_MAP_REGION_ENTRIES];
} lg_map_region;

_Static_assert(sizeof(((lg_map_region *)0)->touched) % 4096 == 0, "entries start on a page");

/// A record's bits, low to high: the stack id (24 bits, LG_NO_STACK maps to all ones), the
/// allocation scope (12 bits, 0 for none) and the size (28 bits).
#define LG_SLOT_STACK_BITS 24u
#define LG_SLOT_NO_STACK ((1u << LG_SLOT_STACK_BITS) - 1u)
#define LG_SLOT_SCOPE_BITS 12u
#define LG_SLOT_SCOPE_MASK ((1u << LG_SLOT_SCOPE_BITS) - 1u)
#define LG_SLOT_SIZE_SHIFT (LG_SLOT_STACK_BITS + LG_SLOT_SCOPE_BITS)
/// Sizes from this one up (256 MiB) are stored as this value; a snapshot reads the real size
/// (what malloc reserved) back from the allocator.
#define LG_SLOT_SIZE_SATURATED ((1ull << (64u - LG_SLOT_SIZE_SHIFT)) - 1u)

_Static_assert(LG_SLOT_STACK_BITS <= LG_ENTRY_SHARD_SHIFT, "an inline entry holds a stack id");

/// One slab record, 8 bytes: `size << 36 | scope << 24 | stack id`. The object's address is where its
/// map entry is; its metadata is its own first word, read at snapshot time (its memory is valid
/// then: frees of tracked objects wait for the freeze). A free record holds the index + 1 of the
/// next free record of its shard (below 2^24), a live one is at least 16 << 36 (every Swift object
/// has a 16-byte header), so a scan of a slab tells them apart.
typedef uint64_t lg_slot;

/// The bits a record (a slab slot, or an inline map entry) keeps of `stack_id`.
static inline uint32_t lg_slot_stack_bits(uint32_t stack_id) {
    return stack_id == LG_NO_STACK ? LG_SLOT_NO_STACK : (stack_id & LG_SLOT_NO_STACK);
}

/// The record value of an object of `size` bytes made at `stack_id` in `scope`.
static inline lg_slot lg_slot_make(size_t size, uint32_t stack_id, uint32_t scope) {
    uint64_t stack = lg_slot_stack_bits(stack_id);
    uint64_t stored = size < LG_SLOT_SIZE_SATURATED ? size : LG_SLOT_SIZE_SATURATED;
    return (stored << LG_SLOT_SIZE_SHIFT) | ((uint64_t)(scope & LG_SLOT_SCOPE_MASK) << LG_SLOT_STACK_BITS) | stack;
}

/// Whether a slot holds a live record rather than a free-list link.
static inline bool lg_slot_is_live(lg_slot slot) { return slot >= ((uint64_t)1 << LG_SLOT_SIZE_SHIFT); }

/// The scope of a live record.
static inline uint32_t lg_slot_scope(lg_slot slot) {
    return (uint32_t)(slot >> LG_SLOT_STACK_BITS) & LG_SLOT_SCOPE_MASK;
}

/// One shard of the record table. Aligned to its own cache lines.
typedef struct __attribute__((aligned(64))) lg_shard {
    /// Spin lock over everything below and over the map entries naming this shard.
    atomic_int lock;
    /// Index + 1 of the first free record, 0 when none.
    uint32_t free_head;
    /// Records handed out from the chunks so far (the high-water mark).
    uint32_t used;
    /// Chunks mapped.
    uint32_t chunk_count;
    /// Live records, allocations recorded and frees seen (written under `lock`, read relaxed).
    _Atomic uint64_t live;
    _Atomic uint64_t allocations;
    _Atomic uint64_t frees;
    lg_slot *chunks[LG_SHARD_CHUNKS];
} lg_shard;

// MARK: Stacks (stacks.c)

#define LG_STACK_SEGMENT_BITS 12u
#define LG_STACK_SEGMENT_SIZE (1u << LG_STACK_SEGMENT_BITS)
#define LG_STACK_SEGMENTS 4096u

_Static_assert((uint64_t)LG_STACK_SEGMENTS *LG_STACK_SEGMENT_SIZE <= LG_SLOT_NO_STACK + 1ull,
               "every stack id fits the record's 24 bits");

struct lg_stack_entry;
struct lg_stack_index;

typedef struct lg_stacks {
    _Atomic(struct lg_stack_entry **) directory[LG_STACK_SEGMENTS];
    _Atomic(struct lg_stack_index *) index;
    _Atomic uint32_t next_id;
    pthread_mutex_t mutex;
    char *arena;
    size_t arena_left;
} lg_stacks;

// MARK: The state

/// Another copy of LeakGraph's public API that this copy forwards to when that copy hooked the
/// allocator first (install.c, `lg_delegate_to`).
typedef struct lg_delegate {
    size_t (*freeze)(lg_record **out_records);
    void (*unfreeze)(lg_record *records);
    size_t (*freeze_objects)(uintptr_t **out_objects);
    int (*frozen_record)(uintptr_t object, lg_record *out_record);
    /// NULL when the other copy predates it: `lg_frozen_records` then asks `frozen_record` per object.
    size_t (*frozen_records)(const uintptr_t *objects, size_t count, lg_record *out_records);
    const uintptr_t *(*stack)(uint32_t stack_id, size_t *count);
    void (*stats)(lg_stats_t *stats);
    void (*ignore_begin)(void);
    void (*ignore_end)(void);
    uint64_t (*scope_begin)(void);
    void (*scope_end)(uint64_t token);
    uint32_t (*scope_of)(uintptr_t object);
    void (*set_scope_source)(lg_scope_source source);
    /// `lg_freeze_only` and `lg_unfreeze_only`: NULL in a copy without them (a freeze then needs a
    /// snapshot).
    int (*freeze_only)(void);
    void (*unfreeze_only)(void);
} lg_delegate;

/// Everything CLeakGraphHook keeps, in one place (state.c).
typedef struct lg_state_t {
    // Installation (install.c writes, everyone reads).
    atomic_int installed;
    atomic_int mode;
    atomic_uint max_frames;
    _Atomic(lg_alloc_fn) original_alloc;
    /// Where `lg_free` sends memory: the C library's `free` (or whatever `free` resolved to before
    /// the imports were patched).
    _Atomic(lg_free_fn) next_free;
    uint32_t runtime_version;
    uint32_t retain_adapter_replaced;
    uint32_t free_interception;
    uint32_t patched_free_imports;
    uint32_t patched_task_imports;
    /// Set when another copy of LeakGraph owns the hook: the public API forwards to `delegate`.
    atomic_int delegated;
    lg_delegate delegate;
    pthread_mutex_t install_mutex;

    // Counters that belong to no shard.
    _Atomic uint64_t ignored;
    _Atomic uint64_t deferred_frees;

    // Allocation scopes (scopes.c). Check scopes: ids in use (bit 0, "no scope", always set), how
    // many are open, the one open when exactly one is, and where the hook asks for the current one
    // (`scope_source`); each one's parent, the test scope it was opened in. Test scopes: their ids
    // (kept until recycled), labels, the order they were opened in (the oldest is recycled when no
    // id is free) and where the hook asks for the current test (`test_scope_source`). One generation
    // counter and one id space serve both. `scopes_open` is what the hook reads: open check scopes,
    // plus one while a test source is set.
    pthread_mutex_t scope_mutex;
    uint64_t scope_ids[(LG_SCOPE_LIMIT + 1) / 64];
    uint64_t test_scope_ids[(LG_SCOPE_LIMIT + 1) / 64];
    _Atomic uint32_t scope_generation[LG_SCOPE_LIMIT + 1];
    uint64_t scope_parent[LG_SCOPE_LIMIT + 1];
    char *scope_label[LG_SCOPE_LIMIT + 1];
    uint16_t test_scope_order[LG_SCOPE_LIMIT + 1];
    uint32_t test_scope_order_head;
    uint32_t test_scope_order_count;
    uint32_t next_generation;
    atomic_uint scopes_open;
    atomic_uint check_scopes_open;
    atomic_uint sole_scope;
    atomic_uint test_scopes_recycled;
    _Atomic(lg_scope_source) scope_source;
    _Atomic(lg_scope_source) test_scope_source;

    // Threads are dealt shards round robin.
    atomic_uint next_shard;
    pthread_key_t thread_key;
    int thread_key_ready;

    // Frees of tracked objects made by the freezing thread, performed at lg_unfreeze (hook.c).
    void **deferred;
    size_t deferred_count;
    size_t deferred_capacity;

    // The record table (table.c).
    /// Set once a record exists: before that `lg_free` answers after one load.
    atomic_int map_active;
    /// log2 of the map's granule: 5 under glibc's malloc, else 4 (set at installation, before the
    /// first record).
    uint32_t granule_shift;
    /// Objects not tracked because their shard's slab was full or memory ran out.
    _Atomic uint64_t untracked;
    lg_shard shards[LG_SHARD_COUNT];
    _Atomic(lg_map_region *) map[LG_MAP_TOP_COUNT];

    // Interned creation stacks (stacks.c).
    lg_stacks stacks;
} lg_state_t;

LG_HIDDEN extern lg_state_t lg_state;

/// Entries of the per-thread stack cache (a power of two).
#define LG_THREAD_STACK_CACHE 256u

/// Per-thread recording state, created at the thread's first recorded allocation.
typedef struct lg_thread {
    /// The shard this thread's records go to.
    uint32_t shard;
    /// Stack bounds of the thread: a frame-pointer walk stays inside [stack_low, stack_high).
    uintptr_t stack_low;
    uintptr_t stack_high;
    /// The thread's recently interned stacks by hash: allocation sites that repeat (loops,
    /// recursion) skip the shared table. A hit trusts the 64-bit hash and the frame count; a
    /// collision could only give an object another site's creation stack, never affect a leak.
    struct {
        uint64_t hash;
        uint32_t count;
        uint32_t id;
    } stack_cache[LG_THREAD_STACK_CACHE];
} lg_thread;

/// Non-zero while the thread's allocations pass through unrecorded (`lg_thread_ignore_begin`, the
/// hook itself, a freeze).
LG_HIDDEN extern __thread unsigned lg_tls_ignore __attribute__((tls_model("initial-exec")));
/// The thread's recording state, or NULL before its first recorded allocation.
LG_HIDDEN extern __thread lg_thread *lg_tls_thread __attribute__((tls_model("initial-exec")));
/// Nesting depth of `lg_freeze` on this thread.
LG_HIDDEN extern __thread unsigned lg_tls_freeze_depth __attribute__((tls_model("initial-exec")));
/// Whether this thread holds every shard lock (its outermost `lg_freeze` took them).
LG_HIDDEN extern __thread bool lg_tls_holds_freeze __attribute__((tls_model("initial-exec")));

// MARK: Spin locks (inline: on the fast paths)

/// Waits for a spin lock held by another thread: pause, then yield, then sleep 50 µs at a time
/// (a freeze can hold a shard lock for the whole heap walk).
LG_HIDDEN void lg_spin_lock_slow(atomic_int *lock);

static inline void lg_spin_lock(atomic_int *lock) {
    if (LG_LIKELY(!atomic_exchange_explicit(lock, 1, memory_order_acquire))) {
        return;
    }
    lg_spin_lock_slow(lock);
}

static inline void lg_spin_unlock(atomic_int *lock) { atomic_store_explicit(lock, 0, memory_order_release); }

// MARK: table.c — records

/// The granule index of `address` inside its map region.
static inline uintptr_t lg_map_granule(uintptr_t address) {
    return (address & ((1ull << LG_MAP_REGION_SHIFT) - 1)) >> lg_state.granule_shift;
}

/// The `LG_ENTRY_HALF` bit of an entry for an object at `address`.
static inline uint32_t lg_entry_half(uintptr_t address) { return (address & 16u) ? LG_ENTRY_HALF : 0u; }

/// The address-map entry of `address` without locking: 0 when it is not a tracked object.
/// One or two dependent loads; safe on any thread at any time.
static inline uint32_t lg_table_entry(uintptr_t address) {
    if (LG_UNLIKELY((address & 15u) != 0)) {
        return 0;
    }
    uintptr_t top = address >> LG_MAP_REGION_SHIFT;
    if (LG_UNLIKELY(top >= LG_MAP_TOP_COUNT)) {
        return 0;
    }
    lg_map_region *region = atomic_load_explicit(&lg_state.map[top], memory_order_acquire);
    if (region == NULL) {
        return 0;
    }
    uint32_t entry = atomic_load_explicit(&region->entries[lg_map_granule(address)], memory_order_acquire);
    // Another object starting in the other half of the granule is not this one.
    return (entry & LG_ENTRY_HALF) == lg_entry_half(address) ? entry : 0;
}

/// The shard whose lock guards the record of `entry` (the object at `address`): a slab record's own
/// shard; for an inline record, one picked by address (any shard lock would do: a freeze holds them
/// all, and the entry itself is changed atomically).
static inline lg_shard *lg_table_lock_shard(uint32_t entry, uintptr_t address) {
    if (entry & LG_ENTRY_INLINE) {
        return &lg_state.shards[(address >> 5) & LG_ENTRY_SHARD_MASK];
    }
    return &lg_state.shards[(entry >> LG_ENTRY_SHARD_SHIFT) & LG_ENTRY_SHARD_MASK];
}

static inline lg_slot *lg_shard_slot(lg_shard *shard, uint32_t index) {
    return &shard->chunks[index >> LG_CHUNK_BITS][index & (LG_CHUNK_RECORDS - 1)];
}

/// The slab record a slab entry names.
static inline lg_slot *lg_entry_slot(uint32_t entry) {
    return lg_shard_slot(&lg_state.shards[(entry >> LG_ENTRY_SHARD_SHIFT) & LG_ENTRY_SHARD_MASK],
                         (entry & LG_ENTRY_INDEX_MASK) - 1);
}

/// Adds to a counter that only the holder of its shard's lock writes: no locked instruction.
static inline void lg_counter_add(_Atomic uint64_t *counter, int64_t amount) {
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + (uint64_t)amount,
                          memory_order_relaxed);
}

/// Publishes `entry` for `object` in `region` (the caller holds the lock of `shard`, which counts it).
static inline void lg_table_publish(lg_shard *shard, lg_map_region *region, uintptr_t object, uint32_t entry) {
    uintptr_t granule = lg_map_granule(object);
    uint32_t page = (uint32_t)(granule / LG_MAP_PAGE_ENTRIES);
    uint64_t bit = (uint64_t)1 << (page & 63);
    if (LG_UNLIKELY((atomic_load_explicit(&region->touched[page >> 6], memory_order_relaxed) & bit) == 0)) {
        atomic_fetch_or_explicit(&region->touched[page >> 6], bit, memory_order_relaxed);
    }
    atomic_store_explicit(&region->entries[granule], entry | lg_entry_half(object), memory_order_release);
    lg_counter_add(&shard->live, 1);
    lg_counter_add(&shard->allocations, 1);
}

/// The insert path that maps memory or meets a taken granule (table.c).
LG_HIDDEN bool lg_table_insert_slow(uint32_t shard, uintptr_t object, lg_slot record, uint32_t inline_entry);

/// Adds a record to `shard` (whose lock the caller holds): inline when `inline_entry` is not 0 (an
/// `LG_ENTRY_INLINE` entry), else `record` in the shard's slab. Returns false when the record could
/// not be stored (misaligned address, a full slab, out of memory): the object is then simply not
/// tracked.
static inline bool lg_table_insert_locked(uint32_t shard_index, uintptr_t object, lg_slot record,
                                          uint32_t inline_entry) {
    uintptr_t top = object >> LG_MAP_REGION_SHIFT;
    if (LG_UNLIKELY((object & 15u) != 0 || top >= LG_MAP_TOP_COUNT ||
                    (inline_entry == 0 && !lg_slot_is_live(record)))) {
        return false;
    }
    lg_shard *shard = &lg_state.shards[shard_index];
    lg_map_region *region = atomic_load_explicit(&lg_state.map[top], memory_order_acquire);
    if (LG_UNLIKELY(region == NULL ||
                    atomic_load_explicit(&region->entries[lg_map_granule(object)], memory_order_relaxed) != 0)) {
        return lg_table_insert_slow(shard_index, object, record, inline_entry);
    }
    if (inline_entry != 0) {
        lg_table_publish(shard, region, object, inline_entry);
        return true;
    }
    if (LG_UNLIKELY(shard->free_head == 0)) {
        return lg_table_insert_slow(shard_index, object, record, 0);
    }
    uint32_t index = shard->free_head - 1;
    shard->free_head = (uint32_t)*lg_shard_slot(shard, index);
    *lg_shard_slot(shard, index) = record;
    lg_table_publish(shard, region, object, (shard_index << LG_ENTRY_SHARD_SHIFT) | (index + 1));
    return true;
}

/// Removes the record of `object`, whose map entry is `entry`, under the lock of
/// `lg_table_lock_shard(entry, object)` (which the caller holds). Returns false when `object` no
/// longer has that entry.
static inline bool lg_table_remove_locked(uintptr_t object, uint32_t entry) {
    lg_map_region *region = atomic_load_explicit(&lg_state.map[object >> LG_MAP_REGION_SHIFT], memory_order_relaxed);
    _Atomic uint32_t *map_entry = &region->entries[lg_map_granule(object)];
    if (atomic_load_explicit(map_entry, memory_order_relaxed) != entry) {
        return false;
    }
    atomic_store_explicit(map_entry, 0, memory_order_release);
    lg_shard *shard = lg_table_lock_shard(entry, object);
    if (!(entry & LG_ENTRY_INLINE)) {
        uint32_t index = (entry & LG_ENTRY_INDEX_MASK) - 1;
        *lg_shard_slot(shard, index) = shard->free_head;
        shard->free_head = index + 1;
    }
    lg_counter_add(&shard->live, -1);
    lg_counter_add(&shard->frees, 1);
    return true;
}

/// Takes every shard lock, in index order.
LG_HIDDEN void lg_table_lock_all(void);
/// Releases every shard lock.
LG_HIDDEN void lg_table_unlock_all(void);
/// With every shard lock held: a malloc'd array of every record in address order (NULL and 0
/// when empty or out of memory).
LG_HIDDEN size_t lg_table_snapshot_locked(lg_record **out_records);
/// Like `lg_table_snapshot_locked`, the objects' addresses only (a malloc'd array in `*out_objects`).
LG_HIDDEN size_t lg_table_objects_locked(uintptr_t **out_objects);
/// The record of the tracked object at `object` (every shard lock held); false when untracked.
LG_HIDDEN bool lg_table_record_locked(uintptr_t object, lg_record *out_record);
/// Adds the table's counters to `stats` (relaxed reads).
LG_HIDDEN void lg_table_stats(lg_stats_t *stats);
/// With every shard lock held: sets the scope of every record in `scope` to `replacement` (0: no
/// scope; a check scope's records go back to the test scope it was opened in).
LG_HIDDEN void lg_table_restamp_scope_locked(uint32_t scope, uint32_t replacement);
/// The scope of the record of `object` (0 when untracked or unscoped), under its shard lock unless
/// the calling thread holds the freeze.
LG_HIDDEN uint32_t lg_table_scope_of(uintptr_t object);

// MARK: stacks.c — creation stacks

/// Prepares the stack table. Returns 0, or -1 when out of memory.
LG_HIDDEN int lg_stacks_init(void);
/// The id of `frames`, whose hash is `hash` (LG_NO_STACK when the table is full or out of memory).
/// Lock-free when known.
LG_HIDDEN uint32_t lg_stack_intern(const uintptr_t *frames, uint32_t count, uint64_t hash);

/// A stack's hash, built one frame at a time while the frames are walked.
static inline uint64_t lg_stack_hash_add(uint64_t hash, uintptr_t frame) {
    hash = (hash ^ frame) * 0xBF58476D1CE4E5B9ull;
    return hash ^ (hash >> 31);
}
#define LG_STACK_HASH_SEED 0x9E3779B97F4A7C15ull
/// Distinct stacks interned.
LG_HIDDEN uint64_t lg_stack_count(void);
/// Fork handlers: hold and release the insertion mutex.
LG_HIDDEN void lg_stacks_lock(void);
LG_HIDDEN void lg_stacks_unlock(void);

// MARK: scopes.c — allocation scopes

/// The scope token of an allocation being recorded now (a scope is open): the scope source's, else
/// the one open scope's, else 0. Read before the shard lock is taken (the source is Swift code).
LG_HIDDEN uint64_t lg_current_scope(void);

/// The id to stamp on a record for `token` (from lg_current_scope), read under the record's shard
/// lock: 0 when the scope has ended meanwhile. lg_scope_end zeroes the generation before it takes the
/// shard locks to clear its id, so a record is either inserted before that pass (and cleared by it)
/// or sees the scope ended here.
static inline uint32_t lg_scope_stamp(uint64_t token) {
    if (token == 0) {
        return 0;
    }
    uint32_t id = (uint32_t)token;
    return atomic_load_explicit(&lg_state.scope_generation[id], memory_order_acquire) == (uint32_t)(token >> 32) ? id
                                                                                                                 : 0;
}

// MARK: hook.c — the paths install.c switches on

/// What `_swift_allocObject` points at once installed.
LG_HIDDEN void *lg_alloc_hook(const void *metadata, size_t size, size_t align_mask);
/// Prepares the per-thread key. Returns 0, or -1.
LG_HIDDEN int lg_hook_init(void);
/// Fork handlers (registered once by install.c): hold every lock across `fork`.
LG_HIDDEN void lg_fork_prepare(void);
LG_HIDDEN void lg_fork_parent(void);
LG_HIDDEN void lg_fork_child(void);

// MARK: install.c helpers

/// Writes one sentence into `error` (may be NULL).
LG_HIDDEN void lg_set_error(char *error, size_t error_len, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

// retain_adapter.c (called by install.c only)
/// Finds `_swift_retain_adapter` in the runtime's symbol table and checks that it can be replaced.
/// Returns 0 and fills `*slot` or returns non-zero with a sentence in `error`.
LG_HIDDEN int lg_retain_adapter_prepare(void ***slot, char *error, size_t error_len);
/// Points the prepared slot at LeakGraph's adapter.
LG_HIDDEN void lg_retain_adapter_apply(void **slot);

// free_imports.c (called by install.c only)
/// Points the `free` imports of every loaded module but the C library and the dynamic loader at
/// `replacement`. Returns the number of imports patched, or -1 with a sentence in `error` when a
/// module's import could not be made writable.
LG_HIDDEN int lg_free_imports_patch(lg_free_fn replacement, char *error, size_t error_len);

/// Points every import of `symbol` (GOT entries of every loaded module but the C library and the
/// dynamic loader) at `replacement`; returns how many were patched and stores in `*failed` how many
/// could not be made writable.
LG_HIDDEN int lg_imports_patch(const char *symbol, void *replacement, int *failed);

/// In-process recording without the preloaded library: points the `swift_task_create` imports of the
/// loaded modules at a wrapper that records each task (`lg_task_created`). Returns how many imports
/// were patched (0 when the concurrency runtime is not loaded); tasks stay untracked where it fails.
LG_HIDDEN int lg_task_imports_patch(void);

#endif /* __linux__ */

#endif /* LG_INTERNAL_H */
