// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>

#include "model/streams.h"

const char *stream_skip__name(enum stream_skip s)
{
	static const char *const names[STREAM_SKIP__COUNT] = {
		[STREAM_OK] = "ok",
		[STREAM_SKIP_SEGMENT] = "segment",
		[STREAM_SKIP_OPERAND] = "operand",
		[STREAM_SKIP_NO_FILE] = "no_file",
		[STREAM_SKIP_ATTACH] = "attach",
		[STREAM_SKIP_EMULATED] = "kernel_emulates",
		[STREAM_SKIP_NO_HITS] = "no_hits",
	};

	return (unsigned)s < STREAM_SKIP__COUNT ? names[s] : "unknown";
}

bool stream_ip__in_order(const struct stream_ip *s)
{
	uint64_t moves = s->forward + s->backward;
	uint64_t most = s->forward > s->backward ? s->forward : s->backward;

	return moves && (double)most >= 0.9 * (double)moves;
}

bool stream_ip__strided(const struct stream_ip *s)
{
	return s->skip == STREAM_OK && s->stride && s->deltas >= 16 && s->stride_frac >= 0.8;
}

void streams_report__free(struct streams_report *s)
{
	if (!s)
		return;
	free(s->ips);
	free(s);
}
