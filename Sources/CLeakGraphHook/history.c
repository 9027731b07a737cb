// Retain/release histories of objects of chosen types (CLeakGraphHookHistory.h).
//
// Three pieces, each off until `lg_history_start`:
//
// - Classification, at allocation. History puts itself between the allocation hook and the runtime's
//   allocator (`lg_state.original_alloc`), so it sees every new object's metadata without touching the
//   hook's own path. A metadata seen for the first time is named once (`swift_getTypeName`) and matched
//   against the patterns; a match goes into `lg_history_types`, an open-addressed table of the
//   metadata of history types, and the allocation is logged (its +1).
// - The retain and release entry points. With the allocator hooked, the runtime calls
//   `_swift_retain_adapter` (a private pointer LeakGraph's 6.3 workaround already points at its own
//   adapter), and `_swift_release`, `_swift_retain_n`, `_swift_release_n`, `_swift_tryRetain` (exported
//   pointers), each reached by a tail jump from `swift_retain` & co., so the return address seen here is
//   the call site in the program. Each entry point loads the object's metadata word and compares it
//   with one slot of `lg_history_types`: for objects of other types that is all it adds.
// - The log: fixed-size events in mmapped chunks, one atomic counter for the slot, the kind written last
//   (release) so a reader skips slots still being written. Stacks are interned with the creation stacks
//   (`lg_stack_intern`): a retain repeated in a loop stores one stack.
//
// No Swift, no stdio, no lock on the retain path; the classifier's mutex is held only around its table.

#include "lg_internal.h"

#include "CLeakGraphHookHistory.h"

#ifdef __linux__

#include <dlfcn.h>
#include <string.h>
#include <unwind.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define LG_HISTORY_POINTER_MASK 0x00FFFFFFFFFFFFF8ull
#elif defined(__aarch64__)
#define LG_HISTORY_POINTER_MASK 0x0FFFFFFFFFFFFFF8ull
#else
#define LG_HISTORY_POINTER_MASK (~(uintptr_t)7)
#endif

/// The slot `lg_retain_adapter_apply` pointed at LeakGraph's adapter (retain_adapter.c), and that
/// adapter: history swaps its own adapter in and back.
LG_HIDDEN extern void **lg_retain_adapter_installed_slot;
LG_HIDDEN extern void *lg_retain_adapter_installed_function;

typedef void *(*lg_history_retain_fn)(void *object);
typedef void (*lg_history_release_fn)(void *object);
typedef void *(*lg_history_retain_n_fn)(void *object, uint32_t count);
typedef void (*lg_history_release_n_fn)(void *object, uint32_t count);

/// What `_swift_retain` & co. pointed at before history (the runtime's implementations).
static lg_history_retain_fn *lg_history_runtime_retain_slot;
static lg_history_release_fn lg_history_next_release;
static lg_history_retain_n_fn lg_history_next_retain_n;
static lg_history_release_n_fn lg_history_next_release_n;
static lg_history_retain_fn lg_history_next_try_retain;
/// The allocator history calls (what the allocation hook called before history).
static lg_alloc_fn lg_history_next_alloc;

static atomic_int lg_history_active;
static pthread_mutex_t lg_history_mutex = PTHREAD_MUTEX_INITIALIZER;

// MARK: Patterns

static char lg_history_pattern_text[4096];
/// Every metadata classified so far (`metadata | 1` for a history type); see the classification below.
#define LG_HISTORY_SEEN_SLOTS (1u << 16)
static char lg_history_pattern_storage[4096];
static const char *lg_history_pattern_list[LG_HISTORY_PATTERN_LIMIT];
static uint32_t lg_history_pattern_count;

/// Shell-style wildcard match of all of `text` against `pattern` (`*` any run, `?` one byte), one step
/// back to the last `*` (no recursion): the same algorithm as `GlobPattern.matches`.
static bool lg_history_glob(const char *pattern, const char *text) {
    const char *p = pattern;
    const char *t = text;
    const char *star = NULL;
    const char *resume = NULL;
    while (*t) {
        if (*p == '*') {
            star = p++;
            resume = t;
        } else if (*p && (*p == '?' || *p == *t)) {
            p++;
            t++;
        } else if (star) {
            p = star + 1;
            t = ++resume;
        } else {
            return false;
        }
    }
    while (*p == '*') {
        p++;
    }
    return *p == 0;
}

int lg_history_type_matches(const char *name, const char *pattern) {
    if (lg_history_glob(pattern, name)) {
        return 1;
    }
    const char *dot = strchr(name, '.');
    if (dot == NULL) {
        return 0;
    }
    for (const char *c = name; c < dot; c++) {
        if (*c == '<' || *c == '(' || *c == '[' || *c == ' ') {
            return 0;
        }
    }
    return lg_history_glob(pattern, dot + 1);
}

