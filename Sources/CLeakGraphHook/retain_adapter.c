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
// stripped: its `.symtab` names it. We read that (below), check that the slot is the writable
// pointer we expect, and point it at an adapter that tests the sign first.

#include "lg_internal.h"

#ifdef __linux__

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
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

// MARK: Reading the symbol table
//
// The table is read with `pread` through one small buffer, twice: the string table to find where the
// names sit, then the symbols to find those that use them. libelf would map the whole file and touch
// the 2.7 MB of the two tables, which a program would then carry in its resident memory (its peak
// stays); this way it carries the buffer's 64 KiB, once.

#define LG_ELF_CHUNK (64u * 1024u)
/// Occurrences of one name kept (a string table may hold a name more than once, or as the tail of a
/// longer one).
#define LG_NAME_OFFSETS 16u

typedef struct lg_symbol_query {
    const char *name;
    size_t length;
    uint64_t offsets[LG_NAME_OFFSETS];
    unsigned offset_count;
    Elf64_Sym symbol;
    bool found;
} lg_symbol_query;

/// An ELF file's section and program headers, read once.
typedef struct lg_elf_file {
    int descriptor;
    Elf64_Ehdr header;
    Elf64_Shdr *sections;
    size_t section_count;
    unsigned char *buffer;
} lg_elf_file;

/// Reads exactly `length` bytes at `offset`.
static bool lg_pread_all(int descriptor, void *into, size_t length, uint64_t offset) {
    unsigned char *bytes = into;
    while (length > 0) {
        ssize_t got = pread(descriptor, bytes, length, (off_t)offset);
        if (got <= 0) {
            return false;
        }
        bytes += got;
        length -= (size_t)got;
        offset += (uint64_t)got;
    }
    return true;
}

/// Reads the ELF header and the section headers; false when it is not a 64-bit ELF file of this
/// machine's byte order.
static bool lg_elf_open(lg_elf_file *file, int descriptor) {
    memset(file, 0, sizeof *file);
    file->descriptor = descriptor;
    Elf64_Ehdr *header = &file->header;
    if (!lg_pread_all(descriptor, header, sizeof *header, 0) || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_ident[EI_DATA] != ELFDATA2LSB ||
        header->e_shentsize != sizeof(Elf64_Shdr) || header->e_shoff == 0) {
        return false;
    }
    size_t count = header->e_shnum;
    if (count == 0) {  // more than SHN_LORESERVE sections: the count is in the first header
        Elf64_Shdr first;
        if (!lg_pread_all(descriptor, &first, sizeof first, header->e_shoff)) {
            return false;
        }
        count = (size_t)first.sh_size;
    }
    if (count == 0 || count > 65536) {
        return false;
    }
    file->sections = malloc(count * sizeof(Elf64_Shdr));
    file->buffer = malloc(LG_ELF_CHUNK);
    file->section_count = count;
    return file->sections != NULL && file->buffer != NULL &&
           lg_pread_all(descriptor, file->sections, count * sizeof(Elf64_Shdr), header->e_shoff);
}

static void lg_elf_close(lg_elf_file *file) {
    free(file->sections);
    free(file->buffer);
}

/// Finds every offset in the string table `strings` at which a query's name begins (followed by NUL).
static void lg_find_names(const lg_elf_file *file, const Elf64_Shdr *strings, lg_symbol_query *queries,
                          size_t query_count) {
    size_t longest = 0;
    for (size_t query = 0; query < query_count; query++) {
        if (queries[query].length + 1 > longest) {
            longest = queries[query].length + 1;
        }
    }
    // Consecutive chunks overlap by `longest` bytes, so a name across a boundary is seen whole once.
    uint64_t start = 0;
    while (start < strings->sh_size) {
        size_t length = (size_t)(strings->sh_size - start < LG_ELF_CHUNK ? strings->sh_size - start : LG_ELF_CHUNK);
        if (!lg_pread_all(file->descriptor, file->buffer, length, strings->sh_offset + start)) {
            return;
        }
        bool last = start + length >= strings->sh_size;
        for (size_t query = 0; query < query_count; query++) {
            lg_symbol_query *q = &queries[query];
            const unsigned char *at = file->buffer;
            const unsigned char *end = file->buffer + length;
            while ((at = memmem(at, (size_t)(end - at), q->name, q->length + 1)) != NULL) {
                uint64_t offset = start + (uint64_t)(at - file->buffer);
                // A match that starts in the overlap was counted by the previous chunk.
                bool seen = start != 0 && (size_t)(at - file->buffer) < longest;
                if (!seen && q->offset_count < LG_NAME_OFFSETS) {
                    q->offsets[q->offset_count++] = offset;
                }
                at += 1;
            }
        }
        if (last) {
            break;
        }
        start += length - longest;
    }
}

