// Where the kernel keeps the program's words, read for the holder scan (holder_scan.h) while every
// other thread is stopped. A pointer the kernel holds for a thread that will get it back is a holder
// like any word in memory:
//
// - epoll interest lists: `/proc/self/fdinfo/N` of an epoll descriptor shows each registration's
//   `epoll_event.data` (`data: HEX`);
// - the bytes in flight in the program's pipes, read without consuming them: `tee(2)` duplicates a
//   pipe's contents into a scratch pipe (a pipe only written here is opened for reading through
//   `/proc/self/fd/N`), which is then read;
// - the receive queues of the program's sockets, read with `MSG_PEEK` (with `SO_PEEK_OFF` set for the
//   time of the read, so every datagram or the whole stream is seen, then restored);
// - POSIX timers' `sigev_value` (`/proc/self/timers`, `signal: N/HEX`) and eventfd counters
//   (`eventfd-count: HEX`).
//
// Bytes are compared at every offset, not only at word boundaries (a stream may carry a pointer after
// a header of any length). What can hold a pointer and cannot be read is listed as unread instead:
// bytes a socket still has to send (TCP), a UDP socket's queue (a peek could take an asynchronous error
// the program has not seen), in-flight io_uring and AIO requests, messages in a POSIX message queue,
// pending realtime signals (their values), a pipe or socket whose contents do not fit. Nothing here
// touches a file system (/proc only): a descriptor of an unreachable NFS server must not hang the scan.
// The caller then proves nothing about any candidate, and says why.

#include "holder_scan.h"

#ifdef __linux__

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Words the kernel keeps (epoll data, timer values, eventfd counters) one scan can hold.
#define LG_KERNEL_WORD_CAPACITY 65536u
/// Bytes of pipe and socket contents one scan can hold, and their regions.
#define LG_KERNEL_BYTES (16u << 20)
#define LG_KERNEL_REGION_CAPACITY 4096u
/// Distinct pipes and sockets (by inode) one scan reads.
#define LG_KERNEL_INODE_CAPACITY 8192u
/// The largest pipe the scratch pipe is grown to (Linux's default `pipe-max-size`).
#define LG_KERNEL_PIPE_MAX (1u << 20)
#ifndef SO_PEEK_OFF
#define SO_PEEK_OFF 42
#endif
#ifndef SIOCOUTQNSD
#define SIOCOUTQNSD 0x894B
#endif

typedef struct lg_kernel_word {
    uint64_t value;
    uint32_t place;
    int32_t fd;
} lg_kernel_word;

typedef struct lg_kernel_region {
    size_t offset;
    size_t length;
    uint32_t place;
    int32_t fd;
} lg_kernel_region;

typedef struct lg_kernel_state {
    lg_kernel_word words[LG_KERNEL_WORD_CAPACITY];
    lg_kernel_region regions[LG_KERNEL_REGION_CAPACITY];
    uint64_t inodes[LG_KERNEL_INODE_CAPACITY];
    char text[4u << 20];
    size_t word_count;
    size_t region_count;
    size_t inode_count;
    size_t bytes_used;
    /// The ids of the POSIX message queue file systems' mounts (/proc/self/mountinfo).
    unsigned long mqueue_mounts[16];
    size_t mqueue_mount_count;
    /// A pipe nothing else uses, into which `tee` copies a pipe's contents.
    int scratch[2];
} lg_kernel_state;

static lg_kernel_state *lg_kernel;
static unsigned char *lg_kernel_bytes;

