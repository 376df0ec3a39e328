// SPDX-License-Identifier: GPL-2.0-only
/* The frames table's rows of what was inlined at a frame (inline_rows.h). */
#include "symbols/inline_rows.h"

#include "data/samples.h"
#include "symbols/symbolize.h"

int inline_rows_put(struct datafile *df, const struct samples_frame *at, const struct sym_result *r)
{
	struct samples_frame row = *at;
	const struct sym_frame *f;
	int i, err = 0;

	/* frames[r->n - 1] is the function itself, the row named by its symbol */
	for (i = (int)r->n - 2; i >= 0 && !err; i--) {
		f = &r->frames[i];
		row.sub = (int)r->n - 1 - i;
		row.leaf = i == 0;
		row.name = f->func ?: "??";
		row.file = f->file;
		row.line = f->line;
		row.die = f->inlined ? f->die : 0;
		err = samples_add_frame(df, &row);
	}
	return err;
}
