/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Debug files kept inflated.  Debian's debug packages (libc6-dbg, ...) ship
 * their DWARF zlib-compressed, and libdw inflates every debug section of a
 * file when it opens it: libc's 4 MB cost ~60 ms of a report's ~80.  The
 * first command that opens such a file by build id writes a copy with its
 * sections inflated into ${XDG_CACHE_HOME:-~/.cache}/kprotperf/debug/plain/,
 * named by build id as /usr/lib/debug/.build-id names it, and the commands
 * after it open that copy (mapped, nothing inflated).
 */
#ifndef KP_DEBUG_PLAIN_H
#define KP_DEBUG_PLAIN_H

#include <stddef.h>

/* The plain copies' folder (out): 0, or -ENOENT without $XDG_CACHE_HOME or $HOME. */
int debug_plain_dir(char *out, size_t len);

/*
 * When the debug file open at fd has compressed sections: an inflated copy
 * written as rel (xx/rest.debug) under the plain folder, made when absent,
 * into which no link is followed, renamed into place whole.  0, -ENODATA
 * when nothing is compressed, or -errno; fd is left as it was.
 */
int debug_plain_write(int fd, const char *rel);

#endif
