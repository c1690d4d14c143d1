#ifndef LIBCURL_DIRECT_H
#define LIBCURL_DIRECT_H

#include <stddef.h>

/// What a run of `libcurl_direct_run` got.
typedef struct {
    long completed;
    long failures;
    long long body_bytes;
    /// The first failure's description, empty when none.
    char first_error[256];
} libcurl_direct_tally;

/// Sends `total` GETs of `url`, `in_flight` at a time, on the calling thread only, with libcurl's
/// multi interface: the floor under any transport built on libcurl. `ca_file` (or NULL) is an
/// extra CA bundle to trust; `max_host_connections` caps connections to the host (0: none), as the
/// library's curl transport does. Reuses `*state` across calls (NULL at first: the handles and
/// connections stay open between the warm-up and the timed run). Returns 0, or -1 with the reason
/// in `tally->first_error` when libcurl can't be loaded.
int libcurl_direct_run(void **state, const char *url, const char *ca_file, int in_flight, long total,
                       long max_host_connections, libcurl_direct_tally *tally);

#endif
