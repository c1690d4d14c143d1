// CJewzruxinPublicSuffix: the system's libpsl (the Public Suffix List library libcurl links),
// loaded at run time with dlopen, for the cookie jar's check of a cookie's Domain.
//
// No libpsl header is needed to build this target, and no libpsl to link it: the four functions
// used are declared in the .c file with libpsl.h's signatures (its stable ABI since 0.16) and
// looked up with dlsym the first time they are needed. Where libpsl can't be loaded (Apple
// platforms, a Linux without it), every function here says so and the caller falls back.

#ifndef CJEWZRUXIN_PUBLIC_SUFFIX_H
#define CJEWZRUXIN_PUBLIC_SUFFIX_H

#ifdef __cplusplus
extern "C" {
#endif

/// Whether `domain` is a public suffix (`com`, `co.uk`, `github.io`) by the Public Suffix List,
/// its ICANN and private sections and its "*" rule (a label the list doesn't name is a top-level
/// domain): 1 if it is, 0 if not, -1 when libpsl or its data can't be loaded.
///
/// `domain` is lowercase, ASCII or punycode, without a leading dot. Safe to call from any thread;
/// the first call loads the library (once, for the life of the process).
int jz_psl_is_public_suffix(const char *domain);

/// The name of the library loaded and where its list came from, such as
/// "libpsl.so.5 0.21.2 (latest)": NULL when libpsl can't be loaded. Loads it if needed.
const char *jz_psl_description(void);

#ifdef __cplusplus
}
#endif

#endif
