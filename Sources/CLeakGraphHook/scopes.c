// Allocation scopes: a test adapter opens a scope around the code under test, and every object
// recorded while it is open is stamped with the scope's id, so that a check can tell which leaked
// objects that code made. The id comes from the scope source (a task-local value on the Swift side,
// inherited by child tasks); for allocations the source cannot attribute (no task: a Dispatch
// worker, a thread), from the one open scope when exactly one is open.
//
// Ids are 12 bits (the record's scope field); each use of an id has a generation, and a token is
// `generation << 32 | id`, so a task that outlives its scope and still carries the old token
// stamps nothing. Closing a scope clears its id from every record before the id can be reused.
//
// A scope may be nested in another (`lg_scope_begin_within`: a budget inside a leak check). Closing
// a nested scope with `lg_scope_end_into_parent` stamps its records with the enclosing scope's id
// instead of none, so the enclosing check still owns what was made inside (a leak check's own scope
// ends with `lg_scope_end`: what it judged is nobody's); and while the open scopes form one chain,
// allocations the source cannot attribute go to the innermost.

#include "alloc_counts.h"

#ifdef __linux__

#include <dlfcn.h>

void *lg_delegate_symbol(const char *name) {
    Dl_info info;
    if (dladdr((const void *)lg_state.delegate.freeze, &info) == 0 || info.dli_fname == NULL) {
        return NULL;
    }
    void *module = dlopen(info.dli_fname[0] ? info.dli_fname : NULL, RTLD_NOW | RTLD_NOLOAD);
    if (module == NULL) {
        return NULL;
    }
    void *symbol = dlsym(module, name);
    dlclose(module);
    return symbol;
}

/// Per scope id: the token of the scope it is nested in, or 0 (written when the id is opened).
static _Atomic uint64_t lg_scope_parents[LG_SCOPE_LIMIT + 1];

/// The open scope `token` names, or 0 when it names none (0, out of range, or ended).
static uint32_t lg_scope_open_id(uint64_t token) {
    uint32_t id = LG_SCOPE_ID(token);
    if (id == 0 || id > LG_SCOPE_LIMIT) {
        return 0;
    }
    uint32_t generation = (uint32_t)(token >> 32);
    return atomic_load_explicit(&lg_state.scope_generation[id], memory_order_acquire) == generation
               ? id
               : 0;
}

uint64_t lg_current_scope(void) {
    lg_scope_source source = atomic_load_explicit(&lg_state.scope_source, memory_order_acquire);
    uint64_t token = source != NULL ? source() : LG_SCOPE_SOLE;
    if (token != LG_SCOPE_SOLE) {
        return lg_scope_open_id(token) != 0 ? token : 0;
    }
    uint32_t id = atomic_load_explicit(&lg_state.sole_scope, memory_order_relaxed);
    if (id == 0 || id > LG_SCOPE_LIMIT) {
        return 0;
    }
    uint32_t generation = atomic_load_explicit(&lg_state.scope_generation[id], memory_order_acquire);
    return generation != 0 ? (uint64_t)generation << 32 | id : 0;
}

uint32_t lg_scope_parent_id(uint32_t id) {
    if (id == 0 || id > LG_SCOPE_LIMIT) {
        return 0;
    }
    return lg_scope_open_id(atomic_load_explicit(&lg_scope_parents[id], memory_order_acquire));
}

/// The most open scopes the chain test of `lg_scope_sole_locked` looks at.
#define LG_SCOPE_CHAIN_LIMIT 64u

/// The scope an allocation nothing else attributes goes to (mutex held): the only open scope, or
/// the innermost when the open scopes form one chain of nested scopes; else 0.
static uint32_t lg_scope_sole_locked(void) {
    uint32_t open = atomic_load_explicit(&lg_state.scopes_open, memory_order_relaxed);
    if (open == 0 || open > LG_SCOPE_CHAIN_LIMIT) {
        return 0;
    }
    uint32_t ids[LG_SCOPE_CHAIN_LIMIT];
    uint32_t found = 0;
    for (uint32_t word = 0; word < (LG_SCOPE_LIMIT + 1) / 64 && found < open; word++) {
        uint64_t bits = lg_state.scope_ids[word] & (word == 0 ? ~(uint64_t)1 : ~(uint64_t)0);
        while (bits != 0 && found < open) {
            ids[found++] = word * 64 + (uint32_t)__builtin_ctzll(bits);
            bits &= bits - 1;
        }
    }
    if (found != open) {
        return 0;
    }
    if (open == 1) {
        return ids[0];
    }
    // One chain: the innermost is no scope's parent, and its parents lead through all the others.
    for (uint32_t candidate = 0; candidate < open; candidate++) {
        bool is_parent = false;
        for (uint32_t other = 0; other < open && !is_parent; other++) {
            is_parent = lg_scope_parent_id(ids[other]) == ids[candidate];
        }
        if (is_parent) {
            continue;
        }
        uint32_t length = 1;
        for (uint32_t id = lg_scope_parent_id(ids[candidate]); id != 0 && length <= open; id = lg_scope_parent_id(id)) {
            length++;
        }
        return length == open ? ids[candidate] : 0;
    }
    return 0;
}

uint64_t lg_scope_begin(void) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return lg_state.delegate.scope_begin != NULL ? lg_state.delegate.scope_begin() : 0;
    }
    return lg_scope_begin_within(0);
}

