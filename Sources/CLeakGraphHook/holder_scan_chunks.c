// Untracked malloc memory for the holder scan (holder_scan.h): which glibc chunk holds a word that is
// not inside a tracked object, and which tracked object owns that chunk — every word pointing into it
// lies in that object, or in chunks that object owns in turn.
//
// A word held by a chunk that one tracked object owns is that object's: if the object is leaked, so is
// what the word points to (a retained context pointer in a malloc'd slot only a leaked object points
// to; a task's async frames in its allocator's slabs). A chunk something else points into (a stack, a
// module's data, the kernel, two objects) holds; a chunk nothing points into is garbage and holds
// nothing. Chunk boundaries come from glibc's own headers (the size word before each chunk, flags in its
// low three bits), walked forward from a tracked object of the same mapping (a tracked object is a
// chunk's user pointer), or from the start of the main heap or of an mmapped chunk; the layout is
// checked once, on a block of known size, and anything that does not add up is held.

#include "holder_scan.h"

#ifdef __linux__

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/// glibc's chunk header: the previous chunk's size (when free) and this chunk's size with flags.
#define LG_CHUNK_HEADER 16u
#define LG_CHUNK_PREV_INUSE 1u
#define LG_CHUNK_IS_MMAPPED 2u
#define LG_CHUNK_FLAGS 7u
/// The smallest chunk and glibc's alignment on 64-bit targets.
#define LG_CHUNK_MIN 32u
#define LG_CHUNK_ALIGN 16u
/// Steps a walk takes at most from its anchor before it gives up (the word is then held).
#define LG_CHUNK_WALK_LIMIT (1u << 20)

/// Chunks one scan can follow, chunk-to-chunk words, and words from candidates into chunks.
#define LG_CHUNK_CAPACITY 65536u
#define LG_CHUNK_HASH (2 * LG_CHUNK_CAPACITY)
#define LG_CHUNK_EDGE_CAPACITY 262144u
#define LG_CHUNK_HIT_CAPACITY 262144u

/// A chunk's state bits.
enum {
    /// Something that holds (root memory, the kernel, two owners, an unread chunk) points into it.
    LG_CHUNK_HELD = 1u,
    /// Its in-words were looked for (it was a pass's target).
    LG_CHUNK_TARGETED = 2u,
    /// Worth a pass: it holds a word into a candidate or a chunk that is not held.
    LG_CHUNK_RELEVANT = 4u,
};

typedef struct lg_chunk {
    lg_range range;
    /// The tracked object whose memory holds a word into this chunk (0 none seen yet), and where in it
    /// the word that leads here is (directly, or to the chunk that leads here).
    uintptr_t owner;
    uintptr_t owner_location;
    uint32_t state;
    uint32_t pad;
} lg_chunk;

/// A word of chunk `from` pointing into chunk `to`.
typedef struct lg_chunk_edge {
    uint32_t from;
    uint32_t to;
} lg_chunk_edge;

/// A word of chunk `chunk` at `location` pointing into candidate `candidate`.
typedef struct lg_chunk_hit {
    uint64_t candidate;
    uint32_t chunk;
    uint32_t pad;
    uintptr_t location;
} lg_chunk_hit;

typedef struct lg_chunk_table {
    lg_chunk chunks[LG_CHUNK_CAPACITY];
    uint32_t hash[LG_CHUNK_HASH];  // index + 1, 0 empty
    lg_chunk_edge edges[LG_CHUNK_EDGE_CAPACITY];
    lg_chunk_hit hits[LG_CHUNK_HIT_CAPACITY];
    /// A pass's targets: chunk indices sorted by address, and their ranges.
    uint32_t targets[LG_CHUNK_CAPACITY];
    lg_range target_ranges[LG_CHUNK_CAPACITY];
    size_t chunk_count;
    size_t edge_count;
    size_t hit_count;
    /// Set when a table is full: every chunk not resolved counts as held.
    bool overflowed;
} lg_chunk_table;