/// Splits `text` at commas and newlines into the pattern list (surrounding spaces dropped).
static bool lg_history_parse_patterns(const char *text, char *error, size_t error_len) {
    size_t length = strlen(text);
    if (length >= sizeof(lg_history_pattern_storage)) {
        lg_set_error(error, error_len, "The history type patterns are longer than %zu bytes.",
                     sizeof(lg_history_pattern_storage) - 1);
        return false;
    }
    memcpy(lg_history_pattern_text, text, length + 1);
    memcpy(lg_history_pattern_storage, text, length + 1);
    uint32_t count = 0;
    char *cursor = lg_history_pattern_storage;
    while (*cursor) {
        char *end = cursor;
        while (*end && *end != ',' && *end != '\n') {
            end++;
        }
        char next = *end;
        *end = 0;
        char *start = cursor;
        while (*start == ' ' || *start == '\t') {
            start++;
        }
        char *last = start + strlen(start);
        while (last > start && (last[-1] == ' ' || last[-1] == '\t' || last[-1] == '\r')) {
            *--last = 0;
        }
        if (*start) {
            if (count == LG_HISTORY_PATTERN_LIMIT) {
                lg_set_error(error, error_len, "At most %u history type patterns can be given.",
                             LG_HISTORY_PATTERN_LIMIT);
                return false;
            }
            lg_history_pattern_list[count++] = start;
        }
        if (!next) {
            break;
        }
        cursor = end + 1;
    }
    if (count == 0) {
        lg_set_error(error, error_len, "No history type pattern was given.");
        return false;
    }
    lg_history_pattern_count = count;
    return true;
}

static _Atomic uintptr_t *lg_history_seen;
static _Atomic uint32_t lg_history_seen_count;

/// While recording: adds `text`'s patterns to those in force and forgets every classification, so that
/// types seen before are matched again (install mutex held).
static bool lg_history_add_patterns(const char *text, char *error, size_t error_len) {
    size_t used = strlen(lg_history_pattern_text);
    size_t length = strlen(text);
    if (used + 1 + length >= sizeof(lg_history_pattern_text)) {
        lg_set_error(error, error_len, "The history type patterns are longer than %zu bytes.",
                     sizeof(lg_history_pattern_text) - 1);
        return false;
    }
    char combined[sizeof(lg_history_pattern_text)];
    memcpy(combined, lg_history_pattern_text, used);
    combined[used] = ',';
    memcpy(combined + used + 1, text, length + 1);
    pthread_mutex_lock(&lg_history_mutex);
    bool parsed = lg_history_parse_patterns(combined, error, error_len);
    if (parsed) {
        for (uint32_t slot = 0; slot < LG_HISTORY_SEEN_SLOTS; slot++) {
            atomic_store_explicit(&lg_history_seen[slot], 0, memory_order_relaxed);
        }
        atomic_store_explicit(&lg_history_seen_count, 0, memory_order_release);
    }
    pthread_mutex_unlock(&lg_history_mutex);
    return parsed;
}

// MARK: Classification

/// Open-addressed set of the metadata of history types: what every retain and release compares with.
#define LG_HISTORY_TYPE_SLOTS 512u
static _Atomic uintptr_t lg_history_types[LG_HISTORY_TYPE_SLOTS];
static _Atomic uint32_t lg_history_types_matched;

/// Every metadata classified so far: `metadata | 1` for a history type, `metadata` otherwise.

static inline uint32_t lg_history_hash(uintptr_t metadata) {
    uint64_t hash = (uint64_t)metadata * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(hash >> 40);
}

/// Whether `metadata` is a history type's. The retain path's only cost for other types: one load and
/// a compare (the first slot is empty or holds another history type, almost always).
static inline bool lg_history_is_history_type(uintptr_t metadata) {
    uint32_t slot = lg_history_hash(metadata) & (LG_HISTORY_TYPE_SLOTS - 1);
    uintptr_t entry = atomic_load_explicit(&lg_history_types[slot], memory_order_relaxed);
    if (LG_LIKELY(entry != metadata)) {
        if (LG_LIKELY(entry == 0)) {
            return false;
        }
        for (uint32_t probe = 1; probe < LG_HISTORY_TYPE_SLOTS; probe++) {
            entry = atomic_load_explicit(&lg_history_types[(slot + probe) & (LG_HISTORY_TYPE_SLOTS - 1)],
                                         memory_order_relaxed);
            if (entry == metadata) {
                return true;
            }
            if (entry == 0) {
                return false;
            }
        }
        return false;
    }
    return true;
}

/// What `swift_getTypeName` returns: the name's bytes (not NUL-terminated) and their count.
typedef struct lg_type_name {
    const char *data;
    uintptr_t length;
} lg_type_name;
typedef __attribute__((swiftcall)) lg_type_name (*lg_get_type_name_fn)(const void *metadata, bool qualified);
static lg_get_type_name_fn lg_history_get_type_name;

/// Writes the runtime's name of `metadata` into `out` with each `(unknown context at $…)` written
/// `(private)`, as the heap walk names types (`ValueLayouts.stableTypeName`). False when too long.
static bool lg_history_type_name(const void *metadata, char *out, size_t capacity) {
    lg_type_name name = lg_history_get_type_name(metadata, true);
    static const char unknown[] = "(unknown context at $";
    size_t used = 0;
    for (uintptr_t index = 0; index < name.length;) {
        if (name.length - index >= sizeof(unknown) - 1 &&
            memcmp(name.data + index, unknown, sizeof(unknown) - 1) == 0) {
            uintptr_t close = index + sizeof(unknown) - 1;
            while (close < name.length && name.data[close] != ')') {
                close++;
            }
            static const char replacement[] = "(private)";
            if (used + sizeof(replacement) > capacity) {
                return false;
            }
            memcpy(out + used, replacement, sizeof(replacement) - 1);
            used += sizeof(replacement) - 1;
            index = close + 1;
            continue;
        }
        if (used + 1 >= capacity) {
            return false;
        }
        out[used++] = name.data[index++];
    }
    out[used] = 0;
    return true;
}

