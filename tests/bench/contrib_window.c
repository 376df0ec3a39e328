// SPDX-License-Identifier: GPL-2.0-only
/*
 * QEMU's contrib cache plugin (contrib/plugins/cache.c), made to start at
 * kprotperf's start marker, for tests/bench/vm_model.sh.  On its own it
 * instruments from the first instruction: the guest's boot then takes
 * minutes.  Linked with this file, its install function and its
 * registrations of the translation and exit callbacks renamed (-D when
 * compiling cache.c), it runs like --model: only the markers are
 * instrumented until the first start marker, then QEMU flushes its
 * translations and everything is translated with contrib's callbacks, to
 * the end.  Its per-access work is its own, unchanged.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <qemu-plugin.h>

/* cache.c's, renamed */
int contrib_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);

static const uint8_t start_marker[] = {0x66, 0x0f, 0x1f, 0x84, 0x00, 0x01, 0x52, 0x50, 0x4b};

static qemu_plugin_id_t shim_id;
static qemu_plugin_vcpu_tb_trans_cb_t contrib_trans;
static qemu_plugin_udata_cb_t contrib_exit;
static void *contrib_exit_udata;
static bool started;

/* what cache.c registers is kept for the start */
void shim_register_tb_trans(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb)
{
	contrib_trans = cb;
}

void shim_register_atexit(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *udata)
{
	contrib_exit = cb;
	contrib_exit_udata = udata;
}

/* the flush is done: from here on, contrib's own callbacks */
static void shim_reset_done(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, contrib_trans);
	qemu_plugin_register_atexit_cb(id, contrib_exit, contrib_exit_udata);
}

static void shim_start(unsigned int vcpu, void *udata)
{
	if (started)
		return;
	started = true;
	qemu_plugin_reset(shim_id, shim_reset_done);
}

static void shim_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(start_marker) &&
		    !memcmp(qemu_plugin_insn_data(insn), start_marker, sizeof(start_marker)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, shim_start,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	int rc = contrib_install(id, info, argc, argv);

	if (rc)
		return rc;
	shim_id = id;
	qemu_plugin_register_vcpu_tb_trans_cb(id, shim_trans);
	return 0;
}