uint64_t lg_scope_begin_within(uint64_t parent_token) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        static _Atomic(void *) forward;
        void *function = atomic_load_explicit(&forward, memory_order_acquire);
        if (function == NULL) {
            function = lg_delegate_symbol("lg_scope_begin_within");
            atomic_store_explicit(&forward, function, memory_order_release);
        }
        if (function != NULL) {
            return ((uint64_t(*)(uint64_t))function)(parent_token);
        }
        return lg_state.delegate.scope_begin != NULL ? lg_state.delegate.scope_begin() : 0;
    }
    if (!atomic_load_explicit(&lg_state.installed, memory_order_acquire)) {
        return 0;
    }
    uint64_t token = 0;
    pthread_mutex_lock(&lg_state.scope_mutex);
    for (uint32_t word = 0; word < (LG_SCOPE_LIMIT + 1) / 64 && token == 0; word++) {
        uint64_t free_bits = ~lg_state.scope_ids[word];
        if (free_bits == 0) {
            continue;
        }
        uint32_t bit = (uint32_t)__builtin_ctzll(free_bits);
        uint32_t id = word * 64 + bit;
        lg_state.scope_ids[word] |= (uint64_t)1 << bit;
        atomic_store_explicit(&lg_scope_parents[id], lg_scope_open_id(parent_token) != 0 ? parent_token : 0,
                              memory_order_release);
        uint32_t generation = ++lg_state.next_generation;
        if (generation == 0) {
            generation = ++lg_state.next_generation;
        }
        atomic_store_explicit(&lg_state.scope_generation[id], generation, memory_order_release);
        atomic_fetch_add_explicit(&lg_state.scopes_open, 1, memory_order_relaxed);
        token = (uint64_t)generation << 32 | id;
    }
    atomic_store_explicit(&lg_state.sole_scope, lg_scope_sole_locked(), memory_order_relaxed);
    pthread_mutex_unlock(&lg_state.scope_mutex);
    return token;
}

/// Ends scope `token`; its records get the enclosing scope's id when `into_parent`, else none.
static void lg_scope_end_giving(uint64_t token, bool into_parent) {
    uint32_t id = lg_scope_open_id(token);
    if (id == 0) {
        return;
    }
    // No new record gets this id from here on (the hook checks the generation again under its shard
    // lock, see lg_scope_stamp); only one caller ends a given token.
    uint32_t generation = (uint32_t)(token >> 32);
    if (!atomic_compare_exchange_strong_explicit(&lg_state.scope_generation[id], &generation, 0,
                                                 memory_order_acq_rel, memory_order_relaxed)) {
        return;
    }
    // Then the records that have it lose it, or get the enclosing scope's id. The scope mutex is not
    // held here, so a thread that holds the freeze may end a scope without a lock-order inversion
    // with lg_scope_begin. The enclosing scope is looked at with the shard locks held: if it is
    // ending too, its own pass comes after this one and clears what this one gives it.
    bool frozen = lg_tls_holds_freeze;
    if (!frozen) {
        lg_table_lock_all();
    }
    lg_table_move_scope_locked(id, into_parent ? lg_scope_parent_id(id) : 0);
    if (!frozen) {
        lg_table_unlock_all();
    }
    pthread_mutex_lock(&lg_state.scope_mutex);
    lg_state.scope_ids[id / 64] &= ~((uint64_t)1 << (id % 64));
    atomic_fetch_sub_explicit(&lg_state.scopes_open, 1, memory_order_relaxed);
    atomic_store_explicit(&lg_state.sole_scope, lg_scope_sole_locked(), memory_order_relaxed);
    pthread_mutex_unlock(&lg_state.scope_mutex);
}

void lg_scope_end(uint64_t token) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        if (lg_state.delegate.scope_end != NULL) {
            lg_state.delegate.scope_end(token);
        }
        return;
    }
    lg_scope_end_giving(token, false);
}

void lg_scope_end_into_parent(uint64_t token) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        static _Atomic(void *) forward;
        void *function = atomic_load_explicit(&forward, memory_order_acquire);
        if (function == NULL) {
            function = lg_delegate_symbol("lg_scope_end_into_parent");
            atomic_store_explicit(&forward, function, memory_order_release);
        }
        if (function != NULL) {
            ((void (*)(uint64_t))function)(token);
        } else if (lg_state.delegate.scope_end != NULL) {
            lg_state.delegate.scope_end(token);
        }
        return;
    }
    lg_scope_end_giving(token, true);
}

uint32_t lg_scope_of(uintptr_t object) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return lg_state.delegate.scope_of != NULL ? lg_state.delegate.scope_of(object) : 0;
    }
    return lg_table_scope_of(object);
}

void lg_set_scope_source(lg_scope_source source) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        if (lg_state.delegate.set_scope_source != NULL) {
            lg_state.delegate.set_scope_source(source);
        }
        return;
    }
    atomic_store_explicit(&lg_state.scope_source, source, memory_order_release);
}

#else /* !__linux__ */

uint64_t lg_scope_begin(void) { return 0; }
void lg_scope_end(uint64_t token) { (void)token; }
void lg_scope_end_into_parent(uint64_t token) { (void)token; }
uint32_t lg_scope_of(uintptr_t object) {
    (void)object;
    return 0;
}
void lg_set_scope_source(lg_scope_source source) { (void)source; }

#endif /* __linux__ */
