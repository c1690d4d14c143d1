// The system's libcurl, loaded at run time: see include/CJewzruxinCurl.h.
#ifdef __linux__
#define _GNU_SOURCE // memfd_create
#endif

#include "CJewzruxinCurl.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

// The parts of libcurl's types this file reads (include/curl/curl.h, multi.h).
typedef int64_t jz_off_t;

typedef struct {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
    const char *ssl_version;
    long ssl_version_num;
    const char *libz_version;
    const char *const *protocols;
    // age >= 1 (CURLVERSION_SECOND)
    const char *ares;
    int ares_num;
    // age >= 2
    const char *libidn;
    // age >= 3
    int iconv_ver_num;
    const char *libssh_version;
    // age >= 4
    unsigned int brotli_ver_num;
    const char *brotli_version;
    // age >= 5
    unsigned int nghttp2_ver_num;
    const char *nghttp2_version;
    const char *quic_version;
    // age >= 6
    const char *cainfo;
    const char *capath;
    // age >= 7
    unsigned int zstd_ver_num;
    const char *zstd_version;
} jz_version_data;

typedef struct {
    int msg; // CURLMSG_DONE is 1
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
} jz_message;

enum { JZ_MSG_DONE = 1, JZ_VERSION_NOW = 10, JZ_GLOBAL_ALL = 3 };

// The functions of a libcurl.
typedef struct {
    int (*global_init)(long flags);
    jz_version_data *(*version_info)(int age);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    void (*easy_reset)(void *);
    int (*easy_pause)(void *, int);
    const char *(*easy_strerror)(int);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_getinfo)(void *, int, ...);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *);
    int (*multi_add_handle)(void *, void *);
    int (*multi_remove_handle)(void *, void *);
    int (*multi_socket_action)(void *, int, int, int *);
    int (*multi_setopt)(void *, int, ...);
    const char *(*multi_strerror)(int);
    jz_message *(*multi_info_read)(void *, int *);
} jz_functions;

// Those of the library loaded, looked up once.
static jz_functions curl;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded = 0;
static char loaded_name[256];

/// Looks every function up in `library` into `table`; on a missing one, says which in `why` and
/// returns 0.
static int resolve(void *library, jz_functions *table, char *why, size_t why_size) {
#define JZ_LOOKUP(field, symbol)                                                                   \
    do {                                                                                           \
        *(void **)(&table->field) = dlsym(library, symbol);                                        \
        if (table->field == NULL) {                                                                \
            snprintf(why, why_size, "it has no %s", symbol);                                       \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)
    JZ_LOOKUP(global_init, "curl_global_init");
    JZ_LOOKUP(version_info, "curl_version_info");
    JZ_LOOKUP(easy_init, "curl_easy_init");
    JZ_LOOKUP(easy_cleanup, "curl_easy_cleanup");
    JZ_LOOKUP(easy_reset, "curl_easy_reset");
    JZ_LOOKUP(easy_pause, "curl_easy_pause");
    JZ_LOOKUP(easy_strerror, "curl_easy_strerror");
    JZ_LOOKUP(easy_setopt, "curl_easy_setopt");
    JZ_LOOKUP(easy_getinfo, "curl_easy_getinfo");
    JZ_LOOKUP(multi_init, "curl_multi_init");
    JZ_LOOKUP(multi_cleanup, "curl_multi_cleanup");
    JZ_LOOKUP(multi_add_handle, "curl_multi_add_handle");
    JZ_LOOKUP(multi_remove_handle, "curl_multi_remove_handle");
    JZ_LOOKUP(multi_socket_action, "curl_multi_socket_action");
    JZ_LOOKUP(multi_setopt, "curl_multi_setopt");
    JZ_LOOKUP(multi_strerror, "curl_multi_strerror");
    JZ_LOOKUP(multi_info_read, "curl_multi_info_read");
#undef JZ_LOOKUP
    return 1;
}

/// Opens `name` and looks its functions up into `table`: the library handle, or NULL with the
/// reason in `why`.
static void *open_library(const char *name, jz_functions *table, char *why, size_t why_size) {
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(why, why_size, "%s", error != NULL ? error : "dlopen failed");
        return NULL;
    }
    char missing[128];
    if (!resolve(library, table, missing, sizeof missing)) {
        snprintf(why, why_size, "%s: %s", name, missing);
        dlclose(library);
        return NULL;
    }
    return library;
}

int jz_curl_probe(const char *name, char *why, size_t why_size) {
    jz_functions table;
    char reason[256];
    void *library = open_library(name, &table, reason, sizeof reason);
    if (library == NULL) {
        if (why != NULL && why_size > 0) snprintf(why, why_size, "%s", reason);
        return 1;
    }
    dlclose(library);
    return 0;
}