/// Whether objects of `metadata` have a history: a class (kind 0 or an isa pointer) whose name matches.
static bool lg_history_classify(const void *metadata) {
    uintptr_t kind = *(const uintptr_t *)metadata;
    if (kind != 0 && kind <= 0x7FF) {
        return false;  // structs' boxes, closure contexts, error boxes, tasks: not named by patterns
    }
    char name[1024];
    if (!lg_history_type_name(metadata, name, sizeof(name))) {
        return false;
    }
    for (uint32_t index = 0; index < lg_history_pattern_count; index++) {
        if (lg_history_type_matches(name, lg_history_pattern_list[index])) {
            return true;
        }
    }
    return false;
}

/// Adds `metadata` to the history types (classifier mutex held).
static void lg_history_add_type(uintptr_t metadata) {
    uint32_t slot = lg_history_hash(metadata) & (LG_HISTORY_TYPE_SLOTS - 1);
    for (uint32_t probe = 0; probe < LG_HISTORY_TYPE_SLOTS; probe++) {
        _Atomic uintptr_t *entry = &lg_history_types[(slot + probe) & (LG_HISTORY_TYPE_SLOTS - 1)];
        uintptr_t value = atomic_load_explicit(entry, memory_order_relaxed);
        if (value == metadata) {
            return;
        }
        if (value == 0) {
            atomic_store_explicit(entry, metadata, memory_order_release);
            atomic_fetch_add_explicit(&lg_history_types_matched, 1, memory_order_relaxed);
            return;
        }
    }
}

/// Whether objects of `metadata` have a history, classifying it the first time it is seen.
static bool lg_history_wanted(uintptr_t metadata) {
    uint32_t slot = lg_history_hash(metadata) & (LG_HISTORY_SEEN_SLOTS - 1);
    for (uint32_t probe = 0; probe < 64; probe++) {
        uintptr_t entry =
            atomic_load_explicit(&lg_history_seen[(slot + probe) & (LG_HISTORY_SEEN_SLOTS - 1)], memory_order_acquire);
        if ((entry & ~(uintptr_t)1) == metadata) {
            return entry & 1;
        }
        if (entry == 0) {
            break;
        }
    }
    pthread_mutex_lock(&lg_history_mutex);  // the patterns may be added to meanwhile
    bool wanted = lg_history_classify((const void *)metadata);
    if (wanted) {
        lg_history_add_type(metadata);
    }
    if (atomic_load_explicit(&lg_history_seen_count, memory_order_relaxed) < LG_HISTORY_SEEN_SLOTS / 2) {
        for (uint32_t probe = 0; probe < LG_HISTORY_SEEN_SLOTS; probe++) {
            _Atomic uintptr_t *entry = &lg_history_seen[(slot + probe) & (LG_HISTORY_SEEN_SLOTS - 1)];
            uintptr_t value = atomic_load_explicit(entry, memory_order_relaxed);
            if ((value & ~(uintptr_t)1) == metadata) {
                break;
            }
            if (value == 0) {
                atomic_store_explicit(entry, metadata | (wanted ? 1 : 0), memory_order_release);
                atomic_fetch_add_explicit(&lg_history_seen_count, 1, memory_order_relaxed);
                break;
            }
        }
    }
    pthread_mutex_unlock(&lg_history_mutex);
    return wanted;
}

// MARK: The log

#define LG_HISTORY_CHUNK_BITS 16u
#define LG_HISTORY_CHUNK_EVENTS (1u << LG_HISTORY_CHUNK_BITS)
/// At most 2^24 events (384 MiB); later ones are counted as dropped.
#define LG_HISTORY_CHUNKS 256u
#define LG_HISTORY_EVENT_LIMIT ((uint64_t)LG_HISTORY_CHUNKS << LG_HISTORY_CHUNK_BITS)

_Static_assert(sizeof(lg_history_event) == 24, "lg_history_event is shared with Swift: 3 words");

static _Atomic(lg_history_event *) lg_history_chunks[LG_HISTORY_CHUNKS];
static _Atomic uint64_t lg_history_next_event;
static _Atomic uint64_t lg_history_dropped;
static _Atomic uint64_t lg_history_skipped;
static _Atomic uint32_t lg_history_next_thread;

/// Per-thread: its number, stack bounds, and whether it is inside the history code.
typedef struct lg_history_thread {
    uintptr_t stack_low;
    uintptr_t stack_high;
    uint16_t number;
    bool busy;
    bool ready;
} lg_history_thread;

static __thread lg_history_thread lg_tls_history __attribute__((tls_model("initial-exec")));

/// Set by ld.so to the stack pointer at process entry: the top of the main thread's frames.
extern void *__libc_stack_end __attribute__((weak));

/// Fills the calling thread's stack bounds and number (as `lg_thread_stack_bounds` in hook.c does).
static void lg_history_thread_prepare(lg_history_thread *thread) {
    thread->ready = true;
    thread->number = (uint16_t)(atomic_fetch_add_explicit(&lg_history_next_thread, 1, memory_order_relaxed) + 1);
    if (&__libc_stack_end != NULL && __libc_stack_end != NULL && syscall(SYS_gettid) == getpid()) {
        uintptr_t top = (uintptr_t)__libc_stack_end;
        struct rlimit limit;
        uintptr_t size = (uintptr_t)1 << 30;
        if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < size) {
            size = limit.rlim_cur;
        }
        thread->stack_high = top;
        thread->stack_low = top > size ? top - size : 0;
        return;
    }
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
        void *address = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(&attributes, &address, &size) == 0) {
            thread->stack_low = (uintptr_t)address;
            thread->stack_high = (uintptr_t)address + size;
        }
        pthread_attr_destroy(&attributes);
    }
}

