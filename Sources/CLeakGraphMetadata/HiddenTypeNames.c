// The names of field types the compiler hides from reflection.
//
// A stored property whose type is not `Copyable` (`Mutex<[Subscriber]>`, `Atomic<Int>`,
// `AtomicLazyReference<Image>`) is recorded in its type's field descriptor with a mangled name that is
// one symbolic reference to an accessor function (byte 0x09, then a relative offset) returning the
// metadata of `()`, so that reflection clients older than noncopyable types never copy such a value.
// Measured on Swift 6.3.1 (debug and release): the compiler emits that 6-byte name as a local object of
// the `swift5_typeref` section whose symbol is `get_type_metadata <mangled type> noncopyable.<n>` —
// the real type's mangling, without symbolic references. The symbol is in `.symtab` only (the module
// must not be stripped). This file reads it: it finds the module file that holds a given name through
// `/proc/self/maps` (never `dladdr` or `dl_iterate_phdr`, which take the loader lock: a thread in
// `dlopen` may hold it while it waits for a leak check), reads that file's `.symtab` with libelf once,
// and answers by address. Every answer is checked by the caller (LeakGraphHeap) before it is used.

#include "CLeakGraphMetadata.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LG_HIDDEN_PREFIX "get_type_metadata "
#define LG_HIDDEN_SUFFIX " noncopyable"

typedef struct {
    GElf_Addr address;  // link-time address of the 6-byte name
    char *text;         // the mangled type, NUL-terminated
} lg_hidden_entry;

typedef struct {
    GElf_Off offset;
    GElf_Addr address;
    GElf_Xword size;
} lg_load_segment;

typedef struct {
    char *path;
    int descriptor;  // the open file, for symbol look-ups (-1 when it could not be read)
    Elf *elf;
    lg_hidden_entry *entries;
    size_t entry_count;
    lg_load_segment *segments;
    size_t segment_count;
} lg_hidden_module;

static pthread_mutex_t lg_hidden_lock = PTHREAD_MUTEX_INITIALIZER;
static lg_hidden_module *lg_hidden_modules;
static size_t lg_hidden_module_count;

static int lg_compare_entries(const void *left, const void *right) {
    GElf_Addr a = ((const lg_hidden_entry *)left)->address, b = ((const lg_hidden_entry *)right)->address;
    return a < b ? -1 : a > b ? 1 : 0;
}

/// Reads the hidden type names and the load segments of the ELF file at `path` into `module`.
static void lg_load_hidden_module(const char *path, lg_hidden_module *module) {
    memset(module, 0, sizeof *module);
    module->path = strdup(path);
    module->descriptor = -1;
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return;
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(descriptor, ELF_C_READ_MMAP, NULL);
    if (elf != NULL && elf_kind(elf) == ELF_K_ELF) {
        size_t header_count = 0;
        if (elf_getphdrnum(elf, &header_count) == 0 && header_count > 0) {
            module->segments = calloc(header_count, sizeof(lg_load_segment));
            for (size_t index = 0; module->segments != NULL && index < header_count; index++) {
                GElf_Phdr header;
                if (gelf_getphdr(elf, (int)index, &header) != NULL && header.p_type == PT_LOAD) {
                    module->segments[module->segment_count++] =
                        (lg_load_segment){header.p_offset, header.p_vaddr, header.p_filesz};
                }
            }
        }
        size_t capacity = 0;
        Elf_Scn *section = NULL;
        while ((section = elf_nextscn(elf, section)) != NULL) {
            GElf_Shdr header;
            if (gelf_getshdr(section, &header) == NULL || header.sh_type != SHT_SYMTAB || header.sh_entsize == 0) {
                continue;
            }
            Elf_Data *data = elf_getdata(section, NULL);
            if (data == NULL) continue;
            size_t symbol_count = header.sh_size / header.sh_entsize;
            for (size_t index = 0; index < symbol_count; index++) {
                GElf_Sym symbol;
                if (gelf_getsym(data, (int)index, &symbol) == NULL || symbol.st_name == 0) continue;
                const char *name = elf_strptr(elf, header.sh_link, symbol.st_name);
                if (name == NULL || strncmp(name, LG_HIDDEN_PREFIX, sizeof LG_HIDDEN_PREFIX - 1) != 0) continue;
                const char *text = name + sizeof LG_HIDDEN_PREFIX - 1;
                const char *end = strstr(text, LG_HIDDEN_SUFFIX);
                if (end == NULL || end == text) continue;
                if (module->entry_count == capacity) {
                    size_t grown = capacity == 0 ? 16 : capacity * 2;
                    lg_hidden_entry *entries = realloc(module->entries, grown * sizeof(lg_hidden_entry));
                    if (entries == NULL) break;
                    module->entries = entries;
                    capacity = grown;
                }
                module->entries[module->entry_count++] =
                    (lg_hidden_entry){symbol.st_value, strndup(text, (size_t)(end - text))};
            }
        }
        if (module->entry_count > 1) {
            qsort(module->entries, module->entry_count, sizeof(lg_hidden_entry), lg_compare_entries);
        }
    }
    if (elf != NULL && elf_kind(elf) == ELF_K_ELF) {
        module->elf = elf;  // kept for lg_module_symbol
        module->descriptor = descriptor;
        return;
    }
    if (elf != NULL) elf_end(elf);
    close(descriptor);
}

