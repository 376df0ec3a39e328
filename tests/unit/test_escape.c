// SPDX-License-Identifier: GPL-2.0-only
/*
 * Strings from a data file never reach a terminal, a folded line or JSON
 * raw: util/esc.c and util/json.c on crafted strings, then a copy of
 * tests/golden/data/old/v4-sl.data (kept as it is: the lines below quote it)
 * given an escape sequence in a comm, ';' and a newline in a user symbol,
 * invalid UTF-8 in a kernel symbol, the command and the CPU model, through
 * report, folded, diff and their --json; and the protection map's SVG and
 * JSON of a hostile path and feature description.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "testutil.h"
#include "util/esc.h"
#include "util/json.h"

static const struct {
	const char *in, *text, *frame, *xml;
} cases[] = {
	{"plain_name", "plain_name", "plain_name", "plain_name"},
	{"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
	{"a\x1b[2Jb", "a\\x1b[2Jb", "a\\x1b[2Jb", "a\\x1b[2Jb"},
	{"cr\rlf\ntab\t", "cr\\rlf\\ntab\\t", "cr\\rlf\\ntab\\t", "cr\\rlf\\ntab\\t"},
	{"nul\x01 del\x7f", "nul\\x01 del\\x7f", "nul\\x01 del\\x7f", "nul\\x01 del\\x7f"},
	{"c1 \xc2\x9b \xc2\x80 \xc2\xa0", "c1 \\xc2\\x9b \\xc2\\x80 \xc2\xa0",
	 "c1 \\xc2\\x9b \\xc2\\x80 \xc2\xa0", "c1 \\xc2\\x9b \\xc2\\x80 \xc2\xa0"},
	{"bad \xff \x80", "bad \\xff \\x80", "bad \\xff \\x80", "bad \\xff \\x80"},
	{"overlong \xc0\xaf \xe0\x80\xaf", "overlong \\xc0\\xaf \\xe0\\x80\\xaf",
	 "overlong \\xc0\\xaf \\xe0\\x80\\xaf", "overlong \\xc0\\xaf \\xe0\\x80\\xaf"},
	{"surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80", "surrogate \\xed\\xa0\\x80",
	 "surrogate \\xed\\xa0\\x80"},
	{"big \xf4\x90\x80\x80", "big \\xf4\\x90\\x80\\x80", "big \\xf4\\x90\\x80\\x80",
	 "big \\xf4\\x90\\x80\\x80"},
	{"cut \xe2\x82", "cut \\xe2\\x82", "cut \\xe2\\x82", "cut \\xe2\\x82"},
	{"cut \xf0\x9f\x98x", "cut \\xf0\\x9f\\x98x", "cut \\xf0\\x9f\\x98x",
	 "cut \\xf0\\x9f\\x98x"},
	{"a;b::c", "a;b::c", "a:b::c", "a;b::c"},
	/* XML 1.0 forbids the noncharacters U+FFFE and U+FFFF, not U+FFFD */
	{"nc \xef\xbf\xbe \xef\xbf\xbf \xef\xbf\xbd", "nc \xef\xbf\xbe \xef\xbf\xbf \xef\xbf\xbd",
	 "nc \xef\xbf\xbe \xef\xbf\xbf \xef\xbf\xbd",
	 "nc \\xef\\xbf\\xbe \\xef\\xbf\\xbf \xef\xbf\xbd"},
	{"<a href=\"x\">&'</a>", "<a href=\"x\">&'</a>", "<a href=\"x\">&'</a>",
	 "&lt;a href=&quot;x&quot;&gt;&amp;'&lt;/a&gt;"},
};

static char *escaped(const char *s, enum esc_mode m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(esc_fputs(f, s, m), esc_len(s, m));
	fclose(f);
	assert_int_equal(len, esc_len(s, m));
	return buf;
}

static void test_text_frame_xml(void **state)
{
	size_t i;
	char *t;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t = escaped(cases[i].in, ESC_TEXT);
		assert_string_equal(t, cases[i].text);
		free(t);
		t = escaped(cases[i].in, ESC_FRAME);
		assert_string_equal(t, cases[i].frame);
		free(t);
		t = escaped(cases[i].in, ESC_XML);
		assert_string_equal(t, cases[i].xml);
		free(t);
	}
}

