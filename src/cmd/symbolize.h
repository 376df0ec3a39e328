/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf symbolize: kernel addresses on stdin to functions and source lines, as eu-addr2line. */
#ifndef KP_SYMBOLIZE_CMD_H
#define KP_SYMBOLIZE_CMD_H

int cmd_symbolize(int argc, char **argv);

#endif
