// SPDX-License-Identifier: GPL-2.0-only
/*
 * A log shipper with two parser threads.  Each parses syslog-style lines
 * (priority, host, program) from its own buffer and keeps its counters in
 * a per-thread record that is aligned to a cache line of its own with
 * _Alignas(64), the padding on purpose: no line is written by two threads.
 * A clean control: the padding is not a hole and there is no sharing.
 *
 * Usage: clean_padded_log_stats [PASSES]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLINES 64

struct parse_stats {
	_Alignas(64) uint64_t lines;
	uint64_t errors;
	uint64_t by_severity[8];
	uint64_t host_hash;
};

static struct parse_stats stats[2];

static const char *const sample[] = {
	"<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick",
	"<13>Feb  5 17:32:18 10.0.0.99 myprog: Use the BFG!",
	"<165>Aug 24 05:34:00 host1 app[812]: request served in 4 ms",
	"<0>Oct 22 10:52:12 scapegoat kernel: panic averted",
	"<78>Mar  1 00:00:01 cron01 CROND[4211]: (root) CMD (run-parts)",
	"garbage without a priority",
};

struct parser {
	int id;
	long passes;
	char lines[NLINES][80];
};

static void *parse_logs(void *p)
{
	struct parser *ps = p;
	volatile struct parse_stats *s = &stats[ps->id];

	for (long pass = 0; pass < ps->passes; pass++) {
		for (int i = 0; i < NLINES; i++) {
			const char *l = ps->lines[i], *host;
			unsigned pri = 0;
			uint64_t h = 5381;

			if (l[0] != '<') {
				s->errors++;
				continue;
			}
			for (l++; *l >= '0' && *l <= '9'; l++)
				pri = pri * 10 + (unsigned)(*l - '0');
			host = l + 17;
			for (const char *c = host; *c && *c != ' '; c++)
				h = h * 33 + (uint8_t)*c;
			s->lines++;
			s->by_severity[pri & 7]++;
			s->host_hash += h;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 6000000;
	struct parser *ps[2];
	pthread_t t[2];
	uint64_t sum = 0;

	for (int i = 0; i < 2; i++) {
		ps[i] = malloc(sizeof(*ps[i]));
		if (!ps[i])
			return 1;
		ps[i]->id = i;
		ps[i]->passes = passes;
		for (int k = 0; k < NLINES; k++)
			snprintf(ps[i]->lines[k], sizeof(ps[i]->lines[k]), "%s",
				 sample[(k + i) % (sizeof(sample) / sizeof(sample[0]))]);
	}
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, parse_logs, ps[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) {
		sum += stats[i].lines + stats[i].errors * 3 + stats[i].host_hash;
		for (int k = 0; k < 8; k++)
			sum += stats[i].by_severity[k] * (uint64_t)(k + 1);
		free(ps[i]);
	}
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
