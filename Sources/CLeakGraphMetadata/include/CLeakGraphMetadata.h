// Calls into the Swift runtime that the heap walk needs and that Swift code cannot make directly:
// value witnesses use the Swift calling convention and are reached through function pointers read
// from metadata, and a few runtime entry points are plain C functions without a Swift declaration.
#ifndef CLEAKGRAPH_METADATA_H
#define CLEAKGRAPH_METADATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The strong retain count of a live Swift heap object (`swift_retainCount`).
size_t lg_retain_count(const void *object);

/// Whether a Swift heap object has started deinitialization (`swift_isDeallocating`).
bool lg_is_deallocating(const void *object);

/// Calls an enum's `getEnumTag` value witness on `value` (read only: no retain, no write).
unsigned lg_call_get_enum_tag(const void *witness, const void *value, const void *metadata);

/// Calls an enum's `destructiveProjectEnumData` value witness. It rewrites `value` in place, so
/// callers pass a private byte copy, never the object's own memory.
void lg_call_destructive_project(const void *witness, void *value, const void *metadata);

/// The usable size of the malloc block at `object` (`malloc_usable_size`): how many bytes a heap object
/// allocated with tail elements (a `ManagedBuffer`) can hold.
size_t lg_allocation_size(const void *object);

/// Calls the metadata access function of a type that is not generic (a nominal type descriptor's
/// `AccessFunctionPtr`), asking for complete metadata; returns the metadata.
const void *lg_call_metadata_accessor(const void *accessor);

/// Resolves a mangled type name to metadata (`swift_getTypeByMangledNameInContext`), or NULL. A
/// `context` whose low bit is set is a generic environment's address plus 1, resolved with
/// `swift_getTypeByMangledNameInEnvironment` (generic closure contexts).
const void *lg_type_by_mangled_name(const char *name, size_t length, const void *context,
                                    const void *const *generic_arguments);

/// Demangles `length` bytes of a Swift mangled name (`$s…`) with the runtime's `swift_demangle` into
/// `buffer` (`capacity` bytes, NUL-terminated); returns false when it is no valid mangling or does
/// not fit.
bool lg_demangle(const char *name, size_t length, char *buffer, size_t capacity);

/// Whether the concurrency runtime's task layout is the one LeakGraph reads (layout version 1, 208-byte
/// `AsyncTask`, 64-bit), asked of `_swift_concurrency_debug_*`. False without the concurrency runtime.
bool lg_task_layout_known(void);

/// The offset from a task's start of the word holding the closure context of the function it runs
/// (in the async context prefix, 16 bytes before the initial context), or -1 when the layout is unknown
/// or the task is a child task (async let, task group), whose context LeakGraph does not read.
ptrdiff_t lg_task_closure_context_offset(const void *task);

/// Running, enqueued or completed: a task whose status has any of these holds no closure edge.
#define LG_TASK_STATUS_RUNNING 0x800u
#define LG_TASK_STATUS_ENQUEUED 0x1000u
#define LG_TASK_STATUS_COMPLETE 0x2000u
/// The task waits on something (a continuation, another task, a group) named by a dependency record.
#define LG_TASK_STATUS_HAS_DEPENDENCY 0x4000u

/// How many retains on an `AsyncStream`'s (`throwing`: an `AsyncThrowingStream`'s) storage the async
/// frames of one task waiting in the stream's `next()` hold (suspended on the continuation it stored
/// there), as measured for this runtime; 0 when LeakGraph does not know it for this runtime (then such
/// a task always counts as held).
unsigned lg_async_stream_waiter_retains(bool throwing);

/// The 32 status flag bits of a task (`ActiveTaskStatus::Flags`, at +96), read atomically.
uint32_t lg_task_status_flags(const void *task);

/// The mangled name of a field type that the compiler hid from reflection because it is not `Copyable`:
/// `name` is the field record's mangled type name (one symbolic reference to an accessor returning `()`),
/// whose module's `.symtab` names it `get_type_metadata <mangled type> noncopyable.<n>`. Writes the
/// mangled type (no symbolic references, NUL-terminated) to `buffer` and returns its length; 0 when the
/// module has no such symbol at that address (stripped, anonymous memory) or it does not fit. Reads
/// /proc/self/maps and the module file (its symbols once, cached), never the loader's lists.
size_t lg_hidden_type_name(const void *name, char *buffer, size_t capacity);

/// The address of the symbol `symbol_name` defined in the `.symtab` of the module that holds
/// `in_module` (a private type's nominal type descriptor, `$s…Mn`), or NULL. Same reading as
/// `lg_hidden_type_name`.
const void *lg_module_symbol(const void *in_module, const char *symbol_name);

