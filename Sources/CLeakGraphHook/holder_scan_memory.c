// Reading the process's memory for the holder scan and comparing every word with the candidates
// (holder_scan.h).
//
// Memory is read with process_vm_readv on the process itself: a mapping that disappears meanwhile
// (it cannot, with every thread stopped, but the kernel may refuse a page) yields an error, never a
// fault. The buffers are mmapped once, up front.

#include "holder_scan.h"

#ifdef __linux__

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/// Bytes read per process_vm_readv call.
#define LG_SCAN_CHUNK (1u << 20)
/// Room for /proc/self/maps.
#define LG_SCAN_MAPS_BYTES (8u << 20)

static char *lg_scan_maps;
static unsigned char *lg_scan_buffer;

bool lg_scan_memory_prepare(void) {
    if (lg_scan_buffer != NULL) {
        return true;
    }
    void *maps = mmap(NULL, LG_SCAN_MAPS_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *buffer = mmap(NULL, LG_SCAN_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (maps == MAP_FAILED || buffer == MAP_FAILED) {
        return false;
    }
    lg_scan_maps = maps;
    lg_scan_buffer = buffer;
    return true;
}

size_t lg_scan_memory_buffers(lg_range *out) {
    out[0] = (lg_range){(uintptr_t)lg_scan_maps, (uintptr_t)lg_scan_maps + LG_SCAN_MAPS_BYTES};
    out[1] = (lg_range){(uintptr_t)lg_scan_buffer, (uintptr_t)lg_scan_buffer + LG_SCAN_CHUNK};
    return 2;
}

long lg_scan_target(const lg_scan_job *job, uintptr_t value) {
    if (value < job->low || value >= job->high) {
        return -1;
    }
    size_t low = 0;
    size_t high = job->target_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (job->targets[middle].end <= value) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (low < job->target_count && job->targets[low].start <= value) {
        return (long)low;
    }
    return -1;
}

/// What holds a word at some address, among tracked objects: nothing, a tracked object (its whole malloc
/// chunk, or a task's allocator slabs), or dead memory (a task's popped frames), whose words hold nothing.
typedef struct lg_scan_owner {
    uintptr_t object;
    bool dead;
} lg_scan_owner;

static void lg_scan_swap(unsigned char *a, unsigned char *b, size_t size) {
    unsigned char scratch[64];
    memcpy(scratch, a, size);
    memcpy(a, b, size);
    memcpy(b, scratch, size);
}

/// Moves the element at `root` down the heap of the first `count` elements until its children come
/// before it.
static void lg_scan_sift(unsigned char *base, size_t root, size_t count, size_t size,
                         bool (*before)(const void *, const void *)) {
    for (;;) {
        size_t largest = root;
        size_t left = 2 * root + 1;
        size_t right = left + 1;
        if (left < count && before(base + largest * size, base + left * size)) {
            largest = left;
        }
        if (right < count && before(base + largest * size, base + right * size)) {
            largest = right;
        }
        if (largest == root) {
            return;
        }
        lg_scan_swap(base + root * size, base + largest * size, size);
        root = largest;
    }
}

void lg_scan_sort(void *base, size_t count, size_t size, bool (*before)(const void *a, const void *b)) {
    if (count < 2 || size > 64) {
        return;
    }
    unsigned char *bytes = base;
    for (size_t root = count / 2; root-- > 0;) {
        lg_scan_sift(bytes, root, count, size, before);
    }
    for (size_t end = count - 1; end > 0; end--) {
        lg_scan_swap(bytes, bytes + end * size, size);
        lg_scan_sift(bytes, 0, end, size, before);
    }
}

/// The tracked object whose memory holds `address`.
static lg_scan_owner lg_scan_tracked_object(const lg_scan_job *job, uintptr_t address) {
    lg_scan_owner owner = {0, false};
    // A task's async frames: the slabs of its allocator (the first may lie in the task's own block).
    owner.object = lg_scan_task_owning(address, &owner.dead);
    if (owner.object != 0) {
        return owner;
    }
    size_t low = 0;
    const lg_scan_request *request = job->request;
    size_t high = request->object_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (request->objects[middle] <= address) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (low > 0) {
        uintptr_t object = request->objects[low - 1];
        lg_record record;
        if (lg_frozen_record(object, &record) && address < lg_scan_object_end(object, record.size)) {
            owner.object = object;
        }
    }
    return owner;
}

/// Pass 0: a word pointing into candidate `candidate`.
static void lg_scan_found_candidate(lg_scan_job *job, size_t candidate, uintptr_t location, unsigned place) {
    lg_scan_request *request = job->request;
    if (request->held[candidate]) {
        return;
    }
    if (place == LG_HELD_MEMORY) {
        lg_scan_owner owner = lg_scan_tracked_object(job, location);
        if (owner.dead) {
            return;  // a popped frame's stale word holds nothing
        }
        uintptr_t holder = owner.object;
        if (holder != 0) {
            // A word of the candidate into itself is reported too: it keeps nothing alive, but it may be
            // the retain the candidate holds on itself (the caller decides).
            if (request->hit_count < request->hit_capacity) {
                request->hits[request->hit_count++] = (lg_holder_hit){candidate, holder, location, 0};
                return;
            }
        } else if (lg_scan_chunks_known()) {
            lg_chunk_lookup chunk = lg_scan_chunk_at(job, location);
            if (chunk.state == LG_CHUNK_FREE) {
                return;  // a freed block's stale bytes hold nothing
            }
            if (chunk.state == LG_CHUNK_IN_USE && lg_scan_chunk_hit(candidate, chunk.range, location)) {
                return;  // decided once the chunk's own holders are known
            }
        }
    }
    request->held[candidate] = (uint8_t)place;
    if (request->held_at != NULL) {
        request->held_at[candidate] = location;
    }
}

void lg_scan_found(lg_scan_job *job, size_t target, uintptr_t location, unsigned place) {
    if (job->pass == 0) {
        lg_scan_found_candidate(job, target, location, place);
        return;
    }
    lg_chunk_holder holder = {LG_CHUNK_HOLDER_ROOT, 0, {0, 0}};
    if (place == LG_HELD_MEMORY) {
        lg_scan_owner owner = lg_scan_tracked_object(job, location);
        if (owner.dead) {
            return;
        }
        if (owner.object != 0) {
            holder.kind = LG_CHUNK_HOLDER_OBJECT;
            holder.object = owner.object;
        } else {
            lg_chunk_lookup chunk = lg_scan_chunk_at(job, location);
            if (chunk.state == LG_CHUNK_FREE) {
                return;
            }
            if (chunk.state == LG_CHUNK_IN_USE) {
                holder.kind = LG_CHUNK_HOLDER_CHUNK;
                holder.chunk = chunk.range;
            }
        }
    }
    lg_scan_chunk_found(target, holder, location);
}

static void lg_scan_words(lg_scan_job *job, const unsigned char *bytes, size_t length, uintptr_t address) {
    const uint64_t *words = (const uint64_t *)bytes;
    size_t count = length / 8;
    uintptr_t low = job->low;
    uintptr_t high = job->high;
    for (size_t i = 0; i < count; i++) {
        uintptr_t value = (uintptr_t)(words[i] & LG_SCAN_POINTER_MASK);
        // libdispatch keeps some references as the pointer's complement (`_dispatch_ptr2wref`: a source's
        // unote names its source so), so a complemented word is a holder too.
        uintptr_t complement = (uintptr_t)(~words[i] & LG_SCAN_POINTER_MASK);
        if (value >= low && value < high) {
            long target = lg_scan_target(job, value);
            if (target >= 0) {
                lg_scan_found(job, (size_t)target, address + i * 8, LG_HELD_MEMORY);
            }
        }
        if (complement >= low && complement < high) {
            long target = lg_scan_target(job, complement);
            if (target >= 0) {
                lg_scan_found(job, (size_t)target, address + i * 8, LG_HELD_MEMORY);
            }
        }
    }
}

/// Reads `[start, end)` (8-byte aligned) in chunks and scans it; pages the kernel refuses are skipped.
static void lg_scan_read(lg_scan_job *job, uintptr_t start, uintptr_t end) {
    while (start < end) {
        size_t length = end - start < LG_SCAN_CHUNK ? end - start : LG_SCAN_CHUNK;
        struct iovec local = {lg_scan_buffer, length};
        struct iovec remote = {(void *)start, length};
        ssize_t got = process_vm_readv(job->pid, &local, 1, &remote, 1, 0);
        if (got < 0) {
            if (errno == ENOSYS || errno == EPERM) {
                job->failed = true;
                return;
            }
            got = 0;
        }
        if (got > 0) {
            job->request->stats.bytes += (uint64_t)got;
            lg_scan_words(job, lg_scan_buffer, (size_t)got, start);
        }
        if ((size_t)got < length) {
            // Skip the page that could not be read.
            uintptr_t failed = start + (uintptr_t)got;
            start = (failed | 4095u) + 1;
        } else {
            start += length;
        }
    }
}

/// Scans `[start, end)` minus the excluded ranges (sorted ascending).
static void lg_scan_range(lg_scan_job *job, uintptr_t start, uintptr_t end) {
    for (size_t i = 0; i < job->excluded_count && start < end; i++) {
        const lg_range *excluded = &job->excluded[i];
        if (excluded->end <= start || excluded->start >= end) {
            continue;
        }
        if (excluded->start > start) {
            lg_scan_read(job, start, excluded->start & ~(uintptr_t)7);
        }
        start = (excluded->end + 7) & ~(uintptr_t)7;
    }
    if (start < end) {
        lg_scan_read(job, start, end);
    }
}

uintptr_t lg_scan_parse_hex(const char **cursor) {
    uintptr_t value = 0;
    for (;;) {
        char c = **cursor;
        unsigned digit;
        if (c >= '0' && c <= '9') {
            digit = (unsigned)(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            digit = (unsigned)(c - 'a' + 10);
        } else {
            return value;
        }
        value = value << 4 | digit;
        (*cursor)++;
    }
}

/// Reads /proc/self/maps into `lg_scan_maps` (NUL-terminated). Returns false when it does not fit.
bool lg_scan_read_maps(void) {
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    size_t used = 0;
    for (;;) {
        ssize_t got = read(fd, lg_scan_maps + used, LG_SCAN_MAPS_BYTES - 1 - used);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            break;
        }
        used += (size_t)got;
        if (used >= LG_SCAN_MAPS_BYTES - 1) {
            close(fd);
            return false;
        }
    }
    close(fd);
    lg_scan_maps[used] = 0;
    return true;
}

/// Scans every readable and writable mapping; a mapping holding a stopped thread's stack marker is
/// read from the lowest marker up.
bool lg_scan_maps_contain(const char *text) { return strstr(lg_scan_maps, text) != NULL; }

void lg_scan_mappings(lg_scan_job *job, const uintptr_t *markers, size_t marker_count) {
    const char *cursor = lg_scan_maps;
    while (*cursor != 0 && !job->failed) {
        uintptr_t start = lg_scan_parse_hex(&cursor);
        if (*cursor == '-') {
            cursor++;
        }
        uintptr_t end = lg_scan_parse_hex(&cursor);
        if (*cursor == ' ') {
            cursor++;
        }
        bool readable = cursor[0] == 'r';
        bool writable = cursor[0] != 0 && cursor[1] == 'w';
        const char *line_end = strchr(cursor, '\n');
        if (line_end == NULL) {
            line_end = cursor + strlen(cursor);
        }
        // The name follows five fields (range, permissions, offset, device, inode); none: anonymous.
        const char *name = cursor;
        for (int field = 0; field < 4 && name < line_end; field++) {
            while (name < line_end && *name != ' ') {
                name++;
            }
            while (name < line_end && *name == ' ') {
                name++;
            }
        }
        bool special = name < line_end && (strncmp(name, "[vvar", 5) == 0 || strncmp(name, "[vsyscall]", 10) == 0);
        job->map_main_heap = name < line_end && strncmp(name, "[heap]", 6) == 0;
        job->map_heap = name == line_end || job->map_main_heap;
        cursor = *line_end != 0 ? line_end + 1 : line_end;
        if (!readable || !writable || special || end <= start) {
            continue;
        }
        uintptr_t from = start;
        for (size_t i = 0; i < marker_count; i++) {
            if (markers[i] >= start && markers[i] < end && (from == start || markers[i] < from)) {
                from = markers[i] & ~(uintptr_t)7;
            }
        }
        job->map_start = start;
        job->map_end = end;
        job->request->stats.mappings++;
        lg_scan_range(job, from, end);
    }
}

void lg_scan_registers(lg_scan_job *job, uintptr_t start, uintptr_t end) {
    job->map_start = start;
    job->map_end = end;
    job->map_heap = false;
    job->map_main_heap = false;
    lg_scan_range(job, start, end);
}

size_t lg_read_memory(uintptr_t address, void *buffer, size_t length) {
    struct iovec local = {buffer, length};
    struct iovec remote = {(void *)address, length};
    ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return got > 0 ? (size_t)got : 0;
}

#endif /* __linux__ */
