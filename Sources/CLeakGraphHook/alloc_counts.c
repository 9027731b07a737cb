// Allocation counts: objects made and bytes, per (what is counted, type metadata, creation stack).
//
// What is counted is a *key*: 0 for the process-wide profile, or the token of a counted scope. Each
// thread adds to its own open-addressing table, with its shard lock held by the allocation hook, so
// an add is a probe and two plain additions. Readers (`lg_count_end`, `lg_count_profile_rows`)
// take every shard lock, which waits for adds under way and holds off new ones, and read every
// thread's table. A thread's table outlives it: at thread exit it is marked unowned, and the next
// thread that counts takes it over (its counts stay, they are sums).
//
// A scope's entries stay in the tables after it ends, unreachable (a token is never reused: it
// carries a generation); a table that grows drops them. An allocation stamped with a scope that is
// not counted goes to the nearest enclosing scope that is (scopes.c keeps the nesting).
//
// Tables are mmapped, never malloc'd: the adding thread holds a shard lock (see hook.c).

#include "alloc_counts.h"

#ifdef __linux__

#include <dlfcn.h>
#include <string.h>
#include <sys/mman.h>

/// One counted (key, metadata, stack). Empty while `metadata` is 0.
typedef struct lg_count_entry {
    uint64_t key;
    uintptr_t metadata;
    uint64_t objects;
    uint64_t bytes;
    uint32_t stack_id;
    uint32_t reserved;
} lg_count_entry;

/// One thread's counts. The header is mmapped alone and never unmapped: the registry lists it.
typedef struct lg_count_table {
    /// The next table of the registry.
    struct lg_count_table *next;
    /// 1 while a thread adds to it; 0 once that thread exited (another may take it over).
    atomic_int owned;
    /// Entries in use (live or of ended scopes), and the capacity minus one (a power of two).
    uint32_t used;
    uint32_t mask;
    lg_count_entry *entries;
    /// The slot of the last add: a loop allocating one type at one site finds it at once.
    uint32_t last;
} lg_count_table;

/// A counted scope's key while `lg_count_end` reads it: no new allocation is added to it, but a
/// table that grows keeps its entries. Scope ids are below 2^12, so bit 31 of a token is free.
#define LG_COUNT_ENDING ((uint64_t)1 << 31)
#define LG_COUNT_FIRST_CAPACITY 256u

atomic_uint lg_counts_active;

/// The state of counting, apart from the threads' tables.
static struct {
    /// Per scope id: the token being counted (with LG_COUNT_ENDING while it ends), or 0.
    _Atomic uint64_t counting[LG_SCOPE_LIMIT + 1];
    /// The registry of tables (append under `registry_mutex`, read with every shard lock held).
    _Atomic(lg_count_table *) tables;
    pthread_mutex_t registry_mutex;
    pthread_mutex_t init_mutex;
    pthread_key_t key;
    atomic_int key_ready;
} lg_counts = {
    .registry_mutex = PTHREAD_MUTEX_INITIALIZER,
    .init_mutex = PTHREAD_MUTEX_INITIALIZER,
};

/// The calling thread's table, or NULL before it counted anything.
static __thread lg_count_table *lg_tls_counts __attribute__((tls_model("initial-exec")));

// MARK: Tables

static inline uint64_t lg_count_hash(uint64_t key, uintptr_t metadata, uint32_t stack_id) {
    uint64_t hash = (metadata ^ (key * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)stack_id << 20)) * 0xBF58476D1CE4E5B9ull;
    return hash ^ (hash >> 29);
}

