/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control-flow graph of one kernel function (x86_64), from its text
 * alone: basic blocks, edges, dominators and loops, and what per-block
 * execution counts say of edges and loop trips.  What record --blocks puts
 * one probe per block head from, and report and diff --blocks derive
 * instructions per call, branch ratios and trip counts with.
 *
 * Offline and pure: the caller hands in the bytes (the file's or the running
 * kernel's, after alternatives) and, through struct cfg_env, what only the
 * symbol table knows: which call targets never return, which are the
 * return and indirect-branch thunks, where the jump-label sites are and
 * which ud2 are WARNs.
 */
#ifndef KP_CFG_H
#define KP_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* A successor outside the function: the edge leaves it. */
#define CFG_OUT (-2)
/* An edge count flow conservation leaves open. */
#define CFG_UNKNOWN ((__u64)-1)

/* One contiguous part of the function's text; a function split by the compiler has a .cold part. */
struct cfg_text {
	__u64 addr;
	const __u8 *code;
	size_t len;
};

enum cfg_callee {
	CFG_CALLEE_FUNC,     /* returns to after the call; a jump to it is a tail call */
	CFG_CALLEE_NORETURN, /* never returns: __stack_chk_fail, panic, ... */
	CFG_CALLEE_RETURN,   /* __x86_return_thunk: a jump to it is a return */
	CFG_CALLEE_INDIRECT, /* __x86_indirect_thunk_*: an indirect call or jump */
	/*
	 * the code of the function an inline instance sits in, when the text
	 * is that instance's: a jump there, or running on into it, returns
	 * from the instance to its caller
	 */
	CFG_CALLEE_PARENT,
};

/* What the symbol table knows; any member may be NULL (defaults below). */
struct cfg_env {
	/* what a call, or a jump out of the text, goes to (default: CFG_CALLEE_FUNC) */
	enum cfg_callee (*callee)(void *arg, __u64 addr);
	/* whether addr is a jump-label site, a nop or jmp patched at run time, and its target */
	bool (*site)(void *arg, __u64 addr, __u64 *target);
	/*
	 * whether the ud2 at addr is a WARN's, which resumes after it (the
	 * kernel's __bug_table has BUGFLAG_WARNING); default: a BUG's, an exit
	 */
	bool (*warn)(void *arg, __u64 addr);
	void *arg;
};

enum cfg_edge_kind {
	CFG_EDGE_ENTRY,	    /* the call entering the function (from == -1) */
	CFG_EDGE_FALL,	    /* straight on into the next block */
	CFG_EDGE_JUMP,	    /* an unconditional jump */
	CFG_EDGE_TAKEN,	    /* a conditional jump (or jump-label site) taken */
	CFG_EDGE_NOT_TAKEN, /* the same, not taken */
	CFG_EDGE_RETURN,    /* ret, a jump to the return thunk, or back into an instance's parent */
	CFG_EDGE_TAIL,	    /* a direct jump to another function: to == CFG_OUT */
	CFG_EDGE_INDIRECT,  /* an indirect jump, targets unknown: to == CFG_OUT */
	CFG_EDGE_NORETURN,  /* a call that never returns, or running off the text: to == CFG_OUT */
	CFG_EDGE_TRAP,	    /* a BUG's ud2 or an int3: to == CFG_OUT */
};

struct cfg_edge {
	int from, to; /* block indices; from -1: ENTRY; to CFG_OUT: the edge leaves */
	enum cfg_edge_kind kind;
	/* an edge leaving to a known address: where it goes (a jump's target, or on past the block)
	 */
	__u64 addr;
	/*
	 * its count follows from the blocks' counts alone; when not, it
	 * leaves a two-way block (cond): probing that block's branch
	 * instruction and testing its cc in the saved flags (cfg_cc_taken())
	 * counts it, where it is a jcc rather than a jump-label site
	 */
	bool derivable;
	bool back; /* to a natural loop's head, which dominates from */
};

struct cfg_block {
	__u64 start, end; /* [start, end) */
	__u32 ninsn;
	__u64 branch; /* the last instruction's address */
	/* successors: [0] fall-through or the one target, [1] the taken target when cond */
	int succ[2]; /* block indices, CFG_OUT for an edge leaving, -1 none */
	int edge[2]; /* the edges to succ[], indices into cfg.e */
	int nsucc;
	bool cond;     /* two-way: a conditional jump or a jump-label site */
	bool site;     /* the two-way branch is a jump-label site, which no data steers */
	int cc;	       /* a jcc's condition (x86 encoding, 0 jo .. 15 jg); -1 other */
	bool exit;     /* some successor leaves the function */
	bool indirect; /* ends in an indirect jump: with retpolines a tail call through a pointer,
			  without them maybe a switch table whose targets are unknown */
	int idom;      /* immediate dominator, -1 for the entry */
	int loop;      /* innermost loop (index into cfg.loops) whose body holds it, -1 none */
	/*
	 * every path from it ends in a BUG's ud2 or a call that never returns:
	 * a probe there counts crashes only, and a loop exit there is no bound
	 */
	bool doomed;
	int npred; /* edges into it, the entering call's included: cfg.in[in_first ..] */
	int in_first;
};

struct cfg_loop {
	int head;	  /* a natural loop's header; for an irreducible one, one of its entries */
	int parent;	  /* the innermost loop holding it, -1 none */
	int depth;	  /* 1 for an outermost loop */
	bool irreducible; /* entered at more than one block: no header, no trip count */
	int *body;	  /* block indices, sorted, the head and nested loops' blocks included */
	size_t nbody;
	int *latches; /* edges (into cfg.e) back to the head; retreating edges when irreducible */
	size_t nlatches;
	int *exits; /* edges from the body to a block outside it, or leaving the function */
	size_t nexits;
};

struct cfg {
	__u64 addr;	     /* the entry: the first text's address */
	struct cfg_block *b; /* the blocks reachable from the entry, sorted by start */
	size_t nb;
	int entry;	    /* the entry's block */
	struct cfg_edge *e; /* e[0] the entering call, then each block's out-edges in order */
	size_t ne;
	int *in;		/* the edges into each block, block by block (see in_first) */
	struct cfg_loop *loops; /* outer loops before the loops they hold */
	size_t nloops;
	size_t nindirect; /* blocks ending in an indirect jump */
	size_t unreached; /* instructions no path from the entry reaches, padding aside */
};

/*
 * Disassemble the function's text (text[0] holding its entry, the other
 * parts in any order) and build its graph: blocks reachable from the entry,
 * edges, dominators (Cooper-Harvey-Kennedy), natural loops from back edges
 * and irreducible ones from the other retreating edges.  env may be NULL.
 * 0, or -errno with why: -EILSEQ when capstone cannot decode at an address
 * reached, -EINVAL for a jump into the middle of an instruction or no text,
 * -ENOMEM.
 */
int cfg_build(const struct cfg_text *text, size_t ntext, const struct cfg_env *env,
	      struct cfg **out, char *why, size_t wlen);
void cfg_free(struct cfg *g);
/*
 * What cfg_build() ends with (cfg_flow.c): idom, loop, doomed, back and
 * derivable, and the loops, of a graph whose blocks and edges are set.  0, or -ENOMEM
 * with why.
 */
int cfg_analyse(struct cfg *g, char *why, size_t wlen);
/* The index of the block holding addr, or -1. */
int cfg_block_at(const struct cfg *g, __u64 addr);

/* Whether the kernel function name never returns (objtool's list). */
bool cfg_noreturn_name(const char *name);
/* Whether a jcc with condition cc jumps when the flags register holds flags. */
bool cfg_cc_taken(int cc, __u64 flags);

/* Instructions executed: the sum over blocks of counts[b] * ninsn. */
__u64 cfg_insns(const struct cfg *g, const __u64 *counts);
/*
 * Edge counts from block counts (counts[nb]) by flow conservation (each
 * block's count is the sum of its in-edges and of its out-edges).  edges
 * (ne) is in and out: a value other than CFG_UNKNOWN going in is a
 * measurement (the calls on e[0], a branch counted at its jcc), the rest
 * comes out solved or CFG_UNKNOWN.  The number of edges left unknown, or
 * -EDOM when the counts contradict the graph (code entered by an indirect
 * jump it does not know).
 */
int cfg_edge_counts(const struct cfg *g, const __u64 *counts, __u64 *edges);
/*
 * Loop l's entries (its head's in-edges from outside the loop) and
 * iterations (its head's count), from cfg_edge_counts()'s edges: trips per
 * entry = iterations / entries.  -ENODATA when an entry edge's count is
 * unknown, -EDOM for an irreducible loop.
 */
int cfg_loop_trips(const struct cfg *g, int l, const __u64 *counts, const __u64 *edges,
		   __u64 *entries, __u64 *iterations);

#endif