/// The slot of event `index`, mapping its chunk on first use; NULL when out of memory or past the limit.
static lg_history_event *lg_history_slot(uint64_t index) {
    if (index >= LG_HISTORY_EVENT_LIMIT) {
        return NULL;
    }
    uint64_t chunk_index = index >> LG_HISTORY_CHUNK_BITS;
    lg_history_event *chunk = atomic_load_explicit(&lg_history_chunks[chunk_index], memory_order_acquire);
    if (LG_UNLIKELY(chunk == NULL)) {
        void *mapped = mmap(NULL, LG_HISTORY_CHUNK_EVENTS * sizeof(lg_history_event), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapped == MAP_FAILED) {
            return NULL;
        }
        lg_history_event *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(&lg_history_chunks[chunk_index], &expected, mapped,
                                                    memory_order_acq_rel, memory_order_acquire)) {
            chunk = mapped;
        } else {
            munmap(mapped, LG_HISTORY_CHUNK_EVENTS * sizeof(lg_history_event));
            chunk = expected;
        }
    }
    return &chunk[index & (LG_HISTORY_CHUNK_EVENTS - 1)];
}

/// What the CFI unwinder fills: frames from the one whose return address is `start` on.
typedef struct lg_history_unwind {
    uintptr_t start;
    uintptr_t *frames;
    uint32_t count;
    uint32_t max;
    bool started;
    uint64_t hash;
} lg_history_unwind;

static _Unwind_Reason_Code lg_history_unwind_frame(struct _Unwind_Context *context, void *argument) {
    lg_history_unwind *state = argument;
    uintptr_t address = (uintptr_t)_Unwind_GetIP(context);
    if (!state->started) {
        if (address != state->start) {
            return state->count++ > 16 ? _URC_END_OF_STACK : _URC_NO_REASON;  // LeakGraph's own frames
        }
        state->started = true;
        state->count = 0;
    }
    if (address < 4096 || state->count >= state->max) {
        return _URC_END_OF_STACK;
    }
    state->frames[state->count++] = address;
    state->hash = lg_stack_hash_add(state->hash, address);
    return _URC_NO_REASON;
}

/// Optimized Swift code keeps no frame pointers: when the frame-pointer walk stops this early, the
/// stack is unwound again with the modules' call-frame information (`.eh_frame`, libgcc's unwinder,
/// which finds each module without a lock on glibc 2.35 and later), from the frame whose return address
/// is `start`, at most 12 frames. About 100 ns a frame, paid only for history types' events.
#define LG_HISTORY_SHORT_STACK 4u
#define LG_HISTORY_UNWIND_FRAMES 12u

static uint32_t lg_history_unwind_from(uintptr_t start, uintptr_t *frames, uint32_t max, uint64_t *hash) {
    lg_history_unwind state = {.start = start,
                               .frames = frames,
                               .max = max < LG_HISTORY_UNWIND_FRAMES ? max : LG_HISTORY_UNWIND_FRAMES,
                               .hash = LG_STACK_HASH_SEED};
    _Unwind_Backtrace(lg_history_unwind_frame, &state);
    if (!state.started) {
        return 0;
    }
    *hash = state.hash;
    return state.count;
}

/// Appends one event. `frame` is the frame pointer at the runtime's entry (the caller's frame base),
/// `return_address` the call site (for an allocation, the return address into the allocating code).
static void lg_history_append_full(uintptr_t object, uint8_t kind, uint32_t count, uintptr_t return_address,
                                   uintptr_t frame, uintptr_t recorded_frame) {
    lg_history_thread *thread = &lg_tls_history;
    // A check's own retains (the checking thread ignores itself) are not the program's; allocations are
    // always logged, because they tell one object at an address from the next.
    if (thread->busy || (lg_tls_ignore != 0 && kind != LG_HISTORY_ALLOC)) {
        atomic_fetch_add_explicit(&lg_history_skipped, 1, memory_order_relaxed);
        return;
    }
    thread->busy = true;
    if (LG_UNLIKELY(!thread->ready)) {
        lg_history_thread_prepare(thread);
    }
    uint32_t stack_id = LG_NO_STACK;
    uint32_t max_frames = atomic_load_explicit(&lg_state.max_frames, memory_order_relaxed);
    if (return_address != 0 && max_frames != 0) {
        uintptr_t frames[LG_MAX_FRAMES_LIMIT];
        uint64_t hash = lg_stack_hash_add(LG_STACK_HASH_SEED, return_address);
        uint32_t depth = 0;
        frames[depth++] = return_address;
        uintptr_t low = thread->stack_low;
        uintptr_t high = thread->stack_high;
        uintptr_t cursor = frame;
        while (depth < max_frames && cursor >= low && cursor < high - 2 * sizeof(uintptr_t) && (cursor & 7u) == 0) {
            const uintptr_t *words = (const uintptr_t *)cursor;
            uintptr_t address = words[1];
            if (address < 4096) {
                break;
            }
            frames[depth++] = address;
            hash = lg_stack_hash_add(hash, address);
            uintptr_t next = words[0];
            if (next <= cursor) {
                break;
            }
            cursor = next;
        }
        if (depth < LG_HISTORY_SHORT_STACK && depth < max_frames) {
            uintptr_t unwound[LG_HISTORY_UNWIND_FRAMES];
            uint64_t unwound_hash = 0;
            uint32_t unwound_depth = lg_history_unwind_from(return_address, unwound, max_frames, &unwound_hash);
            if (unwound_depth > depth) {
                memcpy(frames, unwound, unwound_depth * sizeof(uintptr_t));
                depth = unwound_depth;
                hash = unwound_hash;
            }
        }
        stack_id = lg_stack_intern(frames, depth, hash);
    }
    do {
        uint32_t part = count > 255 ? 255 : count;
        uint64_t index = atomic_fetch_add_explicit(&lg_history_next_event, 1, memory_order_relaxed);
        lg_history_event *slot = lg_history_slot(index);
        if (slot == NULL) {
            atomic_fetch_add_explicit(&lg_history_dropped, 1, memory_order_relaxed);
        } else {
            slot->object = object;
            slot->frame = recorded_frame;
            slot->stack_id = stack_id;
            slot->thread = thread->number;
            slot->count = (uint8_t)part;
            __atomic_store_n(&slot->kind, kind, __ATOMIC_RELEASE);
        }
        count -= part;
    } while (count > 0);
    thread->busy = false;
}

