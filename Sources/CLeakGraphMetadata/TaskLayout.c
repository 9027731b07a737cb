// The layout of a Swift concurrency task (`AsyncTask`) that LeakGraph reads: where the task keeps the
// closure context it runs, and its status flags. Learned from swift/ABI/Task.h, TaskPrivate.h and
// Task.cpp (swift_task_create_commonImpl) and measured on Swift 6.3.1 x86_64 (docs/how-it-works.md,
// "Tasks"); used only when the runtime reports the layout it was measured on.
//
// One malloc block holds the task (`_swift_concurrency_debug_asyncTaskSize` bytes), its fragments
// (child, group child, future: wait queue, result type, error, result storage), the async context
// prefix and the initial async context. The prefix ends 16 bytes before the initial context with
// {closure context, error}; its closure context is the retained context of the function the task
// runs, released when that function returns (`completeTaskWithClosure`).

#define _GNU_SOURCE
#include "CLeakGraphMetadata.h"

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

/// Reads `size` bytes at `address` without ever faulting: a task's records and its children live in
/// memory that may change while the check runs (a task being resumed on another thread).
static bool lg_task_read(const void *address, void *out, size_t size) {
    if ((uintptr_t)address < 4096) return false;
    struct iovec local = {out, size};
    struct iovec remote = {(void *)address, size};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size;
}

/// The task layout version this file was written for (`_swift_concurrency_debug_internal_layout_version`).
#define LG_TASK_LAYOUT_VERSION 1u
/// `sizeof(AsyncTask)` on 64-bit platforms for that version.
#define LG_TASK_SIZE 208u
/// JobFlags (32 bits at +32): the task is a child task (async let, task group).
#define LG_JOB_IS_CHILD (1u << 24)
/// JobFlags: the task has a future fragment (it produces a result).
#define LG_JOB_IS_FUTURE (1u << 25)
/// JobFlags: the task is a task group's child.
#define LG_JOB_IS_GROUP_CHILD (1u << 26)
/// JobFlags: the task is an async let's child (bit 28 on this runtime, measured: an `async let` child's
/// flags are child, future and this; a group child's are child, future and group child).
#define LG_JOB_IS_ASYNC_LET (1u << 28)
/// The child fragment (parent, next child) and the group child fragment (the group), right after the
/// task: a child task's fragments precede its future fragment.
#define LG_CHILD_FRAGMENT 16u
#define LG_GROUP_CHILD_FRAGMENT 8u
/// ActiveTaskStatus at +96: the 32 status flags, then the innermost status record at +104.
#define LG_TASK_STATUS_RECORD 104u
/// A status record: its flags (the kind in the low byte), its parent record; a task dependency record
/// then holds what the task waits on (+16) and the kind of dependency (+32); a task group record (inside
/// the group, 8 bytes in) its first child (+16).
#define LG_RECORD_KIND_DEPENDENCY 0u
#define LG_RECORD_KIND_CHILD_TASK 1u
#define LG_RECORD_KIND_TASK_GROUP 2u
/// Kinds from 192 up are the runtime's private records (the record lock): the chain is being changed.
#define LG_RECORD_KIND_FIRST_RESERVED 192u
/// Offset of the future fragment's fields: wait queue, result type, error (then the result).
#define LG_FUTURE_FRAGMENT_HEADER 24u

/// Private storage (+80) + ExclusivityAccessSet (2 words) + ActiveTaskStatus (2 words) + the allocator's
/// `lastAllocation`: the allocator's `firstSlab`.
#define LG_TASK_FIRST_SLAB 120u
/// A slab's header (StackAllocator::Slab): fake metadata, next slab, capacity (32 bits), current offset
/// (32 bits), rounded to 16 bytes; its capacity bytes follow.
#define LG_TASK_SLAB_NEXT 8u
#define LG_TASK_SLAB_CAPACITY 16u
#define LG_TASK_SLAB_HEADER 32u

static int lg_task_layout_state;  // 0 unknown, 1 known, -1 unsupported
/// The runtime's task and task-allocator slab metadata (`_swift_concurrency_debug_*`).
static const void *lg_task_heap_metadata_value;
static const void *lg_task_slab_metadata_value;

