// The conservative holder scan: is there any word in the process, outside what the heap walk read
// exactly, that could be a reference to one of a few candidate objects? Only used to *add* proof
// that an object with unexplained retains is referenced from nowhere (an orphan); see
// docs/how-it-works.md, "Orphaned retains".
//
// While the scan reads memory every other thread is stopped: a realtime signal is sent to each
// thread in /proc/self/task; its handler runs on the thread's own stack (no SA_ONSTACK), so the
// kernel's signal frame (all general-purpose and vector registers at the interruption) lies on that
// stack, below the interrupted frames; the handler records its own stack address and waits on a
// futex. The stack is then read from that address up, which covers the registers, the red zone and
// every live frame, and nothing below (dead frames). libdispatch's worker threads block every signal
// but the synchronous ones (SIGILL, SIGTRAP, SIGFPE, SIGBUS, SIGSEGV, SIGSYS, SIGPIPE): a thread whose
// mask (SigBlk in /proc/self/task/TID/status) blocks the realtime signal is sent SIGSYS instead,
// whose handler is chained: any SIGSYS that is not the scan's own request goes to the program's
// previous disposition. Threads neither signal can reach make the scan abstain: nothing is proven,
// so nothing is reported.
//
// Memory is read with process_vm_readv on the process itself: a mapping that disappears meanwhile
// (it cannot, with every thread stopped, but the kernel may refuse a page) yields an error, never a
// fault. Nothing here allocates or takes a lock while the threads are stopped: buffers are mmapped
// up front and /proc is read with raw system calls.

#include "lg_internal.h"

#ifdef __linux__

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/// Threads the scan can stop at once; more make it abstain.
#define LG_SCAN_MAX_THREADS 4096u
/// How long the scan waits for every thread to stop before it abstains.
#define LG_SCAN_STOP_TIMEOUT_NS (2ull * 1000 * 1000 * 1000)
/// Milliseconds a stopped thread waits for the resume at most; a scan that lasts longer abstains.
#define LG_SCAN_WAIT_LIMIT 5000u
/// Bytes read per process_vm_readv call.
#define LG_SCAN_CHUNK (1u << 20)
/// Room for /proc/self/maps.
#define LG_SCAN_MAPS_BYTES (8u << 20)
/// Pointer bits Swift may use for tags (spare bits of a heap object reference, bridge-object flags):
/// the top byte on x86_64 and arm64 (where the hardware ignores it). The three low bits need no mask:
/// a word pointing anywhere inside a candidate counts.
#define LG_SCAN_POINTER_MASK 0x00FFFFFFFFFFFFFFull

typedef struct lg_scan_thread {
    _Atomic int tid;
    _Atomic uint32_t generation;
    _Atomic int stopped;
    _Atomic uintptr_t low;
} lg_scan_thread;

static lg_scan_thread *lg_scan_threads;
static _Atomic uint32_t lg_scan_generation;
static _Atomic uint32_t lg_scan_resumed;
/// The generation of the last scan a stopped thread left before it was resumed (it waited too long).
static _Atomic uint32_t lg_scan_left_early;
static _Atomic int lg_scan_signal;
static _Atomic int lg_scan_fallback_installed;
/// The program's SIGSYS disposition before the fallback handler was chained in front of it.
static struct sigaction lg_scan_previous_sys;
static char *lg_scan_maps;
static unsigned char *lg_scan_buffer;

static uintptr_t lg_parse_hex(const char **cursor);

static long lg_futex(_Atomic uint32_t *word, int op, uint32_t value) {
    return syscall(SYS_futex, (uint32_t *)word, op, value, NULL, NULL, 0);
}

static uint64_t lg_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

/// The stop handler: only acts on the scan's own signal of the current generation; records where
/// this thread's stack begins (its registers are in the signal frame above) and waits for resume.
/// Hands a SIGSYS that is not the scan's own to the program's previous disposition.
static void lg_scan_forward_sys(int signal_number, siginfo_t *info, void *context) {
    struct sigaction *previous = &lg_scan_previous_sys;
    if ((previous->sa_flags & SA_SIGINFO) != 0 && previous->sa_sigaction != NULL &&
        (void *)previous->sa_sigaction != (void *)SIG_IGN && (void *)previous->sa_sigaction != (void *)SIG_DFL) {
        previous->sa_sigaction(signal_number, info, context);
    } else if ((previous->sa_flags & SA_SIGINFO) == 0 && previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
        previous->sa_handler(signal_number);
    } else if (previous->sa_handler == SIG_DFL) {
        // The default action (terminate with a core dump): restore it and deliver the signal again,
        // once this handler returns and unblocks it.
        sigaction(signal_number, previous, NULL);
        syscall(SYS_tgkill, getpid(), (int)syscall(SYS_gettid), signal_number);
    }
}

