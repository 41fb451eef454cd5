// HTTP(S) downloads through libcurl, loaded with dlopen on first use (see CFetch.h).

#include "CFetch.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef CURLcode (*global_init_fn)(long);
typedef CURL *(*easy_init_fn)(void);
typedef CURLcode (*easy_setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*easy_perform_fn)(CURL *);
typedef CURLcode (*easy_getinfo_fn)(CURL *, CURLINFO, ...);
typedef void (*easy_cleanup_fn)(CURL *);
typedef const char *(*easy_strerror_fn)(CURLcode);

static struct {
    global_init_fn global_init;
    easy_init_fn easy_init;
    easy_setopt_fn setopt;
    easy_perform_fn perform;
    easy_getinfo_fn getinfo;
    easy_cleanup_fn cleanup;
    easy_strerror_fn strerror;
    char failure[256];
} curl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

/// Loads libcurl: the OpenSSL build (Debian's libcurl4), else the GnuTLS one (libcurl3-gnutls,
/// which libdebuginfod uses); both have one ABI.
static void load_curl(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(curl.failure, sizeof curl.failure,
                 "libcurl is not installed (libcurl.so.4: Debian's package libcurl4)");
        return;
    }
    curl.global_init = (global_init_fn)dlsym(library, "curl_global_init");
    curl.easy_init = (easy_init_fn)dlsym(library, "curl_easy_init");
    curl.setopt = (easy_setopt_fn)dlsym(library, "curl_easy_setopt");
    curl.perform = (easy_perform_fn)dlsym(library, "curl_easy_perform");
    curl.getinfo = (easy_getinfo_fn)dlsym(library, "curl_easy_getinfo");
    curl.cleanup = (easy_cleanup_fn)dlsym(library, "curl_easy_cleanup");
    curl.strerror = (easy_strerror_fn)dlsym(library, "curl_easy_strerror");
    if (!curl.global_init || !curl.easy_init || !curl.setopt || !curl.perform || !curl.getinfo || !curl.cleanup
        || !curl.strerror) {
        snprintf(curl.failure, sizeof curl.failure, "libcurl.so.4 lacks the easy interface");
        curl.easy_init = NULL;
        return;
    }
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(curl.failure, sizeof curl.failure, "libcurl could not be initialized");
        curl.easy_init = NULL;
    }
}

/// What the write callback needs.
struct transfer {
    cfetch_sink sink;
    void *context;
    long long max_bytes;
    long long received;
    int too_large;
    int sink_failed;
};

static size_t receive(char *bytes, size_t size, size_t count, void *pointer) {
    struct transfer *transfer = pointer;
    size_t length = size * count;
    if ((long long)length > transfer->max_bytes - transfer->received) {
        transfer->too_large = 1;
        return 0;  // curl ends the transfer with CURLE_WRITE_ERROR
    }
    transfer->received += (long long)length;
    if (length > 0 && !transfer->sink(bytes, length, transfer->context)) {
        transfer->sink_failed = 1;
        return 0;
    }
    return length;
}

static void copy_message(char *message, size_t size, const char *text) {
    if (size == 0) return;
    snprintf(message, size, "%s", text);
}

int cfetch_http_get(const char *url, long long max_bytes, long connect_timeout, long stall_timeout,
                    cfetch_sink sink, void *context, long *status, char *message, size_t message_size) {
    *status = 0;
    copy_message(message, message_size, "");
    pthread_once(&curl_once, load_curl);
    if (!curl.easy_init) {
        copy_message(message, message_size, curl.failure);
        return CFETCH_NO_LIBRARY;
    }
    CURL *handle = curl.easy_init();
    if (!handle) {
        copy_message(message, message_size, "libcurl could not make a handle");
        return CFETCH_TRANSPORT;
    }
    struct transfer transfer = {sink, context, max_bytes, 0, 0, 0};
    char error[CURL_ERROR_SIZE] = {0};
    curl.setopt(handle, CURLOPT_URL, url);
    curl.setopt(handle, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for name look-ups
    if (curl.setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK) {
        curl.setopt(handle, (CURLoption)181 /* CURLOPT_PROTOCOLS, before curl 7.85 */, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    }
    if (curl.setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK) {
        curl.setopt(handle, (CURLoption)182 /* CURLOPT_REDIR_PROTOCOLS */, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    }
    curl.setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
    curl.setopt(handle, CURLOPT_MAXREDIRS, 10L);
    curl.setopt(handle, CURLOPT_FAILONERROR, 1L);  // a 404's page is not a debug file
    curl.setopt(handle, CURLOPT_CONNECTTIMEOUT, connect_timeout);
    curl.setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl.setopt(handle, CURLOPT_LOW_SPEED_TIME, stall_timeout);
    curl.setopt(handle, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
    curl.setopt(handle, CURLOPT_USERAGENT, "symbolicate");
    curl.setopt(handle, CURLOPT_ERRORBUFFER, error);
    curl.setopt(handle, CURLOPT_WRITEFUNCTION, receive);
    curl.setopt(handle, CURLOPT_WRITEDATA, &transfer);
    CURLcode code = curl.perform(handle);
    long response = 0;
    curl.getinfo(handle, CURLINFO_RESPONSE_CODE, &response);
    *status = response;
    int result;
    if (code == CURLE_OK) {
        result = CFETCH_OK;
    } else if (code == CURLE_HTTP_RETURNED_ERROR) {
        result = CFETCH_HTTP_ERROR;
    } else if (code == CURLE_FILESIZE_EXCEEDED || transfer.too_large) {
        result = CFETCH_TOO_LARGE;
    } else if (transfer.sink_failed) {
        result = CFETCH_SINK_FAILED;
    } else {
        result = CFETCH_TRANSPORT;
        copy_message(message, message_size, error[0] ? error : curl.strerror(code));
    }
    curl.cleanup(handle);
    return result;
}
