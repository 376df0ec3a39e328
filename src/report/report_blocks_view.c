// SPDX-License-Identifier: GPL-2.0-only
/* A --blocks count as every part of report --blocks prints it (report_blocks_view.h). */
#include "report/report_blocks_view.h"

#include <stdio.h>

#include "util/json.h"

void report_blocks_json_count(struct json *j, const char *key, long long v)
{
	if (v < 0)
		json_str(j, key, NULL);
	else
		json_u64(j, key, v);
}

const char *report_blocks_count_text(char *buf, size_t len, long long v)
{
	if (v < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%lld", v);
	return buf;
}
