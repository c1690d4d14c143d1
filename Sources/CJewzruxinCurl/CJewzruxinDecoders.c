// The decompression libraries the curl transport decodes response bodies with, loaded at run time
// the way libcurl is: see "Content decoding" in include/CJewzruxinCurl.h.
//
// No zlib, brotli or zstd header is needed: the few types and constants used are declared here,
// with the layout of zlib.h, brotli/decode.h and zstd.h (their stable ABI).

#include "CJewzruxinCurl.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// MARK: The libraries' types

/// zlib's z_stream, field for field (zlib.h): uInt is unsigned int, uLong unsigned long, so the
/// layout is the library's on every platform.
typedef struct {
    const unsigned char *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *(*zalloc)(void *opaque, unsigned int items, unsigned int size);
    void (*zfree)(void *opaque, void *address);
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} jz_z_stream;

enum { JZ_Z_NO_FLUSH = 0, JZ_Z_OK = 0, JZ_Z_STREAM_END = 1, JZ_Z_NEED_DICT = 2, JZ_Z_MEM_ERROR = -4, JZ_Z_BUF_ERROR = -5 };

/// BrotliDecoderResult (brotli/decode.h).
enum { JZ_BROTLI_ERROR = 0, JZ_BROTLI_SUCCESS = 1, JZ_BROTLI_NEEDS_MORE_INPUT = 2, JZ_BROTLI_NEEDS_MORE_OUTPUT = 3 };

/// ZSTD_inBuffer and ZSTD_outBuffer (zstd.h).
typedef struct {
    const void *src;
    size_t size;
    size_t pos;
} jz_zstd_in;

typedef struct {
    void *dst;
    size_t size;
    size_t pos;
} jz_zstd_out;

// MARK: Loading

static struct {
    const char *(*version)(void);
    int (*init)(jz_z_stream *stream, int window_bits, const char *version, int stream_size);
    int (*inflate)(jz_z_stream *stream, int flush);
    int (*end)(jz_z_stream *stream);
} zlib;

static struct {
    void *(*create)(void *(*alloc)(void *, size_t), void (*release)(void *, void *), void *opaque);
    int (*decompress)(void *state, size_t *available_in, const uint8_t **next_in, size_t *available_out,
                      uint8_t **next_out, size_t *total_out);
    void (*destroy)(void *state);
    // Optional: the reason of an error, and the version.
    int (*error_code)(const void *state);
    const char *(*error_string)(int code);
    uint32_t (*version)(void);
} brotli;

static struct {
    void *(*create)(void);
    size_t (*init)(void *stream);
    size_t (*decompress)(void *stream, jz_zstd_out *output, jz_zstd_in *input);
    size_t (*release)(void *stream);
    unsigned (*is_error)(size_t code);
    const char *(*error_name)(size_t code);
    // Optional: the version, and the setting of the largest window (zstd 1.4).
    const char *(*version)(void);
    size_t (*set_parameter)(void *stream, int parameter, int value);
} zstd;

/// ZSTD_d_windowLogMax, and the window HTTP's zstd coding allows: 8 MiB (RFC 9659). A frame that
/// asks for more fails to decode rather than making the client allocate what the server chose.
enum { JZ_ZSTD_WINDOW_LOG_MAX = 100, JZ_ZSTD_HTTP_WINDOW_LOG = 23 };

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded_decoders = 0;
static char brotli_version[32] = "unknown";

/// The first of `names` (NULL-terminated) that dlopen finds, kept open for the life of the process.
static void *open_first(const char *const *names) {
    for (const char *const *name = names; *name != NULL; name++) {
        void *library = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        if (library != NULL) return library;
    }
    return NULL;
}

/// A function of a library, looked up into `field`: a required one missing makes the library unusable.
typedef struct {
    void **field;
    const char *symbol;
    int optional;
} jz_symbol;

/// Opens the first of `names` that dlopen finds and looks `symbols` up in it: 1 when it has every
/// required one (the library is then kept open for the life of the process), else 0.
static int load_library(const char *const *names, const jz_symbol *symbols, size_t count) {
    void *library = open_first(names);
    if (library == NULL) return 0;
    for (size_t i = 0; i < count; i++) {
        *symbols[i].field = dlsym(library, symbols[i].symbol);
        if (*symbols[i].field == NULL && !symbols[i].optional) {
            dlclose(library);
            return 0;
        }
    }
    return 1;
}

