// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>

#include "model/addr.h"

bool addr_ip__strided(const struct addr_ip *ip)
{
	return ip->stride && ip->stride_deltas >= 8 && ip->stride_frac >= 0.8 &&
	       ip->stride_monotonic >= 0.8;
}

void addr_profile__free(struct addr_report *p)
{
	if (!p)
		return;
	free(p->ips);
	free(p->regions);
	free(p->shared);
	free(p);
}