/// The module at `path`, loaded on first use. Called with the lock held.
static lg_hidden_module *lg_hidden_module_at(const char *path) {
    for (size_t index = 0; index < lg_hidden_module_count; index++) {
        if (strcmp(lg_hidden_modules[index].path, path) == 0) return &lg_hidden_modules[index];
    }
    lg_hidden_module *modules = realloc(lg_hidden_modules, (lg_hidden_module_count + 1) * sizeof(lg_hidden_module));
    if (modules == NULL) return NULL;
    lg_hidden_modules = modules;
    lg_hidden_module *module = &lg_hidden_modules[lg_hidden_module_count++];
    lg_load_hidden_module(path, module);
    return module;
}

/// Finds the file mapping that contains `address` in /proc/self/maps: its path and the file offset of
/// `address`. False for anonymous memory or when the maps cannot be read.
static bool lg_mapping_of(uintptr_t address, char *path, size_t path_capacity, GElf_Off *file_offset) {
    int descriptor = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return false;
    char buffer[8192];
    char line[4096 + 256];
    size_t line_length = 0;
    bool found = false;
    ssize_t count;
    while (!found && (count = read(descriptor, buffer, sizeof buffer)) > 0) {
        for (ssize_t index = 0; index < count && !found; index++) {
            char c = buffer[index];
            if (c != '\n') {
                if (line_length + 1 < sizeof line) line[line_length++] = c;
                continue;
            }
            line[line_length] = 0;
            line_length = 0;
            unsigned long start = 0, end = 0, offset = 0;
            int name_start = 0;
            if (sscanf(line, "%lx-%lx %*4s %lx %*s %*s %n", &start, &end, &offset, &name_start) < 3) continue;
            if (address < start || address >= end || name_start <= 0 || line[name_start] != '/') continue;
            size_t length = strlen(line + name_start);
            if (length + 1 > path_capacity) break;
            memcpy(path, line + name_start, length + 1);
            *file_offset = (GElf_Off)(address - start + offset);
            found = true;
        }
    }
    close(descriptor);
    return found;
}

/// The module holding `address` and the link-time address that corresponds to it. Called with the
/// lock held.
static lg_hidden_module *lg_module_of(const void *address, GElf_Addr *link_address) {
    char path[4096];
    GElf_Off file_offset = 0;
    if (!lg_mapping_of((uintptr_t)address, path, sizeof path, &file_offset)) return NULL;
    lg_hidden_module *module = lg_hidden_module_at(path);
    if (module == NULL) return NULL;
    for (size_t index = 0; index < module->segment_count; index++) {
        lg_load_segment segment = module->segments[index];
        if (file_offset < segment.offset || file_offset >= segment.offset + segment.size) continue;
        *link_address = segment.address + (file_offset - segment.offset);
        return module;
    }
    return NULL;
}

