// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>

#include "model/watch.h"

void watch_report__free(struct watch_report *w)
{
	free(w);
}
