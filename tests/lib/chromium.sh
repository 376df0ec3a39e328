# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Headless Chromium for the tests that render kprotperf's SVGs (Debian's
# chromium package), sourced after the test made $TMP and went into it.
#   chromium_need           skips the test (exit 77) without chromium or xmllint
#   chrome ARGS...          chromium --headless ARGS, its stderr in chromium.err
#   svg_parses FILE         fails the test unless xmllint and Chromium read FILE as XML

chromium_need() {
	command -v chromium >/dev/null || { echo "skipped: no chromium (Debian package chromium)"; exit 77; }
	command -v xmllint >/dev/null || { echo "skipped: no xmllint (Debian package libxml2-utils)"; exit 77; }
}

chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/profile" "$@" 2>chromium.err
}

svg_parses() {
	xmllint --noout "$1" || fail "$1 is not well-formed XML"
	# Chromium's own reading: a parse error would show as a page of errors
	chrome --dump-dom "file://$PWD/$1" >dom.txt || fail "chromium exited $?: $(tail -3 chromium.err)"
	! grep -q "parsererror\|This page contains the following errors" dom.txt ||
		fail "chromium could not parse $1: $(head -c 600 dom.txt)"
}
