// CDwarfReference: libdwarf (20210528) reading an object opened by CDwarf into the same
// cdw_result shape as CDwarf's own reader, as the independent reference its tests compare it
// with. For tests only: it is not part of the shipped program.

#ifndef CDWARF_REFERENCE_H
#define CDWARF_REFERENCE_H

#include "CDwarf.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Reads every unit of `object` with libdwarf, on the calling thread, into `result` (all
/// arrays filled; free with `cdw_result_free`). CDW_OK, CDW_PARTIAL (some units could not be
/// read; the message names the first), CDW_NO_DWARF or CDW_ERROR.
int cdwref_read(cdw_object *object, cdw_result *result, char *message, size_t message_size);

#ifdef __cplusplus
}
#endif

#endif
