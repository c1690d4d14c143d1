// The system's libpsl, opened with dlopen on first use: see include/CJewzruxinPublicSuffix.h.

#include "CJewzruxinPublicSuffix.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

/// libpsl's context (psl_ctx_t), opaque.
typedef struct jz_psl_ctx jz_psl_ctx;

/// psl_is_public_suffix2's `type` (libpsl.h): both sections of the list, with its "*" rule.
enum { JZ_PSL_TYPE_ICANN = 1 << 0, JZ_PSL_TYPE_PRIVATE = 1 << 1 };

static struct {
    /// const psl_ctx_t *psl_builtin(void): the list built into the library, or NULL.
    const jz_psl_ctx *(*builtin)(void);
    /// psl_ctx_t *psl_latest(const char *fname) (0.16): the newer of the built-in list and the
    /// system's (/usr/share/publicsuffix), or NULL. Optional.
    jz_psl_ctx *(*latest)(const char *fname);
    /// int psl_is_public_suffix2(const psl_ctx_t *psl, const char *domain, int type).
    int (*is_public_suffix2)(const jz_psl_ctx *psl, const char *domain, int type);
    /// const char *psl_get_version(void) (0.11). Optional.
    const char *(*version)(void);
} psl;

/// The list queried, loaded once and kept for the life of the process; NULL when there is none.
static const jz_psl_ctx *context = NULL;
static char description[96];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *const names[] = {"libpsl.so.5", "libpsl.5.dylib", NULL};
    void *library = NULL;
    const char *name = NULL;
    for (const char *const *candidate = names; *candidate != NULL && library == NULL; candidate++) {
        library = dlopen(*candidate, RTLD_NOW | RTLD_LOCAL);
        name = *candidate;
    }
    if (library == NULL) return;
    *(void **)(&psl.builtin) = dlsym(library, "psl_builtin");
    *(void **)(&psl.latest) = dlsym(library, "psl_latest");
    *(void **)(&psl.is_public_suffix2) = dlsym(library, "psl_is_public_suffix2");
    *(void **)(&psl.version) = dlsym(library, "psl_get_version");
    if (psl.is_public_suffix2 == NULL || (psl.builtin == NULL && psl.latest == NULL)) {
        dlclose(library);
        return;
    }
    const char *source = "latest";
    const jz_psl_ctx *found = psl.latest != NULL ? psl.latest(NULL) : NULL;
    if (found == NULL && psl.builtin != NULL) {
        found = psl.builtin();
        source = "built-in";
    }
    if (found == NULL) {
        dlclose(library);
        return;
    }
    context = found;
    snprintf(description, sizeof description, "%s %s (%s)", name, psl.version != NULL ? psl.version() : "?", source);
}

int jz_psl_is_public_suffix(const char *domain) {
    pthread_once(&load_once, load);
    if (context == NULL) return -1;
    if (domain == NULL) return 0;
    return psl.is_public_suffix2(context, domain, JZ_PSL_TYPE_ICANN | JZ_PSL_TYPE_PRIVATE) != 0 ? 1 : 0;
}

const char *jz_psl_description(void) {
    pthread_once(&load_once, load);
    return context != NULL ? description : NULL;
}