#define JZ_LOAD(names, symbols) load_library(names, symbols, sizeof(symbols) / sizeof((symbols)[0]))

static void load_zlib(void) {
    static const char *const names[] = {"libz.so.1", "libz.1.dylib", NULL};
    const jz_symbol symbols[] = {
        {(void **)&zlib.version, "zlibVersion", 0},
        {(void **)&zlib.init, "inflateInit2_", 0},
        {(void **)&zlib.inflate, "inflate", 0},
        {(void **)&zlib.end, "inflateEnd", 0},
    };
    if (JZ_LOAD(names, symbols)) loaded_decoders |= JZ_DECODER_ZLIB;
}

static void load_brotli(void) {
    static const char *const names[] = {"libbrotlidec.so.1", "libbrotlidec.1.dylib", NULL};
    const jz_symbol symbols[] = {
        {(void **)&brotli.create, "BrotliDecoderCreateInstance", 0},
        {(void **)&brotli.decompress, "BrotliDecoderDecompressStream", 0},
        {(void **)&brotli.destroy, "BrotliDecoderDestroyInstance", 0},
        {(void **)&brotli.error_code, "BrotliDecoderGetErrorCode", 1},
        {(void **)&brotli.error_string, "BrotliDecoderErrorString", 1},
        {(void **)&brotli.version, "BrotliDecoderVersion", 1},
    };
    if (!JZ_LOAD(names, symbols)) return;
    if (brotli.version != NULL) {
        // BROTLI_VERSION: major << 24 | minor << 12 | patch.
        uint32_t version = brotli.version();
        snprintf(brotli_version, sizeof brotli_version, "%u.%u.%u", version >> 24, (version >> 12) & 0xFFF, version & 0xFFF);
    }
    loaded_decoders |= JZ_DECODER_BROTLI;
}

static void load_zstd(void) {
    static const char *const names[] = {"libzstd.so.1", "libzstd.1.dylib", NULL};
    const jz_symbol symbols[] = {
        {(void **)&zstd.create, "ZSTD_createDStream", 0},
        {(void **)&zstd.init, "ZSTD_initDStream", 0},
        {(void **)&zstd.decompress, "ZSTD_decompressStream", 0},
        {(void **)&zstd.release, "ZSTD_freeDStream", 0},
        {(void **)&zstd.is_error, "ZSTD_isError", 0},
        {(void **)&zstd.error_name, "ZSTD_getErrorName", 0},
        {(void **)&zstd.version, "ZSTD_versionString", 1},
        {(void **)&zstd.set_parameter, "ZSTD_DCtx_setParameter", 1},
    };
    if (JZ_LOAD(names, symbols)) loaded_decoders |= JZ_DECODER_ZSTD;
}

#undef JZ_LOAD

static void load_all(void) {
    load_zlib();
    load_brotli();
    load_zstd();
}

int jz_decoders_load(void) {
    pthread_once(&load_once, load_all);
    return loaded_decoders;
}

const char *jz_decoder_version(int decoder) {
    int loaded = jz_decoders_load();
    if ((loaded & decoder) == 0) return NULL;
    switch (decoder) {
    case JZ_DECODER_ZLIB: return zlib.version();
    case JZ_DECODER_BROTLI: return brotli_version;
    case JZ_DECODER_ZSTD: return zstd.version != NULL ? zstd.version() : "unknown";
    default: return NULL;
    }
}

/// Somewhere for a library to point at when the caller has no bytes to give or no room to take.
static uint8_t no_bytes[1];

// MARK: zlib

