// SPDX-License-Identifier: GPL-2.0-only
/*
 * The in-memory row store of a small MVCC database.  A query scans every
 * row of a 256 K-row table, keeps the rows visible to its snapshot and
 * folds all their columns into an aggregate.  With -DBAD the row's members
 * are declared in schema order, one-byte and two-byte columns between the
 * 8-byte ones, so the compiler pads the row to 64 bytes (24 of them holes);
 * otherwise the same members are declared largest first and the row is 40
 * bytes: the scan reads 10 MiB instead of 16.
 *
 * Usage: db_row_holes [SCANS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NROWS (256 * 1024)

struct row {
#ifdef BAD
	uint8_t deleted;
	uint64_t id;
	uint16_t table_id;
	uint64_t txn_min;
	uint8_t nullmask;
	uint64_t txn_max;
	uint32_t len;
	double value;
#else
	uint64_t id;
	uint64_t txn_min;
	uint64_t txn_max;
	double value;
	uint32_t len;
	uint16_t table_id;
	uint8_t deleted;
	uint8_t nullmask;
#endif
};

static struct row *rows;

static double scan_visible(uint64_t snapshot, uint64_t *nvisible)
{
	double agg = 0;
	uint64_t n = 0;

	for (long i = 0; i < NROWS; i++) {
		const struct row *r = &rows[i];

		if (r->deleted || r->txn_min > snapshot || r->txn_max <= snapshot)
			continue;
		n++;
		agg += r->value * (r->nullmask & 1 ? 0.0 : 1.0) + (double)(r->id & 7) +
		       (double)r->len * 0.5 + (double)r->table_id;
	}
	*nvisible += n;
	return agg;
}

int main(int argc, char **argv)
{
	long scans = argc > 1 ? atol(argv[1]) : 5000;
	uint64_t nvisible = 0;
	double agg = 0;

	rows = malloc(NROWS * sizeof(*rows));
	if (!rows)
		return 1;
	for (long i = 0; i < NROWS; i++)
		rows[i] = (struct row){ .deleted = (i % 53) == 0, .id = (uint64_t)i,
					.table_id = (uint16_t)(i % 5), .txn_min = (uint64_t)(i % 1000),
					.nullmask = (uint8_t)(i % 11 == 0), .txn_max = 900 + (uint64_t)(i % 3000),
					.len = (uint32_t)(i % 300), .value = (double)(i % 1000) * 0.25 };
	for (long s = 0; s < scans; s++)
		agg += scan_visible(100 + (uint64_t)(s % 1500), &nvisible);
	printf("checksum %.1f %llu\n", agg, (unsigned long long)nvisible);
	free(rows);
	return 0;
}
