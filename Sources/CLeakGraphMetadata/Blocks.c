// Reading the Swift closure a block carries (see lg_block_swift_context in CLeakGraphMetadata.h).
//
// Layouts, from the BlocksRuntime ABI (`Block_private.h`) and libdispatch's `block.cpp` /
// `queue_internal.h`, checked on this toolchain (Swift 6.3.1, swift-corelibs-libdispatch, x86_64):
//   block:       isa +0, flags (int32) +8, reserved +12, invoke +16, descriptor +24, captures from +32
//   descriptor:  reserved +0, size +8, copy helper +16, dispose helper +24 (when BLOCK_HAS_COPY_DISPOSE)
//   flags:       reference count in bits 1–15 (counted in twos), BLOCK_NEEDS_FREE 1<<24,
//                BLOCK_HAS_COPY_DISPOSE 1<<25, BLOCK_IS_GLOBAL 1<<28
//   Swift's block from a closure: one capture, the thick function (function pointer +32, context +40);
//                size 48.
//   libdispatch's wrapper (`_dispatch_block_create`): captures a `dispatch_block_private_data_s` at
//                +32: magic 0xD159B10C +0, flags +8, atomic flags +16, performed +20, priority +24,
//                voucher +32, the wrapped block +40, group +48, queue +56, thread +64; size 104.
#define _GNU_SOURCE
#include "CLeakGraphMetadata.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <sys/uio.h>
#include <unistd.h>

#define LG_BLOCK_REFCOUNT_MASK 0xfffeu
#define LG_BLOCK_NEEDS_FREE (1u << 24)
#define LG_BLOCK_HAS_COPY_DISPOSE (1u << 25)
#define LG_BLOCK_IS_GLOBAL (1u << 28)
#define LG_DISPATCH_BLOCK_MAGIC 0xD159B10Cul

/// Symbols looked up once, when the program starts: the malloc and global block classes, and libdispatch's
/// wrapper invoke. Never during a check: `dlsym` takes the loader's lock, which a thread in `dlopen` may
/// hold while it waits for the check. Libraries loaded later (a `dlopen`ed libdispatch) leave them 0, and
/// blocks are then not read.
static _Atomic(uintptr_t) lg_malloc_block_isa;
static _Atomic(uintptr_t) lg_global_block_isa;
static _Atomic(uintptr_t) lg_dispatch_special_invoke;

__attribute__((constructor)) static void lg_block_symbols(void) {
    atomic_store(&lg_malloc_block_isa, (uintptr_t)dlsym(RTLD_DEFAULT, "_NSConcreteMallocBlock"));
    atomic_store(&lg_global_block_isa, (uintptr_t)dlsym(RTLD_DEFAULT, "_NSConcreteGlobalBlock"));
    void *const *special = dlsym(RTLD_DEFAULT, "_dispatch_block_special_invoke");
    atomic_store(&lg_dispatch_special_invoke, special ? (uintptr_t)*special : 0);
}

static bool lg_read(uintptr_t address, void *out, size_t size) {
    if (address < 4096 || (address & 7) != 0) return false;
    struct iovec local = {out, size};
    struct iovec remote = {(void *)address, size};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size;
}

/// The header of a malloc block with one holder and copy/dispose helpers, and its descriptor's size;
/// false for anything else (a global block sets `*global`).
static bool lg_read_owned_block(uintptr_t block, uintptr_t header[4], uintptr_t *size, bool *global) {
    *global = false;
    if (!lg_read(block, header, 4 * sizeof(uintptr_t))) return false;
    uintptr_t malloc_isa = atomic_load(&lg_malloc_block_isa);
    uint32_t flags = (uint32_t)header[1];
    if (header[0] == atomic_load(&lg_global_block_isa) && header[0] != 0) {
        *global = (flags & LG_BLOCK_IS_GLOBAL) != 0;
        return false;
    }
    if (malloc_isa == 0 || header[0] != malloc_isa) return false;
    if ((flags & (LG_BLOCK_NEEDS_FREE | LG_BLOCK_HAS_COPY_DISPOSE)) !=
        (LG_BLOCK_NEEDS_FREE | LG_BLOCK_HAS_COPY_DISPOSE))
        return false;
    if ((flags & LG_BLOCK_REFCOUNT_MASK) != 2) return false;  // one holder
    uintptr_t descriptor[2];
    if (!lg_read(header[3], descriptor, sizeof descriptor)) return false;
    *size = descriptor[1];
    return true;
}

lg_block_reading lg_block_swift_context(const void *block_pointer, const void **context) {
    *context = NULL;
    uintptr_t block = (uintptr_t)block_pointer;
    for (int depth = 0; depth < 2; depth++) {
        uintptr_t header[4], size;
        bool global;
        if (!lg_read_owned_block(block, header, &size, &global)) return global ? LG_BLOCK_EMPTY : LG_BLOCK_UNREAD;
        uintptr_t special = atomic_load(&lg_dispatch_special_invoke);
        if (depth == 0 && special != 0 && header[2] == special && size == 104) {
            uintptr_t data[6];
            if (!lg_read(block + 32, data, sizeof data) || data[0] != LG_DISPATCH_BLOCK_MAGIC) return LG_BLOCK_UNREAD;
            if (data[5] == 0) return LG_BLOCK_EMPTY;
            block = data[5];
            continue;
        }
        if (size != 48) return LG_BLOCK_UNREAD;
        uintptr_t function[2];
        if (!lg_read(block + 32, function, sizeof function) || function[0] == 0) return LG_BLOCK_UNREAD;
        if (function[1] == 0) return LG_BLOCK_EMPTY;
        *context = (const void *)function[1];
        return LG_BLOCK_CONTEXT;
    }
    return LG_BLOCK_UNREAD;
}
