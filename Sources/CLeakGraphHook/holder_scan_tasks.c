// Memory owned by tasks, for the holder scan (holder_scan.h): the slabs of each tracked task's
// allocator, where its async frames live. A word in them is the task's, like a word inside the task
// itself, whoever else points into the slab (a stale copy of an async context pointer in an idle
// worker thread's registers is no holder of what the frames hold); a word past a slab's allocations in
// use lies in frames already popped and holds nothing (the slab's current offset, in its header, says
// where the allocations end: the allocator is a stack). An `async let` child is no tracked object (the
// runtime makes it in its parent's frames): its slabs are its tracked parent's memory, the same way.
// Read with the other threads stopped, following each task's slab list from the allocator's first slab
// (TaskLayout.c), every slab checked by the fake metadata the runtime puts at its start; a list that
// does not check out adds nothing.

#include "holder_scan.h"

#include "CLeakGraphMetadata.h"

#ifdef __linux__

#include <sys/mman.h>

/// Slabs one scan can attribute; slabs of a task beyond the limit (or of more tasks) are left out (their
/// words then hold, as any untracked memory does).
#define LG_TASK_SLAB_CAPACITY 65536u
/// Slabs followed per task at most.
#define LG_TASK_SLABS_PER_TASK 4096u
/// `async let` children followed per tracked task at most, and how deep their own children are followed.
#define LG_TASK_ASYNC_LETS 1024u
#define LG_TASK_ASYNC_LET_DEPTH 64u
/// Slabs looked at, back from the last one starting at or before an address, for the innermost one
/// holding it (beyond them the address is not attributed: its words hold, as untracked memory's do).
#define LG_TASK_NESTED_LOOKBACK 64u

typedef struct lg_task_slab {
    /// The slab's memory, and where the allocations in use end (the rest holds dead frames).
    lg_range range;
    uintptr_t live_end;
    uintptr_t task;
} lg_task_slab;

static lg_task_slab *lg_task_slabs;
static size_t lg_task_slab_count;
static lg_task_slab_layout_t lg_task_slab_shape;
static bool lg_task_slabs_known;

bool lg_scan_tasks_prepare(void) {
    if (lg_task_slabs == NULL) {
        void *table = mmap(NULL, sizeof(lg_task_slab) * LG_TASK_SLAB_CAPACITY, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (table == MAP_FAILED) {
            return false;
        }
        lg_task_slabs = table;
    }
    lg_task_slabs_known = lg_task_slab_layout(&lg_task_slab_shape);
    return true;
}

lg_range lg_scan_tasks_buffer(void) {
    return (lg_range){(uintptr_t)lg_task_slabs,
                      (uintptr_t)lg_task_slabs + sizeof(lg_task_slab) * LG_TASK_SLAB_CAPACITY};
}

static bool lg_task_slab_before(const void *a, const void *b) {
    return ((const lg_task_slab *)a)->range.start < ((const lg_task_slab *)b)->range.start;
}

/// Adds the slabs of the allocator of `task` (the list from its first slab, each checked by the fake
/// metadata at its start), as memory of tracked task `owner`.
static void lg_task_slabs_add(uintptr_t task, uintptr_t owner) {
    const lg_task_slab_layout_t *shape = &lg_task_slab_shape;
    uintptr_t slab = 0;
    lg_read_memory(task + shape->first_slab, &slab, 8);
    for (unsigned steps = 0; slab != 0 && steps < LG_TASK_SLABS_PER_TASK; steps++) {
        uintptr_t header[3] = {0, 0, 0};
        if (lg_read_memory(slab, header, sizeof header) != sizeof header ||
            header[0] != (uintptr_t)shape->slab_metadata) {
            break;  // not a slab: nothing more is attributed
        }
        uint64_t sizes = header[shape->slab_capacity / 8];
        uint32_t capacity = (uint32_t)sizes;
        uint32_t used = (uint32_t)(sizes >> 32);
        if (capacity > (1u << 24) || used > capacity || lg_task_slab_count >= LG_TASK_SLAB_CAPACITY) {
            break;
        }
        uintptr_t data = slab + shape->slab_header;
        lg_task_slabs[lg_task_slab_count++] = (lg_task_slab){{slab, data + capacity}, data + used, owner};
        slab = header[shape->slab_next / 8];
    }
}

/// Adds the slabs of the `async let` children of tracked task `owner` (and of theirs): such a child is
/// no tracked object (the runtime makes it inside its parent's frames, and frees it there), it lives
/// exactly as long as the parent's frame that holds it, and it allocates its own frames in slabs of
/// its own once the room its parent gave it is used up. Its frames are the parent's: a word in them is
/// the parent's, a word past a slab's allocations in use holds nothing. Children are found from the
/// parent's child-task status records, each checked (task metadata, `async let` flag, its parent).
static void lg_task_async_let_slabs_add(uintptr_t owner) {
    uintptr_t pending[LG_TASK_ASYNC_LET_DEPTH];
    size_t pending_count = 0;
    pending[pending_count++] = owner;
    size_t children = 0;
    while (pending_count > 0) {
        uintptr_t parent = pending[--pending_count];
        const void *firsts[16];
        size_t first_count = lg_task_child_records((const void *)parent, firsts, 16);
        for (size_t i = 0; i < first_count; i++) {
            const void *child = firsts[i];
            for (unsigned steps = 0; child != NULL && steps < 256 && children < LG_TASK_ASYNC_LETS; steps++) {
                lg_task_child_links_t links;
                if (!lg_task_child_links(child, &links) || !links.is_async_let || (uintptr_t)links.parent != parent) {
                    break;  // not the chain LeakGraph reads: its slabs are not attributed (their words hold)
                }
                children++;
                lg_task_slabs_add((uintptr_t)child, owner);
                if (pending_count < LG_TASK_ASYNC_LET_DEPTH) {
                    pending[pending_count++] = (uintptr_t)child;
                }
                child = links.next_child;
            }
        }
    }
}

void lg_scan_tasks_collect(const lg_scan_request *request) {
    lg_task_slab_count = 0;
    if (!lg_task_slabs_known) {
        return;
    }
    for (size_t i = 0; i < request->object_count; i++) {
        uintptr_t task = request->objects[i];
        // A tracked object's memory is there for the whole check (its free waits): its metadata word is
        // read directly (a system call per object would cost more than the scan itself).
        if (*(const uintptr_t *)task != (uintptr_t)lg_task_slab_shape.task_metadata) {
            continue;
        }
        lg_task_slabs_add(task, task);
        lg_task_async_let_slabs_add(task);
    }
    lg_scan_sort(lg_task_slabs, lg_task_slab_count, sizeof(lg_task_slab), lg_task_slab_before);
}

uintptr_t lg_scan_task_owning(uintptr_t address, bool *dead) {
    *dead = false;
    size_t low = 0;
    size_t high = lg_task_slab_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (lg_task_slabs[middle].range.start <= address) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    // Slabs nest: an `async let` child's first slab is room its parent gave it in the parent's frames. The
    // innermost slab holding the address decides (the one starting last), a few slabs back at most.
    for (size_t back = 0; back < LG_TASK_NESTED_LOOKBACK && low > 0; back++, low--) {
        const lg_task_slab *slab = &lg_task_slabs[low - 1];
        if (address < slab->range.end) {
            // Past the allocations in use: frames popped since, whose words nothing reads any more.
            *dead = address >= slab->live_end;
            return slab->task;
        }
    }
    return 0;
}

#endif /* __linux__ */
