// CFaultGuard: reading mapped files that may be cut short or rewritten while they are read.
//
// A file mapped into memory that another process truncates raises SIGBUS at the next touch
// of a page past its new end, whichever code touches it (Swift header parsers, libelf, the
// DWARF reader, a lookup in a mapped index). Regions registered here are guarded: such a
// fault is answered by mapping a page of zeros over the faulting page and marking the
// region damaged, and the access goes on reading zeros. Every reader is bounds-checked, so
// zeros give a bounded wrong result, which the owner of the region throws away when it sees
// the mark. A fault anywhere else goes to the handler that was there before.

#ifndef CFAULTGUARD_H
#define CFAULTGUARD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How many regions can be guarded at once; `cfg_register` returns -1 beyond.
#define CFG_MAXIMUM_REGIONS 65536

/// Guards `[base, base + length)`, installing the SIGBUS handler on first use. Returns the
/// region's handle, or -1 when there is no free slot or the handler cannot be installed.
int cfg_register(const void *base, size_t length);

/// Stops guarding the region `handle` (before it is unmapped). -1 is ignored.
void cfg_unregister(int handle);

/// Whether a fault has been answered inside the region `handle` since it was registered.
int cfg_is_damaged(int handle);

/// The flag `cfg_is_damaged` reads, for reading it often (`cfg_load_flag`): valid while the
/// region is registered; for -1, a flag that stays 0.
const int *cfg_damaged_flag(int handle);

/// Makes every page touching `[from, from + length)` of a private, writable file mapping a
/// copy of its own (each page's first byte is written back to itself), so that what is read
/// there no longer follows the file.
void cfg_make_private(void *from, size_t length);

/// The number of SIGBUS faults answered so far, in every region.
uint64_t cfg_answered_faults(void);

/// Byte `index` of an array of bytes shared between threads.
static inline uint8_t cfg_load_byte(const uint8_t *bytes, size_t index) {
    return __atomic_load_n(&bytes[index], __ATOMIC_ACQUIRE);
}

/// Sets byte `index` of an array of bytes shared between threads.
static inline void cfg_store_byte(uint8_t *bytes, size_t index, uint8_t value) {
    __atomic_store_n(&bytes[index], value, __ATOMIC_RELEASE);
}

/// An int flag shared between threads.
static inline int cfg_load_flag(const int *flag) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE); }

/// Sets an int flag shared between threads.
static inline void cfg_store_flag(int *flag, int value) { __atomic_store_n(flag, value, __ATOMIC_RELEASE); }

#ifdef __cplusplus
}
#endif

#endif
