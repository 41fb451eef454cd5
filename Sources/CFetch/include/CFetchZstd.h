// libzstd's streaming decompression, for the Swift side of the downloads: symbol servers may
// keep their files zstd-compressed (symsorter -z), and what arrives is inflated as it is
// written (Sources/Symbolication/Servers/ZstdInflater.swift). No C code of its own: the
// bound on what a frame may inflate to is kept there.
//
// libzstd is linked (it is tiny, and the DWARF reader links it for zstd ELF sections).

#ifndef CFETCH_ZSTD_H
#define CFETCH_ZSTD_H

#include <zstd.h>

#endif