static void lg_scan_handler(int signal_number, siginfo_t *info, void *context) {
    int saved_errno = errno;
    uint32_t generation = atomic_load_explicit(&lg_scan_generation, memory_order_acquire);
    bool from_scan = info != NULL && info->si_code == SI_TKILL && info->si_pid == getpid() && lg_scan_threads != NULL;
    int tid = (int)syscall(SYS_gettid);
    lg_scan_thread *slot = NULL;
    for (unsigned i = 0; from_scan && i < LG_SCAN_MAX_THREADS; i++) {
        int slot_tid = atomic_load_explicit(&lg_scan_threads[i].tid, memory_order_acquire);
        if (slot_tid == 0) {
            break;
        }
        if (slot_tid == tid) {
            slot = &lg_scan_threads[i];
            break;
        }
    }
    if (slot == NULL) {
        // Not a stop request of the scan: SIGSYS goes on to the program's disposition.
        if (signal_number == SIGSYS) {
            lg_scan_forward_sys(signal_number, info, context);
        }
        errno = saved_errno;
        return;
    }
    if (atomic_load_explicit(&slot->generation, memory_order_acquire) == generation &&
        atomic_load_explicit(&lg_scan_resumed, memory_order_acquire) != generation) {
        volatile uintptr_t marker = 0;
        atomic_store_explicit(&slot->low, (uintptr_t)&marker, memory_order_relaxed);
        atomic_store_explicit(&slot->stopped, 1, memory_order_release);
        // Wait for the resume, comparing against the value just checked (no lost wake-up), in slices
        // of 10 ms and never longer than LG_SCAN_WAIT_LIMIT: a thread never stays stopped for good.
        // A thread that leaves before the resume says so, and that scan abstains.
        for (unsigned slices = 0;; slices++) {
            uint32_t seen = atomic_load_explicit(&lg_scan_resumed, memory_order_acquire);
            if (seen == generation) {
                break;
            }
            if (slices >= LG_SCAN_WAIT_LIMIT / 10) {
                atomic_store_explicit(&lg_scan_left_early, generation, memory_order_release);
                break;
            }
            struct timespec slice = {0, 10 * 1000 * 1000};
            syscall(SYS_futex, (uint32_t *)&lg_scan_resumed, FUTEX_WAIT_PRIVATE, seen, &slice, NULL, 0);
        }
    }
    // A request that arrives after its scan ended is dropped.
    errno = saved_errno;
}

