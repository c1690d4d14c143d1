// CJewzruxinCurl: the system's libcurl, loaded at run time with dlopen.
//
// No curl header is needed to build this target, and no libcurl to link it: the few types, option
// numbers and constants used are declared here (they are libcurl's stable ABI, the values of
// include/curl/curl.h and multi.h), and every function is looked up with dlsym when
// jz_curl_load() runs. curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic,
// which Swift can't call: each is wrapped here in typed, non-variadic functions.
//
// Every wrapper expects jz_curl_load() to have succeeded once before, but those of the content
// decoders (CJewzruxinDecoders.c), which load their own libraries.

#ifndef CJEWZRUXIN_CURL_H
#define CJEWZRUXIN_CURL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An easy handle (CURL *) and a multi handle (CURLM *), opaque.
typedef void jz_easy;
typedef void jz_multi;
/// A node of a header list as libcurl reads it: the layout of `struct curl_slist`, part of its
/// stable ABI. The transport builds its lists itself, all in one allocation, rather than with
/// curl_slist_append, which allocates a node and a copy of the line for each.
typedef struct jz_slist_node {
    char *data;
    struct jz_slist_node *next;
} jz_slist_node;

// MARK: Loading

/// What the loaded libcurl is and can do, from curl_version_info().
typedef struct jz_curl_info {
    const char *version;        ///< "7.88.1"
    unsigned int version_num;   ///< 0x075801
    int features;               ///< CURL_VERSION_* bits (JZ_FEATURE_*)
    const char *ssl_version;    ///< "OpenSSL/3.0.11", or NULL
    const char *libz_version;   ///< or NULL
    const char *brotli_version; ///< or NULL (age ≥ 5)
    const char *nghttp2_version;///< or NULL (age ≥ 6)
    const char *zstd_version;   ///< or NULL (age ≥ 8)
    const char *cainfo;         ///< the built-in CA bundle, or NULL (age ≥ 7)
    const char *capath;         ///< the built-in CA directory, or NULL (age ≥ 7)
} jz_curl_info;

/// Loads the first of `names` (NULL-terminated) that dlopen finds and that has every function
/// used here, then runs curl_global_init. Safe to call from several threads; only the first call
/// loads. Returns 0 on success; otherwise 1, with why it failed in `why` (NUL-terminated).
int jz_curl_load(const char *const *names, char *why, size_t why_size);

/// Whether `name` opens and has every function used here, without loading it for use: 0 if so;
/// otherwise 1, with the reason in `why`.
int jz_curl_probe(const char *name, char *why, size_t why_size);

/// The path or name of the library loaded, or NULL before a successful jz_curl_load().
const char *jz_curl_loaded_name(void);

/// Fills `info` from curl_version_info(CURLVERSION_NOW).
void jz_curl_version(jz_curl_info *info);

enum {
    JZ_FEATURE_IPV6 = 1 << 0,
    JZ_FEATURE_SSL = 1 << 2,
    JZ_FEATURE_LIBZ = 1 << 3,
    JZ_FEATURE_NTLM = 1 << 4,
    JZ_FEATURE_ASYNCHDNS = 1 << 7,
    JZ_FEATURE_SPNEGO = 1 << 8,
    JZ_FEATURE_LARGEFILE = 1 << 9,
    JZ_FEATURE_HTTP2 = 1 << 16,
    JZ_FEATURE_GSSAPI = 1 << 17,
    JZ_FEATURE_KERBEROS5 = 1 << 18,
    JZ_FEATURE_UNIX_SOCKETS = 1 << 19,
    JZ_FEATURE_HTTPS_PROXY = 1 << 21,
    JZ_FEATURE_BROTLI = 1 << 23,
    JZ_FEATURE_HTTP3 = 1 << 25,
    JZ_FEATURE_ZSTD = 1 << 26,
    JZ_FEATURE_THREADSAFE = 1 << 30,
};

// MARK: Easy handles