static inline void lg_history_append(uintptr_t object, uint8_t kind, uint32_t count, uintptr_t return_address,
                                     uintptr_t frame) {
    lg_history_append_full(object, kind, count, return_address, frame, frame);
}

/// Appends a write into `holder` at `address`; the stack starts at `return_address`, walked from `frame`.
static void lg_history_append_write(uintptr_t holder, uintptr_t address, uintptr_t return_address, uintptr_t frame) {
    lg_history_append_full(holder, LG_HISTORY_WRITE, 1, return_address, frame, address);
}

// MARK: The entry points

/// Where the runtime's `_swift_retain_adapter` points while history records: LeakGraph's adapter (sign
/// first, then the spare bits cleared) plus the history check.
__attribute__((noinline)) static void *lg_history_retain_adapter(void *object) {
    if ((intptr_t)object > 0) {
        uintptr_t address = (uintptr_t)object & LG_HISTORY_POINTER_MASK;
        if (LG_UNLIKELY(lg_history_is_history_type(*(const uintptr_t *)address))) {
            lg_history_append(address, LG_HISTORY_RETAIN, 1, (uintptr_t)__builtin_return_address(0),
                              *(const uintptr_t *)__builtin_frame_address(0));
        }
        __atomic_load_n(lg_history_runtime_retain_slot, __ATOMIC_RELAXED)((void *)address);
    }
    return object;
}

__attribute__((noinline)) static void lg_history_release(void *object) {
    if ((intptr_t)object > 0 && LG_UNLIKELY(lg_history_is_history_type(*(const uintptr_t *)object))) {
        lg_history_append((uintptr_t)object, LG_HISTORY_RELEASE, 1, (uintptr_t)__builtin_return_address(0),
                          *(const uintptr_t *)__builtin_frame_address(0));
    }
    lg_history_next_release(object);
}

__attribute__((noinline)) static void *lg_history_retain_n(void *object, uint32_t count) {
    if ((intptr_t)object > 0 && count > 0 && LG_UNLIKELY(lg_history_is_history_type(*(const uintptr_t *)object))) {
        lg_history_append((uintptr_t)object, LG_HISTORY_RETAIN, count, (uintptr_t)__builtin_return_address(0),
                          *(const uintptr_t *)__builtin_frame_address(0));
    }
    return lg_history_next_retain_n(object, count);
}

__attribute__((noinline)) static void lg_history_release_n(void *object, uint32_t count) {
    if ((intptr_t)object > 0 && count > 0 && LG_UNLIKELY(lg_history_is_history_type(*(const uintptr_t *)object))) {
        lg_history_append((uintptr_t)object, LG_HISTORY_RELEASE, count, (uintptr_t)__builtin_return_address(0),
                          *(const uintptr_t *)__builtin_frame_address(0));
    }
    lg_history_next_release_n(object, count);
}

__attribute__((noinline)) static void *lg_history_try_retain(void *object) {
    void *result = lg_history_next_try_retain(object);
    if (result != NULL && (intptr_t)object > 0 && LG_UNLIKELY(lg_history_is_history_type(*(const uintptr_t *)object))) {
        lg_history_append((uintptr_t)object, LG_HISTORY_RETAIN, 1, (uintptr_t)__builtin_return_address(0),
                          *(const uintptr_t *)__builtin_frame_address(0));
    }
    return result;
}

/// Between the allocation hook and the runtime's allocator: logs the +1 of each new object of a history
/// type (classifying metadata seen for the first time).
__attribute__((noinline)) static void *lg_history_alloc(const void *metadata, size_t size, size_t align_mask) {
    void *object = lg_history_next_alloc(metadata, size, align_mask);
    if (object != NULL && lg_history_wanted((uintptr_t)metadata)) {
        // Called by the allocation hook, which `swift_allocObject` reached by a tail jump: the hook's frame
        // holds the return address into the allocating code.
        const uintptr_t *hook_frame = *(const uintptr_t *const *)__builtin_frame_address(0);
        lg_history_thread *thread = &lg_tls_history;
        if (!thread->ready) {
            lg_history_thread_prepare(thread);
        }
        uintptr_t frame_address = (uintptr_t)hook_frame;
        bool on_stack =
            frame_address >= thread->stack_low && frame_address + 16 <= thread->stack_high && (frame_address & 7u) == 0;
        lg_history_append((uintptr_t)object, LG_HISTORY_ALLOC, 1, on_stack ? hook_frame[1] : 0,
                          on_stack ? hook_frame[0] : 0);
    }
    return object;
}

// MARK: Writes

typedef void (*lg_begin_access_fn)(void *pointer, void *buffer, uintptr_t flags, void *pc);
static lg_begin_access_fn lg_history_next_begin_access;
static uint32_t lg_history_patched_access_imports;