/// Installs the stop handler once, for good (a signal still pending for a thread that did not stop
/// in time must never meet the default action, which ends the process). Returns the signal, or 0
/// when the program already handles it.
static int lg_scan_install(void) {
    int installed = atomic_load(&lg_scan_signal);
    if (installed != 0) {
        return installed;
    }
    if (lg_scan_threads == NULL) {
        void *slots = mmap(NULL, sizeof(lg_scan_thread) * LG_SCAN_MAX_THREADS, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        void *maps = mmap(NULL, LG_SCAN_MAPS_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        void *buffer = mmap(NULL, LG_SCAN_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (slots == MAP_FAILED || maps == MAP_FAILED || buffer == MAP_FAILED) {
            return 0;
        }
        lg_scan_maps = maps;
        lg_scan_buffer = buffer;
        lg_scan_threads = slots;
    }
    int signal_number = SIGRTMAX - 6;
    struct sigaction previous;
    if (sigaction(signal_number, NULL, &previous) != 0 || previous.sa_handler != SIG_DFL) {
        return 0;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = lg_scan_handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&action.sa_mask);
    if (sigaction(signal_number, &action, NULL) != 0) {
        return 0;
    }
    atomic_store(&lg_scan_signal, signal_number);
    return signal_number;
}

/// Chains the handler in front of the program's SIGSYS disposition, once. Returns false when that
/// cannot be done.
static bool lg_scan_install_fallback(void) {
    if (atomic_load(&lg_scan_fallback_installed)) {
        return true;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = lg_scan_handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&action.sa_mask);
    if (sigaction(SIGSYS, NULL, &lg_scan_previous_sys) != 0 || sigaction(SIGSYS, &action, NULL) != 0) {
        return false;
    }
    atomic_store(&lg_scan_fallback_installed, 1);
    return true;
}

/// Whether thread `tid` blocks `signal_number` (SigBlk in /proc/self/task/TID/status). Unknown
/// counts as blocked.
static bool lg_scan_thread_blocks(int tid, int signal_number) {
    char path[64];
    char digits[16];
    int length = 0;
    for (int value = tid; value > 0 && length < 15; value /= 10) {
        digits[length++] = (char)('0' + value % 10);
    }
    const char *prefix = "/proc/self/task/";
    size_t used = strlen(prefix);
    memcpy(path, prefix, used);
    while (length > 0) {
        path[used++] = digits[--length];
    }
    memcpy(path + used, "/status", 8);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return true;
    }
    char buffer[4096];
    ssize_t got = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (got <= 0) {
        return true;
    }
    buffer[got] = 0;
    const char *line = strstr(buffer, "SigBlk:");
    if (line == NULL) {
        return true;
    }
    line += 7;
    while (*line == ' ' || *line == '\t') {
        line++;
    }
    uint64_t mask = lg_parse_hex(&line);
    return (mask >> (signal_number - 1)) & 1u;
}

/// Calls `visit` with every thread id of the process but the caller's. Raw getdents64: no malloc.
/// Returns false when /proc/self/task cannot be read.
static bool lg_scan_each_thread(int self, bool (*visit)(int tid, void *context), void *context) {
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    char buffer[4096] __attribute__((aligned(8)));
    bool ok = true;
    for (;;) {
        long length = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
        if (length < 0) {
            ok = false;
            break;
        }
        if (length == 0) {
            break;
        }
        for (long offset = 0; offset < length;) {
            struct dirent64 *entry = (struct dirent64 *)(buffer + offset);
            offset += entry->d_reclen;
            int tid = 0;
            const char *name = entry->d_name;
            if (*name < '0' || *name > '9') {
                continue;
            }
            for (; *name >= '0' && *name <= '9'; name++) {
                tid = tid * 10 + (*name - '0');
            }
            if (tid != self && !visit(tid, context)) {
                ok = false;
            }
        }
    }
    close(fd);
    return ok;
}

typedef struct lg_scan_threads_state {
    unsigned count;
    bool unknown;
} lg_scan_threads_state;

static bool lg_scan_add_thread(int tid, void *context) {
    lg_scan_threads_state *state = context;
    if (state->count >= LG_SCAN_MAX_THREADS - 1) {
        return false;
    }
    lg_scan_thread *slot = &lg_scan_threads[state->count++];
    atomic_store(&slot->stopped, 0);
    atomic_store(&slot->low, 0);
    atomic_store(&slot->tid, tid);
    return true;
}

static bool lg_scan_check_thread(int tid, void *context) {
    lg_scan_threads_state *state = context;
    for (unsigned i = 0; i < state->count; i++) {
        if (atomic_load(&lg_scan_threads[i].tid) == tid) {
            return true;
        }
    }
    state->unknown = true;
    return true;
}

/// What one scan compares against and writes to.
typedef struct lg_scan_job {
    const lg_range *candidates;
    size_t candidate_count;
    uintptr_t low;
    uintptr_t high;
    const uintptr_t *objects;
    size_t object_count;
    uint8_t *held;
    uintptr_t *held_at;
    lg_holder_hit *hits;
    size_t hit_capacity;
    size_t hit_count;
    const lg_range *excluded;
    size_t excluded_count;
    lg_scan_stats stats;
    pid_t pid;
    bool failed;
} lg_scan_job;

/// The candidate containing `value`, or -1.
static long lg_scan_candidate(const lg_scan_job *job, uintptr_t value) {
    size_t low = 0;
    size_t high = job->candidate_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (job->candidates[middle].end <= value) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (low < job->candidate_count && job->candidates[low].start <= value) {
        return (long)low;
    }
    return -1;
}

/// The start of the tracked object whose memory holds `address`, or 0.
static uintptr_t lg_scan_tracked_object(const lg_scan_job *job, uintptr_t address) {
    size_t low = 0;
    size_t high = job->object_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (job->objects[middle] <= address) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (low == 0) {
        return 0;
    }
    uintptr_t object = job->objects[low - 1];
    lg_record record;
    if (lg_frozen_record(object, &record) && address < object + record.size) {
        return object;
    }
    return 0;
}

static void lg_scan_words(lg_scan_job *job, const unsigned char *bytes, size_t length, uintptr_t address) {
    const uint64_t *words = (const uint64_t *)bytes;
    size_t count = length / 8;
    for (size_t i = 0; i < count; i++) {
        uintptr_t value = (uintptr_t)(words[i] & LG_SCAN_POINTER_MASK);
        if (value < job->low || value >= job->high) {
            continue;
        }
        long candidate = lg_scan_candidate(job, value);
        if (candidate < 0 || job->held[candidate]) {
            continue;
        }
        uintptr_t location = address + i * 8;
        uintptr_t holder = lg_scan_tracked_object(job, location);
        if (holder == 0) {
            job->held[candidate] = 1;
            if (job->held_at != NULL) {
                job->held_at[candidate] = location;
            }
        } else if (holder != job->candidates[candidate].start) {
            if (job->hit_count < job->hit_capacity) {
                job->hits[job->hit_count].candidate = (uint64_t)candidate;
                job->hits[job->hit_count].holder = holder;
                job->hit_count++;
            } else {
                job->held[candidate] = 1;
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
            job->stats.bytes += (uint64_t)got;
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

static uintptr_t lg_parse_hex(const char **cursor) {
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
static bool lg_scan_read_maps(void) {
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
static void lg_scan_mappings(lg_scan_job *job, const uintptr_t *markers, size_t marker_count) {
    const char *cursor = lg_scan_maps;
    while (*cursor != 0 && !job->failed) {
        uintptr_t start = lg_parse_hex(&cursor);
        if (*cursor == '-') {
            cursor++;
        }
        uintptr_t end = lg_parse_hex(&cursor);
        if (*cursor == ' ') {
            cursor++;
        }
        bool readable = cursor[0] == 'r';
        bool writable = cursor[0] != 0 && cursor[1] == 'w';
        const char *line_end = strchr(cursor, '\n');
        const char *name = line_end != NULL ? memchr(cursor, '[', (size_t)(line_end - cursor)) : NULL;
        bool special = name != NULL && (strncmp(name, "[vvar", 5) == 0 || strncmp(name, "[vsyscall]", 10) == 0);
        cursor = line_end != NULL ? line_end + 1 : cursor + strlen(cursor);
        if (!readable || !writable || special || end <= start) {
            continue;
        }
        uintptr_t from = start;
        for (size_t i = 0; i < marker_count; i++) {
            if (markers[i] >= start && markers[i] < end && (from == start || markers[i] < from)) {
                from = markers[i] & ~(uintptr_t)7;
            }
        }
        job->stats.mappings++;
        lg_scan_range(job, from, end);
    }
}

static void lg_sort_ranges(lg_range *ranges, size_t count) {
    for (size_t i = 1; i < count; i++) {
        lg_range value = ranges[i];
        size_t j = i;
        while (j > 0 && ranges[j - 1].start > value.start) {
            ranges[j] = ranges[j - 1];
            j--;
        }
        ranges[j] = value;
    }
}

static uintptr_t lg_scan_stack_start(int tid, uintptr_t low);

__attribute__((noinline)) static int lg_scan_stopped(lg_scan_job *job, unsigned thread_count, lg_range *excluded,
                                                     size_t excluded_count) {
    // Spill this thread's callee-saved registers into this frame, which the stack read covers.
    __builtin_unwind_init();
    volatile uintptr_t marker = 0;
    uintptr_t markers[LG_SCAN_MAX_THREADS];
    size_t marker_count = 0;
    markers[marker_count++] = lg_scan_stack_start((int)syscall(SYS_gettid), (uintptr_t)&marker);
    for (unsigned i = 0; i < thread_count; i++) {
        uintptr_t low = atomic_load(&lg_scan_threads[i].low);
        if (low != 0) {
            markers[marker_count++] = lg_scan_stack_start(atomic_load(&lg_scan_threads[i].tid), low);
        }
    }
    if (!lg_scan_read_maps()) {
        return LG_SCAN_ABSTAINED;
    }
    lg_sort_ranges(excluded, excluded_count);
    job->excluded = excluded;
    job->excluded_count = excluded_count;
    lg_scan_mappings(job, markers, marker_count);
    return job->failed ? LG_SCAN_ABSTAINED : LG_SCAN_OK;
}

int lg_scan_holders(const lg_range *candidates, size_t candidate_count, const uintptr_t *objects,
                    size_t object_count, const lg_range *excluded, size_t excluded_count, uint8_t *held,
                    uintptr_t *held_at, lg_holder_hit *hits, size_t hit_capacity, size_t *hit_count,
                    lg_scan_stats *stats) {
    *hit_count = 0;
    memset(stats, 0, sizeof *stats);
    if (candidate_count == 0) {
        return LG_SCAN_OK;
    }
    int signal_number = lg_scan_install();
    if (signal_number == 0 || excluded_count > 64) {
        return LG_SCAN_ABSTAINED;
    }
    // Ranges never to read: the caller's, the recorder's tables, the scan's own buffers.
    lg_range skip[64 + 4 + LG_MAP_TOP_COUNT / 4096];
    size_t skip_count = 0;
    for (size_t i = 0; i < excluded_count; i++) {
        skip[skip_count++] = excluded[i];
    }
    skip[skip_count++] = (lg_range){(uintptr_t)lg_scan_maps, (uintptr_t)lg_scan_maps + LG_SCAN_MAPS_BYTES};
    skip[skip_count++] = (lg_range){(uintptr_t)lg_scan_buffer, (uintptr_t)lg_scan_buffer + LG_SCAN_CHUNK};
    size_t table_first = skip_count;
    for (uintptr_t top = 0; top < LG_MAP_TOP_COUNT; top++) {
        lg_map_region *region = atomic_load_explicit(&lg_state.map[top], memory_order_relaxed);
        if (region != NULL) {
            if (skip_count - table_first >= LG_MAP_TOP_COUNT / 4096) {
                return LG_SCAN_ABSTAINED;
            }
            skip[skip_count++] = (lg_range){(uintptr_t)region, (uintptr_t)region + sizeof(lg_map_region)};
        }
    }

    // The job holds candidate addresses (its bounds): it lives in static memory the scan skips.
    static lg_scan_job job;
    memset(&job, 0, sizeof job);
    skip[skip_count++] = (lg_range){(uintptr_t)&job, (uintptr_t)(&job + 1)};
    job.candidates = candidates;
    job.candidate_count = candidate_count;
    job.low = candidates[0].start;
    job.high = candidates[candidate_count - 1].end;
    job.objects = objects;
    job.object_count = object_count;
    job.held = held;
    job.held_at = held_at;
    job.hits = hits;
    job.hit_capacity = hit_capacity;
    job.pid = getpid();
    memset(held, 0, candidate_count);

    // Stop every other thread.
    int self = (int)syscall(SYS_gettid);
    memset(lg_scan_threads, 0, sizeof(lg_scan_thread) * LG_SCAN_MAX_THREADS);
    lg_scan_threads_state threads = {0, false};
    if (!lg_scan_each_thread(self, lg_scan_add_thread, &threads)) {
        return LG_SCAN_ABSTAINED;
    }
    uint32_t generation = atomic_load(&lg_scan_generation) + 1;
    if (generation == 0) {
        generation = 1;
    }
    for (unsigned i = 0; i < threads.count; i++) {
        atomic_store(&lg_scan_threads[i].generation, generation);
    }
    atomic_store_explicit(&lg_scan_generation, generation, memory_order_release);
    uint64_t stop_start = lg_now_ns();
    bool stopped = true;
    for (unsigned i = 0; i < threads.count; i++) {
        int tid = atomic_load(&lg_scan_threads[i].tid);
        int signal_for_thread = signal_number;
        if (lg_scan_thread_blocks(tid, signal_number)) {
            // A libdispatch worker: it leaves SIGSYS unblocked. A thread that blocks both may be in
            // glibc's start or exit path, where every signal is blocked for a moment: wait up to 50 ms
            // for it to be gone or to take a signal again.
            bool gone = false;
            for (int tries = 0; tries < 50; tries++) {
                if (syscall(SYS_tgkill, job.pid, tid, 0) != 0 && errno == ESRCH) {
                    gone = true;
                    break;
                }
                if (!lg_scan_thread_blocks(tid, signal_number) || !lg_scan_thread_blocks(tid, SIGSYS)) {
                    break;
                }
                struct timespec pause = {0, 1000 * 1000};
                nanosleep(&pause, NULL);
            }
            if (gone) {
                atomic_store(&lg_scan_threads[i].stopped, 2);
                continue;
            }
            if (lg_scan_thread_blocks(tid, signal_number)) {
                if (lg_scan_thread_blocks(tid, SIGSYS) || !lg_scan_install_fallback()) {
                    stopped = false;
                    break;
                }
                signal_for_thread = SIGSYS;
            }
        }
        if (syscall(SYS_tgkill, job.pid, tid, signal_for_thread) != 0) {
            atomic_store(&lg_scan_threads[i].stopped, errno == ESRCH ? 2 : 0);
            if (errno != ESRCH) {
                stopped = false;
            }
        }
    }
    while (stopped) {
        bool all = true;
        for (unsigned i = 0; i < threads.count; i++) {
            if (atomic_load_explicit(&lg_scan_threads[i].stopped, memory_order_acquire) == 0) {
                all = false;
                break;
            }
        }
        if (all) {
            break;
        }
        if (lg_now_ns() - stop_start > LG_SCAN_STOP_TIMEOUT_NS) {
            // A thread that exited meanwhile is no holder; any other did not stop.
            for (unsigned i = 0; i < threads.count; i++) {
                if (atomic_load(&lg_scan_threads[i].stopped) == 0 &&
                    !(syscall(SYS_tgkill, job.pid, atomic_load(&lg_scan_threads[i].tid), 0) != 0 && errno == ESRCH)) {
                    stopped = false;
                }
            }
            break;
        }
        struct timespec pause = {0, 20 * 1000};
        nanosleep(&pause, NULL);
    }
    int result = LG_SCAN_ABSTAINED;
    if (stopped) {
        // A thread created meanwhile was not stopped: abstain.
        lg_scan_threads_state check = threads;
        if (lg_scan_each_thread(self, lg_scan_check_thread, &check) && !check.unknown) {
            result = lg_scan_stopped(&job, threads.count, skip, skip_count);
            if (atomic_load_explicit(&lg_scan_left_early, memory_order_acquire) == generation) {
                result = LG_SCAN_ABSTAINED;  // a thread ran again before the scan ended
            }
        }
    }
    atomic_store_explicit(&lg_scan_resumed, generation, memory_order_release);
    lg_futex(&lg_scan_resumed, FUTEX_WAKE_PRIVATE, INT32_MAX);
    job.stats.threads = threads.count;
    job.stats.stopped_ns = lg_now_ns() - stop_start;
    *stats = job.stats;
    *hit_count = job.hit_count;
    return result;
}

size_t lg_read_memory(uintptr_t address, void *buffer, size_t length) {
    struct iovec local = {buffer, length};
    struct iovec remote = {(void *)address, length};
    ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return got > 0 ? (size_t)got : 0;
}

#else

size_t lg_read_memory(uintptr_t address, void *buffer, size_t length) {
    (void)address, (void)buffer, (void)length;
    return 0;
}

int lg_scan_holders(const lg_range *candidates, size_t candidate_count, const uintptr_t *objects,
                    size_t object_count, const lg_range *excluded, size_t excluded_count, uint8_t *held,
                    uintptr_t *held_at, lg_holder_hit *hits, size_t hit_capacity, size_t *hit_count,
                    lg_scan_stats *stats) {
    (void)candidates, (void)candidate_count, (void)objects, (void)object_count, (void)excluded;
    (void)excluded_count, (void)held, (void)held_at, (void)hits, (void)hit_capacity;
    *hit_count = 0;
    (void)stats;
    return LG_SCAN_ABSTAINED;
}

#endif /* __linux__ */

__attribute__((noinline)) void lg_scan_scrub_stack(void) {
    // Zero the stack below the caller's frame: dead frames there may still hold copies of pointers
    // the program has dropped, which the scan would read as holders once later frames reuse the
    // memory without writing every slot (a missed orphan). 64 KiB covers the check's own frames.
    volatile unsigned char area[64 * 1024];
    memset((unsigned char *)area, 0, sizeof area);
    __asm__ volatile("" : : "r"(area) : "memory");
}

// Check-entry marks (lg_scan_enter_check), one per thread inside a check: the thread, how deeply
// it is nested, the frame address it recorded, and the callee-saved registers of that moment (read by
// the scan as part of this module's bss, like any other memory). A thread that finds no free slot
// sets no mark: its whole stack is read (held, never orphaned).
#define LG_SCAN_ENTRY_SLOTS 64
typedef struct lg_scan_entry {
    _Atomic int tid;
    int depth;
    _Atomic uintptr_t frame;
    volatile uintptr_t registers[8];
} lg_scan_entry;
static lg_scan_entry lg_scan_entries[LG_SCAN_ENTRY_SLOTS];

static lg_scan_entry *lg_scan_entry_of(int tid) {
    for (int i = 0; i < LG_SCAN_ENTRY_SLOTS; i++) {
        if (atomic_load(&lg_scan_entries[i].tid) == tid) {
            return &lg_scan_entries[i];
        }
    }
    return NULL;
}

__attribute__((noinline)) void lg_scan_enter_check(void) {
    int tid = (int)syscall(SYS_gettid);
    lg_scan_entry *entry = lg_scan_entry_of(tid);
    if (entry != NULL) {
        entry->depth++;
        return;
    }
    for (int i = 0; i < LG_SCAN_ENTRY_SLOTS && entry == NULL; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&lg_scan_entries[i].tid, &free_slot, tid)) {
            entry = &lg_scan_entries[i];
        }
    }
    if (entry == NULL) {
        return;
    }
    entry->depth = 1;
#if defined(__x86_64__)
    uintptr_t rbx, rbp, r12, r13, r14, r15;
    __asm__ volatile("mov %%rbx, %0\n\tmov %%rbp, %1\n\tmov %%r12, %2\n\tmov %%r13, %3\n\tmov %%r14, %4\n\tmov %%r15, %5"
                     : "=m"(rbx), "=m"(rbp), "=m"(r12), "=m"(r13), "=m"(r14), "=m"(r15));
    entry->registers[0] = rbx;
    entry->registers[1] = rbp;
    entry->registers[2] = r12;
    entry->registers[3] = r13;
    entry->registers[4] = r14;
    entry->registers[5] = r15;
#elif defined(__aarch64__)
    uintptr_t x[8];
    __asm__ volatile("stp x19, x20, [%0]\n\tstp x21, x22, [%0, #16]\n\tstp x23, x24, [%0, #32]\n\tstp x25, x26, [%0, #48]"
                     : : "r"(x) : "memory");
    for (int i = 0; i < 8; i++) {
        entry->registers[i] = x[i];
    }
#else
    return;  // registers unknown: no frame recorded, the whole stack is read
#endif
    // The caller's frame begins above this one: reading from here up covers it and every caller.
    atomic_store(&entry->frame, (uintptr_t)__builtin_frame_address(0));
}

void lg_scan_leave_check(void) {
    lg_scan_entry *entry = lg_scan_entry_of((int)syscall(SYS_gettid));
    if (entry == NULL || --entry->depth > 0) {
        return;
    }
    atomic_store(&entry->frame, 0);
    for (int i = 0; i < 8; i++) {
        entry->registers[i] = 0;
    }
    atomic_store(&entry->tid, 0);
}

/// Where the scan reads thread `tid`'s stack from, given the lowest live address `low` it knows (the
/// scanning thread's frame, a stopped thread's stack pointer): the thread's check-entry mark when it
/// set one above `low` in the same stack, else `low`.
static uintptr_t lg_scan_stack_start(int tid, uintptr_t low) {
    lg_scan_entry *entry = lg_scan_entry_of(tid);
    uintptr_t frame = entry != NULL ? atomic_load(&entry->frame) : 0;
    // A mark more than 8 MiB above is not this stack's (a fiber, a switched stack): read everything.
    return frame > low && frame - low < (8u << 20) ? frame : low;
}