jz_easy *jz_easy_init(void);
void jz_easy_cleanup(jz_easy *easy);
/// A file in memory holding `length` bytes of `data` (Linux's memfd_create, close-on-exec), readable
/// as /proc/self/fd/N: its descriptor, or -1 where there is none. Not libcurl's: the CA bundle of a
/// session with additional certificates goes to libcurl as such a path, since libcurl clones a blob
/// option into every request's connection settings.
int jz_memory_file(const void *data, size_t length);

/// curl_easy_reset: the handle's options back to their defaults; its caches stay.
void jz_easy_reset(jz_easy *easy);
/// curl_easy_pause with JZ_PAUSE_* bits; on the thread that drives the handle.
int jz_easy_pause(jz_easy *easy, int bitmask);
/// The description of a CURLcode.
const char *jz_easy_strerror(int code);

/// curl_easy_setopt for a long option. Returns a CURLcode.
int jz_easy_setopt_long(jz_easy *easy, int option, long value);
/// curl_easy_setopt for an object, string or list option (libcurl copies strings). Returns a CURLcode.
int jz_easy_setopt_pointer(jz_easy *easy, int option, const void *value);
/// curl_easy_setopt for a curl_off_t option. Returns a CURLcode.
int jz_easy_setopt_offset(jz_easy *easy, int option, int64_t value);
/// curl_easy_setopt for a blob option. With `copy`, libcurl copies the bytes; without, it keeps the
/// pointer, and the bytes must outlive every use of the handle with this option. Returns a CURLcode.
int jz_easy_setopt_blob(jz_easy *easy, int option, const void *data, size_t length, int copy);

/// Callbacks, as libcurl calls them.
typedef size_t (*jz_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*jz_seek_callback)(void *context, int64_t offset, int origin);

/// CURLOPT_WRITEFUNCTION and CURLOPT_WRITEDATA.
int jz_easy_set_write(jz_easy *easy, jz_data_callback callback, void *context);
/// CURLOPT_HEADERFUNCTION and CURLOPT_HEADERDATA.
int jz_easy_set_header(jz_easy *easy, jz_data_callback callback, void *context);
/// CURLOPT_READFUNCTION and CURLOPT_READDATA.
int jz_easy_set_read(jz_easy *easy, jz_data_callback callback, void *context);
/// CURLOPT_SEEKFUNCTION and CURLOPT_SEEKDATA.
int jz_easy_set_seek(jz_easy *easy, jz_seek_callback callback, void *context);

/// curl_easy_getinfo for a long, a curl_off_t, a string (owned by the handle) or a pointer.
int jz_easy_getinfo_long(jz_easy *easy, int info, long *value);
int jz_easy_getinfo_offset(jz_easy *easy, int info, int64_t *value);
int jz_easy_getinfo_string(jz_easy *easy, int info, const char **value);
/// curl_easy_getinfo for a socket (curl_socket_t: an int on POSIX systems); -1 for none.
int jz_easy_getinfo_socket(jz_easy *easy, int info, int *value);

// MARK: Multi handles

jz_multi *jz_multi_init(void);
/// Returns a CURLMcode.
int jz_multi_cleanup(jz_multi *multi);
int jz_multi_add(jz_multi *multi, jz_easy *easy);
int jz_multi_remove(jz_multi *multi, jz_easy *easy);
/// curl_multi_socket_action: `fd` is ready for `mask` (JZ_CSELECT_*), or JZ_SOCKET_TIMEOUT with
/// mask 0 when the timer is due.
int jz_multi_socket_action(jz_multi *multi, int fd, int mask, int *running);

/// What the multi handle wants watched on a socket: JZ_POLL_IN, _OUT, _INOUT, or _REMOVE. Returns 0.
typedef int (*jz_socket_callback)(jz_easy *easy, int fd, int what, void *context, void *socket_context);
/// When the multi handle wants JZ_SOCKET_TIMEOUT acted on: in `timeout_ms`, or never (-1). Returns 0.
typedef int (*jz_timer_callback)(jz_multi *multi, long timeout_ms, void *context);
/// CURLMOPT_SOCKETFUNCTION and CURLMOPT_SOCKETDATA.
int jz_multi_set_socket(jz_multi *multi, jz_socket_callback callback, void *context);
/// CURLMOPT_TIMERFUNCTION and CURLMOPT_TIMERDATA.
int jz_multi_set_timer(jz_multi *multi, jz_timer_callback callback, void *context);
int jz_multi_setopt_long(jz_multi *multi, int option, long value);
const char *jz_multi_strerror(int code);
/// The next CURLMSG_DONE message: 1 with its handle and CURLcode, or 0 when there is none.
int jz_multi_next_done(jz_multi *multi, jz_easy **easy, int *result);

