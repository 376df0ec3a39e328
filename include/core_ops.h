/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The core-operations suite (tests/workloads/core-ops.c), LEBench-like: its
 * operations by name, each with the count a run makes by default and what
 * one operation is.  kprotperf sweep takes its --ops from this table, so
 * that a name the guest's core-ops would refuse is refused before anything
 * is built.
 *
 * X(id, name, count, about): id the C identifier of the operation's code.
 * The counts make a run take about 20 ms of guest time under icount (1 ns
 * per instruction) on the vm tier's 6.1 build; big-fork about 100 ms, and
 * its setup (6000 mappings) as much again.
 */
#ifndef KP_CORE_OPS_H
#define KP_CORE_OPS_H

#define CORE_OPS(X)                                                                             \
	X(null, "null", 80000, "getppid(), the cheapest system call")                           \
	X(ctxsw, "ctxsw", 3000, "a pipe ping-pong round trip with a child: 2 context switches") \
	X(read_small, "read-small", 4000, "pread() of 4 KiB from a tmpfs file")                 \
	X(read_large, "read-large", 70, "pread() of 256 KiB from a tmpfs file")                 \
	X(write_small, "write-small", 4000, "pwrite() of 4 KiB to a tmpfs file")                \
	X(write_large, "write-large", 70, "pwrite() of 256 KiB to a tmpfs file")                \
	X(mmap, "mmap", 2000, "mmap() and munmap() of 256 KiB anonymous memory, untouched")     \
	X(page_fault, "page-fault", 50,                                                         \
	  "mmap() of 256 KiB anonymous memory, a write to each of its 64 pages (64 page "       \
	  "faults), munmap()")                                                                  \
	X(fork, "fork", 120, "fork(), the child exits at once, waitpid()")                      \
	X(big_fork, "big-fork", 5, "fork() with 6000 one-page shared mappings, as big-fork")    \
	X(thread, "thread", 500, "pthread_create() of a thread that returns, pthread_join()")   \
	X(af_unix, "unix", 4000, "send() and recv() of 64 bytes over an AF_UNIX socket pair")   \
	X(tcp, "tcp", 2000, "send() and recv() of 64 bytes over a loopback TCP connection")     \
	X(select, "select", 2000, "select() on 64 idle pipes, no timeout")                      \
	X(poll, "poll", 2000, "poll() on 64 idle pipes, no timeout")                            \
	X(epoll, "epoll", 50000, "epoll_wait() on an epoll set of 64 idle pipes, no timeout")   \
	X(open_close, "open-close", 6000, "open() and close() of a tmpfs file")                 \
	X(stat, "stat", 12000, "stat() of a tmpfs file")

/* the longest name, for tables */
#define CORE_OPS_NAME_MAX 16

#endif