static lg_chunk_table *lg_chunks;
/// 1 when glibc's chunk layout was checked and matches, -1 when it does not, 0 before the check.
static int lg_chunk_layout;
/// glibc's per-process tcache key: the second word of every chunk in a thread's cache of freed chunks
/// (which otherwise look in use). 0 when not learned.
static uint64_t lg_tcache_key;

bool lg_scan_chunks_prepare(void) {
    if (lg_chunk_layout == 0) {
        // A 40-byte block lives in a 48-byte chunk: its size word (flags in the low three bits) just
        // before it, 40 usable bytes (the next chunk's first word is this one's while it is in use).
        // The check's own block is zeroed before it goes back (a freed chunk keeps its bytes).
        lg_thread_ignore_begin();
        unsigned char *block = malloc(40);
        bool known = block != NULL && (((const uint64_t *)block)[-1] & ~(uint64_t)LG_CHUNK_FLAGS) == 48 &&
                     malloc_usable_size(block) == 40;
        if (block != NULL) {
            memset(block, 0, 40);
            free(block);
        }
        // A chunk freed into the thread's cache keeps its size word and in-use bit; glibc marks it with a
        // per-process key in its second word (against double frees). Learned from two freed blocks of
        // other sizes: the same nonzero word in both.
        uint64_t *first = malloc(24);
        uint64_t *second = malloc(56);
        if (first != NULL && second != NULL) {
            free(first);
            free(second);
            uint64_t key = first[1];
            lg_tcache_key = key != 0 && key == second[1] ? key : 0;
        }
        lg_thread_ignore_end();
        lg_chunk_layout = known ? 1 : -1;
    }
    if (lg_chunks == NULL) {
        void *table = mmap(NULL, sizeof(lg_chunk_table), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (table == MAP_FAILED) {
            return false;
        }
        lg_chunks = table;
    }
    return true;
}

lg_range lg_scan_chunks_buffer(void) {
    return (lg_range){(uintptr_t)lg_chunks, (uintptr_t)lg_chunks + sizeof(lg_chunk_table)};
}

void lg_scan_chunks_reset(void) {
    if (lg_chunks == NULL) {
        return;
    }
    // Only what was used is cleared (the table is mostly untouched pages).
    for (size_t i = 0; i < lg_chunks->chunk_count; i++) {
        uintptr_t start = lg_chunks->chunks[i].range.start;
        size_t slot = (start >> 4) % LG_CHUNK_HASH;
        while (lg_chunks->hash[slot] != 0) {
            lg_chunks->hash[slot] = 0;
            slot = (slot + 1) % LG_CHUNK_HASH;
        }
    }
    memset(lg_chunks->chunks, 0, lg_chunks->chunk_count * sizeof(lg_chunk));
    memset(lg_chunks->edges, 0, lg_chunks->edge_count * sizeof(lg_chunk_edge));
    memset(lg_chunks->hits, 0, lg_chunks->hit_count * sizeof(lg_chunk_hit));
    lg_chunks->chunk_count = 0;
    lg_chunks->edge_count = 0;
    lg_chunks->hit_count = 0;
    lg_chunks->overflowed = false;
}

bool lg_scan_chunks_known(void) { return lg_chunk_layout == 1 && lg_chunks != NULL; }

uintptr_t lg_scan_object_end(uintptr_t object, size_t size) {
    if (lg_chunk_layout != 1) {
        return object + size;
    }
    // A tracked object is a chunk's user pointer: its chunk ends where its size word says. The space
    // after the object's own bytes belongs to nothing else.
    uint64_t word = ((const uint64_t *)object)[-1];
    uint64_t chunk = word & ~(uint64_t)LG_CHUNK_FLAGS;
    uint64_t usable = chunk - ((word & LG_CHUNK_IS_MMAPPED) ? LG_CHUNK_HEADER : 8u);
    if (chunk < LG_CHUNK_MIN || chunk % LG_CHUNK_ALIGN != 0 || usable < size || usable - size > (1u << 20)) {
        return object + size;
    }
    return object + usable;
}

/// The size word of the chunk at `chunk` (inside the mapping: the caller checked `chunk + 16 <= end`).
static inline uint64_t lg_chunk_size_word(uintptr_t chunk) { return ((const uint64_t *)chunk)[1]; }

lg_chunk_lookup lg_scan_chunk_at(const lg_scan_job *job, uintptr_t location) {
    lg_chunk_lookup result = {LG_CHUNK_UNKNOWN, {0, 0}};
    if (lg_chunk_layout != 1 || !job->map_heap) {
        return result;
    }
    uintptr_t map_start = job->map_start;
    uintptr_t map_end = job->map_end;
    // The anchor: the nearest tracked object below `location` in this mapping, else the mapping's start
    // when it is the main heap (its first chunk) or an mmapped chunk.
    const lg_scan_request *request = job->request;
    size_t low = 0;
    size_t high = request->object_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (request->objects[middle] <= location) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    uintptr_t chunk = 0;
    bool mmapped = false;
    if (low > 0 && request->objects[low - 1] - LG_CHUNK_HEADER >= map_start) {
        chunk = request->objects[low - 1] - LG_CHUNK_HEADER;
    } else if (job->map_main_heap) {
        chunk = map_start;
    } else if (map_start + LG_CHUNK_HEADER <= map_end && ((const uint64_t *)map_start)[0] == 0 &&
               (lg_chunk_size_word(map_start) & LG_CHUNK_IS_MMAPPED) != 0) {
        chunk = map_start;
        mmapped = true;
    } else {
        return result;
    }
    for (unsigned steps = 0; steps < LG_CHUNK_WALK_LIMIT; steps++) {
        if (chunk + LG_CHUNK_HEADER > map_end) {
            return result;
        }
        uint64_t word = lg_chunk_size_word(chunk);
        uint64_t size = word & ~(uint64_t)LG_CHUNK_FLAGS;
        if (size < LG_CHUNK_MIN || size % LG_CHUNK_ALIGN != 0 || size > map_end - chunk ||
            ((word & LG_CHUNK_IS_MMAPPED) != 0) != mmapped) {
            return result;
        }
        uintptr_t next = chunk + size;
        // An in-use chunk's bytes run to the next chunk's size word (its first word is this chunk's).
        uintptr_t end = mmapped ? next : next + 8;
        if (location < chunk + LG_CHUNK_HEADER) {
            return result;  // a header word (the walk only gets here from the anchor's own chunk)
        }
        if (location < end && location < map_end) {
            bool in_use =
                mmapped || (next + LG_CHUNK_HEADER <= map_end && (lg_chunk_size_word(next) & LG_CHUNK_PREV_INUSE) != 0);
            // In a thread's cache of freed chunks: looks in use, holds a freed block's stale bytes.
            if (in_use && !mmapped && lg_tcache_key != 0 && ((const uint64_t *)chunk)[3] == lg_tcache_key) {
                in_use = false;
            }
            result.state = in_use ? LG_CHUNK_IN_USE : LG_CHUNK_FREE;
            result.range = (lg_range){chunk + LG_CHUNK_HEADER, end < map_end ? end : map_end};
            return result;
        }
        chunk = next;
    }
    return result;
}

/// The index of the chunk `range`, added when new; -1 when the table is full.
static long lg_chunk_index(lg_range range) {
    size_t slot = (range.start >> 4) % LG_CHUNK_HASH;
    while (lg_chunks->hash[slot] != 0) {
        uint32_t index = lg_chunks->hash[slot] - 1;
        if (lg_chunks->chunks[index].range.start == range.start) {
            return index;
        }
        slot = (slot + 1) % LG_CHUNK_HASH;
    }
    if (lg_chunks->chunk_count >= LG_CHUNK_CAPACITY) {
        lg_chunks->overflowed = true;
        return -1;
    }
    size_t index = lg_chunks->chunk_count++;
    lg_chunks->chunks[index].range = range;
    lg_chunks->hash[slot] = (uint32_t)index + 1;
    return (long)index;
}

bool lg_scan_chunk_hit(uint64_t candidate, lg_range chunk, uintptr_t location) {
    long index = lg_chunk_index(chunk);
    if (index < 0 || lg_chunks->hit_count >= LG_CHUNK_HIT_CAPACITY) {
        lg_chunks->overflowed = true;
        return false;
    }
    lg_chunk_hit *hit = &lg_chunks->hits[lg_chunks->hit_count++];
    hit->candidate = candidate;
    hit->chunk = (uint32_t)index;
    hit->location = location;
    return true;
}

void lg_scan_chunk_found(size_t target, lg_chunk_holder holder, uintptr_t location) {
    lg_chunk *chunk = &lg_chunks->chunks[lg_chunks->targets[target]];
    if (chunk->state & LG_CHUNK_HELD) {
        return;
    }
    switch (holder.kind) {
        case LG_CHUNK_HOLDER_ROOT:
            chunk->state |= LG_CHUNK_HELD;
            break;
        case LG_CHUNK_HOLDER_OBJECT:
            if (chunk->owner == 0) {
                chunk->owner = holder.object;
                chunk->owner_location = location;
            } else if (chunk->owner != holder.object) {
                chunk->state |= LG_CHUNK_HELD;  // two owners: either may be alive
            }
            break;
        case LG_CHUNK_HOLDER_CHUNK: {
            if (holder.chunk.start == chunk->range.start) {
                break;  // a word of the chunk into itself
            }
            long from = lg_chunk_index(holder.chunk);
            if (from < 0 || lg_chunks->edge_count >= LG_CHUNK_EDGE_CAPACITY) {
                lg_chunks->overflowed = true;
                chunk->state |= LG_CHUNK_HELD;
                break;
            }
            lg_chunks->edges[lg_chunks->edge_count++] = (lg_chunk_edge){(uint32_t)from, lg_chunks->targets[target]};
            break;
        }
    }
}

/// Ownership flows along chunk-to-chunk words until nothing changes: a chunk held by a held chunk is
/// held, one held by a chunk another object owns has two owners (held). Monotone: what is held stays
/// held whatever later passes find.
static void lg_chunks_propagate(void) {
    lg_chunk *chunks = lg_chunks->chunks;
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < lg_chunks->edge_count; i++) {
            const lg_chunk *from = &chunks[lg_chunks->edges[i].from];
            lg_chunk *to = &chunks[lg_chunks->edges[i].to];
            if (to->state & LG_CHUNK_HELD) {
                continue;
            }
            if (from->state & LG_CHUNK_HELD) {
                to->state |= LG_CHUNK_HELD;
                changed = true;
            } else if (from->owner != 0 && to->owner == 0) {
                to->owner = from->owner;
                to->owner_location = from->owner_location;
                changed = true;
            } else if (from->owner != 0 && to->owner != from->owner) {
                to->state |= LG_CHUNK_HELD;
                changed = true;
            }
        }
    }
}

