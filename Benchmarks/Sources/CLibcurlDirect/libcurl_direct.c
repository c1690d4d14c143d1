// libcurl called directly, as a small C program would: the throughput benchmark's floor for the
// curl transport. libcurl is opened at run time, as the library opens it; the few declarations
// it needs are its stable ABI (option numbers from curl.h), so no curl headers are needed.
#include "libcurl_direct.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void CURL;
typedef void CURLM;
typedef struct { int msg; CURL *easy; union { void *whatever; int result; } data; } CURLMsg;

enum {
    OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_WRITEFUNCTION = 20011, OPT_NOSIGNAL = 99,
    OPT_CAINFO = 10065, OPT_HTTP_VERSION = 84, OPT_PIPEWAIT = 237,
    MOPT_PIPELINING = 3, MOPT_MAX_HOST_CONNECTIONS = 7,
    INFO_RESPONSE_CODE = 0x200002, MSG_DONE = 1, GLOBAL_ALL = 3,
    HTTP_VERSION_2TLS = 4, PIPE_MULTIPLEX = 2,
};

static struct {
    int loaded;
    int (*global_init)(long);
    CURL *(*easy_init)(void);
    int (*easy_setopt)(CURL *, int, ...);
    int (*easy_getinfo)(CURL *, int, ...);
    const char *(*easy_strerror)(int);
    CURLM *(*multi_init)(void);
    int (*multi_setopt)(CURLM *, int, ...);
    int (*multi_add_handle)(CURLM *, CURL *);
    int (*multi_remove_handle)(CURLM *, CURL *);
    int (*multi_perform)(CURLM *, int *);
    int (*multi_poll)(CURLM *, void *, unsigned, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
} curl;

typedef struct {
    CURLM *multi;
    CURL **handles;
    long long *bytes;
    int count;
} run_state;

static size_t on_body(char *data, size_t size, size_t count, void *user) {
    (void)data;
    *(long long *)user += (long long)(size * count);
    return size * count;
}

static int load(libcurl_direct_tally *tally) {
    if (curl.loaded) return 0;
    const char *names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4", "libcurl.4.dylib", NULL};
    void *lib = NULL;
    for (int i = 0; names[i] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(tally->first_error, sizeof tally->first_error, "no libcurl: %s", dlerror());
        return -1;
    }
#define LOOK(field, name) if (!(*(void **)&curl.field = dlsym(lib, name))) { \
        snprintf(tally->first_error, sizeof tally->first_error, "libcurl has no %s", name); return -1; }
    LOOK(global_init, "curl_global_init") LOOK(easy_init, "curl_easy_init") LOOK(easy_setopt, "curl_easy_setopt")
    LOOK(easy_getinfo, "curl_easy_getinfo") LOOK(easy_strerror, "curl_easy_strerror") LOOK(multi_init, "curl_multi_init")
    LOOK(multi_setopt, "curl_multi_setopt") LOOK(multi_add_handle, "curl_multi_add_handle")
    LOOK(multi_remove_handle, "curl_multi_remove_handle") LOOK(multi_perform, "curl_multi_perform")
    LOOK(multi_poll, "curl_multi_poll") LOOK(multi_info_read, "curl_multi_info_read")
#undef LOOK
    curl.global_init(GLOBAL_ALL);
    curl.loaded = 1;
    return 0;
}

static void fail(libcurl_direct_tally *tally, const char *what) {
    tally->failures++;
    if (!tally->first_error[0]) snprintf(tally->first_error, sizeof tally->first_error, "%s", what);
}

int libcurl_direct_run(void **state, const char *url, const char *ca_file, int in_flight, long total,
                       long max_host_connections, libcurl_direct_tally *tally) {
    memset(tally, 0, sizeof *tally);
    if (load(tally) != 0) return -1;
    if (in_flight < 1) in_flight = 1;
    run_state *run = *state;
    if (!run) {
        run = calloc(1, sizeof *run);
        run->multi = curl.multi_init();
        curl.multi_setopt(run->multi, MOPT_PIPELINING, (long)PIPE_MULTIPLEX);
        if (max_host_connections > 0) curl.multi_setopt(run->multi, MOPT_MAX_HOST_CONNECTIONS, max_host_connections);
        run->count = in_flight;
        run->handles = calloc((size_t)in_flight, sizeof *run->handles);
        run->bytes = calloc((size_t)in_flight, sizeof *run->bytes);
        for (int i = 0; i < in_flight; i++) {
            CURL *easy = curl.easy_init();
            curl.easy_setopt(easy, OPT_URL, url);
            curl.easy_setopt(easy, OPT_NOSIGNAL, 1L);
            curl.easy_setopt(easy, OPT_HTTP_VERSION, (long)HTTP_VERSION_2TLS);
            curl.easy_setopt(easy, OPT_PIPEWAIT, 1L);
            curl.easy_setopt(easy, OPT_WRITEFUNCTION, on_body);
            curl.easy_setopt(easy, OPT_WRITEDATA, &run->bytes[i]);
            if (ca_file) curl.easy_setopt(easy, OPT_CAINFO, ca_file);
            run->handles[i] = easy;
        }
        *state = run;
    }
    int lanes = run->count < in_flight ? run->count : in_flight;
    long started = 0;
    for (int i = 0; i < lanes && started < total; i++, started++) {
        run->bytes[i] = 0;
        curl.multi_add_handle(run->multi, run->handles[i]);
    }
    while (tally->completed + tally->failures < total) {
        int running = 0, queued = 0, ready = 0;
        curl.multi_perform(run->multi, &running);
        CURLMsg *message;
        while ((message = curl.multi_info_read(run->multi, &queued))) {
            if (message->msg != MSG_DONE) continue;
            CURL *easy = message->easy;
            int result = message->data.result;
            long status = 0;
            curl.easy_getinfo(easy, INFO_RESPONSE_CODE, &status);
            curl.multi_remove_handle(run->multi, easy);
            int lane = 0;
            while (lane < run->count && run->handles[lane] != easy) lane++;
            if (result != 0) {
                fail(tally, curl.easy_strerror(result));
            } else if (status != 200) {
                fail(tally, "status not 200");
            } else {
                tally->completed++;
                if (lane < run->count) tally->body_bytes += run->bytes[lane];
            }
            if (started < total && lane < run->count) {
                run->bytes[lane] = 0;
                curl.multi_add_handle(run->multi, easy);
                started++;
            }
        }
        if (tally->completed + tally->failures >= total) break;
        curl.multi_poll(run->multi, NULL, 0, 1000, &ready);
    }
    return 0;
}
