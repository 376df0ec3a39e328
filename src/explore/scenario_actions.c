// SPDX-License-Identifier: GPL-2.0-only
/*
 * The actions kprotperf implements, with the most each takes: their table,
 * found by name (their steps are scenario_act_*.c's, what the steps share
 * scenario_step.c's).
 */
#include "explore/scenario_int.h"

#include <string.h>

#define MIB (1024LL * 1024)

/*
 * The limits hold for a user's explore.conf too: the process limit does not
 * hold for root (fork's count times depth does), and sizes beyond these
 * would only meet the memory and file size limits.  A family or type of 0
 * (socketpair) or a size of 0 (open) reach the kernel's errors on purpose.
 */
static const struct scn_action actions[] = {
	{"fork", {"count", "depth", "hold"}, {1, 1, 0}, {256, 8, 600000}, scn_act_fork},
	{"clone_threads", {"count", "hold"}, {1, 0}, {256, 600000}, scn_act_clone_threads},
	{"mmap",
	 {"count", "size", "shared", "touch"},
	 {1, 4096, 0, 0},
	 {4096, 1024 * MIB, 1, 1},
	 scn_act_mmap},
	{"munmap", {"count", "size", "touch"}, {1, 4096, 0}, {4096, 1024 * MIB, 1}, scn_act_munmap},
	{"brk", {"count", "size", "touch"}, {1, 4096, 0}, {4096, 1024 * MIB, 1}, scn_act_brk},
	{"pipe", {"count", "size"}, {1, 1}, {4096, 16 * MIB}, scn_act_pipe},
	{"socketpair",
	 {"count", "size", "type", "family"},
	 {1, 1, 0, 0},
	 {4096, 16 * MIB, 10, 45},
	 scn_act_socketpair},
	{"open", {"count", "size"}, {1, 0}, {4096, 16 * MIB}, scn_act_open},
	{"mkdir", {"count", "depth"}, {1, 1}, {4096, 64}, scn_act_mkdir},
	{"setxattr", {"count", "size"}, {1, 1}, {4096, 65536}, scn_act_setxattr},
	{"read_write", {"count", "size"}, {1, 1}, {1 << 20, 16 * MIB}, scn_act_read_write},
	{"eventfd", {"count"}, {1}, {4096}, scn_act_eventfd},
	{"epoll", {"count", "fds"}, {1, 0}, {4096, 64}, scn_act_epoll},
	{"msg", {"count", "size"}, {1, 1}, {65536, 65536}, scn_act_msg},
};

#define N_ACTIONS (sizeof(actions) / sizeof(actions[0]))

const struct scn_action *scn_action_find(const char *name)
{
	size_t i;

	for (i = 0; i < N_ACTIONS; i++)
		if (!strcmp(actions[i].name, name))
			return &actions[i];
	return NULL;
}

size_t scn_action_count(void)
{
	return N_ACTIONS;
}

const struct scn_action *scn_action_at(size_t i)
{
	return &actions[i];
}