static bool lg_chunk_before(const void *a, const void *b) {
    return lg_chunks->chunks[*(const uint32_t *)a].range.start < lg_chunks->chunks[*(const uint32_t *)b].range.start;
}

size_t lg_scan_chunks_next_pass(uint8_t *held, uintptr_t *held_at, const lg_range **ranges) {
    // What is decided already: a candidate one of whose chunks is held is held, so nothing more is
    // looked for on its behalf.
    lg_chunks_propagate();
    for (size_t i = 0; i < lg_chunks->hit_count; i++) {
        const lg_chunk_hit *hit = &lg_chunks->hits[i];
        if (!held[hit->candidate] && (lg_chunks->chunks[hit->chunk].state & LG_CHUNK_HELD)) {
            held[hit->candidate] = LG_HELD_MEMORY;
            if (held_at != NULL) {
                held_at[hit->candidate] = hit->location;
            }
        }
    }
    // Relevant: a chunk holding a word into a candidate that is not held, or into a chunk that is
    // relevant and not held. Each pass adds the chunks whose in-words were found in the last one.
    for (size_t i = 0; i < lg_chunks->hit_count; i++) {
        if (!held[lg_chunks->hits[i].candidate]) {
            lg_chunks->chunks[lg_chunks->hits[i].chunk].state |= LG_CHUNK_RELEVANT;
        }
    }
    for (size_t i = 0; i < lg_chunks->edge_count; i++) {
        const lg_chunk *to = &lg_chunks->chunks[lg_chunks->edges[i].to];
        if ((to->state & LG_CHUNK_RELEVANT) && !(to->state & LG_CHUNK_HELD)) {
            lg_chunks->chunks[lg_chunks->edges[i].from].state |= LG_CHUNK_RELEVANT;
        }
    }
    size_t count = 0;
    for (size_t i = 0; i < lg_chunks->chunk_count; i++) {
        lg_chunk *chunk = &lg_chunks->chunks[i];
        if ((chunk->state & (LG_CHUNK_RELEVANT | LG_CHUNK_TARGETED | LG_CHUNK_HELD)) == LG_CHUNK_RELEVANT) {
            chunk->state |= LG_CHUNK_TARGETED;
            lg_chunks->targets[count++] = (uint32_t)i;
        }
    }
    // In address order, as a pass compares words with its targets.
    lg_scan_sort(lg_chunks->targets, count, sizeof(uint32_t), lg_chunk_before);
    for (size_t i = 0; i < count; i++) {
        lg_chunks->target_ranges[i] = lg_chunks->chunks[lg_chunks->targets[i]].range;
    }
    *ranges = lg_chunks->target_ranges;
    return count;
}

