// Calls into the Swift runtime that the heap walk needs and that Swift code cannot make directly:
// value witnesses use the Swift calling convention and are reached through function pointers read
// from metadata, and a few runtime entry points are plain C functions without a Swift declaration.
#ifndef CLEAKGRAPH_METADATA_H
#define CLEAKGRAPH_METADATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The strong retain count of a live Swift heap object (`swift_retainCount`).
size_t lg_retain_count(const void *object);

/// Whether a Swift heap object has started deinitialization (`swift_isDeallocating`).
bool lg_is_deallocating(const void *object);

/// Calls an enum's `getEnumTag` value witness on `value` (read only: no retain, no write).
unsigned lg_call_get_enum_tag(const void *witness, const void *value, const void *metadata);

/// Calls an enum's `destructiveProjectEnumData` value witness. It rewrites `value` in place, so
/// callers pass a private byte copy, never the object's own memory.
void lg_call_destructive_project(const void *witness, void *value, const void *metadata);

/// Resolves a mangled type name to metadata (`swift_getTypeByMangledNameInContext`), or NULL. A
/// `context` whose low bit is set is a generic environment's address plus 1, resolved with
/// `swift_getTypeByMangledNameInEnvironment` (generic closure contexts).
const void *lg_type_by_mangled_name(const char *name, size_t length, const void *context,
                                    const void *const *generic_arguments);

#ifdef __cplusplus
}
#endif

#endif
