// Allocation scopes: every object recorded while a scope applies is stamped with the scope's id, so
// that a report can tell which code made a leaked object. Two kinds share one id space:
//
// - Check scopes: a test adapter opens one around the code under test (`assertNoLeaks`); its
//   check then keeps the leaked objects stamped with it. The id comes from the scope source (a
//   task-local value on the Swift side, inherited by child tasks); for allocations the source
//   cannot attribute (no task: a Dispatch worker, a thread), from the one open check scope when
//   exactly one is open (or the innermost, when the open check scopes form one chain of nested
//   scopes). A check scope opened while another is current is nested in it
//   (`lg_scope_begin_within`: a budget inside a leak check). Closing a leak check's scope
//   (`lg_scope_end`) hands its records to the test scope it was opened in, or clears them: the
//   check judged them. Closing an allocation count's scope (`lg_scope_end_into_parent`) hands them
//   to the scope it is nested in (a check scope or the test scope), so an enclosing check still
//   sees what was made inside.
// - Test scopes: the test observer (`leakgraph test`) opens one per test and says, through the test
//   source, which test an allocation belongs to when no check scope claims it. A test scope is never
//   closed: its stamps stay until the report at exit reads them, unless its id is recycled because
//   every id is in use (the oldest test scope goes first).
//
// Ids are 12 bits (the record's scope field); each use of an id has a generation, and a token is
// `generation << 32 | id`, so a task that outlives its scope and still carries the old token
// stamps nothing. An id is reused only after every record stamped with it has lost the stamp.
//
// Lock order: the shard locks come before the scope mutex (a thread holding the freeze may end a
// scope), so every pass over the records runs with the scope mutex released.

#include "alloc_counts.h"

#ifdef __linux__

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

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

/// The scope `token` names when it is in use (open, or a test scope not recycled), or 0 when it
/// names none (0, out of range, ended or recycled).
static uint32_t lg_scope_open_id(uint64_t token) {
    uint32_t id = LG_SCOPE_ID(token);
    if (id == 0 || id > LG_SCOPE_LIMIT) {
        return 0;
    }
    uint32_t generation = (uint32_t)(token >> 32);
    return atomic_load_explicit(&lg_state.scope_generation[id], memory_order_acquire) == generation ? id : 0;
}

/// The token of the test the current allocation belongs to (the test source's), or 0.
static uint64_t lg_current_test_scope(void) {
    lg_scope_source test = atomic_load_explicit(&lg_state.test_scope_source, memory_order_acquire);
    if (test == NULL) {
        return 0;
    }
    uint64_t token = test();
    return token != LG_SCOPE_SOLE && lg_scope_open_id(token) != 0 ? token : 0;
}

uint64_t lg_current_scope(void) {
    lg_scope_source source = atomic_load_explicit(&lg_state.scope_source, memory_order_acquire);
    uint64_t token = source != NULL ? source() : LG_SCOPE_SOLE;
    if (token == LG_SCOPE_SOLE) {
        uint32_t id = atomic_load_explicit(&lg_state.sole_scope, memory_order_relaxed);
        if (id != 0 && id <= LG_SCOPE_LIMIT) {
            uint32_t generation = atomic_load_explicit(&lg_state.scope_generation[id], memory_order_acquire);
            if (generation != 0) {
                return (uint64_t)generation << 32 | id;
            }
        }
    } else if (token != 0 && lg_scope_open_id(token) != 0) {
        return token;
    }
    // No check scope claims the allocation: the test it belongs to, if any.
    return lg_current_test_scope();
}

/// Whether `id` is taken by a check scope or a test scope (mutex held).
static bool lg_scope_id_taken_locked(uint32_t id) {
    uint64_t bit = (uint64_t)1 << (id % 64);
    return (lg_state.scope_ids[id / 64] & bit) != 0 || (lg_state.test_scope_ids[id / 64] & bit) != 0;
}

uint32_t lg_scope_parent_id(uint32_t id) {
    if (id == 0 || id > LG_SCOPE_LIMIT) {
        return 0;
    }
    return lg_scope_open_id(__atomic_load_n(&lg_state.scope_parent[id], __ATOMIC_ACQUIRE));
}

/// Whether `id` is an open check scope's (mutex held).
static bool lg_scope_is_check_locked(uint32_t id) {
    return (lg_state.scope_ids[id / 64] & ((uint64_t)1 << (id % 64))) != 0;
}

/// The most open check scopes the chain test of `lg_scope_sole_locked` looks at.
#define LG_SCOPE_CHAIN_LIMIT 64u

