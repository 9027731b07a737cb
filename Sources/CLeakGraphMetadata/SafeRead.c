// Reads of memory the walk cannot vouch for, without a fault.
#define _GNU_SOURCE
#include "CLeakGraphMetadata.h"

#include <sys/uio.h>
#include <unistd.h>

bool lg_read_word(const void *address, uintptr_t *out) {
    if (address == NULL || ((uintptr_t)address & 7) != 0) return false;
    struct iovec local = {.iov_base = out, .iov_len = sizeof(uintptr_t)};
    struct iovec remote = {.iov_base = (void *)address, .iov_len = sizeof(uintptr_t)};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)sizeof(uintptr_t);
}
