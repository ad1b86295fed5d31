/*
 * conn_poll_table: an event loop keeps 512 connections in a table; each
 * connection carries its state and its 4 KiB receive buffer, and every
 * tick the loop checks state and deadline of all connections and advances
 * the active ones. BAD sizes struct conn at exactly 4096 bytes, so the
 * header line of every connection maps to the same L1d set (8 ways for
 * 512 lines) and to 32 of the 2048 L2 sets. GOOD adds one cache line of
 * padding (4160 bytes), so consecutive headers fall into consecutive sets.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NCONN	512

struct conn {
	uint32_t state;
	uint32_t fd;
	uint64_t deadline;
	uint64_t bytes_in;
	uint64_t bytes_out;
	uint32_t events;
	uint32_t retries;
	char rxbuf[4096 - 40];
#ifndef BAD
	char pad[64];		/* break the power-of-two stride */
#endif
};

enum { CONN_IDLE, CONN_READ, CONN_WRITE, CONN_CLOSE };

static __attribute__((noinline)) uint64_t poll_tick(struct conn *c, uint64_t now)
{
	uint64_t work = 0;

	for (int i = 0; i < NCONN; i++) {
		struct conn *k = &c[i];

		if (k->deadline <= now) {
			k->state = (k->state + 1) & 3;
			k->deadline = now + 1 + (k->fd & 7);
			k->retries++;
		}
		if (k->state == CONN_READ)
			k->bytes_in += k->events;
		else if (k->state == CONN_WRITE)
			k->bytes_out += k->events;
		work += k->state;
	}
	return work;
}

int main(int argc, char **argv)
{
	long ticks = argc > 1 ? atol(argv[1]) : 900000;
	struct conn *c = aligned_alloc(4096, NCONN * sizeof(*c));
	uint64_t check = 0;

	if (!c)
		return 1;
	for (int i = 0; i < NCONN; i++) {
		c[i].state = i & 3;
		c[i].fd = i + 3;
		c[i].deadline = i % 5;
		c[i].bytes_in = c[i].bytes_out = 0;
		c[i].events = 1 + i % 9;
		c[i].retries = 0;
		c[i].rxbuf[0] = (char)i;
	}
	for (long t = 0; t < ticks; t++)
		check += poll_tick(c, (uint64_t)t);
	for (int i = 0; i < NCONN; i++)
		check += c[i].bytes_in + c[i].bytes_out + c[i].retries;
	printf("checksum %llu\n", (unsigned long long)check);
	free(c);
	return 0;
}