bool lg_scan_kernel_prepare(void) {
    if (lg_kernel != NULL) {
        return true;
    }
    void *state =
        mmap(NULL, sizeof(lg_kernel_state), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *bytes =
        mmap(NULL, LG_KERNEL_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (state == MAP_FAILED || bytes == MAP_FAILED) {
        return false;
    }
    lg_kernel = state;
    lg_kernel_bytes = bytes;
    lg_kernel->scratch[0] = -1;
    lg_kernel->scratch[1] = -1;
    return true;
}

size_t lg_scan_kernel_buffers(lg_range *out) {
    out[0] = (lg_range){(uintptr_t)lg_kernel, (uintptr_t)lg_kernel + sizeof(lg_kernel_state)};
    out[1] = (lg_range){(uintptr_t)lg_kernel_bytes, (uintptr_t)lg_kernel_bytes + LG_KERNEL_BYTES};
    return 2;
}

/// Lists a place that can hold pointers and was not read.
static void lg_kernel_unread(lg_scan_request *request, uint32_t place, int fd, uint64_t bytes) {
    if (request->unread != NULL && request->unread_count < request->unread_capacity) {
        request->unread[request->unread_count] = (lg_kernel_place){place, fd, bytes};
    }
    request->unread_count++;
}

static void lg_kernel_add_word(lg_scan_request *request, uint64_t value, uint32_t place, int fd) {
    if (lg_kernel->word_count >= LG_KERNEL_WORD_CAPACITY) {
        lg_kernel_unread(request, place, fd, 8);
        return;
    }
    lg_kernel->words[lg_kernel->word_count++] = (lg_kernel_word){value, place, fd};
}

/// Whether the pipe or socket `inode` was read already (a descriptor duplicated, both ends of a pipe);
/// remembers it otherwise.
static bool lg_kernel_seen(uint64_t inode) {
    for (size_t i = 0; i < lg_kernel->inode_count; i++) {
        if (lg_kernel->inodes[i] == inode) {
            return true;
        }
    }
    if (lg_kernel->inode_count < LG_KERNEL_INODE_CAPACITY) {
        lg_kernel->inodes[lg_kernel->inode_count++] = inode;
    }
    return false;
}

/// `/proc/self/<what>` of descriptor `fd` (`fd/N`, `fdinfo/N`) into `path`.
static void lg_kernel_fd_path(char *path, const char *what, int fd) {
    size_t length = strlen(what);
    memcpy(path, what, length);
    length += lg_contract_write_decimal((unsigned long)fd, path + length);
    path[length] = 0;
}

/// Reads a /proc file into the state's text buffer (NUL-terminated); returns its length, or -1.
static long lg_kernel_read_text(const char *path) {
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    size_t used = 0;
    for (;;) {
        ssize_t got = read(fd, lg_kernel->text + used, sizeof lg_kernel->text - 1 - used);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            break;
        }
        used += (size_t)got;
        if (used >= sizeof lg_kernel->text - 1) {
            break;
        }
    }
    close(fd);
    lg_kernel->text[used] = 0;
    return (long)used;
}

/// Adds every hexadecimal value that follows `key` in the state's text as a word of `place`. Returns
/// false when the text filled its buffer (some lines were cut: the caller lists the place as unread).
static void lg_kernel_words_after(lg_scan_request *request, const char *key, uint32_t place, int fd) {
    size_t key_length = strlen(key);
    for (const char *cursor = lg_kernel->text; (cursor = strstr(cursor, key)) != NULL;) {
        cursor += key_length;
        while (*cursor == ' ' || *cursor == '\t') {
            cursor++;
        }
        uintptr_t value = lg_scan_parse_hex(&cursor);
        lg_kernel_add_word(request, value, place, fd);
    }
}

/// Reserves room for up to `wanted` bytes of contents; returns where they go (NULL when full).
static unsigned char *lg_kernel_room(size_t wanted, size_t *room) {
    if (lg_kernel->region_count >= LG_KERNEL_REGION_CAPACITY || lg_kernel->bytes_used >= LG_KERNEL_BYTES) {
        *room = 0;
        return NULL;
    }
    size_t left = LG_KERNEL_BYTES - lg_kernel->bytes_used;
    *room = wanted < left ? wanted : left;
    return lg_kernel_bytes + lg_kernel->bytes_used;
}

static void lg_kernel_add_region(size_t length, uint32_t place, int fd) {
    if (length == 0) {
        return;
    }
    lg_kernel->regions[lg_kernel->region_count++] = (lg_kernel_region){lg_kernel->bytes_used, length, place, fd};
    lg_kernel->bytes_used += length;
}

/// The bytes in pipe `fd`, duplicated with tee(2) into the scratch pipe and read from there.
static void lg_kernel_read_pipe(lg_scan_request *request, int fd) {
    int queued = 0;
    if (ioctl(fd, FIONREAD, &queued) != 0 || queued <= 0) {
        return;
    }
    int source = fd;
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_WRONLY) {
        // Only the write end is here: open the same pipe for reading (never blocks, consumes nothing).
        char path[48];
        lg_kernel_fd_path(path, "/proc/self/fd/", fd);
        source = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (source < 0) {
            lg_kernel_unread(request, LG_KERNEL_PIPE, fd, (uint64_t)queued);
            return;
        }
    }
    size_t room = 0;
    unsigned char *into = lg_kernel_room((size_t)queued, &room);
    size_t got = 0;
    if (into != NULL && (size_t)queued <= LG_KERNEL_PIPE_MAX) {
        int *scratch = lg_kernel->scratch;
        if (scratch[0] < 0 && syscall(SYS_pipe2, scratch, O_NONBLOCK | O_CLOEXEC) != 0) {
            scratch[0] = scratch[1] = -1;
        }
        if (scratch[0] >= 0 && fcntl(scratch[1], F_GETPIPE_SZ) < queued) {
            fcntl(scratch[1], F_SETPIPE_SZ, queued);
        }
        long teed = scratch[0] >= 0 ? tee(source, scratch[1], (size_t)queued, SPLICE_F_NONBLOCK) : -1;
        while (teed > 0 && got < (size_t)teed && got < room) {
            ssize_t part = read(scratch[0], into + got, room - got);
            if (part <= 0) {
                break;
            }
            got += (size_t)part;
        }
        // Whatever is left in the scratch pipe is drained into the void.
        unsigned char drain[256];
        while (scratch[0] >= 0 && read(scratch[0], drain, sizeof drain) > 0) {
        }
        memset(drain, 0, sizeof drain);
    }
    if (source != fd) {
        close(source);
    }
    lg_kernel_add_region(got, LG_KERNEL_PIPE, fd);
    if (got < (size_t)queued) {
        lg_kernel_unread(request, LG_KERNEL_PIPE, fd, (uint64_t)queued - got);
    }
}

