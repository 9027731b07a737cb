// The workaround for the Swift 6.3.x retain-adapter bug on Linux.
//
// Once `_swift_allocObject` no longer points at the runtime's own allocator, `swift_allocObject`
// turns on `_swift_enableSwizzlingOfAllocationAndRefCountingFunctions_forInstrumentsOnly`, and from
// then on `swift_retain` jumps through the file-local pointer `_swift_retain_adapter` to
// `_swift_retain_adapterImpl`. That adapter clears the spare bits of its argument *before* the
// runtime's "is this a real pointer?" test (`(intptr_t)p > 0`), so a tagged value such as a small
// string's bridge object (0xE9...) turns into a small positive garbage address that `_swift_retain`
// then dereferences. Copying any small String into an `Any` crashes (`print("hi")`). Fixed
// upstream (swiftlang/swift#88924), expected in 6.4.
//
// The pointer is a local symbol, absent from the dynamic symbol table, but libswiftCore.so is not
// stripped: its `.symtab` names it. We read that with libelf, check that the slot is the writable
// pointer we expect, and point it at an adapter that tests the sign first.

#include "lg_internal.h"

#ifdef __linux__

#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
/// ~SwiftSpareBitsMask on x86_64 (the runtime's adapter masks with the same constant).
#define LG_POINTER_MASK 0x00FFFFFFFFFFFFF8ull
#elif defined(__aarch64__)
/// ~SwiftSpareBitsMask on arm64.
#define LG_POINTER_MASK 0x0FFFFFFFFFFFFFF8ull
#else
/// Other architectures: `lg_install` refuses before the adapter is ever used.
#define LG_POINTER_MASK (~(uintptr_t)7)
#endif

#define LG_ADAPTER_SLOT_SYMBOL "_ZL21_swift_retain_adapter"
#define LG_ADAPTER_IMPL_SYMBOL "_ZL25_swift_retain_adapterImplPN5swift10HeapObjectE"

typedef void *(*lg_retain_fn)(void *object);

/// The runtime's `_swift_retain` pointer, which the adapter forwards to.
static lg_retain_fn *lg_runtime_retain_slot;

/// What `_swift_retain_adapterImpl` should have been: leave tagged and null values alone.
static void *lg_retain_adapter(void *object) {
    if ((intptr_t)object > 0) {
        lg_retain_fn retain = __atomic_load_n(lg_runtime_retain_slot, __ATOMIC_RELAXED);
        retain((void *)((uintptr_t)object & LG_POINTER_MASK));
    }
    return object;
}

typedef struct lg_symbol_query {
    const char *name;
    GElf_Sym symbol;
    bool found;
} lg_symbol_query;

/// Looks up `queries` in the `.symtab` of `elf`. Returns false when there is no `.symtab`.
static bool lg_find_symbols(Elf *elf, lg_symbol_query *queries, size_t query_count) {
    bool has_symtab = false;
    Elf_Scn *section = NULL;
    while ((section = elf_nextscn(elf, section)) != NULL) {
        GElf_Shdr header;
        if (gelf_getshdr(section, &header) == NULL || header.sh_type != SHT_SYMTAB ||
            header.sh_entsize == 0) {
            continue;
        }
        has_symtab = true;
        Elf_Data *data = elf_getdata(section, NULL);
        if (data == NULL) {
            continue;
        }
        size_t symbol_count = header.sh_size / header.sh_entsize;
        for (size_t index = 0; index < symbol_count; index++) {
            GElf_Sym symbol;
            if (gelf_getsym(data, (int)index, &symbol) == NULL || symbol.st_name == 0) {
                continue;
            }
            const char *name = elf_strptr(elf, header.sh_link, symbol.st_name);
            if (name == NULL || (name[0] != '_' && name[0] != 's')) {
                continue;
            }
            for (size_t query = 0; query < query_count; query++) {
                if (!queries[query].found && strcmp(name, queries[query].name) == 0) {
                    queries[query].symbol = symbol;
                    queries[query].found = true;
                }
            }
        }
    }
    return has_symtab;
}

/// Whether `address` (a link-time virtual address) lies in a PT_GNU_RELRO segment.
static bool lg_in_relro(Elf *elf, GElf_Addr address) {
    size_t count = 0;
    if (elf_getphdrnum(elf, &count) != 0) {
        return true;
    }
    for (size_t index = 0; index < count; index++) {
        GElf_Phdr header;
        if (gelf_getphdr(elf, (int)index, &header) != NULL && header.p_type == PT_GNU_RELRO &&
            address >= header.p_vaddr && address < header.p_vaddr + header.p_memsz) {
            return true;
        }
    }
    return false;
}

