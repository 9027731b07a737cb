// The cheap first pass of the orphan search: which candidates does a global already hold?
//
// A candidate (an object whose retains the walk could not explain) is an orphan only when no word
// anywhere in the process could point into it; the holder scan (holder_scan.c) proves that by
// stopping every thread and reading all writable memory — the whole heap included. Most candidates
// are held by a global (a top-level `let`, a `static` property, a library's singleton), so this pass
// reads only the loaded modules' writable static data (their writable PT_LOAD segments: `.data`,
// `.got`, `.bss`, found from each module's program headers in memory) first:
// a word found there holds its candidate, which then needs no scan. When every candidate is held so,
// the holder scan does not run at all.
//
// A word found here only ever makes a candidate *held*, so no thread needs to stop: memory that
// changes meanwhile can only make this pass miss a holder, and the holder scan then looks for it.
// The modules of LeakGraph itself are not read (their state holds the check's working addresses);
// in-process, where LeakGraph is linked into the program's own module, that skips the program's
// globals too and the pass finds less, never more.
//
// No allocation, no stdio, no loader lock (/proc/self/maps is read with open and read): it runs
// while the heap is frozen.

#include "holder_scan.h"
#include "lg_internal.h"

#ifdef __linux__

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__aarch64__)
/// The address bits of a word (the top byte may hold spare bits), as the holder scan masks them.
#define LG_STATIC_POINTER_MASK 0x00FFFFFFFFFFFFFFull
#else
#define LG_STATIC_POINTER_MASK (~(uintptr_t)0)
#endif

#define LG_STATIC_MAPS_BYTES (1024u * 1024u)
#define LG_STATIC_CHUNK (64u * 1024u)

/// /proc/self/maps, and the read buffer. Static: no allocation while frozen; the module holding them
/// is never read.
static char lg_static_maps[LG_STATIC_MAPS_BYTES];
static uintptr_t lg_static_words[LG_STATIC_CHUNK / sizeof(uintptr_t)];

/// The candidate holding `value` (ranges ascending, not overlapping), or -1.
static long lg_static_candidate(const lg_range *candidates, size_t count, uintptr_t value) {
    size_t low = 0;
    size_t high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (candidates[middle].end <= value) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low < count && candidates[low].start <= value ? (long)low : -1;
}

/// Reads `[start, end)` a chunk at a time and marks the candidates its words point into.
static size_t lg_static_read(uintptr_t start, uintptr_t end, const lg_range *candidates, size_t count, uint8_t *held,
                             uint64_t *bytes) {
    size_t marked = 0;
    uintptr_t low = candidates[0].start;
    uintptr_t high = candidates[count - 1].end;
    pid_t self = getpid();
    for (uintptr_t at = start; at < end; at += LG_STATIC_CHUNK) {
        size_t length = end - at < LG_STATIC_CHUNK ? end - at : LG_STATIC_CHUNK;
        struct iovec local = {lg_static_words, length};
        struct iovec remote = {(void *)at, length};
        ssize_t got = process_vm_readv(self, &local, 1, &remote, 1, 0);
        if (got <= 0) {
            continue;
        }
        *bytes += (uint64_t)got;
        size_t words = (size_t)got / sizeof(uintptr_t);
        for (size_t index = 0; index < words; index++) {
            uintptr_t value = lg_static_words[index] & LG_STATIC_POINTER_MASK;
            if (value < low || value >= high) {
                continue;
            }
            long candidate = lg_static_candidate(candidates, count, value);
            if (candidate >= 0 && !held[candidate]) {
                held[candidate] = 1;
                marked++;
            }
        }
    }
    return marked;
}