// MARK: epoll (Linux), for the loop's wait

/// A socket found ready: its descriptor and JZ_CSELECT_* bits.
typedef struct { int fd; int mask; } jz_ready;

/// epoll_create1(EPOLL_CLOEXEC); -1 with errno set on failure, or ENOSYS off Linux.
int jz_epoll_create(void);
/// Watches `fd` in the epoll set for JZ_POLL_IN/_OUT/_INOUT (added or changed), or stops watching it
/// (JZ_POLL_REMOVE). Returns 0, or -1 with errno set.
int jz_epoll_watch(int epoll, int fd, int what);
/// epoll_wait into `ready`, at most `capacity` sockets; returns how many, or -1 with errno set.
int jz_epoll_wait(int epoll, int timeout_ms, jz_ready *ready, int capacity);
/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC): a doorbell any thread rings with one write, no lock; -1
/// with errno set on failure, or ENOSYS off Linux.
int jz_eventfd_create(void);
/// Rings the doorbell `fd` (jz_eventfd_create).
void jz_eventfd_ring(int fd);
/// Clears the doorbell `fd`, however many times it was rung.
void jz_eventfd_clear(int fd);

// MARK: Content decoding
//
// The libraries libcurl itself decodes with, opened the same way: zlib (libz.so.1), and brotli
// (libbrotlidec.so.1) and zstd (libzstd.so.1) when they are there. The curl transport turns
// libcurl's decoding off and decodes with these, so that a truncated or corrupt body is an error.
// Each library's streams have the same shape: create, decode step by step, destroy.

/// The libraries jz_decoders_load() found (bits of its result).
enum {
    JZ_DECODER_ZLIB = 1 << 0,
    JZ_DECODER_BROTLI = 1 << 1,
    JZ_DECODER_ZSTD = 1 << 2,
};

/// Opens the decompression libraries that are there, once: later calls return what the first
/// found. Safe to call from several threads. Returns the JZ_DECODER_* bits of those loaded.
int jz_decoders_load(void);

/// The version of a loaded library (`decoder` is one JZ_DECODER_* bit): "1.2.13", or "unknown"
/// when it doesn't say; NULL when it isn't loaded.
const char *jz_decoder_version(int decoder);

/// What a decoding step ended with.
enum {
    /// It went as far as the input and the room for output let it; the stream goes on.
    JZ_DECODE_OK = 0,
    /// The stream (a zstd frame) ended; the bytes after it, if any, were not consumed.
    JZ_DECODE_END = 1,
    /// The data is corrupt, or the library failed: `message` says why.
    JZ_DECODE_ERROR = 2,
};

/// A stream of one library, opaque.
typedef void jz_zlib_stream;
typedef void jz_brotli_stream;
typedef void jz_zstd_stream;

/// A zlib inflate stream; `window_bits` as inflateInit2's: 15 for zlib, -15 for raw deflate,
/// 47 for gzip or zlib. NULL when zlib isn't loaded or the stream can't be made.
jz_zlib_stream *jz_zlib_create(int window_bits);
/// Decodes from `input` into `output`: sets how many bytes of each were used, and `message` on an
/// error. Returns a JZ_DECODE_* value.
int jz_zlib_decode(jz_zlib_stream *stream, const void *input, size_t input_size, size_t *input_used,
                   void *output, size_t output_size, size_t *output_used, const char **message);
void jz_zlib_destroy(jz_zlib_stream *stream);

/// A brotli decoder; NULL when brotli isn't loaded or the decoder can't be made.
jz_brotli_stream *jz_brotli_create(void);
/// As jz_zlib_decode; JZ_DECODE_END once the brotli stream ended.
int jz_brotli_decode(jz_brotli_stream *stream, const void *input, size_t input_size, size_t *input_used,
                     void *output, size_t output_size, size_t *output_used, const char **message);
