// Releasing the pages of section bytes read for the last time (cdw_allow_page_release).

#include "reader.h"

#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

// Pages are released in steps of at least this many bytes (unless cdw_allow_page_release says).
#define RELEASE_STEP (1u << 20)

CDW_INTERNAL uint64_t release_step(const cdw_object *o) {
    return o->release_step ? o->release_step : RELEASE_STEP;
}

// Releases the whole pages inside [from, to) (MADV_DONTNEED): private anonymous memory reads as
// zeros afterwards, a private file mapping whose pages were never written reads the file again.
// Only for memory nobody reads again but through such a mapping. Nothing off Linux.
CDW_INTERNAL void release_pages(const void *from, const void *to) {
#ifdef __linux__
    uintptr_t page = (uintptr_t)getpagesize();
    uintptr_t start = ((uintptr_t)from + page - 1) & ~(page - 1);
    uintptr_t end = (uintptr_t)to & ~(page - 1);
    if (end > start) madvise((void *)start, end - start, MADV_DONTNEED);
#else
    (void)from;
    (void)to;
#endif
}

// Releases the pages of section bytes [from, to) that lie where cdw_allow_page_release allows,
// but for pages that share bytes with what libelf may write (`kept`, from range `k` on). They
// read the file again when touched (a unit read again, a reference into it): only memory, not answers, is
// at stake in what is released when.
CDW_INTERNAL void release_section_bytes(const cdw_object *o, const uint8_t *from, const uint8_t *to,
                                  unsigned k) {
    uintptr_t low = (uintptr_t)o->release_base, high = low + o->release_size;
    uintptr_t a = (uintptr_t)from, b = (uintptr_t)to;
    if (!o->release_base || a >= high || b <= low) return;
    if (a < low) a = low;
    if (b > high) b = high;
    for (; k < 3; k++) {
        if (!o->image || o->kept[k][1] <= o->kept[k][0]) continue;
        uintptr_t kept_low = (uintptr_t)o->image + o->kept[k][0];
        uintptr_t kept_high = (uintptr_t)o->image + o->kept[k][1];
        if (kept_high <= a || kept_low >= b) continue;
        // Either side of the kept bytes; rounding inwards to pages leaves out any page they touch.
        if (kept_low > a) release_section_bytes(o, (const uint8_t *)a, (const uint8_t *)kept_low, k + 1);
        if (kept_high < b) release_section_bytes(o, (const uint8_t *)kept_high, (const uint8_t *)b, k + 1);
        return;
    }
    release_pages((const void *)a, (const void *)b);
}

// Every section's pages that may be released.
CDW_INTERNAL void release_sections(const cdw_object *o) {
    if (!o->release_base) return;
    for (uint32_t i = 1; i < o->section_count; i++) {
        const cdw_section *s = &o->sections[i];
        if (s->data && s->size) release_section_bytes(o, s->data, s->data + s->size, 0);
    }
}

void cdw_allow_page_release(cdw_object *object, const void *base, size_t size, size_t step) {
    if (!object) return;
    object->release_base = base;
    object->release_size = base ? size : 0;
    object->release_step = step;
}
