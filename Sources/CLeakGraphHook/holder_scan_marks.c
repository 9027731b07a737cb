// Check-entry marks for the holder scan (holder_scan.h): a thread inside a check records where its
// check began, so a scan reads its stack from there up (its callers' frames, with their callee-saved
// registers kept here) and not the check's own frames, whose slots hold the check's working copies of
// object addresses. And the stack scrub that clears dead frames before a check.

#include "holder_scan.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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
    __asm__ volatile(
        "mov %%rbx, %0\n\tmov %%rbp, %1\n\tmov %%r12, %2\n\tmov %%r13, %3\n\tmov %%r14, %4\n\tmov %%r15, %5"
        : "=m"(rbx), "=m"(rbp), "=m"(r12), "=m"(r13), "=m"(r14), "=m"(r15));
    entry->registers[0] = rbx;
    entry->registers[1] = rbp;
    entry->registers[2] = r12;
    entry->registers[3] = r13;
    entry->registers[4] = r14;
    entry->registers[5] = r15;
#elif defined(__aarch64__)
    uintptr_t x[8];
    __asm__ volatile(
        "stp x19, x20, [%0]\n\tstp x21, x22, [%0, #16]\n\tstp x23, x24, [%0, #32]\n\tstp x25, x26, [%0, #48]"
        :
        : "r"(x)
        : "memory");
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

#ifdef __linux__

/// Where the scan reads thread `tid`'s stack from, given the lowest live address `low` it knows (the
/// scanning thread's frame, a stopped thread's stack pointer): the thread's check-entry mark when it
/// set one above `low` in the same stack, else `low`.
uintptr_t lg_scan_stack_start(int tid, uintptr_t low) {
    lg_scan_entry *entry = lg_scan_entry_of(tid);
    uintptr_t frame = entry != NULL ? atomic_load(&entry->frame) : 0;
    // A mark more than 8 MiB above is not this stack's (a fiber, a switched stack): read everything.
    return frame > low && frame - low < (8u << 20) ? frame : low;
}

#endif /* __linux__ */