size_t lg_hidden_type_name(const void *name, char *buffer, size_t capacity) {
    if (capacity == 0) return 0;
    size_t result = 0;
    pthread_mutex_lock(&lg_hidden_lock);
    GElf_Addr link_address = 0;
    lg_hidden_module *module = lg_module_of(name, &link_address);
    if (module != NULL && module->entry_count > 0) {
        lg_hidden_entry key = {.address = link_address};
        lg_hidden_entry *entry =
            bsearch(&key, module->entries, module->entry_count, sizeof(lg_hidden_entry), lg_compare_entries);
        if (entry != NULL && entry->text != NULL) {
            size_t length = strlen(entry->text);
            if (length + 1 <= capacity) {
                memcpy(buffer, entry->text, length + 1);
                result = length;
            }
        }
    }
    pthread_mutex_unlock(&lg_hidden_lock);
    return result;
}

const void *lg_module_symbol(const void *in_module, const char *symbol_name) {
    const void *result = NULL;
    pthread_mutex_lock(&lg_hidden_lock);
    GElf_Addr link_address = 0;
    lg_hidden_module *module = lg_module_of(in_module, &link_address);
    if (module != NULL && module->elf != NULL) {
        intptr_t bias = (intptr_t)((uintptr_t)in_module - (uintptr_t)link_address);
        Elf_Scn *section = NULL;
        while (result == NULL && (section = elf_nextscn(module->elf, section)) != NULL) {
            GElf_Shdr header;
            if (gelf_getshdr(section, &header) == NULL || header.sh_type != SHT_SYMTAB || header.sh_entsize == 0) {
                continue;
            }
            Elf_Data *data = elf_getdata(section, NULL);
            if (data == NULL) continue;
            size_t symbol_count = header.sh_size / header.sh_entsize;
            for (size_t index = 0; index < symbol_count; index++) {
                GElf_Sym symbol;
                if (gelf_getsym(data, (int)index, &symbol) == NULL || symbol.st_name == 0 ||
                    symbol.st_shndx == SHN_UNDEF) {
                    continue;
                }
                const char *name = elf_strptr(module->elf, header.sh_link, symbol.st_name);
                if (name != NULL && strcmp(name, symbol_name) == 0) {
                    result = (const void *)((uintptr_t)symbol.st_value + (uintptr_t)bias);
                    break;
                }
            }
        }
    }
    pthread_mutex_unlock(&lg_hidden_lock);
    return result;
}

size_t lg_module_symbol_name(const void *address, char *buffer, size_t capacity) {
    size_t result = 0;
    if (capacity == 0) return 0;
    pthread_mutex_lock(&lg_hidden_lock);
    GElf_Addr link_address = 0;
    lg_hidden_module *module = lg_module_of(address, &link_address);
    if (module != NULL && module->elf != NULL) {
        Elf_Scn *section = NULL;
        while (result == 0 && (section = elf_nextscn(module->elf, section)) != NULL) {
            GElf_Shdr header;
            if (gelf_getshdr(section, &header) == NULL || header.sh_type != SHT_SYMTAB || header.sh_entsize == 0) {
                continue;
            }
            Elf_Data *data = elf_getdata(section, NULL);
            if (data == NULL) continue;
            size_t symbol_count = header.sh_size / header.sh_entsize;
            for (size_t index = 0; index < symbol_count; index++) {
                GElf_Sym symbol;
                if (gelf_getsym(data, (int)index, &symbol) == NULL || symbol.st_name == 0 ||
                    symbol.st_value != link_address || GELF_ST_TYPE(symbol.st_info) != STT_FUNC) {
                    continue;
                }
                const char *name = elf_strptr(module->elf, header.sh_link, symbol.st_name);
                size_t length = name != NULL ? strlen(name) : 0;
                if (length > 0 && length + 1 <= capacity) {
                    memcpy(buffer, name, length + 1);
                    result = length;
                    break;
                }
            }
        }
    }
    pthread_mutex_unlock(&lg_hidden_lock);
    return result;
}