/// The check scope an allocation nothing else attributes goes to (mutex held): the only open check
/// scope, or the innermost when the open check scopes form one chain of nested scopes; else 0.
static uint32_t lg_scope_sole_locked(void) {
    uint32_t open = atomic_load_explicit(&lg_state.check_scopes_open, memory_order_relaxed);
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
    // One chain: the innermost is no check scope's parent, and its parents lead through all the others.
    for (uint32_t candidate = 0; candidate < open; candidate++) {
        bool is_parent = false;
        for (uint32_t other = 0; other < open && !is_parent; other++) {
            is_parent = lg_scope_parent_id(ids[other]) == ids[candidate];
        }
        if (is_parent) {
            continue;
        }
        uint32_t length = 1;
        for (uint32_t id = lg_scope_parent_id(ids[candidate]);
             id != 0 && lg_scope_is_check_locked(id) && length <= open; id = lg_scope_parent_id(id)) {
            length++;
        }
        return length == open ? ids[candidate] : 0;
    }
    return 0;
}

/// A new generation for an id (mutex held); never 0.
static uint32_t lg_scope_next_generation_locked(void) {
    uint32_t generation = ++lg_state.next_generation;
    if (generation == 0) {
        generation = ++lg_state.next_generation;
    }
    return generation;
}

/// Takes an id no scope uses (mutex held) and returns it, still unmarked; when every id is in use,
/// recycles the oldest test scope: it stops stamping, its records lose its stamp (with the mutex
/// released for that pass, see the lock order above) and its id is returned. 0 when neither is
/// possible. Called and returns with the mutex held.
static uint32_t lg_scope_claim_id_locked(void) {
    for (uint32_t id = 1; id <= LG_SCOPE_LIMIT; id++) {
        if (!lg_scope_id_taken_locked(id)) {
            return id;
        }
    }
    if (lg_state.test_scope_order_count == 0) {
        return 0;
    }
    uint32_t victim = lg_state.test_scope_order[lg_state.test_scope_order_head];
    lg_state.test_scope_order_head = (lg_state.test_scope_order_head + 1) % (LG_SCOPE_LIMIT + 1);
    lg_state.test_scope_order_count -= 1;
    // The id stays marked as a test scope's while its stamps are cleared, so nobody else takes it.
    atomic_store_explicit(&lg_state.scope_generation[victim], 0, memory_order_release);
    char *label = lg_state.scope_label[victim];
    lg_state.scope_label[victim] = NULL;
    pthread_mutex_unlock(&lg_state.scope_mutex);
    free(label);
    bool frozen = lg_tls_holds_freeze;
    if (!frozen) {
        lg_table_lock_all();
    }
    lg_table_restamp_scope_locked(victim, 0);
    if (!frozen) {
        lg_table_unlock_all();
    }
    pthread_mutex_lock(&lg_state.scope_mutex);
    lg_state.test_scope_ids[victim / 64] &= ~((uint64_t)1 << (victim % 64));
    atomic_fetch_add_explicit(&lg_state.test_scopes_recycled, 1, memory_order_relaxed);
    return victim;
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
    // The scope this one is nested in: the check scope given, else the test this check runs in, whose
    // scope its records go back to when it ends. Asked outside the mutex, with this thread's
    // allocations unrecorded: the test source may allocate.
    uint64_t parent = lg_scope_open_id(parent_token) != 0 ? parent_token : 0;
    if (parent == 0) {
        lg_tls_ignore += 1;
        parent = lg_current_test_scope();
        lg_tls_ignore -= 1;
    }
    uint64_t token = 0;
    pthread_mutex_lock(&lg_state.scope_mutex);
    uint32_t id = lg_scope_claim_id_locked();
    if (id != 0) {
        lg_state.scope_ids[id / 64] |= (uint64_t)1 << (id % 64);
        __atomic_store_n(&lg_state.scope_parent[id], parent, __ATOMIC_RELEASE);
        uint32_t generation = lg_scope_next_generation_locked();
        atomic_store_explicit(&lg_state.scope_generation[id], generation, memory_order_release);
        atomic_fetch_add_explicit(&lg_state.check_scopes_open, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&lg_state.scopes_open, 1, memory_order_relaxed);
        token = (uint64_t)generation << 32 | id;
    }
    atomic_store_explicit(&lg_state.sole_scope, lg_scope_sole_locked(), memory_order_relaxed);
    pthread_mutex_unlock(&lg_state.scope_mutex);
    return token;
}

/// The scope the records of check scope `id` (ending) go to: with `into_parent`, the scope it is nested
/// in; else the test scope it runs in (past the check scopes it is nested in); 0 when that one is no
/// longer in use. Called with the shard locks held: an ending parent's own pass comes after.
static uint32_t lg_scope_heir(uint32_t id, bool into_parent) {
    uint64_t parent = __atomic_load_n(&lg_state.scope_parent[id], __ATOMIC_ACQUIRE);
    for (unsigned depth = 0; !into_parent && depth < LG_SCOPE_CHAIN_LIMIT; depth++) {
        uint32_t parent_id = lg_scope_open_id(parent);
        if (parent_id == 0 || (__atomic_load_n(&lg_state.scope_ids[parent_id / 64], __ATOMIC_RELAXED) &
                               ((uint64_t)1 << (parent_id % 64))) == 0) {
            break;  // none, or a test scope
        }
        parent = __atomic_load_n(&lg_state.scope_parent[parent_id], __ATOMIC_ACQUIRE);
    }
    return lg_scope_open_id(parent);
}

