// Requests to debuginfod servers through libdebuginfod, loaded with dlopen on first use (see
// CFetch.h), as elfutils' own libdw loads it.

#include "CFetch.h"

#include <elfutils/debuginfod.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct {
    __typeof__(debuginfod_begin) *begin;
    __typeof__(debuginfod_find_debuginfo) *find_debuginfo;
    __typeof__(debuginfod_get_url) *get_url;
    debuginfod_client *client;
    char failure[256];
} library;

static pthread_once_t open_once = PTHREAD_ONCE_INIT;
/// One request at a time: a client handle is not to be shared by threads.
static pthread_mutex_t request_lock = PTHREAD_MUTEX_INITIALIZER;

static void open_library(void) {
    void *handle = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(library.failure, sizeof library.failure,
                 "libdebuginfod is not installed (%s: Debian's package libdebuginfod1)", DEBUGINFOD_SONAME);
        return;
    }
    library.begin = (__typeof__(debuginfod_begin) *)dlsym(handle, "debuginfod_begin");
    library.find_debuginfo = (__typeof__(debuginfod_find_debuginfo) *)dlsym(handle, "debuginfod_find_debuginfo");
    library.get_url = (__typeof__(debuginfod_get_url) *)dlsym(handle, "debuginfod_get_url");
    if (!library.begin || !library.find_debuginfo) {
        snprintf(library.failure, sizeof library.failure, "%s lacks debuginfod_begin or debuginfod_find_debuginfo",
                 DEBUGINFOD_SONAME);
        return;
    }
    library.client = library.begin();
    if (!library.client) snprintf(library.failure, sizeof library.failure, "debuginfod_begin failed");
}

int cfetch_debuginfod_open(char *message, size_t message_size) {
    pthread_once(&open_once, open_library);
    if (library.client) return 0;
    if (message_size > 0) snprintf(message, message_size, "%s", library.failure);
    return -1;
}

int cfetch_debuginfod_find(const char *build_id, char **path, char *url, size_t url_size) {
    *path = NULL;
    if (url_size > 0) url[0] = 0;
    if (!library.client) return -ENOSYS;
    pthread_mutex_lock(&request_lock);
    int fd = library.find_debuginfo(library.client, (const unsigned char *)build_id, 0, path);
    if (library.get_url && url_size > 0) {
        const char *last = library.get_url(library.client);
        if (last) snprintf(url, url_size, "%s", last);
    }
    pthread_mutex_unlock(&request_lock);
    if (fd < 0) return fd;
    close(fd);
    if (!*path) return -ENOENT;
    return 0;
}