bool lg_task_layout_known(void) {
    int state = __atomic_load_n(&lg_task_layout_state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        const unsigned *version = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_internal_layout_version");
        const size_t *size = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskSize");
        const void *const *task_metadata = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskMetadata");
        const void *const *slab_metadata = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskSlabMetadata");
        lg_task_heap_metadata_value = task_metadata != NULL ? *task_metadata : NULL;
        lg_task_slab_metadata_value = slab_metadata != NULL ? *slab_metadata : NULL;
        state = version != NULL && size != NULL && *version == LG_TASK_LAYOUT_VERSION && *size == LG_TASK_SIZE &&
                        sizeof(void *) == 8
                    ? 1
                    : -1;
        __atomic_store_n(&lg_task_layout_state, state, __ATOMIC_RELEASE);
    }
    return state == 1;
}

/// Looked up once when the program starts, never during a check: `dlsym` takes the loader's lock, which a
/// thread in `dlopen` may hold while it waits for the check (or, during a holder scan, while it is stopped).
__attribute__((constructor)) static void lg_task_layout_symbols(void) { (void)lg_task_layout_known(); }

static size_t lg_align(size_t value, size_t alignment) { return (value + alignment - 1) & ~(alignment - 1); }

ptrdiff_t lg_task_closure_context_offset(const void *task) {
    if (!lg_task_layout_known()) return -1;
    const unsigned char *bytes = task;
    uint32_t job_flags = *(const uint32_t *)(bytes + 32);
    if ((job_flags & 0xFFu) != 0) return -1;  // not a task job
    // An async let child lives in its parent's allocator (immortal, freed without free()): not read. A
    // task group's child is a task of its own, its fragments before the future fragment.
    if (job_flags & LG_JOB_IS_ASYNC_LET) return -1;
    bool child = (job_flags & LG_JOB_IS_CHILD) != 0;
    bool group_child = (job_flags & LG_JOB_IS_GROUP_CHILD) != 0;
    if (child != group_child) return -1;
    size_t header = LG_TASK_SIZE;
    if (group_child) header += LG_CHILD_FRAGMENT + LG_GROUP_CHILD_FRAGMENT;
    if (job_flags & LG_JOB_IS_FUTURE) {
        const unsigned char *result_type = *(const unsigned char *const *)(bytes + header + 8);
        if (result_type == NULL) return -1;
        const unsigned char *witnesses = *(const unsigned char *const *)(result_type - 8);
        if (witnesses == NULL) return -1;
        size_t result_size = *(const size_t *)(witnesses + 64);
        size_t alignment = (*(const uint32_t *)(witnesses + 80) & 0xFFu) + 1;
        if (alignment < 8) alignment = 8;
        // The result's storage is aligned as the whole block is, past the fragment's three words.
        size_t storage = lg_align(header + LG_FUTURE_FRAGMENT_HEADER, alignment);
        header = storage + result_size + 32;  // FutureAsyncContextPrefix: 4 words
    } else {
        header += 24;  // AsyncContextPrefix: 3 words
    }
    header = lg_align(header, 16);
    return (ptrdiff_t)header - 16;
}

unsigned lg_async_stream_waiter_retains(bool throwing) {
    if (!lg_task_layout_known()) return 0;
    uint32_t (*version)(void) = (uint32_t(*)(void))dlsym(RTLD_DEFAULT, "$sSo19_SwiftStdlibVersionasE7currentABvgZ");
    if (version == NULL) return 0;
    uint32_t value = version();
    // Measured on 6.3.1, -Onone and -O clients alike (the code is libswift_Concurrency's):
    // `AsyncStream._Storage.next()` keeps two retains on its storage in the waiting task's async frames
    // (its `cancel` method value and the cancellation handler's copy of it) while the task is suspended
    // on its continuation; `AsyncThrowingStream._Storage.next()` keeps one.
    if ((value >> 16) != 6 || ((value >> 8) & 0xFF) != 3) return 0;
    return throwing ? 1 : 2;
}

uint32_t lg_task_status_flags(const void *task) {
    return __atomic_load_n((const uint32_t *)((const unsigned char *)task + 96), __ATOMIC_ACQUIRE);
}