/// Ends check scope `token`; its records go to ``lg_scope_heir``.
static void lg_scope_end_giving(uint64_t token, bool into_parent) {
    uint32_t id = lg_scope_open_id(token);
    if (id == 0) {
        return;
    }
    pthread_mutex_lock(&lg_state.scope_mutex);
    bool is_check = lg_scope_is_check_locked(id);
    pthread_mutex_unlock(&lg_state.scope_mutex);
    if (!is_check) {
        return;  // a test scope is never ended
    }
    // No new record gets this id from here on (the hook checks the generation again under its shard
    // lock, see lg_scope_stamp); only one caller ends a given token.
    uint32_t generation = (uint32_t)(token >> 32);
    if (!atomic_compare_exchange_strong_explicit(&lg_state.scope_generation[id], &generation, 0, memory_order_acq_rel,
                                                 memory_order_relaxed)) {
        return;
    }
    // Then the records that have it go to its heir, if that one is still in use (checked under the
    // shard locks: an ending or recycled scope's generation is zeroed before its own pass takes
    // them), or lose the stamp.
    bool frozen = lg_tls_holds_freeze;
    if (!frozen) {
        lg_table_lock_all();
    }
    lg_table_restamp_scope_locked(id, lg_scope_heir(id, into_parent));
    if (!frozen) {
        lg_table_unlock_all();
    }
    pthread_mutex_lock(&lg_state.scope_mutex);
    lg_state.scope_ids[id / 64] &= ~((uint64_t)1 << (id % 64));
    __atomic_store_n(&lg_state.scope_parent[id], 0, __ATOMIC_RELEASE);
    atomic_fetch_sub_explicit(&lg_state.check_scopes_open, 1, memory_order_relaxed);
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

uint64_t lg_test_scope_begin(const char *label) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire)) ||
        !atomic_load_explicit(&lg_state.installed, memory_order_acquire)) {
        return 0;
    }
    char *copy = label != NULL ? strdup(label) : NULL;
    pthread_mutex_lock(&lg_state.scope_mutex);
    uint32_t id = lg_scope_claim_id_locked();
    if (id == 0) {
        pthread_mutex_unlock(&lg_state.scope_mutex);
        free(copy);
        return 0;
    }
    lg_state.test_scope_ids[id / 64] |= (uint64_t)1 << (id % 64);
    lg_state.scope_label[id] = copy;
    __atomic_store_n(&lg_state.scope_parent[id], 0, __ATOMIC_RELEASE);
    uint32_t tail = (lg_state.test_scope_order_head + lg_state.test_scope_order_count) % (LG_SCOPE_LIMIT + 1);
    lg_state.test_scope_order[tail] = (uint16_t)id;
    lg_state.test_scope_order_count += 1;
    uint32_t generation = lg_scope_next_generation_locked();
    atomic_store_explicit(&lg_state.scope_generation[id], generation, memory_order_release);
    pthread_mutex_unlock(&lg_state.scope_mutex);
    return (uint64_t)generation << 32 | id;
}

void lg_set_test_scope_source(lg_scope_source source) {
    if (LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return;
    }
    pthread_mutex_lock(&lg_state.scope_mutex);
    lg_scope_source old = atomic_exchange_explicit(&lg_state.test_scope_source, source, memory_order_acq_rel);
    // The hook asks for scopes only while `scopes_open` is not 0: a test source counts as one.
    if (old == NULL && source != NULL) {
        atomic_fetch_add_explicit(&lg_state.scopes_open, 1, memory_order_relaxed);
    } else if (old != NULL && source == NULL) {
        atomic_fetch_sub_explicit(&lg_state.scopes_open, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&lg_state.scope_mutex);
}

const char *lg_scope_label(uint32_t scope) {
    if (scope == 0 || scope > LG_SCOPE_LIMIT ||
        LG_UNLIKELY(atomic_load_explicit(&lg_state.delegated, memory_order_acquire))) {
        return NULL;
    }
    pthread_mutex_lock(&lg_state.scope_mutex);
    bool is_test = (lg_state.test_scope_ids[scope / 64] & ((uint64_t)1 << (scope % 64))) != 0;
    const char *label = is_test ? lg_state.scope_label[scope] : NULL;
    pthread_mutex_unlock(&lg_state.scope_mutex);
    return label;
}

uint32_t lg_test_scopes_recycled(void) {
    return atomic_load_explicit(&lg_state.test_scopes_recycled, memory_order_relaxed);
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
uint64_t lg_test_scope_begin(const char *label) {
    (void)label;
    return 0;
}
void lg_set_test_scope_source(lg_scope_source source) { (void)source; }
const char *lg_scope_label(uint32_t scope) {
    (void)scope;
    return NULL;
}
uint32_t lg_test_scopes_recycled(void) { return 0; }

#endif /* __linux__ */
