// Memory owned by tasks, for the holder scan (holder_scan.h): the slabs of each tracked task's
// allocator, where its async frames live. A word in them is the task's, like a word inside the task
// itself, whoever else points into the slab (a stale copy of an async context pointer in an idle
// worker thread's registers is no holder of what the frames hold); a word past a slab's allocations in
// use lies in frames already popped and holds nothing (the slab's current offset, in its header, says
// where the allocations end: the allocator is a stack). Read with the other threads stopped,
// following each task's slab list from the allocator's first slab (TaskLayout.c), every slab checked by
// the fake metadata the runtime puts at its start; a list that does not check out adds nothing.

#include "holder_scan.h"

#include "CLeakGraphMetadata.h"

#ifdef __linux__

#include <sys/mman.h>

/// Slabs one scan can attribute; slabs of a task beyond the limit (or of more tasks) are left out (their
/// words then hold, as any untracked memory does).
#define LG_TASK_SLAB_CAPACITY 65536u
/// Slabs followed per task at most.
#define LG_TASK_SLABS_PER_TASK 4096u

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

void lg_scan_tasks_collect(const lg_scan_request *request) {
    lg_task_slab_count = 0;
    if (!lg_task_slabs_known) {
        return;
    }
    const lg_task_slab_layout_t *shape = &lg_task_slab_shape;
    for (size_t i = 0; i < request->object_count; i++) {
        uintptr_t task = request->objects[i];
        // A tracked object's memory is there for the whole check (its free waits): its metadata word is
        // read directly (a system call per object would cost more than the scan itself).
        if (*(const uintptr_t *)task != (uintptr_t)shape->task_metadata) {
            continue;
        }
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
            lg_task_slabs[lg_task_slab_count++] = (lg_task_slab){{slab, data + capacity}, data + used, task};
            slab = header[shape->slab_next / 8];
        }
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
    if (low > 0 && address < lg_task_slabs[low - 1].range.end) {
        // Past the allocations in use: frames popped since, whose words nothing reads any more.
        *dead = address >= lg_task_slabs[low - 1].live_end;
        return lg_task_slabs[low - 1].task;
    }
    return 0;
}

#endif /* __linux__ */
