// Retain/release histories (history.c): for objects of chosen types only, every strong retain and
// release with a short deduplicated stack, so that a check can tell which retain made each strong
// reference into a leaked object (`leakgraph run --history TYPE…`).
//
// How: the runtime calls its retain and release entry points through function pointers once its
// allocator is hooked (`_swift_retain_adapter`, which LeakGraph's 6.3 workaround already owns,
// `_swift_release`, `_swift_retain_n`, `_swift_release_n`, `_swift_tryRetain`). While history is on,
// those point at LeakGraph's; for an object of any other type each costs one load of the object's
// metadata word (on the cache line the retain writes anyway), one load from a 4 KiB table and a
// compare. Types are classified when an object of a new metadata is allocated: a class whose runtime
// name (`swift_getTypeName`, private contexts written `(private)`) matches one of the patterns, as
// baseline `type:` patterns match. Off (the default), nothing is swapped and nothing changes.

#ifndef CLEAKGRAPHHOOK_HISTORY_H
#define CLEAKGRAPHHOOK_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What an event is (`lg_history_event.kind`).
typedef enum lg_history_kind {
    /// Not written yet (a slot reserved by a thread that has not finished writing it).
    LG_HISTORY_PENDING = 0,
    /// The object was allocated (its +1; the stack is the record's creation stack, not stored here).
    LG_HISTORY_ALLOC = 1,
    /// `swift_retain`, `swift_retain_n` (`count` retains), or a successful `swift_tryRetain`.
    LG_HISTORY_RETAIN = 2,
    /// `swift_release`, `swift_release_n` (`count` releases).
    LG_HISTORY_RELEASE = 3,
    /// A write into the object: `swift_beginAccess` for a modify access to an address inside it (the
    /// dynamic exclusivity check the compiler puts before a store into a class's stored property);
    /// `frame` is the address written, the stack starts in the code that asked for the access.
    LG_HISTORY_WRITE = 4,
} lg_history_kind;

/// One retain, release or allocation of an object of a history type. Events are numbered in the
/// order their slots were taken (one atomic counter for every thread).
typedef struct lg_history_event {
    /// The object's address.
    uintptr_t object;
    /// The frame pointer of the function that called the runtime (its frame's base), telling apart two
    /// calls of one function: 0 when unknown. For `LG_HISTORY_WRITE`: the address written.
    uintptr_t frame;
    /// The stack (see `lg_stack`), innermost first, starting at the return address into the code that
    /// called the runtime (for an allocation, the allocating code); LG_NO_STACK when the stack table is
    /// full. Frame pointers first; a walk that stops within 4 frames (optimized code keeps none) is redone
    /// with the call-frame information (at most 12 frames).
    uint32_t stack_id;
    /// A small number for the thread (1, 2, … in the order threads first recorded an event).
    uint16_t thread;
    /// An `lg_history_kind`.
    uint8_t kind;
    /// How many retains or releases (1 unless `_n`; larger counts are split into several events).
    uint8_t count;
} lg_history_event;

/// Counters of the history recorder (`lg_history_stats`).
typedef struct lg_history_stats_t {
    /// 1 while recording.
    uint32_t active;
    /// Patterns in force.
    uint32_t patterns;
    /// Distinct metadata classified so far, and how many of them matched.
    uint32_t types_seen;
    uint32_t types_matched;
    /// Events recorded (published and reserved), and events lost because the log was full.
    uint64_t events;
    uint64_t dropped;
    /// Events a thread skipped because it was inside LeakGraph (a check, the hook itself).
    uint64_t skipped;
    /// `swift_beginAccess` imports pointed at the history's (writes into history objects are recorded
    /// only through them).
    uint32_t patched_access_imports;
    uint32_t reserved;
} lg_history_stats_t;

/// The most patterns `lg_history_start` takes.
#define LG_HISTORY_PATTERN_LIMIT 64u

/// Starts recording the histories of objects whose type matches one of `patterns`: type patterns
/// separated by commas or newlines, as in baseline files (`*` any run, `?` one character; matched
/// against the full runtime name or the name without its module: `Member`, `App.Member`, `App.*`).
/// The allocation hook must be installed (in this copy of LeakGraph: not delegated) on a runtime whose
/// retain adapter LeakGraph owns (Swift 6.3); when this copy forwards to another (the preloaded one),
/// that copy records. Objects allocated before the call have no history. Called again, it adds its
/// patterns to those in force (types seen before are matched again). Returns 0, or non-zero with one
/// sentence in `error`.
int lg_history_start(const char *patterns, char *error, size_t error_len);

/// 1 while histories are recorded.
int lg_history_is_active(void);

/// The type patterns in force, as given to `lg_history_start` (empty when not recording).
const char *lg_history_patterns(void);

/// How many event slots have been taken so far (some may still be `LG_HISTORY_PENDING`).
size_t lg_history_event_count(void);

/// Copies events `start ..< start + count` (clamped to those taken) into `buffer`; returns how many
/// were copied. Safe while other threads record.
size_t lg_history_copy_events(size_t start, lg_history_event *buffer, size_t count);

/// Fills `stats`.
void lg_history_stats(lg_history_stats_t *stats);

/// Whether the runtime name `name` matches the type pattern `pattern` (in full, or without its
/// leading module when that module's name is a plain identifier). Exposed for tests: the Swift side
/// (`BaselineEntry`) must agree.
int lg_history_type_matches(const char *name, const char *pattern);

#ifdef __cplusplus
}
#endif

#endif /* CLEAKGRAPHHOOK_HISTORY_H */