int jz_curl_load(const char *const *names, char *why, size_t why_size) {
    pthread_mutex_lock(&load_lock);
    if (loaded) {
        pthread_mutex_unlock(&load_lock);
        return 0;
    }
    char reasons[512] = "";
    for (const char *const *name = names; *name != NULL; name++) {
        jz_functions table;
        char reason[256];
        // Kept open for the life of the process once loaded: the functions point into it.
        void *library = open_library(*name, &table, reason, sizeof reason);
        if (library != NULL && table.global_init(JZ_GLOBAL_ALL) != 0) {
            snprintf(reason, sizeof reason, "%s: curl_global_init failed", *name);
            dlclose(library);
        } else if (library != NULL) {
            curl = table;
            snprintf(loaded_name, sizeof loaded_name, "%s", *name);
            loaded = 1;
            pthread_mutex_unlock(&load_lock);
            return 0;
        }
        size_t used = strlen(reasons);
        snprintf(reasons + used, sizeof reasons - used, "%s%s", used > 0 ? "; " : "", reason);
    }
    if (names[0] == NULL) snprintf(reasons, sizeof reasons, "no library name was given");
    pthread_mutex_unlock(&load_lock);
    if (why != NULL && why_size > 0) snprintf(why, why_size, "%s", reasons);
    return 1;
}

const char *jz_curl_loaded_name(void) {
    pthread_mutex_lock(&load_lock);
    const char *name = loaded ? loaded_name : NULL;
    pthread_mutex_unlock(&load_lock);
    return name;
}

void jz_curl_version(jz_curl_info *info) {
    memset(info, 0, sizeof *info);
    const jz_version_data *data = curl.version_info(JZ_VERSION_NOW);
    if (data == NULL) return;
    info->version = data->version;
    info->version_num = data->version_num;
    info->features = data->features;
    info->ssl_version = data->ssl_version;
    info->libz_version = data->libz_version;
    // `age` counts from 0 (CURLVERSION_FIRST): the fields of CURLVERSION_FIFTH need age >= 4.
    if (data->age >= 4) info->brotli_version = data->brotli_version;
    if (data->age >= 5) info->nghttp2_version = data->nghttp2_version;
    if (data->age >= 6) {
        info->cainfo = data->cainfo;
        info->capath = data->capath;
    }
    if (data->age >= 7) info->zstd_version = data->zstd_version;
}

// MARK: Files in memory

int jz_memory_file(const void *data, size_t length) {
#ifdef __linux__
    int fd = memfd_create("jewzruxin-ca-bundle", MFD_CLOEXEC);
    if (fd < 0) return -1;
    const char *bytes = data;
    size_t written = 0;
    while (written < length) {
        ssize_t count = write(fd, bytes + written, length - written);
        if (count <= 0) {
            close(fd);
            return -1;
        }
        written += (size_t)count;
    }
    return fd;
#else
    (void)data;
    (void)length;
    return -1;
#endif
}

// MARK: Easy handles

jz_easy *jz_easy_init(void) { return curl.easy_init(); }
void jz_easy_cleanup(jz_easy *easy) { curl.easy_cleanup(easy); }
void jz_easy_reset(jz_easy *easy) { curl.easy_reset(easy); }
int jz_easy_pause(jz_easy *easy, int bitmask) { return curl.easy_pause(easy, bitmask); }
// The two descriptions are asked for by error paths that may run before any libcurl is loaded.
const char *jz_easy_strerror(int code) {
    return curl.easy_strerror ? curl.easy_strerror(code) : "libcurl is not loaded";
}

int jz_easy_setopt_long(jz_easy *easy, int option, long value) { return curl.easy_setopt(easy, option, value); }
int jz_easy_setopt_pointer(jz_easy *easy, int option, const void *value) {
    return curl.easy_setopt(easy, option, value);
}
int jz_easy_setopt_offset(jz_easy *easy, int option, int64_t value) {
    return curl.easy_setopt(easy, option, (jz_off_t)value);
}

int jz_easy_setopt_blob(jz_easy *easy, int option, const void *data, size_t length, int copy) {
    // struct curl_blob; CURL_BLOB_COPY (1): libcurl keeps a copy; CURL_BLOB_NOCOPY (0): the pointer.
    struct {
        void *data;
        size_t len;
        unsigned int flags;
    } blob = {(void *)data, length, copy ? 1u : 0u};
    return curl.easy_setopt(easy, option, &blob);
}

/// Sets a callback option and the option of the context pointer libcurl passes the callback.
static int set_callback(jz_easy *easy, int function_option, void (*function)(void), int data_option, void *context) {
    int code = curl.easy_setopt(easy, function_option, function);
    return code != 0 ? code : curl.easy_setopt(easy, data_option, context);
}

int jz_easy_set_write(jz_easy *easy, jz_data_callback callback, void *context) {
    return set_callback(easy, JZ_OPT_WRITEFUNCTION, (void (*)(void))callback, JZ_OPT_WRITEDATA, context);
}

int jz_easy_set_header(jz_easy *easy, jz_data_callback callback, void *context) {
    return set_callback(easy, JZ_OPT_HEADERFUNCTION, (void (*)(void))callback, JZ_OPT_HEADERDATA, context);
}

int jz_easy_set_read(jz_easy *easy, jz_data_callback callback, void *context) {
    return set_callback(easy, JZ_OPT_READFUNCTION, (void (*)(void))callback, JZ_OPT_READDATA, context);
}