/// The receive queue of socket `fd`, peeked from an offset that moves forward (SO_PEEK_OFF, restored
/// afterwards), so every datagram, or the whole stream, is seen without being consumed.
static void lg_kernel_read_socket(lg_scan_request *request, int fd) {
    int type = 0;
    int domain = 0;
    int listening = 0;
    socklen_t length = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0) {
        return;
    }
    length = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0 && listening) {
        return;
    }
    length = sizeof domain;
    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length);
    if (domain == AF_INET || domain == AF_INET6) {
        // Bytes written but not yet sent stay in the kernel until the peer takes them.
        int unsent = 0;
        if (type == SOCK_STREAM && ioctl(fd, SIOCOUTQNSD, &unsent) == 0 && unsent > 0) {
            lg_kernel_unread(request, LG_KERNEL_SOCKET_SEND, fd, (uint64_t)unsent);
        }
    }
    int queued = 0;
    if (ioctl(fd, FIONREAD, &queued) != 0 || queued <= 0) {
        return;
    }
    if ((domain == AF_INET || domain == AF_INET6) && type != SOCK_STREAM) {
        // A datagram socket may hold an asynchronous error (ICMP) that any receive, a peek included,
        // would report and clear: its queue is not read.
        lg_kernel_unread(request, LG_KERNEL_SOCKET, fd, (uint64_t)queued);
        return;
    }
    int previous = -1;
    length = sizeof previous;
    bool offsets = getsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &previous, &length) == 0;
    int zero = 0;
    offsets = offsets && setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof zero) == 0;
    size_t room = 0;
    unsigned char *into = lg_kernel_room(LG_KERNEL_BYTES, &room);
    size_t got = 0;
    bool complete = false;
    while (into != NULL && got < room) {
        // MSG_TRUNC makes a datagram socket say how long a datagram really is; on a stream socket it
        // would skip the bytes instead of copying them.
        int truncate = type == SOCK_STREAM ? 0 : MSG_TRUNC;
        ssize_t part = recv(fd, into + got, room - got, MSG_PEEK | MSG_DONTWAIT | truncate);
        if (part < 0 && errno == EINTR) {
            continue;
        }
        if (part <= 0) {
            complete = part == 0 || errno == EAGAIN || errno == EWOULDBLOCK;
            break;
        }
        if ((size_t)part > room - got) {
            got = room;  // a datagram larger than the room left: cut
            break;
        }
        got += (size_t)part;
        if (!offsets) {
            // Without a moving offset every peek reads from the start: one read is all there is.
            complete = type == SOCK_STREAM && got >= (size_t)queued;
            break;
        }
    }
    if (offsets) {
        setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &previous, sizeof previous);
    }
    lg_kernel_add_region(got, LG_KERNEL_SOCKET, fd);
    if (!complete) {
        lg_kernel_unread(request, LG_KERNEL_SOCKET, fd, got < (size_t)queued ? (uint64_t)queued - got : 0);
    }
}