/// An mmapped array of `capacity` zeroed entries, or NULL.
static lg_count_entry *lg_count_entries_new(uint32_t capacity) {
    void *memory = mmap(NULL, (size_t)capacity * sizeof(lg_count_entry), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

/// Whether entries of `key` must be kept: the profile's, and those of a scope still counted.
static bool lg_count_key_live(uint64_t key) {
    if (key == 0) {
        return true;
    }
    uint64_t counted =
        atomic_load_explicit(&lg_counts.counting[LG_SCOPE_ID(key) & LG_SCOPE_LIMIT], memory_order_acquire);
    return (counted & ~LG_COUNT_ENDING) == key;
}

/// Puts `entry` in `entries` (`mask` + 1 slots; it is not there yet).
static void lg_count_place(lg_count_entry *entries, uint32_t mask, const lg_count_entry *entry) {
    for (uint32_t slot = (uint32_t)lg_count_hash(entry->key, entry->metadata, entry->stack_id) & mask;;
         slot = (slot + 1) & mask) {
        if (entries[slot].metadata == 0) {
            entries[slot] = *entry;
            return;
        }
    }
}

/// Rebuilds `table` without the entries of ended scopes, at least twice as large as what is left.
/// Returns false when out of memory (the table is unchanged).
static bool lg_count_rehash(lg_count_table *table) {
    uint32_t live = 0;
    for (uint32_t slot = 0; slot <= table->mask; slot++) {
        if (table->entries[slot].metadata != 0 && lg_count_key_live(table->entries[slot].key)) {
            live++;
        }
    }
    uint32_t capacity = LG_COUNT_FIRST_CAPACITY;
    while (capacity < 4 * (live + 1)) {
        capacity *= 2;
    }
    lg_count_entry *entries = lg_count_entries_new(capacity);
    if (entries == NULL) {
        return false;
    }
    for (uint32_t slot = 0; slot <= table->mask; slot++) {
        const lg_count_entry *entry = &table->entries[slot];
        if (entry->metadata != 0 && lg_count_key_live(entry->key)) {
            lg_count_place(entries, capacity - 1, entry);
        }
    }
    munmap(table->entries, ((size_t)table->mask + 1) * sizeof(lg_count_entry));
    table->entries = entries;
    table->mask = capacity - 1;
    table->used = live;
    return true;
}

/// Adds `objects` objects and `bytes` bytes to (key, metadata, stack) in `table`.
static void lg_count_add(lg_count_table *table, uint64_t key, uintptr_t metadata, uint32_t stack_id, uint64_t objects,
                         uint64_t bytes) {
    lg_count_entry *last = &table->entries[table->last & table->mask];
    if (LG_LIKELY(last->metadata == metadata && last->stack_id == stack_id && last->key == key)) {
        last->objects += objects;
        last->bytes += bytes;
        return;
    }
    for (;;) {
        lg_count_entry *entries = table->entries;
        uint32_t mask = table->mask;
        for (uint32_t slot = (uint32_t)lg_count_hash(key, metadata, stack_id) & mask;; slot = (slot + 1) & mask) {
            lg_count_entry *entry = &entries[slot];
            if (LG_LIKELY(entry->metadata == metadata && entry->stack_id == stack_id && entry->key == key)) {
                entry->objects += objects;
                entry->bytes += bytes;
                table->last = slot;
                return;
            }
            if (entry->metadata == 0) {
                if (LG_UNLIKELY((table->used + 1) * 2 > mask + 1)) {
                    break;  // grow (or drop ended scopes), then look again
                }
                *entry = (lg_count_entry){
                    .key = key, .metadata = metadata, .objects = objects, .bytes = bytes, .stack_id = stack_id};
                table->used++;
                table->last = slot;
                return;
            }
        }
        if (!lg_count_rehash(table)) {
            return;  // out of memory: this allocation goes uncounted
        }
    }
}

/// At thread exit: the thread's table may be taken over by another thread.
static void lg_count_thread_exit(void *value) {
    lg_count_table *table = value;
    lg_tls_counts = NULL;
    if (table != NULL) {
        atomic_store_explicit(&table->owned, 0, memory_order_release);
    }
}

/// The calling thread's table: its own, one a thread that exited left, or a new one (NULL when out
/// of memory). Called with a shard lock held: no malloc (pthread_setspecific of a key made early
/// writes the thread's own block).
static lg_count_table *lg_count_table_of_thread(void) {
    lg_count_table *table = lg_tls_counts;
    if (LG_LIKELY(table != NULL)) {
        return table;
    }
    pthread_mutex_lock(&lg_counts.registry_mutex);
    for (lg_count_table *free_table = atomic_load_explicit(&lg_counts.tables, memory_order_acquire);
         free_table != NULL && table == NULL; free_table = free_table->next) {
        int unowned = 0;
        if (atomic_compare_exchange_strong_explicit(&free_table->owned, &unowned, 1, memory_order_acq_rel,
                                                    memory_order_relaxed)) {
            table = free_table;
        }
    }
    if (table == NULL) {
        void *header = mmap(NULL, sizeof(lg_count_table), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        lg_count_entry *entries = lg_count_entries_new(LG_COUNT_FIRST_CAPACITY);
        if (header == MAP_FAILED || entries == NULL) {
            if (header != MAP_FAILED) munmap(header, sizeof(lg_count_table));
            if (entries != NULL) munmap(entries, LG_COUNT_FIRST_CAPACITY * sizeof(lg_count_entry));
            pthread_mutex_unlock(&lg_counts.registry_mutex);
            return NULL;
        }
        table = header;
        table->entries = entries;
        table->mask = LG_COUNT_FIRST_CAPACITY - 1;
        atomic_store_explicit(&table->owned, 1, memory_order_relaxed);
        table->next = atomic_load_explicit(&lg_counts.tables, memory_order_relaxed);
        atomic_store_explicit(&lg_counts.tables, table, memory_order_release);
    }
    pthread_mutex_unlock(&lg_counts.registry_mutex);
    lg_tls_counts = table;
    if (atomic_load_explicit(&lg_counts.key_ready, memory_order_acquire)) {
        pthread_setspecific(lg_counts.key, table);
    }
    return table;
}

/// Makes the thread-exit key once. Returns false when it cannot (then tables of exited threads are
/// not reused).
static bool lg_counts_init(void) {
    if (atomic_load_explicit(&lg_counts.key_ready, memory_order_acquire)) {
        return true;
    }
    pthread_mutex_lock(&lg_counts.init_mutex);
    if (!atomic_load_explicit(&lg_counts.key_ready, memory_order_relaxed) &&
        pthread_key_create(&lg_counts.key, lg_count_thread_exit) == 0) {
        atomic_store_explicit(&lg_counts.key_ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&lg_counts.init_mutex);
    return atomic_load_explicit(&lg_counts.key_ready, memory_order_acquire);
}

// MARK: The allocation path

/// The key of the counted scope `id` is or is nested in, or 0 when none is counted. A scope that is
/// ending passes its allocations on to the one it is nested in.
static uint64_t lg_count_key_for_scope(uint32_t id) {
    for (unsigned depth = 0; id != 0 && depth < 64; depth++) {
        uint64_t counted = atomic_load_explicit(&lg_counts.counting[id], memory_order_acquire);
        if (counted != 0 && (counted & LG_COUNT_ENDING) == 0 &&
            (uint32_t)(counted >> 32) == atomic_load_explicit(&lg_state.scope_generation[id], memory_order_acquire)) {
            return counted;
        }
        id = lg_scope_parent_id(id);
    }
    return 0;
}

void lg_count_slow(uintptr_t metadata, size_t size, uint32_t stack_id, uint32_t scope, uint64_t token) {
    unsigned active = atomic_load_explicit(&lg_counts_active, memory_order_relaxed);
    uint64_t key = 0;
    if (scope != 0 && active > 1) {
        // The stamp checked the token's generation: when its own scope is counted, that is the key.
        key = atomic_load_explicit(&lg_counts.counting[scope], memory_order_acquire) == token
                  ? token
                  : lg_count_key_for_scope(scope);
    }
    if ((active & 1u) == 0 && key == 0) {
        return;
    }
    lg_count_table *table = lg_count_table_of_thread();
    if (table == NULL) {
        return;
    }
    if (active & 1u) {
        lg_count_add(table, 0, metadata, stack_id, 1, size);
    }
    if (key != 0) {
        lg_count_add(table, key, metadata, stack_id, 1, size);
    }
}

// MARK: Reading

/// With every shard lock held: an mmapped array of every entry of `key` in every table, in
/// `*out_rows`; returns their number (0 and NULL when none or out of memory).
static size_t lg_count_collect_locked(uint64_t key, lg_count_row **out_rows) {
    *out_rows = NULL;
    size_t count = 0;
    lg_count_table *first = atomic_load_explicit(&lg_counts.tables, memory_order_acquire);
    for (lg_count_table *table = first; table != NULL; table = table->next) {
        for (uint32_t slot = 0; slot <= table->mask; slot++) {
            count += table->entries[slot].metadata != 0 && table->entries[slot].key == key;
        }
    }
    if (count == 0) {
        return 0;
    }
    void *memory = mmap(NULL, count * sizeof(lg_count_row), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        return 0;
    }
    lg_count_row *rows = memory;
    size_t filled = 0;
    for (lg_count_table *table = first; table != NULL; table = table->next) {
        for (uint32_t slot = 0; slot <= table->mask && filled < count; slot++) {
            const lg_count_entry *entry = &table->entries[slot];
            if (entry->metadata != 0 && entry->key == key) {
                rows[filled++] = (lg_count_row){.metadata = entry->metadata,
                                                .objects = entry->objects,
                                                .bytes = entry->bytes,
                                                .stack_id = entry->stack_id};
            }
        }
    }
    *out_rows = rows;
    return filled;
}

void lg_count_rows_free(lg_count_row *rows, size_t count) {
    if (rows != NULL && count > 0) {
        munmap(rows, count * sizeof(lg_count_row));
    }
}

// MARK: Delegation

/// Whether this copy forwards to another (`lg_state.delegated`); then `*function` is that copy's
/// `name`, resolved once into `*cache` (NULL when it has none).
static bool lg_count_forwarded(_Atomic(void *) *cache, const char *name, void **function) {
    if (LG_LIKELY(!atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return false;
    }
    void *found = atomic_load_explicit(cache, memory_order_acquire);
    if (found == NULL) {
        found = lg_delegate_symbol(name);
        atomic_store_explicit(cache, found, memory_order_release);
    }
    *function = found;
    return true;
}

// MARK: Public API

int lg_count_begin(uint64_t token) {
    static _Atomic(void *) forward;
    void *function;
    if (lg_count_forwarded(&forward, "lg_count_begin", &function)) {
        return function != NULL ? ((int (*)(uint64_t))function)(token) : 0;
    }
    uint32_t id = LG_SCOPE_ID(token);
    if (id == 0 || id > LG_SCOPE_LIMIT || !atomic_load_explicit(&lg_state.installed, memory_order_acquire) ||
        atomic_load_explicit(&lg_state.scope_generation[id], memory_order_acquire) != (uint32_t)(token >> 32) ||
        !lg_counts_init()) {
        return 0;
    }
    uint64_t none = 0;
    if (!atomic_compare_exchange_strong_explicit(&lg_counts.counting[id], &none, token, memory_order_acq_rel,
                                                 memory_order_relaxed)) {
        return 0;
    }
    atomic_fetch_add_explicit(&lg_counts_active, 2, memory_order_relaxed);
    return 1;
}

size_t lg_count_end(uint64_t token, lg_count_row **out_rows) {
    *out_rows = NULL;
    static _Atomic(void *) forward;
    void *function;
    if (lg_count_forwarded(&forward, "lg_count_end", &function)) {
        return function != NULL ? ((size_t(*)(uint64_t, lg_count_row **))function)(token, out_rows) : 0;
    }
    uint32_t id = LG_SCOPE_ID(token);
    if (id == 0 || id > LG_SCOPE_LIMIT) {
        return 0;
    }
    // No allocation is added to the scope from here on (they go to the scope it is nested in).
    uint64_t expected = token;
    if (!atomic_compare_exchange_strong_explicit(&lg_counts.counting[id], &expected, token | LG_COUNT_ENDING,
                                                 memory_order_acq_rel, memory_order_relaxed)) {
        return 0;
    }
    bool frozen = lg_tls_holds_freeze;
    if (!frozen) {
        lg_table_lock_all();  // adds under way finish; later ones see the scope ending
    }
    size_t count = lg_count_collect_locked(token, out_rows);
    // The counted scope this one is nested in gets its counts too, in the calling thread's table.
    uint64_t outer = lg_count_key_for_scope(lg_scope_parent_id(id));
    if (outer != 0 && count > 0) {
        lg_count_table *table = lg_count_table_of_thread();
        for (size_t index = 0; table != NULL && index < count; index++) {
            const lg_count_row *row = &(*out_rows)[index];
            lg_count_add(table, outer, row->metadata, row->stack_id, row->objects, row->bytes);
        }
    }
    atomic_store_explicit(&lg_counts.counting[id], 0, memory_order_release);
    atomic_fetch_sub_explicit(&lg_counts_active, 2, memory_order_relaxed);
    if (!frozen) {
        lg_table_unlock_all();
    }
    return count;
}

int lg_count_profile_start(void) {
    static _Atomic(void *) forward;
    void *function;
    if (lg_count_forwarded(&forward, "lg_count_profile_start", &function)) {
        return function != NULL ? ((int (*)(void))function)() : 0;
    }
    if (!atomic_load_explicit(&lg_state.installed, memory_order_acquire) || !lg_counts_init()) {
        return 0;
    }
    atomic_fetch_or_explicit(&lg_counts_active, 1u, memory_order_relaxed);
    return 1;
}

int lg_count_profile_running(void) {
    static _Atomic(void *) forward;
    void *function;
    if (lg_count_forwarded(&forward, "lg_count_profile_running", &function)) {
        return function != NULL ? ((int (*)(void))function)() : 0;
    }
    return (atomic_load_explicit(&lg_counts_active, memory_order_relaxed) & 1u) != 0;
}

size_t lg_count_profile_rows(lg_count_row **out_rows) {
    *out_rows = NULL;
    static _Atomic(void *) forward;
    void *function;
    if (lg_count_forwarded(&forward, "lg_count_profile_rows", &function)) {
        return function != NULL ? ((size_t(*)(lg_count_row **))function)(out_rows) : 0;
    }
    if ((atomic_load_explicit(&lg_counts_active, memory_order_relaxed) & 1u) == 0) {
        return 0;
    }
    bool frozen = lg_tls_holds_freeze;
    if (!frozen) {
        lg_table_lock_all();
    }
    size_t count = lg_count_collect_locked(0, out_rows);
    if (!frozen) {
        lg_table_unlock_all();
    }
    return count;
}

#else /* !__linux__ */

uint64_t lg_scope_begin_within(uint64_t parent_token) {
    (void)parent_token;
    return 0;
}
int lg_count_begin(uint64_t token) {
    (void)token;
    return 0;
}
size_t lg_count_end(uint64_t token, lg_count_row **out_rows) {
    (void)token;
    *out_rows = NULL;
    return 0;
}
int lg_count_profile_start(void) { return 0; }
int lg_count_profile_running(void) { return 0; }
size_t lg_count_profile_rows(lg_count_row **out_rows) {
    *out_rows = NULL;
    return 0;
}
void lg_count_rows_free(lg_count_row *rows, size_t count) {
    (void)rows;
    (void)count;
}

#endif /* __linux__ */
