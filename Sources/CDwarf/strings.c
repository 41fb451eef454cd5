// The strings of skipped units: a unit skipped whole leaves nothing in the result, its strings
// included. A thread's string table keeps what every task it ran added (strings stay interned,
// so that no string is copied twice, even for units that fail); once some unit is skipped,
// each table is cut down to the strings the units kept name, before it goes into the result.

#include "reader.h"

#include <stdlib.h>
#include <string.h>

typedef struct moved {
    uint32_t from, to;
} moved;

typedef struct kept_strings {
    uint8_t *named;  // a bit per byte of the table: a kept entry names a string starting there
    moved *moves;    // of the strings kept, by `from`
    uint64_t move_count;
} kept_strings;

static inline void name(kept_strings *k, uint32_t offset) {
    if (offset) k->named[offset >> 3] |= (uint8_t)(1u << (offset & 7));
}

static inline int is_named(const kept_strings *k, uint64_t offset) {
    return (k->named[offset >> 3] >> (offset & 7)) & 1;
}

static uint32_t moved_to(const kept_strings *k, uint32_t offset) {
    if (!offset) return 0;
    uint64_t low = 0, high = k->move_count;
    while (low < high) {
        uint64_t middle = low + (high - low) / 2;
        if (k->moves[middle].from < offset) low = middle + 1;
        else high = middle;
    }
    return k->moves[low].to;  // every string named was kept
}

// Calls `visit` on every string offset a kept task of thread `t` names.
#define FOR_EACH_NAME(rd, t, visit)                                                           \
    do {                                                                                      \
        cdw_result *r_ = &(t)->s.r;                                                           \
        for (uint32_t u_ = 0; u_ < (rd)->unit_count; u_++) {                                  \
            const task_result *fr_ = &(rd)->functions[u_], *lr_ = &(rd)->lines[u_];           \
            if (fr_->thread == (int32_t)(t)->index) {                                         \
                for (uint64_t i_ = fr_->start[ARR_FUNCTIONS]; i_ < fr_->end[ARR_FUNCTIONS]; i_++) { \
                    visit(r_->functions[i_].name);                                            \
                    visit(r_->functions[i_].linkage_name);                                    \
                }                                                                             \
            }                                                                                 \
            if (lr_->thread != (int32_t)(t)->index) continue;                                 \
            for (uint64_t i_ = lr_->start[ARR_FILES]; i_ < lr_->end[ARR_FILES]; i_++)         \
                visit(r_->files[i_].name);                                                    \
            for (uint64_t i_ = lr_->start[ARR_UNITS]; i_ < lr_->end[ARR_UNITS]; i_++)         \
                visit(r_->units[i_].comp_dir);                                                \
            for (uint64_t i_ = lr_->start[ARR_DIRECTORIES]; i_ < lr_->end[ARR_DIRECTORIES]; i_++) \
                visit(r_->directories[i_]);                                                   \
        }                                                                                     \
    } while (0)

// Cuts thread `t`'s string table down to what its kept tasks name. 0, or -1.
static int cut_strings(reader *rd, thread_ctx *t) {
    cdw_result *r = &t->s.r;
    kept_strings k = {calloc(r->strings_size / 8 + 1, 1), NULL, 0};
    if (!k.named) return -1;
#define NAME(offset) name(&k, (offset))
    FOR_EACH_NAME(rd, t, NAME);
#undef NAME
    uint64_t count = 0;
    for (uint64_t at = 1; at < r->strings_size; at += strlen(r->strings + at) + 1)
        count += is_named(&k, at);
    k.moves = malloc((count ? count : 1) * sizeof(moved));
    if (!k.moves) {
        free(k.named);
        return -1;
    }
    // Strings move towards the front only: the table is cut down in place.
    uint64_t size = 1;
    for (uint64_t at = 1; at < r->strings_size;) {
        uint64_t length = strlen(r->strings + at) + 1;
        if (is_named(&k, at)) {
            memmove(r->strings + size, r->strings + at, length);
            k.moves[k.move_count++] = (moved){(uint32_t)at, (uint32_t)size};
            size += length;
        }
        at += length;
    }
    r->strings_size = size;
#define MOVE(field) ((field) = moved_to(&k, (field)))
    FOR_EACH_NAME(rd, t, MOVE);
#undef MOVE
    free(k.named);
    free(k.moves);
    return 0;
}

CDW_INTERNAL int drop_unused_strings(reader *rd) {
    for (uint32_t i = 0; i < rd->thread_count; i++) {
        if (cut_strings(rd, &rd->threads[i]) != 0) return -1;
    }
    return 0;
}