static void test_utf8(void **state)
{
	static const struct {
		const char *s;
		int n;
	} v[] = {
		{"", 0},
		{"a", 1},
		{"\xc3\xa9", 2},
		{"\xe2\x82\xac", 3},
		{"\xf0\x9f\x98\x80", 4},
		{"\xc0\xaf", -1},
		{"\xc1\xbf", -1},
		{"\xe0\x9f\xbf", -1},
		{"\xed\xa0\x80", -1},
		{"\xed\x9f\xbf", 3},
		{"\xf0\x8f\xbf\xbf", -1},
		{"\xf4\x90\x80\x80", -1},
		{"\xf5\x80", -1},
		{"\x80", -1},
		{"\xe2\x82", -2},
		{"\xe2\x82x", -2},
		{"\xf0\x9f\x98", -3},
		{"\xf4\x8f\xbf\xbf", 4},
	};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(esc_utf8(v[i].s), v[i].n);
}

/* esc_printf: fprintf's output for clean strings, widths counted in escaped bytes otherwise. */
static void test_printf(void **state)
{
	char *buf = NULL, want[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n;

	assert_non_null(f);
	n = esc_printf(f, "[%-8s|%6s|%.3s|%*s|%-*s|%5d|%-5lld|%zu|%5.1f%%|%c|%x|%s]", "ab", "cd",
		       "abcdef", 4, "x", 3, "y", 42, -7LL, (size_t)9, 3.14159, 'Z', 255,
		       "\xc3\xa9");
	snprintf(want, sizeof(want), "[%-8s|%6s|%.3s|%*s|%-*s|%5d|%-5lld|%zu|%5.1f%%|%c|%x|%s]",
		 "ab", "cd", "abcdef", 4, "x", 3, "y", 42, -7LL, (size_t)9, 3.14159, 'Z', 255,
		 "\xc3\xa9");
	fflush(f);
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
	rewind(f);
	n = esc_printf(f, "[%-8s|%8s|%.5s]", "\x1b[2J", "a\nb", "ab\x1b");
	fputc(0, f);
	fclose(f);
	assert_string_equal(buf, "[\\x1b[2J |    a\\nb|ab]");
	assert_int_equal(n, 22);
	free(buf);
}

static void test_json_strings(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	assert_non_null(f);
	json_begin(&j, f);
	json_open(&j, NULL, '[');
	json_str(&j, NULL, "caf\xc3\xa9 \"q\" \\ \x1b[2J\r\n\x7f\xc2\x9b");
	json_str(&j, NULL, "\xff|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe2\x82|\xf0\x9f\x98");
	json_str(&j, NULL, "\xf0\x9f\x98\x80 \xe2\x82\xac");
	json_close(&j, ']');
	json_end(&j);
	fclose(f);
	assert_string_equal(
		buf, "[\"caf\xc3\xa9 \\\"q\\\" \\\\ \\u001b[2J\\u000d\\u000a\\u007f\\u009b\","
		     "\"\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
		     "\\ufffd\\ufffd\\ufffd\\ufffd|\\ufffd|\\ufffd\","
		     "\"\xf0\x9f\x98\x80 \xe2\x82\xac\"]\n");
	free(buf);
}

/*
 * The crafted recording, and v4-sl.data as it is; it under a name that
 * is no text, and a feature mapping whose description is none either.
 */
struct fixture {
	struct tu_fixture tu; /* first: tu_fixture_setup() allocates it */
	char data[PATH_MAX / 2 + 16], out[PATH_MAX / 2 + 16];
	char named[PATH_MAX / 2 + 32], map[PATH_MAX / 2 + 16];
};

/* each byte XML 1.0 forbids, and what the markup gives a meaning to */
#define HOSTILE "\x01\x1b[2J \xff\xc0\xaf \xed\xa0\x80 \xef\xbf\xbe \xef\xbf\xbf & < > \" '"
#define HOSTILE_XML                                                                                 \
	"\\x01\\x1b[2J \\xff\\xc0\\xaf \\xed\\xa0\\x80 \\xef\\xbf\\xbe \\xef\\xbf\\xbf &amp; &lt; " \
	"&gt; &quot; '"

#define SL "tests/golden/data/old/v4-sl.data"

static int build(void *p)
{
	struct fixture *f = p;
	char sl[PATH_MAX];

	snprintf(f->data, sizeof(f->data), "%s/c.data", f->tu.dir);
	snprintf(f->out, sizeof(f->out), "%s/out.json", f->tu.dir);
	snprintf(f->named, sizeof(f->named), "%s/sl " HOSTILE ".data", f->tu.dir);
	snprintf(f->map, sizeof(f->map), "%s/map.conf", f->tu.dir);
	if (!realpath(SL, sl) || symlink(sl, f->named) ||
	    tu_write_file(f->map, "[hostile]\nabout = " HOSTILE " end\ntype = config\n"
				  "position = data\nfunctions = do_syscall_64\n"))
		return -1;
	return tu_run("cp " SL " %s && sqlite3 %s \""
		      "UPDATE samples SET comm = 'sl' || char(27) || '[2J';"
		      "UPDATE ustack_frames SET symbol = 'sys;call' || char(10) || 'x'"
		      " WHERE symbol = 'syscall';"
		      "UPDATE ksyms SET name = 'do_sys' || CAST(X'FF' AS TEXT) || '_64'"
		      " WHERE name = 'do_syscall_64';"
		      "UPDATE meta SET value = '/tmp/sl' || char(13) || CAST(X'C0AF' AS TEXT)"
		      " || ' 20000' WHERE key = 'record.command';"
		      "UPDATE meta SET value = 'AMD ' || CAST(X'EDA080' AS TEXT) || ' '"
		      " || CAST(X'E282' AS TEXT) || char(127) || CAST(X'C29B' AS TEXT)"
		      " WHERE key = 'cpu.model';"
		      "UPDATE config SET value = 'y' || char(27) || ']0;owned' || char(7)"
		      " WHERE option = 'CONFIG_RANDOMIZE_BASE';\"",
		      f->data, f->data);
}

static int setup(void **state)
{
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-escape", "sqlite3", build);
}

/* The whole line of out that starts with prefix ("" when none). */
static char *line_of(const char *out, const char *prefix)
{
	const char *p = out;
	size_t n;

	while (p && strncmp(p, prefix, strlen(prefix)))
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	n = p ? strcspn(p, "\n") : 0;
	return strndup(p ?: "", n);
}

static void expect_line(const char *out, const char *prefix, const char *want)
{
	char *line = line_of(out, prefix);

	assert_string_equal(line, want);
	free(line);
}

static void test_report(void **state)
{
	struct fixture *f = tu_fixture(state);
	char *out = tu_output(cmd_report, (char *[]){"report", f->data, NULL});

	expect_line(
		out, "# kprotperf report of ",
		"# kprotperf report of /tmp/sl\\r\\xc0\\xaf 20000 (recorded 2026-11-23T03:37:59Z)");
	expect_line(out, "# kernel ",
		    "# kernel 6.18.44-fc-v657 (build-id 48dc540c8b76393804ca8088dbfa7d42911a9444),"
		    " x86_64, 2 CPUs: AMD \\xed\\xa0\\x80 \\xe2\\x82\\x7f\\xc2\\x9b");
	expect_line(out, "  0.00%   60.00%        0  do_sys",
		    "  0.00%   60.00%        0  do_sys\\xff_64");
	expect_line(out, " 20.00%  100.00%        1  sys",
		    " 20.00%  100.00%        1  sys;call\\nx");
	free(out);
}

static void test_folded(void **state)
{
	struct fixture *f = tu_fixture(state);

	tu_expect(
		cmd_folded, (char *[]){"folded", f->data, NULL}, 1, 0,
		"sl\\x1b[2J;__libc_start_call_main;sys:call\\nx 1\n"
		"sl\\x1b[2J;__libc_start_call_main;sys:call\\nx;[kprotperf probe]_[k] 1\n"
		"sl\\x1b[2J;__libc_start_call_main;sys:call\\nx;entry_SYSCALL_64_after_hwframe_[k];"
		"do_sys\\xff_64_[k];__ia32_sys_getppid_[k] 1\n"
		"sl\\x1b[2J;__libc_start_call_main;sys:call\\nx;entry_SYSCALL_64_after_hwframe_[k];"
		"do_sys\\xff_64_[k];syscall_exit_work_[k];[kprotperf probe]_[k] 1\n"
		"sl\\x1b[2J;__libc_start_call_main;sys:call\\nx;entry_SYSCALL_64_after_hwframe_[k];"
		"do_sys\\xff_64_[k];syscall_trace_enter_[k];[kprotperf probe]_[k] 1\n");
}

static void test_diff_text(void **state)
{
	struct fixture *f = tu_fixture(state);
	char *out = tu_output(cmd_diff, (char *[]){"diff", f->data, SL, NULL});
	char want[PATH_MAX + 256];

	snprintf(
		want, sizeof(want),
		"# base:     %s: kernel 6.18.44-fc-v657 (build-id "
		"48dc540c8b76393804ca8088dbfa7d42911a9444), 1 run of '/tmp/sl\\r\\xc0\\xaf 20000', "
		"499 Hz, schema 4",
		f->data);
	expect_line(out, "# base:", want);
	expect_line(out, "#   config ", "#   config RANDOMIZE_BASE: y\\x1b]0;owned\\x07 -> y");
	expect_line(out, "# warning: the recordings ran different commands",
		    "# warning: the recordings ran different commands ('/tmp/sl\\r\\xc0\\xaf 20000'"
		    " and '/tmp/before/syscall-loop 20000'): their numbers may not be comparable");
	free(out);
}

static char json_seen[4096];

static void keep(const char *line, void *arg)
{
	strncat(json_seen, line, sizeof(json_seen) - strlen(json_seen) - 1);
}

/*
 * The stdout of cmd on argv is JSON in strict UTF-8 (python3's json, bytes
 * decoded without error handling): what expr (over d) prints of it is want.
 */
static void expect_json(struct fixture *f, int (*cmd)(int, char **), char **argv, const char *expr,
			const char *want)
{
	char *out = tu_output(cmd, argv);

	assert_int_equal(tu_write_file(f->out, out), 0);
	free(out);
	*json_seen = 0;
	assert_int_equal(tu_each_line(keep, NULL,
				      "python3 -c 'import json,sys; "
				      "d = json.loads(open(sys.argv[1], \"rb\").read().decode()); "
				      "print(json.dumps(%s))' %s 2>&1",
				      expr, f->out),
			 0);
	assert_string_equal(json_seen, want);
}

static void test_report_json(void **state)
{
	struct fixture *f = tu_fixture(state);

	expect_json(f, cmd_report, (char *[]){"report", "--json", f->data, NULL},
		    "[d[\"meta\"][\"record.command\"], d[\"meta\"][\"cpu.model\"],"
		    " d[\"config\"][\"CONFIG_RANDOMIZE_BASE\"],"
		    " [x[\"name\"] for x in d[\"kernel_functions\"] if not x[\"name\"].isascii()],"
		    " d[\"user_functions\"][0][\"name\"]]",
		    "[\"/tmp/sl\\r\\ufffd\\ufffd 20000\", "
		    "\"AMD \\ufffd\\ufffd\\ufffd \\ufffd\\u007f\\u009b\", "
		    "\"y\\u001b]0;owned\\u0007\", [\"do_sys\\ufffd_64\"], \"sys;call\\nx\"]\n");
}

static void test_diff_json(void **state)
{
	struct fixture *f = tu_fixture(state);

	expect_json(
		f, cmd_diff, (char *[]){"diff", "--json", f->data, SL, NULL},
		"[d[\"base\"][\"command\"], [n for n in d[\"notes\"] if \"commands\" in n],"
		" [x[\"name\"] for x in d[\"kernel_functions_total\"] if not x[\"name\"].isascii()]]",
		"[\"/tmp/sl\\r\\ufffd\\ufffd 20000\", [\"warning: the recordings ran different "
		"commands ('/tmp/sl\\r\\ufffd\\ufffd 20000' and '/tmp/before/syscall-loop 20000'):"
		" their numbers may not be comparable\"], [\"do_sys\\ufffd_64\"]]\n");
}

/*
 * The protection map of sl.data under the hostile name, with the hostile
 * description in its tooltip: well-formed XML (xmllint), each string
 * escaped; its --json is JSON in strict UTF-8.
 */
static void test_protection_map(void **state)
{
	struct fixture *f = tu_fixture(state);
	char *argv[] = {"features", "--features", f->map, "--svg", f->named, SL, NULL};
	char *out, *line, want[PATH_MAX + 256];

	if (tu_run("command -v xmllint >/dev/null"))
		skip();
	out = tu_output(cmd_features, argv);
	assert_int_equal(tu_write_file(f->out, out), 0);
	assert_int_equal(tu_run("xmllint --noout '%s'", f->out), 0);
	snprintf(want, sizeof(want),
		 "<text x=\"110\" y=\"50\" font-size=\"12\">base %s/sl " HOSTILE_XML
		 ".data, hardened " SL "</text>",
		 f->tu.dir);
	expect_line(out, "<text x=\"110\" y=\"50\"", want);
	line = line_of(out, "hostile: ");
	assert_true(tu_ends_with(line, "): " HOSTILE_XML " end</title>"));
	free(line);
	free(out);
	argv[3] = "--json";
	snprintf(want, sizeof(want),
		 "\"%s/sl \\u0001\\u001b[2J \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd "
		 "\\ufffe \\uffff & < > \\\" '.data\"\n",
		 f->tu.dir);
	expect_json(f, cmd_features, argv, "d[\"base\"]", want);
}

int main(void)
{
	const struct CMUnitTest units[] = {
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_text_frame_xml),
		cmocka_unit_test(test_printf),
		cmocka_unit_test(test_json_strings),
	};
	const struct CMUnitTest files[] = {
		cmocka_unit_test(test_report),	  cmocka_unit_test(test_folded),
		cmocka_unit_test(test_diff_text), cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_diff_json), cmocka_unit_test(test_protection_map),
	};

	return cmocka_run_group_tests(units, NULL, NULL) |
	       cmocka_run_group_tests(files, setup, tu_fixture_teardown);
}