int jz_easy_set_seek(jz_easy *easy, jz_seek_callback callback, void *context) {
    return set_callback(easy, JZ_OPT_SEEKFUNCTION, (void (*)(void))callback, JZ_OPT_SEEKDATA, context);
}


int jz_easy_getinfo_long(jz_easy *easy, int info, long *value) { return curl.easy_getinfo(easy, info, value); }
int jz_easy_getinfo_offset(jz_easy *easy, int info, int64_t *value) {
    jz_off_t offset = 0;
    int code = curl.easy_getinfo(easy, info, &offset);
    *value = (int64_t)offset;
    return code;
}
int jz_easy_getinfo_string(jz_easy *easy, int info, const char **value) {
    return curl.easy_getinfo(easy, info, value);
}
int jz_easy_getinfo_socket(jz_easy *easy, int info, int *value) {
    int socket = -1;
    int code = curl.easy_getinfo(easy, info, &socket);
    *value = code == 0 ? socket : -1;
    return code;
}

// MARK: Multi handles

jz_multi *jz_multi_init(void) { return curl.multi_init(); }
int jz_multi_cleanup(jz_multi *multi) { return curl.multi_cleanup(multi); }
int jz_multi_add(jz_multi *multi, jz_easy *easy) { return curl.multi_add_handle(multi, easy); }
int jz_multi_remove(jz_multi *multi, jz_easy *easy) { return curl.multi_remove_handle(multi, easy); }
int jz_multi_socket_action(jz_multi *multi, int fd, int mask, int *running) {
    return curl.multi_socket_action(multi, fd, mask, running);
}

enum { MOPT_SOCKETFUNCTION = 20001, MOPT_SOCKETDATA = 10002, MOPT_TIMERFUNCTION = 20004, MOPT_TIMERDATA = 10005 };

int jz_multi_set_socket(jz_multi *multi, jz_socket_callback callback, void *context) {
    int code = curl.multi_setopt(multi, MOPT_SOCKETFUNCTION, callback);
    return code != 0 ? code : curl.multi_setopt(multi, MOPT_SOCKETDATA, context);
}
int jz_multi_set_timer(jz_multi *multi, jz_timer_callback callback, void *context) {
    int code = curl.multi_setopt(multi, MOPT_TIMERFUNCTION, callback);
    return code != 0 ? code : curl.multi_setopt(multi, MOPT_TIMERDATA, context);
}
int jz_multi_setopt_long(jz_multi *multi, int option, long value) { return curl.multi_setopt(multi, option, value); }
const char *jz_multi_strerror(int code) {
    return curl.multi_strerror ? curl.multi_strerror(code) : "libcurl is not loaded";
}

int jz_multi_next_done(jz_multi *multi, jz_easy **easy, int *result) {
    int left = 0;
    jz_message *message;
    while ((message = curl.multi_info_read(multi, &left)) != NULL) {
        if (message->msg == JZ_MSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

// MARK: epoll

#if defined(__linux__)
#include <sys/epoll.h>

int jz_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int jz_epoll_watch(int epoll, int fd, int what) {
    if (what == JZ_POLL_REMOVE) return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL);
    struct epoll_event event = {0};
    event.events = ((what & JZ_POLL_IN) ? EPOLLIN : 0) | ((what & JZ_POLL_OUT) ? EPOLLOUT : 0);
    event.data.fd = fd;
    if (epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event) == 0) return 0;
    if (errno != ENOENT) return -1;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

int jz_epoll_wait(int epoll, int timeout_ms, jz_ready *ready, int capacity) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        int mask = 0;
        if (events[i].events & EPOLLIN) mask |= JZ_CSELECT_IN;
        if (events[i].events & EPOLLOUT) mask |= JZ_CSELECT_OUT;
        if (events[i].events & (EPOLLERR | EPOLLHUP)) mask |= JZ_CSELECT_ERR;
        ready[i].fd = events[i].data.fd;
        ready[i].mask = mask;
    }
    return count;
}
#include <sys/eventfd.h>

int jz_eventfd_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void jz_eventfd_ring(int fd) {
    uint64_t one = 1;
    // EAGAIN only when the counter is full: it is rung already.
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;
}

void jz_eventfd_clear(int fd) {
    uint64_t count;
    ssize_t got = read(fd, &count, sizeof count);
    (void)got;
}
#else
int jz_eventfd_create(void) { errno = ENOSYS; return -1; }
void jz_eventfd_ring(int fd) { (void)fd; }
void jz_eventfd_clear(int fd) { (void)fd; }
int jz_epoll_create(void) { errno = ENOSYS; return -1; }
int jz_epoll_watch(int epoll, int fd, int what) { (void)epoll; (void)fd; (void)what; errno = ENOSYS; return -1; }
int jz_epoll_wait(int epoll, int timeout_ms, jz_ready *ready, int capacity) {
    (void)epoll; (void)timeout_ms; (void)ready; (void)capacity; errno = ENOSYS; return -1;
}
#endif

// MARK: Header lists

