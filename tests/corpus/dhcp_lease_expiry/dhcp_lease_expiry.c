// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lease database of a DHCP server for a large carrier network: 2 M
 * leases, one per address of the pool.  Once a second the server sweeps
 * the whole table for leases whose end time has passed and returns them
 * to the free pool; between sweeps it answers the renewals (REQUEST)
 * that arrived during that second.  The sweep needs only the state and
 * the end time of a lease; the hardware address, the client identifier,
 * the host name, the vendor class and the relay information are read
 * when a client talks to the server and when the table is written out.
 *
 * BAD: a lease is one 160-byte record and the sweep walks the records,
 *      so every lease brings a line (and, with the adjacent-line
 *      prefetch, often two) through the cache for 5 bytes.
 * GOOD: state and end time live in their own 8-byte records (struct
 *      lease_hot), a parallel array next to the cold part.
 *
 * Usage: dhcp_lease_expiry [SECONDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLEASE		(2u * 1024 * 1024)
#define RENEW_PER_SEC	40000u
#define LEASE_TIME	90u

enum { L_FREE, L_BOUND, L_EXPIRED, L_ABANDONED };

#ifdef BAD
struct lease {
	uint32_t ip;
	uint8_t state;
	uint8_t hlen;
	uint8_t hwaddr[6];
	uint32_t starts;
	uint32_t ends;
	uint32_t cltt;		/* client's last transaction time */
	uint32_t renewals;
	uint32_t tstp;		/* expiry the failover peer was told */
	uint8_t client_id[32];
	char hostname[48];
	char vendor_class[32];
	uint32_t relay_agent;
	uint32_t circuit_id;
	uint32_t subnet;
	uint32_t flags;
};
#define HOT(i)	(&leases[i])
#else
struct lease_hot {
	uint32_t ends;
	uint8_t state;
	uint8_t pad[3];
};

struct lease {
	uint32_t ip;
	uint8_t hlen;
	uint8_t hwaddr[6];
	uint32_t starts;
	uint32_t cltt;
	uint32_t renewals;
	uint32_t tstp;		/* expiry the failover peer was told */
	uint8_t client_id[32];
	char hostname[48];
	char vendor_class[32];
	uint32_t relay_agent;
	uint32_t circuit_id;
	uint32_t subnet;
	uint32_t flags;
};
static struct lease_hot *hot;
#define HOT(i)	(&hot[i])
#endif

static struct lease *leases;

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void load_leases(void)
{
	for (uint32_t i = 0; i < NLEASE; i++) {
		struct lease *l = &leases[i];
		uint64_t r = next_rand();

		memset(l, 0, sizeof(*l));
		l->ip = 0x0a000000u + i;
		l->hlen = 6;
		for (int k = 0; k < 6; k++)
			l->hwaddr[k] = (uint8_t)(r >> (8 * k));
		l->client_id[0] = 1;
		memcpy(l->client_id + 1, l->hwaddr, 6);
		snprintf(l->hostname, sizeof(l->hostname), "cpe-%02x%02x%02x.access.example.net",
			 l->hwaddr[3], l->hwaddr[4], l->hwaddr[5]);
		strcpy(l->vendor_class, (r >> 48) % 3 ? "docsis3.1" : "MSFT 5.0");
		l->relay_agent = 0x0a400001u + (i >> 14);
		l->circuit_id = i & 0x3fff;
		l->subnet = i >> 8;
		if (r % 8 != 0) {
			HOT(i)->state = L_BOUND;
			HOT(i)->ends = (uint32_t)(r >> 32) % LEASE_TIME + 1;
			l->starts = 0;
			l->cltt = 0;
		} else {
			HOT(i)->state = L_FREE;
		}
	}
}

/* The REQUESTs of one second: a client renews (or takes) its address. */
static uint64_t answer_requests(uint32_t now)
{
	uint64_t acks = 0;

	for (uint32_t n = 0; n < RENEW_PER_SEC; n++) {
		uint64_t r = next_rand();
		uint32_t i = (uint32_t)(r % NLEASE);
		struct lease *l = &leases[i];

		if (HOT(i)->state == L_ABANDONED)
			continue;
		HOT(i)->state = L_BOUND;
		HOT(i)->ends = now + LEASE_TIME;
		l->cltt = now;
		l->tstp = now + LEASE_TIME / 2;
		l->renewals++;
		acks += l->ip ^ l->hwaddr[5];
	}
	return acks;
}

/* Once a second: expire the bound leases whose end has passed. */
static __attribute__((noinline)) uint64_t expire_sweep(uint32_t now, uint32_t *nbound)
{
	uint64_t expired = 0;
	uint32_t bound = 0;

	for (uint32_t i = 0; i < NLEASE; i++) {
		if (HOT(i)->state != L_BOUND)
			continue;
		if (HOT(i)->ends <= now) {
			HOT(i)->state = L_EXPIRED;
			expired += i;
		} else {
			bound++;
		}
	}
	*nbound = bound;
	return expired;
}

int main(int argc, char **argv)
{
	uint32_t seconds = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 64;
	uint64_t sum = 0;

	leases = malloc((size_t)NLEASE * sizeof(*leases));
#ifndef BAD
	hot = malloc((size_t)NLEASE * sizeof(*hot));
	if (!hot)
		return 1;
	memset(hot, 0, (size_t)NLEASE * sizeof(*hot));
#endif
	if (!leases)
		return 1;
	load_leases();
	for (uint32_t now = 1; now <= seconds; now++) {
		uint32_t bound;

		sum = sum * 1000003 + answer_requests(now);
		sum = sum * 1000003 + expire_sweep(now, &bound);
		sum = sum * 1000003 + bound;
	}
	for (uint32_t i = 0; i < NLEASE; i += 4099)
		sum = sum * 31 + leases[i].renewals + HOT(i)->state;
	printf("checksum %016llx\n", (unsigned long long)sum);
	return 0;
}