/// The message count of POSIX message queue `fd` (its `QSIZE` line, read at offset 0: the program's
/// file position is not moved).
static void lg_kernel_read_mqueue(lg_scan_request *request, int fd) {
    char text[128];
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    if (got <= 0) {
        lg_kernel_unread(request, LG_KERNEL_MQUEUE, fd, 0);
        return;
    }
    text[got] = 0;
    const char *size = strstr(text, "QSIZE:");
    uint64_t bytes = 0;
    if (size != NULL) {
        for (size += 6; *size == ' '; size++) {
        }
        for (; *size >= '0' && *size <= '9'; size++) {
            bytes = bytes * 10 + (uint64_t)(*size - '0');
        }
    }
    if (size == NULL || bytes > 0) {
        lg_kernel_unread(request, LG_KERNEL_MQUEUE, fd, bytes);
    }
}

/// The inode in a `/proc/self/fd` link's `type:[inode]`.
static uint64_t lg_kernel_link_inode(const char *link) {
    const char *open = strchr(link, '[');
    uint64_t inode = 0;
    for (const char *digit = open != NULL ? open + 1 : ""; *digit >= '0' && *digit <= '9'; digit++) {
        inode = inode * 10 + (uint64_t)(*digit - '0');
    }
    return inode;
}

/// One descriptor of the process.
static void lg_kernel_read_fd(lg_scan_request *request, int fd) {
    char path[48];
    char link[256];
    lg_kernel_fd_path(path, "/proc/self/fd/", fd);
    long length = syscall(SYS_readlinkat, AT_FDCWD, path, link, sizeof link - 1);
    if (length <= 0) {
        return;
    }
    link[length] = 0;
    if (strncmp(link, "pipe:[", 6) == 0) {
        if (!lg_kernel_seen(lg_kernel_link_inode(link))) {
            lg_kernel_read_pipe(request, fd);
        }
    } else if (strncmp(link, "socket:[", 8) == 0) {
        if (!lg_kernel_seen(lg_kernel_link_inode(link))) {
            lg_kernel_read_socket(request, fd);
        }
    } else if (strcmp(link, "anon_inode:[eventpoll]") == 0) {
        lg_kernel_fd_path(path, "/proc/self/fdinfo/", fd);
        if (lg_kernel_read_text(path) >= (long)sizeof lg_kernel->text - 1) {
            lg_kernel_unread(request, LG_KERNEL_EPOLL, fd, 0);  // more registrations than fit
        }
        lg_kernel_words_after(request, " data:", LG_KERNEL_EPOLL, fd);
    } else if (strcmp(link, "anon_inode:[eventfd]") == 0) {
        lg_kernel_fd_path(path, "/proc/self/fdinfo/", fd);
        if (lg_kernel_read_text(path) > 0) {
            lg_kernel_words_after(request, "eventfd-count:", LG_KERNEL_EVENTFD, fd);
        }
    } else if (strcmp(link, "anon_inode:[io_uring]") == 0) {
        lg_kernel_unread(request, LG_KERNEL_IO_URING, fd, 0);
    } else if (link[0] == '/' && lg_kernel->mqueue_mount_count > 0) {
        // A POSIX message queue's descriptor names its queue like a path: its mount says what it is (read
        // from /proc, never from the file system, which may block: an NFS server away).
        lg_kernel_fd_path(path, "/proc/self/fdinfo/", fd);
        if (lg_kernel_read_text(path) > 0) {
            const char *mount = strstr(lg_kernel->text, "mnt_id:");
            unsigned long id = 0;
            for (mount = mount != NULL ? mount + 7 : ""; *mount == ' ' || *mount == '\t'; mount++) {
            }
            for (; *mount >= '0' && *mount <= '9'; mount++) {
                id = id * 10 + (unsigned long)(*mount - '0');
            }
            for (size_t i = 0; i < lg_kernel->mqueue_mount_count; i++) {
                if (lg_kernel->mqueue_mounts[i] == id) {
                    lg_kernel_read_mqueue(request, fd);
                    break;
                }
            }
        }
    }
}

