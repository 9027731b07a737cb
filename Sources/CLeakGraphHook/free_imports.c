// Points the `free` imports of the loaded modules at `lg_free` (and, through `lg_imports_patch`, the
// `swift_task_create` imports at the task hook), for a program that links LeakGraph and records
// without the preloaded library (`lg_install`).
//
// On Linux a Swift object's memory is returned with the C library's `free`, called through the
// calling module's GOT: libswiftCore's `swift_slowDealloc`, CoreFoundation's deallocator (inside
// libFoundation), the compiler's box helpers in the program itself. Each module that imports `free`
// has a relocation naming it — R_*_JUMP_SLOT for calls through the PLT, R_*_GLOB_DAT for its
// address taken — whose target word is what the module calls. Rewriting those words makes every
// such call reach `lg_free` first. With full RELRO the GOT is read-only after start-up: its page is
// made writable for the store and read-only again.
//
// Not covered: modules loaded later with `dlopen`, `free` found with `dlsym`, and the C library's
// and the dynamic loader's own internal frees (which never free Swift objects).

#include "lg_internal.h"

#ifdef __linux__

#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#define LG_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define LG_R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define LG_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define LG_R_GLOB_DAT R_AARCH64_GLOB_DAT
#else
#define LG_R_JUMP_SLOT (-1)
#define LG_R_GLOB_DAT (-1)
#endif

typedef struct lg_patch_context {
    const char *symbol;
    void *replacement;
    int patched;
    int failed;
    char *error;
    size_t error_len;
} lg_patch_context;

/// Whether `name` (a module path) is the C library or the dynamic loader, whose imports are left
/// alone: they free no Swift object, and the loader's own calls must stay with the loader.
static bool lg_module_is_skipped(const char *name) {
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return strncmp(base, "libc.so", 7) == 0 || strncmp(base, "ld-linux", 8) == 0 || strncmp(base, "ld64.so", 7) == 0 ||
           strncmp(base, "linux-vdso", 10) == 0 || strncmp(base, "linux-gate", 10) == 0;
}

/// A dynamic-section pointer as an address: glibc relocates most of them in place, but not all
/// loaders (nor the vDSO) do.
static uintptr_t lg_dynamic_address(uintptr_t base, uintptr_t value) { return value < base ? value + base : value; }

/// Rewrites one GOT word, making its page writable first when RELRO protected it.
static void lg_patch_word(lg_patch_context *context, void **word, uintptr_t relro_start, uintptr_t relro_end) {
    if (__atomic_load_n(word, __ATOMIC_RELAXED) == context->replacement) {
        return;
    }
    uintptr_t address = (uintptr_t)word;
    bool protected_page = address >= relro_start && address < relro_end;
    uintptr_t page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    void *page = (void *)(address & ~(page_size - 1));
    if (protected_page && mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0) {
        context->failed += 1;
        return;
    }
    __atomic_store_n(word, context->replacement, __ATOMIC_RELEASE);
    if (protected_page) {
        mprotect(page, page_size, PROT_READ);
    }
    context->patched += 1;
}

/// Patches the relocations of the context's symbol in one relocation table.
static void lg_patch_relocations(lg_patch_context *context, uintptr_t base, const ElfW(Rela) * table, size_t bytes,
                                 const ElfW(Sym) * symbols, const char *strings, uintptr_t relro_start,
                                 uintptr_t relro_end) {
    if (table == NULL || symbols == NULL || strings == NULL) {
        return;
    }
    for (size_t index = 0; index < bytes / sizeof(ElfW(Rela)); index++) {
        const ElfW(Rela) *relocation = &table[index];
#if defined(__x86_64__) || defined(__aarch64__)
        long type = (long)ELF64_R_TYPE(relocation->r_info);
        size_t symbol = ELF64_R_SYM(relocation->r_info);
#else
        long type = -2;
        size_t symbol = 0;
#endif
        if ((type != LG_R_JUMP_SLOT && type != LG_R_GLOB_DAT) || symbol == 0) {
            continue;
        }
        const char *name = strings + symbols[symbol].st_name;
        if (name[0] == context->symbol[0] && strcmp(name, context->symbol) == 0) {
            lg_patch_word(context, (void **)(base + relocation->r_offset), relro_start, relro_end);
        }
    }
}

/// dl_iterate_phdr callback: finds one module's dynamic section and patches its imports of the
/// context's symbol.
static int lg_patch_module(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    lg_patch_context *context = data;
    if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0' && lg_module_is_skipped(info->dlpi_name)) {
        return 0;
    }
    uintptr_t base = info->dlpi_addr;
    const ElfW(Dyn) *dynamic = NULL;
    uintptr_t relro_start = 0;
    uintptr_t relro_end = 0;
    uintptr_t page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type == PT_DYNAMIC) {
            dynamic = (const ElfW(Dyn) *)(base + header->p_vaddr);
        } else if (header->p_type == PT_GNU_RELRO) {
            // The pages the loader made read-only, computed as the loader does.
            relro_start = (base + header->p_vaddr) & ~(page_size - 1);
            relro_end = (base + header->p_vaddr + header->p_memsz) & ~(page_size - 1);
        }
    }
    if (dynamic == NULL) {
        return 0;
    }
    const ElfW(Sym) *symbols = NULL;
    const char *strings = NULL;
    const ElfW(Rela) *plt_relocations = NULL;
    size_t plt_bytes = 0;
    const ElfW(Rela) *relocations = NULL;
    size_t relocation_bytes = 0;
    bool plt_is_rela = true;
    for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
        switch (entry->d_tag) {
            case DT_SYMTAB:
                symbols = (const ElfW(Sym) *)lg_dynamic_address(base, entry->d_un.d_ptr);
                break;
            case DT_STRTAB:
                strings = (const char *)lg_dynamic_address(base, entry->d_un.d_ptr);
                break;
            case DT_JMPREL:
                plt_relocations = (const ElfW(Rela) *)lg_dynamic_address(base, entry->d_un.d_ptr);
                break;
            case DT_PLTRELSZ:
                plt_bytes = entry->d_un.d_val;
                break;
            case DT_PLTREL:
                plt_is_rela = entry->d_un.d_val == DT_RELA;
                break;
            case DT_RELA:
                relocations = (const ElfW(Rela) *)lg_dynamic_address(base, entry->d_un.d_ptr);
                break;
            case DT_RELASZ:
                relocation_bytes = entry->d_un.d_val;
                break;
            default:
                break;
        }
    }
    if (plt_is_rela) {
        lg_patch_relocations(context, base, plt_relocations, plt_bytes, symbols, strings, relro_start, relro_end);
    }
    lg_patch_relocations(context, base, relocations, relocation_bytes, symbols, strings, relro_start, relro_end);
    return 0;
}

int lg_imports_patch(const char *symbol, void *replacement, int *failed) {
    lg_patch_context context = {.symbol = symbol, .replacement = replacement};
    dl_iterate_phdr(lg_patch_module, &context);
    *failed = context.failed;
    return context.patched;
}

int lg_free_imports_patch(lg_free_fn replacement, char *error, size_t error_len) {
    lg_patch_context context = {
        .symbol = "free", .replacement = (void *)replacement, .error = error, .error_len = error_len};
    dl_iterate_phdr(lg_patch_module, &context);
    if (context.failed != 0) {
        lg_set_error(error, error_len,
                     "%d import(s) of free() could not be made writable, so LeakGraph cannot see "
                     "every Swift object freed in this process.",
                     context.failed);
        return -1;
    }
    return context.patched;
}

#endif /* __linux__ */