jz_zlib_stream *jz_zlib_create(int window_bits) {
    if ((jz_decoders_load() & JZ_DECODER_ZLIB) == 0) return NULL;
    jz_z_stream *stream = calloc(1, sizeof *stream);
    if (stream == NULL) return NULL;
    // The version inflateInit2_ checks against is the library's own: its first digit is all it
    // compares, with the size of the z_stream declared above.
    if (zlib.init(stream, window_bits, zlib.version(), (int)sizeof *stream) != JZ_Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

int jz_zlib_decode(jz_zlib_stream *opaque, const void *input, size_t input_size, size_t *input_used,
                   void *output, size_t output_size, size_t *output_used, const char **message) {
    jz_z_stream *stream = opaque;
    // avail_in and avail_out are unsigned ints: the caller loops over what is left.
    unsigned int in = input_size > UINT_MAX ? UINT_MAX : (unsigned int)input_size;
    unsigned int out = output_size > UINT_MAX ? UINT_MAX : (unsigned int)output_size;
    stream->next_in = input != NULL ? input : no_bytes;
    stream->avail_in = in;
    stream->next_out = output != NULL ? output : no_bytes;
    stream->avail_out = out;
    int code = zlib.inflate(stream, JZ_Z_NO_FLUSH);
    *input_used = in - stream->avail_in;
    *output_used = out - stream->avail_out;
    switch (code) {
    case JZ_Z_OK:
    case JZ_Z_BUF_ERROR: // no progress possible without more input: not an error
        return JZ_DECODE_OK;
    case JZ_Z_STREAM_END:
        return JZ_DECODE_END;
    case JZ_Z_NEED_DICT:
        *message = "the stream needs a preset dictionary";
        return JZ_DECODE_ERROR;
    case JZ_Z_MEM_ERROR:
        *message = "out of memory";
        return JZ_DECODE_ERROR;
    default:
        *message = stream->msg != NULL ? stream->msg : "invalid data";
        return JZ_DECODE_ERROR;
    }
}

void jz_zlib_destroy(jz_zlib_stream *opaque) {
    if (opaque == NULL) return;
    zlib.end(opaque);
    free(opaque);
}

// MARK: brotli

jz_brotli_stream *jz_brotli_create(void) {
    if ((jz_decoders_load() & JZ_DECODER_BROTLI) == 0) return NULL;
    return brotli.create(NULL, NULL, NULL);
}

int jz_brotli_decode(jz_brotli_stream *stream, const void *input, size_t input_size, size_t *input_used,
                     void *output, size_t output_size, size_t *output_used, const char **message) {
    size_t available_in = input_size;
    const uint8_t *next_in = input != NULL ? input : no_bytes;
    size_t available_out = output_size;
    uint8_t *next_out = output != NULL ? output : no_bytes;
    int result = brotli.decompress(stream, &available_in, &next_in, &available_out, &next_out, NULL);
    *input_used = input_size - available_in;
    *output_used = output_size - available_out;
    switch (result) {
    case JZ_BROTLI_SUCCESS:
        return JZ_DECODE_END;
    case JZ_BROTLI_NEEDS_MORE_INPUT:
    case JZ_BROTLI_NEEDS_MORE_OUTPUT:
        return JZ_DECODE_OK;
    default: {
        const char *reason = NULL;
        if (brotli.error_code != NULL && brotli.error_string != NULL) reason = brotli.error_string(brotli.error_code(stream));
        *message = reason != NULL ? reason : "invalid data";
        return JZ_DECODE_ERROR;
    }
    }
}

void jz_brotli_destroy(jz_brotli_stream *stream) {
    if (stream != NULL) brotli.destroy(stream);
}

// MARK: zstd

jz_zstd_stream *jz_zstd_create(void) {
    if ((jz_decoders_load() & JZ_DECODER_ZSTD) == 0) return NULL;
    void *stream = zstd.create();
    if (stream == NULL) return NULL;
    if (zstd.is_error(zstd.init(stream))) {
        zstd.release(stream);
        return NULL;
    }
    // Without the setting (zstd before 1.4), zstd's own default limit applies: 128 MiB.
    if (zstd.set_parameter != NULL
        && zstd.is_error(zstd.set_parameter(stream, JZ_ZSTD_WINDOW_LOG_MAX, JZ_ZSTD_HTTP_WINDOW_LOG))) {
        zstd.release(stream);
        return NULL;
    }
    return stream;
}

int jz_zstd_decode(jz_zstd_stream *stream, const void *input, size_t input_size, size_t *input_used,
                   void *output, size_t output_size, size_t *output_used, const char **message) {
    jz_zstd_in in = {input != NULL ? input : no_bytes, input_size, 0};
    jz_zstd_out out = {output != NULL ? output : no_bytes, output_size, 0};
    size_t result = zstd.decompress(stream, &out, &in);
    *input_used = in.pos;
    *output_used = out.pos;
    if (zstd.is_error(result)) {
        *message = zstd.error_name(result);
        return JZ_DECODE_ERROR;
    }
    // 0: a frame ended and all of its output was given.
    return result == 0 ? JZ_DECODE_END : JZ_DECODE_OK;
}

void jz_zstd_destroy(jz_zstd_stream *stream) {
    if (stream != NULL) zstd.release(stream);
}
