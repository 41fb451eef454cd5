// The exports trie: every symbol the image exports, in a prefix tree whose edges spell the
// names. Each node is
//
//     uleb terminal_size; [terminal: uleb flags; uleb address (from the Mach-O header)
//                                    (| REEXPORT: uleb ordinal, name; | STUB_AND_RESOLVER: uleb)]
//     u8 child_count; child_count × (NUL-terminated edge, uleb child node offset)
//
//     root → "_" → "foo" (terminal, address 0x1234)   gives _foo at image + 0x1234
//          ↘ "_b" → "ar" (terminal, REEXPORT)          is another image's code: not kept
//
// The walk is depth first with an explicit stack; the name being built is one buffer, each
// frame knowing the length of its prefix, so a child's edge is written after its parent's
// name and a sibling's edge over it later. The name is bounded and the depth is bounded (a
// subtree deeper is passed over). A trie is a tree: a node entered twice (an edge looping back,
// or nodes shared so that a few bytes spell many names) is damage, so each node is read once.
// Names are built, not found whole in the bytes: they are copied into `names`, one block that
// the symbols point into once the walk is over, and which may hold at most KEPT_PER_BYTE bytes
// a byte of the trie (a long edge above many leaves is spelled once per leaf; real tries, whose
// names share prefixes of a few dozen bytes, keep a few bytes of names a byte).

#include "internal.h"

#include <stdlib.h>

enum {
    EXPORT_KIND_MASK = 0x03,
    EXPORT_KIND_REGULAR = 0x00,
    EXPORT_REEXPORT = 0x08,
    NAME_LIMIT = 4096,
    DEPTH_LIMIT = 256,
    KEPT_PER_BYTE = 256,
};

typedef struct frame {
    uint64_t next_child;   // where the next child's edge is
    uint32_t children_left;
    uint32_t name_length;  // of this node's name
} frame;

typedef struct names {
    uint8_t *bytes;
    uint64_t size, capacity;
} names;

static int names_add(names *n, const uint8_t *bytes, uint64_t length, uint64_t *offset) {
    if (n->size + length > n->capacity) {
        uint64_t capacity = n->capacity ? n->capacity : 4096;
        while (capacity < n->size + length) capacity *= 2;
        uint8_t *grown = realloc(n->bytes, capacity);
        if (!grown) return 0;
        n->bytes = grown;
        n->capacity = capacity;
    }
    memcpy(n->bytes + n->size, bytes, length);
    *offset = n->size;
    n->size += length;
    return 1;
}

// Enters the node at `node`: records its symbol if it has one, and pushes a frame for its
// children. 0 when the node cannot be read.
static int enter(span trie, uint64_t node, uint32_t name_length, const uint8_t *name, uint64_t image_address,
                 symbol_list *list, names *kept, frame *stack, uint32_t *depth) {
    uint64_t at = node, terminal_size = 0;
    if (!read_uleb(trie, &at, &terminal_size) || !span_has(trie, at, terminal_size)) return 0;
    if (terminal_size > 0) {
        uint64_t t = at, flags = 0, value = 0, offset = 0;
        if (read_uleb(trie, &t, &flags) && !(flags & EXPORT_REEXPORT) && read_uleb(trie, &t, &value)
            && (flags & EXPORT_KIND_MASK) == EXPORT_KIND_REGULAR && name_length > 0
            && image_address + value >= image_address) {
            if (kept->size + name_length > KEPT_PER_BYTE * trie.size) return 0;
            if (!names_add(kept, name, name_length, &offset)) {
                list->failed = 1;
                return 0;
            }
            // The name's offset in `kept` for now: made a pointer when the walk is over.
            symbol_list_add(list, image_address + value, (const uint8_t *)(uintptr_t)offset, name_length,
                            DSC_SYMBOL_EXPORT, 0);
        }
    }
    uint8_t children = 0;
    if (!read_u8(trie, at + terminal_size, &children)) return 0;
    if (*depth < DEPTH_LIMIT) stack[(*depth)++] = (frame){at + terminal_size + 1, children, name_length};
    return 1;
}

int exports_read(symbol_list *list, span trie, uint64_t image_address, void **names_block, char *problem,
                 size_t problem_size) {
    *names_block = NULL;
    if (trie.size == 0) return 1;
    frame stack[DEPTH_LIMIT];
    uint8_t name[NAME_LIMIT];
    names kept = {NULL, 0, 0};
    uint32_t depth = 0;
    uint64_t first = list->count;
    // The nodes entered, a bit per byte of the trie.
    uint8_t *entered = calloc((trie.size + 7) / 8, 1);
    if (!entered) {
        list->failed = 1;
        return 0;
    }
    entered[0] = 1;
    int damaged = !enter(trie, 0, 0, name, image_address, list, &kept, stack, &depth);
    while (depth > 0 && !damaged) {
        frame *f = &stack[depth - 1];
        if (f->children_left == 0) {
            depth--;
            continue;
        }
        f->children_left--;
        uint64_t edge = string_length(trie, f->next_child), child = 0, at = f->next_child + edge + 1;
        if (!span_has(trie, f->next_child, edge + 1) || !read_uleb(trie, &at, &child) || child >= trie.size
            || f->name_length + edge > NAME_LIMIT || (entered[child >> 3] >> (child & 7) & 1)) {
            damaged = 1;
            break;
        }
        entered[child >> 3] |= (uint8_t)(1u << (child & 7));
        memcpy(name + f->name_length, trie.bytes + f->next_child, edge);
        uint32_t length = f->name_length + (uint32_t)edge;
        f->next_child = at;
        if (!enter(trie, child, length, name, image_address, list, &kept, stack, &depth)) damaged = 1;
    }
    // Offsets into `kept` become pointers now that it no longer moves.
    for (uint64_t i = first; i < list->count; i++) {
        if (list->items[i].source == DSC_SYMBOL_EXPORT) {
            list->items[i].name = kept.bytes + (uintptr_t)list->items[i].name;
        }
    }
    free(entered);
    *names_block = kept.bytes;
    if (damaged) say(problem, problem_size, "its exports trie is damaged; the exports read before the damage are kept");
    return !damaged;
}
