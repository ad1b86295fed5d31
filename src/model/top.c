// SPDX-License-Identifier: GPL-2.0-only
/* One refresh of 'memadvise top' (model/top.h). */
#include <stdio.h>
#include <stdlib.h>

#include "model/findings.h"
#include "model/top.h"

void top_frame__free(struct top_frame *f)
{
	if (!f)
		return;
	free(f->rows);
	report__free(f->drill.snap);
	findings__free(f->drill.findings);
	free(f);
}

/* A row's share of anonymous memory in huge pages, "-" when unknown or no anon memory. */
const char *top__thp_share(const struct top_row *r, char *buf, size_t len)
{
	if (!r->thp_known || !r->anon)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", 100.0 * (double)r->anon_huge / (double)r->anon);
	return buf;
}