void lg_scan_chunks_resolve(lg_scan_request *request) {
    lg_chunk *chunks = lg_chunks->chunks;
    // A chunk whose in-words were never looked for, or whose table overflowed, holds.
    for (size_t i = 0; i < lg_chunks->chunk_count; i++) {
        if (!(chunks[i].state & LG_CHUNK_TARGETED) || lg_chunks->overflowed) {
            chunks[i].state |= LG_CHUNK_HELD;
        }
    }
    lg_chunks_propagate();
    // Each candidate's words in chunks: held by a held chunk, the owner's when one object owns it,
    // nothing when nothing points into the chunk (leaked C memory).
    for (size_t i = 0; i < lg_chunks->hit_count; i++) {
        const lg_chunk_hit *hit = &lg_chunks->hits[i];
        if (request->held[hit->candidate]) {
            continue;
        }
        const lg_chunk *chunk = &chunks[hit->chunk];
        if (chunk->state & LG_CHUNK_HELD) {
            request->held[hit->candidate] = LG_HELD_MEMORY;
            if (request->held_at != NULL) {
                request->held_at[hit->candidate] = hit->location;
            }
        } else if (chunk->owner != 0) {
            // The owner's word (its location in the owner) stands for the chunk's: the owner may be the
            // candidate itself (a slot only the candidate points to holding its own retained pointer).
            if (request->hit_count < request->hit_capacity) {
                lg_holder_hit *out = &request->hits[request->hit_count++];
                out->candidate = hit->candidate;
                out->holder = chunk->owner;
                out->location = chunk->owner_location;
                out->through_memory = 1;
            } else {
                request->held[hit->candidate] = LG_HELD_MEMORY;
            }
        }
    }
    request->stats.chunks = lg_chunks->chunk_count;
}

#endif /* __linux__ */