/// The realtime signals pending in `text`'s `key` line (a hexadecimal mask), but the scan's own.
static bool lg_kernel_realtime_pending(const char *key, int own_signal) {
    const char *line = strstr(lg_kernel->text, key);
    if (line == NULL) {
        return false;
    }
    line += strlen(key);
    while (*line == ' ' || *line == '\t') {
        line++;
    }
    uint64_t mask = lg_scan_parse_hex(&line);
    if (own_signal > 0) {
        mask &= ~((uint64_t)1 << (own_signal - 1));
    }
    // Signals 32 and 33 are glibc's own (thread cancellation, setxid), which carry no value.
    return (mask >> 33) != 0;  // signals 34 to 64
}

void lg_scan_kernel_read(lg_scan_job *job, const lg_scan_stop *stop, int own_signal) {
    lg_scan_request *request = job->request;
    lg_kernel->word_count = 0;
    lg_kernel->region_count = 0;
    lg_kernel->inode_count = 0;
    lg_kernel->bytes_used = 0;
    // The message queue mounts: `ID PARENT MAJOR:MINOR ROOT POINT OPTIONS … - mqueue SOURCE …`.
    lg_kernel->mqueue_mount_count = 0;
    if (lg_kernel_read_text("/proc/self/mountinfo") > 0) {
        for (const char *line = lg_kernel->text; *line != 0;) {
            const char *end = strchr(line, '\n');
            const char *type = strstr(line, " - mqueue ");
            if (type != NULL && (end == NULL || type < end) && lg_kernel->mqueue_mount_count < 16) {
                unsigned long id = 0;
                for (const char *digit = line; *digit >= '0' && *digit <= '9'; digit++) {
                    id = id * 10 + (unsigned long)(*digit - '0');
                }
                lg_kernel->mqueue_mounts[lg_kernel->mqueue_mount_count++] = id;
            }
            line = end != NULL ? end + 1 : line + strlen(line);
        }
    }
    // Every descriptor (raw getdents64: no malloc).
    int directory = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0) {
        lg_kernel_unread(request, LG_KERNEL_DESCRIPTORS, -1, 0);
    } else {
        char buffer[4096] __attribute__((aligned(8)));
        for (;;) {
            long length = syscall(SYS_getdents64, directory, buffer, sizeof buffer);
            if (length <= 0) {
                if (length < 0) {
                    lg_kernel_unread(request, LG_KERNEL_DESCRIPTORS, -1, 0);
                }
                break;
            }
            for (long offset = 0; offset < length;) {
                struct dirent64 *entry = (struct dirent64 *)(buffer + offset);
                offset += entry->d_reclen;
                const char *name = entry->d_name;
                if (*name < '0' || *name > '9') {
                    continue;
                }
                int fd = 0;
                for (; *name >= '0' && *name <= '9'; name++) {
                    fd = fd * 10 + (*name - '0');
                }
                if (fd != directory && fd != lg_kernel->scratch[0] && fd != lg_kernel->scratch[1]) {
                    lg_kernel_read_fd(request, fd);
                }
            }
        }
        close(directory);
    }
    // POSIX timers: `signal: N/HEX`, the value sent with the timer's signal.
    if (lg_kernel_read_text("/proc/self/timers") > 0) {
        for (const char *cursor = lg_kernel->text; (cursor = strstr(cursor, "signal:")) != NULL;) {
            const char *slash = strchr(cursor, '/');
            const char *line_end = strchr(cursor, '\n');
            cursor += 7;
            if (slash == NULL || (line_end != NULL && slash > line_end)) {
                continue;
            }
            const char *hex = slash + 1;
            lg_kernel_add_word(request, lg_scan_parse_hex(&hex), LG_KERNEL_TIMER, -1);
        }
    }
    // Realtime signals carry a value (sigqueue): pending ones cannot be read without taking them.
    bool pending = lg_kernel_read_text("/proc/self/status") > 0 && lg_kernel_realtime_pending("ShdPnd:", own_signal);
    for (unsigned i = 0; !pending && i <= stop->thread_count; i++) {
        int tid = i < stop->thread_count ? lg_scan_thread_id(i) : stop->self;
        char path[64];
        lg_kernel_fd_path(path, "/proc/self/task/", tid);
        size_t length = strlen(path);
        memcpy(path + length, "/status", 8);
        pending = lg_kernel_read_text(path) > 0 && lg_kernel_realtime_pending("SigPnd:", own_signal);
    }
    if (pending) {
        lg_kernel_unread(request, LG_KERNEL_SIGNALS, -1, 0);
    }
    // Requests submitted with io_submit keep their data in the kernel until they complete.
    if (lg_scan_maps_contain("/[aio]")) {
        lg_kernel_unread(request, LG_KERNEL_AIO, -1, 0);
    }
    request->stats.kernel_words = lg_kernel->word_count;
    request->stats.kernel_bytes = lg_kernel->bytes_used;
}