/// Reads the writable PT_LOAD segments of the ELF module whose header is mapped at `header_address`
/// (its mapping of file offset 0); returns how many candidates they marked.
static size_t lg_static_module(uintptr_t header_address, const lg_range *candidates, size_t count, uint8_t *held,
                               uint64_t *bytes) {
    Elf64_Ehdr header;
    struct iovec local = {&header, sizeof header};
    struct iovec remote = {(void *)header_address, sizeof header};
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)sizeof header ||
        memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
        header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 || header.e_phnum > 64) {
        return 0;
    }
    Elf64_Phdr programs[64];
    size_t length = header.e_phnum * sizeof(Elf64_Phdr);
    local = (struct iovec){programs, length};
    remote = (struct iovec){(void *)(header_address + header.e_phoff), length};
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)length) {
        return 0;
    }
    // The load bias: where the segment of file offset 0 is, less its link-time address (0 for an
    // executable linked at a fixed address).
    uintptr_t bias = 0;
    if (header.e_type == ET_DYN) {
        for (unsigned index = 0; index < header.e_phnum; index++) {
            if (programs[index].p_type == PT_LOAD && programs[index].p_offset == 0) {
                bias = header_address - (programs[index].p_vaddr & ~(uintptr_t)4095);
                break;
            }
        }
    }
    size_t marked = 0;
    for (unsigned index = 0; index < header.e_phnum && marked < count; index++) {
        const Elf64_Phdr *segment = &programs[index];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W) == 0 || segment->p_memsz == 0) {
            continue;
        }
        uintptr_t start = (bias + segment->p_vaddr) & ~(uintptr_t)7;
        marked += lg_static_read(start, bias + segment->p_vaddr + segment->p_memsz, candidates, count, held, bytes);
    }
    return marked;
}

long lg_static_holders(const lg_range *candidates, size_t count, const void *const *skip_modules, size_t skip_count,
                       uint8_t *held, uint64_t *bytes_read) {
    *bytes_read = 0;
    if (count == 0) {
        return 0;
    }
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    size_t used = 0;
    for (;;) {
        ssize_t got = read(fd, lg_static_maps + used, LG_STATIC_MAPS_BYTES - 1 - used);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            break;
        }
        used += (size_t)got;
        if (used >= LG_STATIC_MAPS_BYTES - 1) {
            close(fd);
            return -1;
        }
    }
    close(fd);
    lg_static_maps[used] = 0;

    // The paths of the modules not to read: those of the mappings holding `skip_modules`.
    const char *skipped[8];
    size_t skipped_lengths[8];
    size_t skipped_count = 0;
    for (const char *cursor = lg_static_maps; *cursor != 0;) {
        uintptr_t start = lg_scan_parse_hex(&cursor);
        cursor += *cursor == '-';
        uintptr_t end = lg_scan_parse_hex(&cursor);
        const char *line_end = strchr(cursor, '\n');
        if (line_end == NULL) {
            line_end = cursor + strlen(cursor);
        }
        const char *path = memchr(cursor, '/', (size_t)(line_end - cursor));
        for (size_t index = 0; index < skip_count && path != NULL && skipped_count < 8; index++) {
            uintptr_t address = (uintptr_t)skip_modules[index];
            if (address >= start && address < end) {
                skipped[skipped_count] = path;
                skipped_lengths[skipped_count++] = (size_t)(line_end - path);
            }
        }
        cursor = *line_end ? line_end + 1 : line_end;
    }

    // Each module once, at its mapping of file offset 0 (its ELF header): its writable PT_LOAD
    // segments, `.data` through `.bss`, exactly as the program headers give them.
    size_t marked = 0;
    for (const char *cursor = lg_static_maps; *cursor != 0 && marked < count;) {
        uintptr_t start = lg_scan_parse_hex(&cursor);
        cursor += *cursor == '-';
        lg_scan_parse_hex(&cursor);
        cursor += *cursor == ' ';
        const char *line_end = strchr(cursor, '\n');
        if (line_end == NULL) {
            line_end = cursor + strlen(cursor);
        }
        bool readable = cursor[0] == 'r';
        cursor += 5;  // "rwxp "
        uintptr_t offset = cursor < line_end ? lg_scan_parse_hex(&cursor) : 1;
        const char *path = memchr(cursor, '/', (size_t)(line_end - cursor));
        size_t path_length = path ? (size_t)(line_end - path) : 0;
        bool skip = path == NULL || offset != 0 || !readable;
        for (size_t index = 0; index < skipped_count && !skip; index++) {
            skip = path_length == skipped_lengths[index] && memcmp(path, skipped[index], path_length) == 0;
        }
        cursor = *line_end ? line_end + 1 : line_end;
        if (!skip) {
            marked += lg_static_module(start, candidates, count, held, bytes_read);
        }
    }
    return (long)marked;
}

#else

long lg_static_holders(const lg_range *candidates, size_t count, const void *const *skip_modules, size_t skip_count,
                       uint8_t *held, uint64_t *bytes_read) {
    (void)candidates;
    (void)count;
    (void)skip_modules;
    (void)skip_count;
    (void)held;
    *bytes_read = 0;
    return -1;
}

#endif
