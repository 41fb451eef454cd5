// CFetch: downloading debug files, through libcurl (symbol servers over http and https) and
// libdebuginfod (debuginfod servers), both loaded with dlopen on first use.
//
// Neither library is linked: loading them (and the TLS libraries they bring) costs every run
// several milliseconds at start-up, and most runs use no server. A run that names no server
// never loads them, and so opens no socket. A missing library is an error naming the
// package that brings it.

#ifndef CFETCH_H
#define CFETCH_H

#include <stddef.h>

#include "CFetchZstd.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What `cfetch_http_get` did.
enum {
    /// The body was received whole and given to the sink.
    CFETCH_OK = 0,
    /// The server answered with an HTTP status of 400 or more (`*status`); no body was given.
    CFETCH_HTTP_ERROR = 1,
    /// The body is larger than `max_bytes` (said by Content-Length, or counted).
    CFETCH_TOO_LARGE = 2,
    /// No answer: the connection failed, was dropped, or stalled (`message` says which).
    CFETCH_TRANSPORT = 3,
    /// libcurl cannot be loaded (`message` says why).
    CFETCH_NO_LIBRARY = 4,
    /// The sink refused the bytes (the file could not be written).
    CFETCH_SINK_FAILED = 5,
};

/// Receives the body, piece by piece; returns 0 to stop the transfer (a write failed).
typedef int (*cfetch_sink)(const void *bytes, size_t count, void *context);

/// GETs `url` (http or https; redirects followed, to http or https only) and gives the body
/// to `sink`. `connect_timeout` bounds the connection in seconds; `stall_timeout` ends a
/// transfer that receives no byte for that many seconds (a server that accepts and never
/// answers). `*status` is the final HTTP status (0 when there was none). `message` gets a
/// NUL-terminated reason for CFETCH_TRANSPORT and CFETCH_NO_LIBRARY. Thread-safe.
int cfetch_http_get(const char *url, long long max_bytes, long connect_timeout, long stall_timeout,
                    cfetch_sink sink, void *context, long *status, char *message, size_t message_size);

/// Loads libdebuginfod and makes its client handle (once). 0 on success, else -1 with the
/// reason in `message`. The library reads DEBUGINFOD_URLS and its other variables when it
/// is asked, so they must be set before.
int cfetch_debuginfod_open(char *message, size_t message_size);

/// Asks the debuginfod servers of DEBUGINFOD_URLS for the debug file (`debuginfo`) of the
/// lowercase hexadecimal `build_id`. On success returns 0 and a malloc'd path of the file in
/// the client's cache in `*path` (the caller frees it); else a negative errno (-ENOENT: no
/// server has it). `url` gets the last server the library talked to, when it says.
/// Serialized: one request at a time. `cfetch_debuginfod_open` must have succeeded.
int cfetch_debuginfod_find(const char *build_id, char **path, char *url, size_t url_size);

#ifdef __cplusplus
}
#endif

#endif
