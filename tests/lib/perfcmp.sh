# Sourced by tests/live/t_stacks_vs_perf.sh and tests/bench/stacks.sh: the
# same figures from a perf.data and a kprotperf data file of the same run.
# shellcheck shell=bash

# xzloop DIR: a script running `xz -9` on DIR/in.txt (6 MB of base64), one
# run after another, for the seconds it is given
perfcmp_xzloop() {
	head -c 6000000 /dev/urandom | base64 > "$1/in.txt"
	cat > "$1/xzloop" <<'EOS'
#!/bin/sh
end=$(($(date +%s) + $1))
while [ "$(date +%s)" -lt "$end" ]; do xz -9c in.txt > /dev/null || exit 1; done
EOS
	chmod +x "$1/xzloop"
}

# perf_share PERF.DATA COMM LIB: percent of COMM's samples whose leaf is in LIB
# (-G: a recording with call graphs prints the sample's own line only)
perf_share() {
	perf script -G -i "$1" -F comm,ip,dso 2> /dev/null | awk -v c="$2" -v l="$3" \
		'$1 == c {n++; if (index($NF, l)) k++} END {printf "%.2f\n", n ? 100 * k / n : 0}'
}

# kp_share DATA COMM LIB: the same from a kprotperf data file (leaf: user mode, depth 0)
kp_share() {
	sqlite3 -batch -noheader "$1" "SELECT printf('%.2f', 100.0 * SUM(CASE WHEN s.kstack IS NULL
		AND instr(f.module, '$3') THEN s.count ELSE 0 END) / SUM(s.count)) FROM samples s
		LEFT JOIN ustack_frames f ON f.stack = s.ustack AND f.depth = 0 WHERE s.comm = '$2'"
}

median() { sort -n | awk '{a[NR] = $1} END {print NR ? a[int((NR + 1) / 2)] : 0}'; }

# perf_depth PERF.DATA COMM: median user frames of COMM's samples (perf prints a
# sample's frames one a line, indented; inline frames are not frames)
perf_depth() {
	perf script --no-inline -i "$1" -F comm,ip,dso 2> /dev/null | awk -v c="$2" '
		/^[^\t]/ { if (s == c) print n; s = $1; n = 0; next }
		/^\t/ && !/kernel\.kallsyms/ { n++ }
		END { if (s == c) print n }' | median
}

# kp_depth DATA COMM: the same from a kprotperf data file ([truncated] is no frame)
kp_depth() {
	sqlite3 -batch -noheader "$1" "SELECT s.count, (SELECT count(*) FROM ustack_frames f
		WHERE f.stack = s.ustack AND f.module != '[truncated]') FROM samples s
		WHERE s.comm = '$2'" | awk -F'|' '{for (i = 0; i < $1; i++) print $2}' | median
}