void jz_brotli_destroy(jz_brotli_stream *stream);

/// A zstd decompression stream; NULL when zstd isn't loaded or the stream can't be made.
jz_zstd_stream *jz_zstd_create(void);
/// As jz_zlib_decode; JZ_DECODE_END when a frame ended and all its output was given (another
/// frame may follow).
int jz_zstd_decode(jz_zstd_stream *stream, const void *input, size_t input_size, size_t *input_used,
                   void *output, size_t output_size, size_t *output_used, const char **message);
void jz_zstd_destroy(jz_zstd_stream *stream);

// MARK: Numbers of include/curl/curl.h and multi.h

enum {
    JZ_OPT_WRITEDATA = 10001,
    JZ_OPT_URL = 10002,
    JZ_OPT_PROXY = 10004,
    JZ_OPT_READDATA = 10009,
    JZ_OPT_ERRORBUFFER = 10010,
    JZ_OPT_WRITEFUNCTION = 20011,
    JZ_OPT_READFUNCTION = 20012,
    JZ_OPT_HTTPHEADER = 10023,
    JZ_OPT_KEYPASSWD = 10026,
    JZ_OPT_HEADERDATA = 10029,
    JZ_OPT_SSLVERSION = 32,
    JZ_OPT_CUSTOMREQUEST = 10036,
    JZ_OPT_NOBODY = 44,
    JZ_OPT_UPLOAD = 46,
    JZ_OPT_FOLLOWLOCATION = 52,
    JZ_OPT_HEADERFUNCTION = 20079,
    JZ_OPT_HTTPGET = 80,
    JZ_OPT_HTTP_VERSION = 84,
    JZ_OPT_PROXYTYPE = 101,
    JZ_OPT_SUPPRESS_CONNECT_HEADERS = 265,
    JZ_OPT_SSLCERTTYPE = 10086,
    JZ_OPT_SSLKEYTYPE = 10088,
    JZ_OPT_NOSIGNAL = 99,
    JZ_OPT_INFILESIZE_LARGE = 30115,
    JZ_OPT_CONNECTTIMEOUT_MS = 156,
    JZ_OPT_HTTP_CONTENT_DECODING = 158,
    JZ_OPT_SEEKFUNCTION = 20167,
    JZ_OPT_SEEKDATA = 10168,
    JZ_OPT_PROXYUSERNAME = 10175,
    JZ_OPT_PROXYPASSWORD = 10176,
    JZ_OPT_NOPROXY = 10177,
    JZ_OPT_PINNEDPUBLICKEY = 10230,
    JZ_OPT_SSLCERT_BLOB = 40291,
    JZ_OPT_SSLKEY_BLOB = 40292,
    JZ_OPT_CAINFO = 10065,
    /// CURLOPT_CAPATH: a directory of hashed CA certificates; NULL for none.
    JZ_OPT_CAPATH = 10097,
    /// CURLOPT_PIPEWAIT (7.43): wait for a connection that may multiplex rather than open another.
    JZ_OPT_PIPEWAIT = 237,
    JZ_OPT_CAINFO_BLOB = 40309,
    /// CURLOPT_HTTPAUTH (a long of JZ_AUTH_* bits), CURLOPT_USERNAME and CURLOPT_PASSWORD: set only
    /// for NTLM and Negotiate, whose handshake libcurl runs on its connection.
    JZ_OPT_HTTPAUTH = 107,
    JZ_OPT_USERNAME = 10173,
    JZ_OPT_PASSWORD = 10174,
};

/// CURLAUTH_NEGOTIATE, CURLAUTH_NTLM and CURLAUTH_ONLY (send nothing until a 401 asks for one of
/// the schemes), for JZ_OPT_HTTPAUTH.
enum {
    JZ_AUTH_NEGOTIATE = 1 << 2,
    JZ_AUTH_NTLM = 1 << 3,
};
#define JZ_AUTH_ONLY (1UL << 31)