/// Whether the section holding `symbol` is writable.
static bool lg_symbol_writable(Elf *elf, const GElf_Sym *symbol) {
    Elf_Scn *section = elf_getscn(elf, symbol->st_shndx);
    GElf_Shdr header;
    return section != NULL && gelf_getshdr(section, &header) != NULL &&
           (header.sh_flags & SHF_WRITE) != 0;
}

int lg_retain_adapter_prepare(void ***slot_out, char *error, size_t error_len) {
    void *retain = dlsym(RTLD_DEFAULT, "swift_retain");
    lg_runtime_retain_slot = dlsym(RTLD_DEFAULT, "_swift_retain");
    Dl_info info;
    struct link_map *module = NULL;
    if (retain == NULL || lg_runtime_retain_slot == NULL ||
        dladdr1(retain, &info, (void **)&module, RTLD_DL_LINKMAP) == 0 || module == NULL) {
        lg_set_error(error, error_len,
                     "The Swift runtime's swift_retain and _swift_retain were not found, so the "
                     "Swift 6.3 retain-adapter workaround cannot be applied.");
        return -1;
    }
    const char *path = (module->l_name && module->l_name[0]) ? module->l_name : "/proc/self/exe";

    if (elf_version(EV_CURRENT) == EV_NONE) {
        lg_set_error(error, error_len, "libelf could not be initialised: %s.", elf_errmsg(-1));
        return -1;
    }
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) {
        lg_set_error(error, error_len,
                     "The Swift runtime library %s could not be opened to read its symbol table, "
                     "which the Swift 6.3 retain-adapter workaround needs.",
                     path);
        return -1;
    }
    Elf *elf = elf_begin(descriptor, ELF_C_READ_MMAP, NULL);
    int result = -1;
    lg_symbol_query queries[] = {
        {.name = "swift_retain"},
        {.name = LG_ADAPTER_SLOT_SYMBOL},
        {.name = LG_ADAPTER_IMPL_SYMBOL},
    };
    if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
        lg_set_error(error, error_len, "%s is not a readable ELF file: %s.", path, elf_errmsg(-1));
    } else if (!lg_find_symbols(elf, queries, sizeof queries / sizeof queries[0])) {
        lg_set_error(error, error_len,
                     "%s has no symbol table (it was stripped), so the Swift 6.3 retain-adapter "
                     "workaround cannot be applied; use an unstripped Swift 6.3 runtime or "
                     "Swift 6.4 or later.",
                     path);
    } else if (!queries[0].found || !queries[1].found) {
        lg_set_error(error, error_len,
                     "%s does not define %s, so the Swift 6.3 retain-adapter workaround cannot be "
                     "applied to this runtime build.",
                     path, queries[0].found ? LG_ADAPTER_SLOT_SYMBOL : "swift_retain");
    } else if (module->l_addr + queries[0].symbol.st_value != (uintptr_t)retain) {
        lg_set_error(error, error_len,
                     "%s on disk does not match the Swift runtime loaded in this process.", path);
    } else if (queries[1].symbol.st_size != sizeof(void *) ||
               !lg_symbol_writable(elf, &queries[1].symbol) ||
               lg_in_relro(elf, queries[1].symbol.st_value)) {
        lg_set_error(error, error_len,
                     "%s in %s is not a writable pointer, so the Swift 6.3 retain-adapter "
                     "workaround cannot be applied.",
                     LG_ADAPTER_SLOT_SYMBOL, path);
    } else {
        void **slot = (void **)(module->l_addr + queries[1].symbol.st_value);
        void *current = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        bool expected = current == (void *)lg_retain_adapter ||
                        (queries[2].found &&
                         current == (void *)(module->l_addr + queries[2].symbol.st_value));
        if (!expected) {
            lg_set_error(error, error_len,
                         "The Swift runtime's retain adapter does not point where expected, so "
                         "the Swift 6.3 retain-adapter workaround cannot be applied safely.");
        } else {
            *slot_out = slot;
            result = 0;
        }
    }
    if (elf != NULL) {
        elf_end(elf);
    }
    close(descriptor);
    return result;
}

/// The slot pointed at LeakGraph's adapter, and that adapter: retain histories (history.c) swap in an
/// adapter of their own that does the same and more.
LG_HIDDEN void **lg_retain_adapter_installed_slot;
LG_HIDDEN void *lg_retain_adapter_installed_function;

void lg_retain_adapter_apply(void **slot) {
    __atomic_store_n(slot, (void *)lg_retain_adapter, __ATOMIC_RELEASE);
    lg_retain_adapter_installed_function = (void *)lg_retain_adapter;
    lg_retain_adapter_installed_slot = slot;
}

#endif /* __linux__ */