/// The name of the function symbol at `address` in its module's `.symtab` (a key path's argument
/// equality thunk, `$s<index types>TH`), written NUL-terminated to `buffer`; returns its length, or 0.
/// Same reading as `lg_hidden_type_name`.
size_t lg_module_symbol_name(const void *address, char *buffer, size_t capacity);
/// Where a task's allocator keeps its slabs — the memory of its async frames — for the holder scan.
typedef struct lg_task_slab_layout_t {
    /// The metadata of every task (its first word), and the fake metadata at the start of every slab.
    const void *task_metadata;
    const void *slab_metadata;
    /// Offset in the task of its allocator's first slab pointer.
    size_t first_slab;
    /// Offsets in a slab of the next slab pointer and the 32-bit capacity; the header's size (the
    /// slab's memory is `header + capacity` bytes from its start).
    size_t slab_next;
    size_t slab_capacity;
    size_t slab_header;
} lg_task_slab_layout_t;

/// Fills `layout` and returns true when the task layout is the one LeakGraph reads
/// (``lg_task_layout_known``) and the runtime exports its task and slab metadata.
bool lg_task_slab_layout(lg_task_slab_layout_t *layout);

/// What a suspended task waits on (`TaskDependencyStatusRecord`).
typedef struct lg_task_dependency_t {
    /// `LG_TASK_WAITS_ON_TASK`, `LG_TASK_WAITS_ON_CONTINUATION` or `LG_TASK_WAITS_ON_GROUP`.
    uint32_t kind;
    /// The task, the continuation's async context, or the task group waited on.
    const void *target;
} lg_task_dependency_t;

/// The task waits on another task (an `async let` child, or any task's value).
#define LG_TASK_WAITS_ON_TASK 1u
/// The task waits on a continuation of its own.
#define LG_TASK_WAITS_ON_CONTINUATION 2u
/// The task waits on the children of its task group.
#define LG_TASK_WAITS_ON_GROUP 3u

/// What `task` waits on, from its innermost status record, when that is a dependency record; false
/// otherwise (running, being changed, or another runtime). Memory is read with `process_vm_readv`.
bool lg_task_dependency(const void *task, lg_task_dependency_t *out);

/// A child task's links (`ChildFragment`, `GroupChildFragment`).
typedef struct lg_task_child_links_t {
    const void *parent;
    /// The next child of the same parent's record (its task group's, or its async lets').
    const void *next_child;
    /// The task group, for a group's child; NULL for an `async let` child.
    const void *group;
    bool is_async_let;
} lg_task_child_links_t;

/// The links of `task` when it is a child task (its memory checked: the task metadata, child flags);
/// false otherwise. Reads an untracked `async let` child too (it lives in its parent's allocator).
bool lg_task_child_links(const void *task, lg_task_child_links_t *out);

/// The first child of each child-task status record of `task` (an `async let`'s record: its children
/// follow through `lg_task_child_links`'s `next_child`), innermost record first: up to `capacity` of them,
/// their number returned. A chain that cannot be read, or is being changed (the record lock innermost),
/// ends the walk. Memory is read with `process_vm_readv`.
size_t lg_task_child_records(const void *task, const void **first_children, size_t capacity);

/// The first child of task group `group` (from its status record); NULL when it has none, `(void *)-1`
/// when the group's record is not the one LeakGraph reads.
const void *lg_task_group_first_child(const void *group);

/// What `lg_block_swift_context` found in a block.
typedef enum {
    /// The block carries a Swift closure whose context is held by this block alone: `*context` is set.
    LG_BLOCK_CONTEXT = 1,
    /// The block holds no Swift object (a global block, or a Swift closure without a context).
    LG_BLOCK_EMPTY = 0,
    /// The block is not one LeakGraph reads, or it (or the block it wraps) has more than one holder, so
    /// the retain it carries cannot be attributed to the one reference being read.
    LG_BLOCK_UNREAD = -1,
} lg_block_reading;

/// Reads the Swift closure context a block (a `@convention(block)` value: a pointer to a heap block of
/// the BlocksRuntime) carries: a block Swift made from a closure (its captured thick function at +32,
/// the context at +40, a 48-byte block with copy/dispose helpers), directly or wrapped once by
/// libdispatch's `dispatch_block_create` (`DispatchWorkItem`; recognised by libdispatch's own test,
/// `invoke == _dispatch_block_special_invoke`, and its private data's magic). Every block on the way
/// must be a malloc block with a reference count of 1, so that the context's retain belongs to the
/// reference being read. Memory is read with `process_vm_readv`: a bad pointer is `LG_BLOCK_UNREAD`,
/// never a fault.
lg_block_reading lg_block_swift_context(const void *block, const void **context);

/// Reads the aligned word at `address` into `*out` with `process_vm_readv`: false, never a fault, when
/// the memory is not readable. For words the walk follows without knowing they point at live memory (a
/// captured object's class, read to learn a closure context's generic arguments).
bool lg_read_word(const void *address, uintptr_t *out);

#ifdef __cplusplus
}
#endif

#endif