void lg_scan_kernel_compare(lg_scan_job *job) {
    for (size_t i = 0; i < lg_kernel->word_count; i++) {
        const lg_kernel_word *word = &lg_kernel->words[i];
        long target = lg_scan_target(job, (uintptr_t)(word->value & LG_SCAN_POINTER_MASK));
        if (target >= 0) {
            lg_scan_found(job, (size_t)target, (uintptr_t)(intptr_t)word->fd, word->place);
        }
    }
    for (size_t i = 0; i < lg_kernel->region_count; i++) {
        const lg_kernel_region *region = &lg_kernel->regions[i];
        const unsigned char *bytes = lg_kernel_bytes + region->offset;
        for (size_t at = 0; at + 8 <= region->length; at++) {
            uint64_t value;
            memcpy(&value, bytes + at, 8);
            long target = lg_scan_target(job, (uintptr_t)(value & LG_SCAN_POINTER_MASK));
            if (target >= 0) {
                lg_scan_found(job, (size_t)target, (uintptr_t)(intptr_t)region->fd, region->place);
            }
        }
    }
}

void lg_scan_kernel_clear(void) {
    if (lg_kernel == NULL) {
        return;
    }
    // The copies of the program's bytes and words go: nothing keeps them after the scan.
    memset(lg_kernel_bytes, 0, lg_kernel->bytes_used);
    memset(lg_kernel->words, 0, lg_kernel->word_count * sizeof(lg_kernel_word));
    lg_kernel->bytes_used = 0;
    lg_kernel->word_count = 0;
    lg_kernel->region_count = 0;
}

#endif /* __linux__ */