/// Looks up `queries` in the `.symtab` of `file`. Returns false when there is no `.symtab`.
static bool lg_find_symbols(lg_elf_file *file, lg_symbol_query *queries, size_t query_count) {
    bool has_symtab = false;
    for (size_t index = 0; index < file->section_count; index++) {
        const Elf64_Shdr *table = &file->sections[index];
        if (table->sh_type != SHT_SYMTAB || table->sh_entsize != sizeof(Elf64_Sym) ||
            table->sh_link >= file->section_count) {
            continue;
        }
        has_symtab = true;
        for (size_t query = 0; query < query_count; query++) {
            queries[query].length = strlen(queries[query].name);
            queries[query].offset_count = 0;
        }
        lg_find_names(file, &file->sections[table->sh_link], queries, query_count);
        const size_t per_chunk = LG_ELF_CHUNK / sizeof(Elf64_Sym);
        uint64_t symbol_count = table->sh_size / sizeof(Elf64_Sym);
        for (uint64_t first = 0; first < symbol_count; first += per_chunk) {
            size_t count = (size_t)(symbol_count - first < per_chunk ? symbol_count - first : per_chunk);
            if (!lg_pread_all(file->descriptor, file->buffer, count * sizeof(Elf64_Sym),
                              table->sh_offset + first * sizeof(Elf64_Sym))) {
                break;
            }
            const Elf64_Sym *symbols = (const Elf64_Sym *)(void *)file->buffer;
            for (size_t at = 0; at < count; at++) {
                if (symbols[at].st_name == 0) {
                    continue;
                }
                for (size_t query = 0; query < query_count; query++) {
                    lg_symbol_query *q = &queries[query];
                    for (unsigned k = 0; k < q->offset_count && !q->found; k++) {
                        if (q->offsets[k] == symbols[at].st_name) {
                            q->symbol = symbols[at];
                            q->found = true;
                        }
                    }
                }
            }
        }
    }
    return has_symtab;
}

/// Whether `address` (a link-time virtual address) lies in a PT_GNU_RELRO segment (or the program
/// headers cannot be read: then it is not written).
static bool lg_in_relro(const lg_elf_file *file, Elf64_Addr address) {
    const Elf64_Ehdr *header = &file->header;
    if (header->e_phentsize != sizeof(Elf64_Phdr) || header->e_phnum == 0 || header->e_phnum == PN_XNUM) {
        return true;
    }
    for (unsigned index = 0; index < header->e_phnum; index++) {
        Elf64_Phdr program;
        if (!lg_pread_all(file->descriptor, &program, sizeof program, header->e_phoff + index * sizeof program)) {
            return true;
        }
        if (program.p_type == PT_GNU_RELRO && address >= program.p_vaddr &&
            address < program.p_vaddr + program.p_memsz) {
            return true;
        }
    }
    return false;
}

/// Whether the section holding `symbol` is writable.
static bool lg_symbol_writable(const lg_elf_file *file, const Elf64_Sym *symbol) {
    return symbol->st_shndx != SHN_UNDEF && symbol->st_shndx < file->section_count &&
           (file->sections[symbol->st_shndx].sh_flags & SHF_WRITE) != 0;
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

    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) {
        lg_set_error(error, error_len,
                     "The Swift runtime library %s could not be opened to read its symbol table, "
                     "which the Swift 6.3 retain-adapter workaround needs.",
                     path);
        return -1;
    }
    lg_elf_file file;
    int result = -1;
    lg_symbol_query queries[] = {
        {.name = "swift_retain"},
        {.name = LG_ADAPTER_SLOT_SYMBOL},
        {.name = LG_ADAPTER_IMPL_SYMBOL},
    };
    if (!lg_elf_open(&file, descriptor)) {
        lg_set_error(error, error_len, "%s is not a readable 64-bit ELF file.", path);
    } else if (!lg_find_symbols(&file, queries, sizeof queries / sizeof queries[0])) {
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
        lg_set_error(error, error_len, "%s on disk does not match the Swift runtime loaded in this process.", path);
    } else if (queries[1].symbol.st_size != sizeof(void *) || !lg_symbol_writable(&file, &queries[1].symbol) ||
               lg_in_relro(&file, queries[1].symbol.st_value)) {
        lg_set_error(error, error_len,
                     "%s in %s is not a writable pointer, so the Swift 6.3 retain-adapter "
                     "workaround cannot be applied.",
                     LG_ADAPTER_SLOT_SYMBOL, path);
    } else {
        void **slot = (void **)(module->l_addr + queries[1].symbol.st_value);
        void *current = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        bool expected = current == (void *)lg_retain_adapter ||
                        (queries[2].found && current == (void *)(module->l_addr + queries[2].symbol.st_value));
        if (!expected) {
            lg_set_error(error, error_len,
                         "The Swift runtime's retain adapter does not point where expected, so "
                         "the Swift 6.3 retain-adapter workaround cannot be applied safely.");
        } else {
            *slot_out = slot;
            result = 0;
        }
    }
    lg_elf_close(&file);
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