bool lg_task_slab_layout(lg_task_slab_layout_t *layout) {
    if (!lg_task_layout_known() || lg_task_heap_metadata_value == NULL || lg_task_slab_metadata_value == NULL) {
        return false;
    }
    layout->task_metadata = lg_task_heap_metadata_value;
    layout->slab_metadata = lg_task_slab_metadata_value;
    layout->first_slab = LG_TASK_FIRST_SLAB;
    layout->slab_next = LG_TASK_SLAB_NEXT;
    layout->slab_capacity = LG_TASK_SLAB_CAPACITY;
    layout->slab_header = LG_TASK_SLAB_HEADER;
    return true;
}

bool lg_task_dependency(const void *task, lg_task_dependency_t *out) {
    if (!lg_task_layout_known()) return false;
    const unsigned char *record = NULL;
    lg_task_read((const unsigned char *)task + LG_TASK_STATUS_RECORD, &record, sizeof record);
    // The innermost record of a suspended task is its dependency (only the record lock could come first:
    // then the task is being changed, and nothing is concluded).
    uint64_t words[5] = {0, 0, 0, 0, 0};
    if (record == NULL || !lg_task_read(record, words, sizeof words) ||
        (words[0] & 0xFFu) != LG_RECORD_KIND_DEPENDENCY) {
        return false;
    }
    uint32_t kind = (uint32_t)words[4];
    if (kind < LG_TASK_WAITS_ON_TASK || kind > LG_TASK_WAITS_ON_GROUP) return false;
    out->kind = kind;
    out->target = (const void *)words[2];
    return true;
}

bool lg_task_child_links(const void *task, lg_task_child_links_t *out) {
    if (!lg_task_layout_known()) return false;
    uint64_t header[5] = {0, 0, 0, 0, 0};
    uint64_t fragment[3] = {0, 0, 0};
    const unsigned char *bytes = task;
    if (!lg_task_read(bytes, header, sizeof header) || header[0] != (uint64_t)lg_task_heap_metadata_value) return false;
    uint32_t job_flags = (uint32_t)header[4];
    if ((job_flags & 0xFFu) != 0 || (job_flags & LG_JOB_IS_CHILD) == 0) return false;
    if (!lg_task_read(bytes + LG_TASK_SIZE, fragment, sizeof fragment)) return false;
    out->parent = (const void *)fragment[0];
    out->next_child = (const void *)fragment[1];
    out->group = (job_flags & LG_JOB_IS_GROUP_CHILD) ? (const void *)fragment[2] : NULL;
    out->is_async_let = (job_flags & LG_JOB_IS_ASYNC_LET) != 0;
    return true;
}

size_t lg_task_child_records(const void *task, const void **first_children, size_t capacity) {
    if (!lg_task_layout_known()) return 0;
    const unsigned char *record = NULL;
    lg_task_read((const unsigned char *)task + LG_TASK_STATUS_RECORD, &record, sizeof record);
    size_t count = 0;
    // Innermost first, each record's second word its parent record (a chain the task's frames own).
    for (unsigned steps = 0; record != NULL && steps < 256; steps++) {
        uint64_t words[3] = {0, 0, 0};
        if (!lg_task_read(record, words, sizeof words)) return count;
        unsigned kind = (unsigned)(words[0] & 0xFFu);
        if (kind >= LG_RECORD_KIND_FIRST_RESERVED) return count;  // locked: being changed
        if (kind == LG_RECORD_KIND_CHILD_TASK && words[2] != 0) {
            if (count == capacity) return count;
            first_children[count++] = (const void *)words[2];
        }
        record = (const unsigned char *)words[1];
    }
    return count;
}

const void *lg_task_group_first_child(const void *group) {
    if (!lg_task_layout_known() || group == NULL) return NULL;
    // The group object starts with its vtable; its task group status record follows.
    uint64_t record[3] = {0, 0, 0};
    if (!lg_task_read((const unsigned char *)group + 8, record, sizeof record) ||
        (record[0] & 0xFFu) != LG_RECORD_KIND_TASK_GROUP) {
        return (const void *)-1;
    }
    return (const void *)record[2];
}