/// The tracked object holding `address`: the nearest object start at or below it (within 512 bytes)
/// that the record table knows. Every probe is one lock-free map lookup.
static uintptr_t lg_history_holder(uintptr_t address) {
    uintptr_t start = address & ~(uintptr_t)15;
    for (uint32_t step = 0; step < 32 && start >= 16; step++, start -= 16) {
        if (lg_table_entry(start) != 0) {
            return start;
        }
    }
    return 0;
}

/// What the `swift_beginAccess` imports point at while histories are recorded: a modify access (bit 0
/// of the flags) to an address inside an object of a history type is logged as a write into it, with
/// the stack of the code that asked (the store that follows is what it writes). Then the runtime's.
__attribute__((noinline)) static void lg_history_begin_access(void *pointer, void *buffer, uintptr_t flags, void *pc) {
    if ((flags & 1) != 0 && lg_tls_ignore == 0) {
        uintptr_t holder = lg_history_holder((uintptr_t)pointer);
        if (holder != 0 && (uintptr_t)pointer >= holder + 16 &&
            LG_UNLIKELY(lg_history_is_history_type(*(const uintptr_t *)holder))) {
            lg_history_append_write(holder, (uintptr_t)pointer, (uintptr_t)__builtin_return_address(0),
                                    *(const uintptr_t *)__builtin_frame_address(0));
        }
    }
    lg_history_next_begin_access(pointer, buffer, flags, pc);
}

// MARK: Strong loads of weak and unowned references

// `swift_weakLoadStrong`, `swift_weakTakeStrong`, `swift_unownedRetainStrong` and
// `swift_unownedRetainStrongAndRelease` add a strong retain without going through `swift_retain`; the
// release that balances it does. Their imports point here while histories are recorded, so that a
// history adds up.
typedef void *(*lg_weak_load_fn)(void *reference);
typedef void (*lg_unowned_strong_fn)(void *object);
static lg_weak_load_fn lg_history_next_weak_load_strong;
static lg_weak_load_fn lg_history_next_weak_take_strong;
static lg_unowned_strong_fn lg_history_next_unowned_retain_strong;
static lg_unowned_strong_fn lg_history_next_unowned_retain_strong_and_release;

#define LG_HISTORY_NOTE_STRONG(object)                                                                                 \
    do {                                                                                                               \
        if ((intptr_t)(object) > 0 && LG_UNLIKELY(lg_history_is_history_type(*(const uintptr_t *)(object)))) {         \
            lg_history_append((uintptr_t)(object), LG_HISTORY_RETAIN, 1, (uintptr_t)__builtin_return_address(0),       \
                              *(const uintptr_t *)__builtin_frame_address(0));                                         \
        }                                                                                                              \
    } while (0)

__attribute__((noinline)) static void *lg_history_weak_load_strong(void *reference) {
    void *object = lg_history_next_weak_load_strong(reference);
    LG_HISTORY_NOTE_STRONG(object);
    return object;
}

__attribute__((noinline)) static void *lg_history_weak_take_strong(void *reference) {
    void *object = lg_history_next_weak_take_strong(reference);
    LG_HISTORY_NOTE_STRONG(object);
    return object;
}

__attribute__((noinline)) static void lg_history_unowned_retain_strong(void *object) {
    lg_history_next_unowned_retain_strong(object);
    LG_HISTORY_NOTE_STRONG(object);
}

__attribute__((noinline)) static void lg_history_unowned_retain_strong_and_release(void *object) {
    lg_history_next_unowned_retain_strong_and_release(object);
    LG_HISTORY_NOTE_STRONG(object);
}

/// Points the imports of `symbol` at `replacement` after keeping the runtime's in `*next`.
static uint32_t lg_history_patch(const char *symbol, void *replacement, void **next) {
    *next = dlsym(RTLD_DEFAULT, symbol);
    if (*next == NULL) {
        return 0;
    }
    int failed = 0;
    int patched = lg_imports_patch(symbol, replacement, &failed);
    return patched > 0 ? (uint32_t)patched : 0;
}

// MARK: Another copy of LeakGraph

/// The history functions of the copy of LeakGraph this one forwards to (`lg_state.delegated`: the
/// preloaded library under `leakgraph run` or `leakgraph test`, while the program links LeakGraph too).
typedef struct lg_history_forward {
    int (*start)(const char *patterns, char *error, size_t error_len);
    int (*is_active)(void);
    const char *(*patterns)(void);
    size_t (*count)(void);
    size_t (*copy)(size_t start, lg_history_event *buffer, size_t count);
    void (*stats)(lg_history_stats_t *stats);
} lg_history_forward;

/// The delegate's history functions, found once (NULL when not delegated or when that copy has none).
static const lg_history_forward *lg_history_delegate(void) {
    static lg_history_forward forward;
    static atomic_int state;  // 0 unknown, 1 found, 2 none
    if (!atomic_load_explicit(&lg_state.delegated, memory_order_acquire)) {
        return NULL;
    }
    int known = atomic_load_explicit(&state, memory_order_acquire);
    if (known == 0) {
        Dl_info info;
        void *module = NULL;
        if (dladdr((void *)lg_state.delegate.freeze, &info) != 0 && info.dli_fname != NULL) {
            module = dlopen(info.dli_fname[0] ? info.dli_fname : NULL, RTLD_NOW | RTLD_NOLOAD);
        }
        if (module != NULL) {
            forward.start = (int (*)(const char *, char *, size_t))dlsym(module, "lg_history_start");
            forward.is_active = (int (*)(void))dlsym(module, "lg_history_is_active");
            forward.patterns = (const char *(*)(void))dlsym(module, "lg_history_patterns");
            forward.count = (size_t(*)(void))dlsym(module, "lg_history_event_count");
            forward.copy = (size_t(*)(size_t, lg_history_event *, size_t))dlsym(module, "lg_history_copy_events");
            forward.stats = (void (*)(lg_history_stats_t *))dlsym(module, "lg_history_stats");
            dlclose(module);
        }
        bool complete = forward.start != NULL && forward.start != lg_history_start && forward.is_active != NULL &&
                        forward.patterns != NULL && forward.count != NULL && forward.copy != NULL &&
                        forward.stats != NULL;
        known = complete ? 1 : 2;
        atomic_store_explicit(&state, known, memory_order_release);
    }
    return known == 1 ? &forward : NULL;
}

