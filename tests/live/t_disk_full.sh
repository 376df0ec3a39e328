#!/bin/bash
# A full disk fails the write with one line; the previous data file survives
# intact and no temporary file is left.
. "$(dirname "$0")/lib.sh"
need_bpf
mkdir "$TMP/fs"
unshare -m bash -c "
	set -e
	mount -t tmpfs -o size=512k none '$TMP/fs'
	'$KP' record -q -o '$TMP/fs/k.data' -- true
	'$KP' record -q -F 999 -o '$TMP/fs/k.data' -- '$ROOT/big-fork' 300 > /dev/null 2> '$TMP/err' && exit 10
	grep -q 'No space left on device: free space or write elsewhere with -o' '$TMP/err' || exit 11
	[ \$(wc -l < '$TMP/err') = 1 ] || exit 12
	'$KP' report '$TMP/fs/k.data' | grep -q 'kprotperf report of true' || exit 13
	[ \$(ls '$TMP/fs' | wc -l) = 1 ] || exit 14
" || fail "disk-full check $? failed: $(cat "$TMP/err")"
cat "$TMP/err"