enum {
    JZ_INFO_SIZE_UPLOAD_T = 0x600000 + 7,
    JZ_INFO_SIZE_DOWNLOAD_T = 0x600000 + 8,
    JZ_INFO_HEADER_SIZE = 0x200000 + 11,
    /// CURLINFO_REQUEST_SIZE: the bytes of the request heads sent.
    JZ_INFO_REQUEST_SIZE = 0x200000 + 12,
    /// CURLINFO_OS_ERRNO: the system's errno of the last failed connect.
    JZ_INFO_OS_ERRNO = 0x200000 + 25,
    JZ_INFO_NUM_CONNECTS = 0x200000 + 26,
    JZ_INFO_PRIMARY_IP = 0x100000 + 32,
    JZ_INFO_PRIMARY_PORT = 0x200000 + 40,
    JZ_INFO_LOCAL_IP = 0x100000 + 41,
    JZ_INFO_LOCAL_PORT = 0x200000 + 42,
    JZ_INFO_HTTP_VERSION = 0x200000 + 46,
    JZ_INFO_TOTAL_TIME_T = 0x600000 + 50,
    JZ_INFO_NAMELOOKUP_TIME_T = 0x600000 + 51,
    JZ_INFO_CONNECT_TIME_T = 0x600000 + 52,
    JZ_INFO_PRETRANSFER_TIME_T = 0x600000 + 53,
    JZ_INFO_STARTTRANSFER_TIME_T = 0x600000 + 54,
    JZ_INFO_APPCONNECT_TIME_T = 0x600000 + 56,
    /// CURLINFO_PROXY_ERROR (7.73): the CURLproxycode behind a CURLE_PROXY.
    JZ_INFO_PROXY_ERROR = 0x200000 + 59,
    /// CURLINFO_HTTP_CONNECTCODE: the status an HTTP proxy answered a CONNECT with (0 for none).
    JZ_INFO_HTTP_CONNECTCODE = 0x200000 + 22,
    /// CURLINFO_ACTIVESOCKET (7.45): the socket of the transfer's connection, once it is done and
    /// the connection kept (-1 when it was closed).
    JZ_INFO_ACTIVESOCKET = 0x500000 + 44,
};

enum {
    JZ_MOPT_PIPELINING = 3,
    JZ_MOPT_MAX_HOST_CONNECTIONS = 7,
    /// CURLMOPT_MAXCONNECTS: how many idle connections the cache keeps (by default four times the
    /// easy handles in the multi handle at that moment).
    JZ_MOPT_MAXCONNECTS = 6,
};

enum {
    /// CURL_SOCKET_TIMEOUT: jz_multi_socket_action's "the timer is due".
    JZ_SOCKET_TIMEOUT = -1,
    /// CURL_CSELECT_*: what a socket is ready for.
    JZ_CSELECT_IN = 1,
    JZ_CSELECT_OUT = 2,
    JZ_CSELECT_ERR = 4,
    /// CURL_POLL_*: what the socket callback asks to watch.
    JZ_POLL_IN = 1,
    JZ_POLL_OUT = 2,
    JZ_POLL_INOUT = 3,
    JZ_POLL_REMOVE = 4,
};

enum {
    JZ_HTTP_VERSION_1_1 = 2,
    JZ_HTTP_VERSION_2TLS = 4,
    JZ_PROXY_HTTP = 0,
    JZ_PROXY_SOCKS5 = 5,
    JZ_PROXY_SOCKS5_HOSTNAME = 7,
    JZ_PIPE_MULTIPLEX = 2,
    JZ_READFUNC_ABORT = 0x10000000,
    /// CURL_READFUNC_PAUSE: no bytes to send yet; curl_easy_pause(CONT) asks again.
    JZ_READFUNC_PAUSE = 0x10000001,
    /// CURL_WRITEFUNC_PAUSE: the write callback takes none of the bytes; libcurl keeps them.
    JZ_WRITEFUNC_PAUSE = 0x10000001,
    /// CURLPAUSE_CONT for jz_easy_pause: both directions go on.
    JZ_PAUSE_CONT = 0,
    JZ_SEEKFUNC_OK = 0,
    JZ_SEEKFUNC_CANTSEEK = 2,
    JZ_E_OK = 0,
    JZ_M_OK = 0,
};

#ifdef __cplusplus
}
#endif

#endif