// MARK: Starting

static void lg_history_fork_prepare(void) { pthread_mutex_lock(&lg_history_mutex); }
static void lg_history_fork_release(void) { pthread_mutex_unlock(&lg_history_mutex); }

int lg_history_start(const char *patterns, char *error, size_t error_len) {
    if (error != NULL && error_len > 0) {
        error[0] = 0;
    }
    if (patterns == NULL) {
        lg_set_error(error, error_len, "No history type pattern was given.");
        return LG_ERR_INVALID_ARGUMENT;
    }
    const lg_history_forward *forward = lg_history_delegate();
    if (forward != NULL) {
        return forward->start(patterns, error, error_len);
    }
    if (!atomic_load_explicit(&lg_state.installed, memory_order_acquire) ||
        atomic_load_explicit(&lg_state.delegated, memory_order_acquire) ||
        atomic_load_explicit(&lg_state.mode, memory_order_relaxed) != LG_MODE_TRACK) {
        lg_set_error(error, error_len,
                     "Retain histories need LeakGraph's allocation hook installed by this copy of LeakGraph.");
        return LG_ERR_CONFLICT;
    }
    lg_thread_ignore_begin();
    pthread_mutex_lock(&lg_state.install_mutex);
    int result = LG_OK;
    void **adapter_slot = lg_retain_adapter_installed_slot;
    bool *swizzling =
        dlsym(RTLD_DEFAULT, "_swift_enableSwizzlingOfAllocationAndRefCountingFunctions_forInstrumentsOnly");
    lg_history_retain_fn *retain_slot = dlsym(RTLD_DEFAULT, "_swift_retain");
    lg_history_release_fn *release_slot = dlsym(RTLD_DEFAULT, "_swift_release");
    lg_history_retain_n_fn *retain_n_slot = dlsym(RTLD_DEFAULT, "_swift_retain_n");
    lg_history_release_n_fn *release_n_slot = dlsym(RTLD_DEFAULT, "_swift_release_n");
    lg_history_retain_fn *try_retain_slot = dlsym(RTLD_DEFAULT, "_swift_tryRetain");
    lg_history_get_type_name = (lg_get_type_name_fn)dlsym(RTLD_DEFAULT, "swift_getTypeName");
    if (atomic_load_explicit(&lg_history_active, memory_order_acquire)) {
        // Already recording: the new patterns are added, and every metadata is classified again.
        result = lg_history_add_patterns(patterns, error, error_len) ? LG_OK : LG_ERR_INVALID_ARGUMENT;
    } else if (adapter_slot == NULL || lg_retain_adapter_installed_function == NULL ||
               __atomic_load_n(adapter_slot, __ATOMIC_ACQUIRE) != lg_retain_adapter_installed_function) {
        lg_set_error(error, error_len,
                     "Retain histories need the Swift 6.3 runtime, whose retain adapter LeakGraph replaces; "
                     "this runtime's retains cannot be followed.");
        result = LG_ERR_UNSUPPORTED_RUNTIME;
    } else if (swizzling == NULL || retain_slot == NULL || release_slot == NULL || retain_n_slot == NULL ||
               release_n_slot == NULL || try_retain_slot == NULL || lg_history_get_type_name == NULL) {
        lg_set_error(error, error_len,
                     "The Swift runtime's retain and release entry points (_swift_retain, _swift_release, "
                     "_swift_retain_n, _swift_release_n, _swift_tryRetain) or swift_getTypeName were not found.");
        result = LG_ERR_RUNTIME_NOT_FOUND;
    } else if (!lg_history_parse_patterns(patterns, error, error_len)) {
        result = LG_ERR_INVALID_ARGUMENT;
    } else {
        void *seen = mmap(NULL, LG_HISTORY_SEEN_SLOTS * sizeof(uintptr_t), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (seen == MAP_FAILED) {
            lg_set_error(error, error_len, "Memory for the history's type table ran out.");
            result = LG_ERR_OUT_OF_MEMORY;
        } else {
            lg_history_seen = seen;
            pthread_atfork(lg_history_fork_prepare, lg_history_fork_release, lg_history_fork_release);
            lg_history_runtime_retain_slot = retain_slot;
            lg_history_next_release = __atomic_load_n(release_slot, __ATOMIC_ACQUIRE);
            lg_history_next_retain_n = __atomic_load_n(retain_n_slot, __ATOMIC_ACQUIRE);
            lg_history_next_release_n = __atomic_load_n(release_n_slot, __ATOMIC_ACQUIRE);
            lg_history_next_try_retain = __atomic_load_n(try_retain_slot, __ATOMIC_ACQUIRE);
            lg_history_next_alloc = atomic_load_explicit(&lg_state.original_alloc, memory_order_acquire);
            atomic_store_explicit(&lg_history_active, 1, memory_order_release);
            // Allocation first (so every history object is classified before its first retain), then the
            // entry points; the swizzling flag is already on (the allocator is hooked), set it anyway.
            atomic_store_explicit(&lg_state.original_alloc, lg_history_alloc, memory_order_release);
            __atomic_store_n(release_slot, lg_history_release, __ATOMIC_RELEASE);
            __atomic_store_n(retain_n_slot, lg_history_retain_n, __ATOMIC_RELEASE);
            __atomic_store_n(release_n_slot, lg_history_release_n, __ATOMIC_RELEASE);
            __atomic_store_n(try_retain_slot, lg_history_try_retain, __ATOMIC_RELEASE);
            __atomic_store_n(adapter_slot, (void *)lg_history_retain_adapter, __ATOMIC_RELEASE);
            __atomic_store_n(swizzling, true, __ATOMIC_RELEASE);
            // Writes: the program calls swift_beginAccess through its imports (not fatal when none is found:
            // store sites then come from the retains alone).
            lg_history_patched_access_imports = lg_history_patch("swift_beginAccess", (void *)lg_history_begin_access,
                                                                 (void **)&lg_history_next_begin_access);
            lg_history_patch("swift_weakLoadStrong", (void *)lg_history_weak_load_strong,
                             (void **)&lg_history_next_weak_load_strong);
            lg_history_patch("swift_weakTakeStrong", (void *)lg_history_weak_take_strong,
                             (void **)&lg_history_next_weak_take_strong);
            lg_history_patch("swift_unownedRetainStrong", (void *)lg_history_unowned_retain_strong,
                             (void **)&lg_history_next_unowned_retain_strong);
            lg_history_patch("swift_unownedRetainStrongAndRelease",
                             (void *)lg_history_unowned_retain_strong_and_release,
                             (void **)&lg_history_next_unowned_retain_strong_and_release);
        }
    }
    pthread_mutex_unlock(&lg_state.install_mutex);
    lg_thread_ignore_end();
    return result;
}

int lg_history_is_active(void) {
    const lg_history_forward *forward = lg_history_delegate();
    return forward != NULL ? forward->is_active() : atomic_load_explicit(&lg_history_active, memory_order_acquire);
}

const char *lg_history_patterns(void) {
    const lg_history_forward *forward = lg_history_delegate();
    if (forward != NULL) {
        return forward->patterns();
    }
    return atomic_load_explicit(&lg_history_active, memory_order_acquire) ? lg_history_pattern_text : "";
}

size_t lg_history_event_count(void) {
    const lg_history_forward *forward = lg_history_delegate();
    if (forward != NULL) {
        return forward->count();
    }
    uint64_t count = atomic_load_explicit(&lg_history_next_event, memory_order_acquire);
    return (size_t)(count < LG_HISTORY_EVENT_LIMIT ? count : LG_HISTORY_EVENT_LIMIT);
}

size_t lg_history_copy_events(size_t start, lg_history_event *buffer, size_t count) {
    const lg_history_forward *forward = lg_history_delegate();
    if (forward != NULL) {
        return forward->copy(start, buffer, count);
    }
    size_t available = lg_history_event_count();
    size_t copied = 0;
    for (size_t index = start; index < available && copied < count; index++) {
        lg_history_event *chunk =
            atomic_load_explicit(&lg_history_chunks[index >> LG_HISTORY_CHUNK_BITS], memory_order_acquire);
        if (chunk == NULL) {
            buffer[copied] = (lg_history_event){0};
        } else {
            lg_history_event *slot = &chunk[index & (LG_HISTORY_CHUNK_EVENTS - 1)];
            uint8_t kind = __atomic_load_n(&slot->kind, __ATOMIC_ACQUIRE);
            buffer[copied] = *slot;
            buffer[copied].kind = kind;
        }
        copied++;
    }
    return copied;
}

void lg_history_stats(lg_history_stats_t *stats) {
    const lg_history_forward *forward = lg_history_delegate();
    if (forward != NULL) {
        forward->stats(stats);
        return;
    }
    *stats = (lg_history_stats_t){0};
    stats->active = (uint32_t)atomic_load_explicit(&lg_history_active, memory_order_acquire);
    stats->patterns = lg_history_pattern_count;
    stats->types_seen = atomic_load_explicit(&lg_history_seen_count, memory_order_relaxed);
    stats->types_matched = atomic_load_explicit(&lg_history_types_matched, memory_order_relaxed);
    stats->events = lg_history_event_count();
    stats->dropped = atomic_load_explicit(&lg_history_dropped, memory_order_relaxed);
    stats->skipped = atomic_load_explicit(&lg_history_skipped, memory_order_relaxed);
    stats->patched_access_imports = lg_history_patched_access_imports;
}

#else /* !__linux__ */

int lg_history_start(const char *patterns, char *error, size_t error_len) {
    (void)patterns;
    lg_set_error(error, error_len, "LeakGraph supports Linux on x86_64 and arm64 only.");
    return LG_ERR_UNSUPPORTED_PLATFORM;
}
int lg_history_is_active(void) { return 0; }
const char *lg_history_patterns(void) { return ""; }
size_t lg_history_event_count(void) { return 0; }
size_t lg_history_copy_events(size_t start, lg_history_event *buffer, size_t count) {
    (void)start;
    (void)buffer;
    (void)count;
    return 0;
}
void lg_history_stats(lg_history_stats_t *stats) { *stats = (lg_history_stats_t){0}; }
int lg_history_type_matches(const char *name, const char *pattern) {
    (void)name;
    (void)pattern;
    return 0;
}

#endif /* __linux__ */
