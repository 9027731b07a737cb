#include "CLeakGraphMetadata.h"
#include <stdint.h>

// Runtime entry points (libswiftCore). Declared here because no public header exports them to C.
extern size_t swift_retainCount(const void *object);
extern bool swift_isDeallocating(const void *object);
__attribute__((swiftcall)) extern const void *swift_getTypeByMangledNameInContext(const char *name, size_t length,
                                                                                  const void *context,
                                                                                  const void *const *generic_arguments);
__attribute__((swiftcall)) extern const void *
swift_getTypeByMangledNameInEnvironment(const char *name, size_t length, const void *environment,
                                        const void *const *generic_arguments);

typedef __attribute__((swiftcall)) unsigned (*lg_get_enum_tag_fn)(const void *value, const void *metadata);
typedef __attribute__((swiftcall)) void (*lg_destructive_project_fn)(void *value, const void *metadata);

size_t lg_retain_count(const void *object) { return swift_retainCount(object); }

bool lg_is_deallocating(const void *object) { return swift_isDeallocating(object); }

unsigned lg_call_get_enum_tag(const void *witness, const void *value, const void *metadata) {
    return ((lg_get_enum_tag_fn)witness)(value, metadata);
}

void lg_call_destructive_project(const void *witness, void *value, const void *metadata) {
    ((lg_destructive_project_fn)witness)(value, metadata);
}

const void *lg_type_by_mangled_name(const char *name, size_t length, const void *context,
                                    const void *const *generic_arguments) {
    // A context with its low bit set is a generic environment (descriptors are 4-byte aligned).
    if (((uintptr_t)context & 1) != 0) {
        return swift_getTypeByMangledNameInEnvironment(name, length, (const void *)((uintptr_t)context & ~(uintptr_t)1),
                                                       generic_arguments);
    }
    return swift_getTypeByMangledNameInContext(name, length, context, generic_arguments);
}

extern char *swift_demangle(const char *mangled_name, size_t mangled_name_length, char *output_buffer,
                            size_t *output_buffer_size, uint32_t flags);

bool lg_demangle(const char *name, size_t length, char *buffer, size_t capacity) {
    size_t size = capacity;
    char *result = swift_demangle(name, length, buffer, &size, 0);
    return result != NULL && result == buffer;
}

typedef struct {
    const void *metadata;
    size_t state;
} lg_metadata_response;
typedef __attribute__((swiftcall)) lg_metadata_response (*lg_metadata_accessor_fn)(size_t request);

const void *lg_call_metadata_accessor(const void *accessor) {
    lg_metadata_response response = ((lg_metadata_accessor_fn)accessor)(0);
    return response.metadata;
}

#include <malloc.h>

size_t lg_allocation_size(const void *object) { return malloc_usable_size((void *)object); }
