// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_inventory_batch_phases: the nightly batch of a retail chain's
 * inventory service.  The item table is one array of 600k records of 128
 * bytes (~73 MiB): identity and pricing on the first cache line of a
 * record, stock levels and sales history on the second, the display name
 * in between.  Every night the batch runs its phases one after the other:
 *
 *   post sales	the day's till tickets, in till order: on_hand, sold_30d
 *		and last_sold_day of the item sold (second line);
 *   reprice	the supplier price file, in file order: checks sku, flags
 *		and cost, writes price (first line);
 *   restock	every item, in warehouse pick-route order: receives
 *		deliveries, decays sold_30d and raises purchase orders
 *		from on_hand, on_order, reorder_point and reorder_qty
 *		(second line);
 *   cycle count	a random sample the counters walk: shrinkage, last
 *		count day, dormant stock (second line).
 *
 * None of those orders is the table's order, so each phase visits records
 * at random places; but each touches the members of one line of a record.
 * A clean control.
 *
 * Usage: clean_inventory_batch_phases [NIGHTS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NITEMS		600000u
#define TICKETS		400000u		/* till lines per night */
#define PRICE_CHANGES	120000u		/* supplier price file lines per night */
#define COUNTS		150000u		/* items cycle-counted per night */
#define NCATEGORIES	64
#define SKU_BASE	4000000000ull
#define SKU_STEP	37u
#define DORMANT_DAYS	90

#define ITEM_ACTIVE	0x0001
#define ITEM_PRICE_LOCK	0x0002		/* contract price: the price file does not apply */
#define ITEM_CLEARANCE	0x0004

struct item {
	/* first line: identity and pricing */
	uint64_t sku;
	uint32_t price_cents;
	uint32_t cost_cents;
	uint16_t flags;
	uint16_t category;
	uint32_t supplier;
	char name[48];			/* display name, offsets 24..71 */
	/* second line: stock */
	int32_t on_hand;
	int32_t reorder_point;
	int32_t reorder_qty;
	int32_t on_order;		/* open purchase orders, in units */
	uint32_t sold_30d;		/* decayed 30-day sales */
	uint16_t last_sold_day;
	uint16_t last_count_day;
	uint32_t warehouse;
	uint32_t lot;
	char bin_code[24];
};

struct totals {
	uint64_t units_sold, revenue_cents;
	uint64_t repriced, locked, sku_mismatch;
	uint64_t orders, units_ordered, received;
	uint64_t shrink, dormant;
};

static inline uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* A uniform index below n from the top bits of a random word. */
static inline uint32_t pick(uint64_t r, uint32_t n)
{
	return (uint32_t)(((r >> 32) * n) >> 32);
}

static void load_items(struct item *items, uint64_t *rng)
{
	static const char *const words[] = { "Steel", "Oak", "Garden", "Cordless", "Brass",
					     "Outdoor", "Compact", "Heavy-duty" };
	for (uint32_t i = 0; i < NITEMS; i++) {
		struct item *it = &items[i];
		uint64_t r = xorshift64(rng);

		memset(it, 0, sizeof(*it));
		it->sku = SKU_BASE + (uint64_t)i * SKU_STEP;
		it->cost_cents = 150 + (uint32_t)(r % 20000);
		it->price_cents = it->cost_cents + it->cost_cents / 3;
		it->category = (uint16_t)(r >> 20 & (NCATEGORIES - 1));
		it->flags = ITEM_ACTIVE | ((r >> 26 & 31) == 0 ? ITEM_PRICE_LOCK : 0);
		it->supplier = 1000 + (uint32_t)(r >> 32 & 1023);
		snprintf(it->name, sizeof(it->name), "%s item %u", words[r >> 42 & 7], i);
		it->reorder_point = 4 + (int32_t)(r >> 45 & 15);
		it->reorder_qty = 2 * it->reorder_point;
		it->on_hand = it->reorder_qty;
		it->warehouse = 1 + (uint32_t)(r >> 50 & 7);
		it->lot = (uint32_t)r;
		snprintf(it->bin_code, sizeof(it->bin_code), "W%u-A%02u-%03u", it->warehouse,
			 (unsigned)(r >> 54 & 31), (unsigned)(i % 997));
	}
}

/* The pick route: items in the order a picker meets their bins, which is not the table's order. */
static uint32_t *pick_route(uint64_t *rng)
{
	uint32_t *route = malloc(NITEMS * sizeof(*route));

	if (!route)
		return NULL;
	for (uint32_t i = 0; i < NITEMS; i++)
		route[i] = i;
	for (uint32_t i = NITEMS - 1; i > 0; i--) {
		uint32_t j = pick(xorshift64(rng), i + 1), t = route[i];

		route[i] = route[j];
		route[j] = t;
	}
	return route;
}

/* Phase 1: the day's till tickets, one line per item sold. */
static void post_sales(struct item *items, uint16_t day, uint64_t *rng, struct totals *t)
{
	for (uint32_t k = 0; k < TICKETS; k++) {
		uint64_t r = xorshift64(rng);
		struct item *it = &items[pick(r, NITEMS)];
		int32_t qty = 1 + (int32_t)(r & 3);

		if (it->on_hand < qty)		/* the till sold what the shelf had */
			qty = it->on_hand > 0 ? it->on_hand : 0;
		it->on_hand -= qty;
		it->sold_30d += (uint32_t)qty;
		it->last_sold_day = day;
		t->units_sold += (uint64_t)qty;
	}
}

/* Phase 2: the supplier price file, keyed by sku. */
static void reprice(struct item *items, const uint16_t *margin_pct, uint64_t *rng,
		    struct totals *t)
{
	for (uint32_t k = 0; k < PRICE_CHANGES; k++) {
		uint64_t r = xorshift64(rng);
		uint64_t sku = SKU_BASE + (uint64_t)pick(r, NITEMS) * SKU_STEP;
		struct item *it = &items[(sku - SKU_BASE) / SKU_STEP];
		uint32_t cost = it->cost_cents + (uint32_t)(r & 63) - 31;
		uint32_t price;

		if (it->sku != sku) {
			t->sku_mismatch++;
			continue;
		}
		if (it->flags & ITEM_PRICE_LOCK) {
			t->locked++;
			continue;
		}
		if (cost < 100)
			cost = 100;
		price = cost + cost * margin_pct[it->category] / 100;
		price = price / 100 * 100 + 99;	/* price ending .99 */
		if (it->flags & ITEM_CLEARANCE)
			price = price * 7 / 10;
		it->cost_cents = cost;
		it->price_cents = price;
		t->revenue_cents += price & 0xff;
		t->repriced++;
	}
}

/* Phase 3: every item along the pick route: deliveries in, purchase orders out. */
static void restock(struct item *items, const uint32_t *route, uint16_t day, struct totals *t)
{
	for (uint32_t k = 0; k < NITEMS; k++) {
		uint32_t i = route[k];
		struct item *it = &items[i];

		if (it->on_order > 0 && ((i + day) & 3) == 0) {	/* the delivery came in */
			it->on_hand += it->on_order;
			t->received += (uint64_t)it->on_order;
			it->on_order = 0;
		}
		it->sold_30d -= it->sold_30d >> 5;
		if (it->on_hand + it->on_order <= it->reorder_point) {
			it->on_order += it->reorder_qty;
			t->orders++;
			t->units_ordered += (uint64_t)it->reorder_qty;
		}
	}
}

/* Phase 4: the cycle count of a random sample of items. */
static void cycle_count(struct item *items, uint16_t day, uint64_t *rng, struct totals *t)
{
	for (uint32_t k = 0; k < COUNTS; k++) {
		uint64_t r = xorshift64(rng);
		struct item *it = &items[pick(r, NITEMS)];

		if ((r & 255) == 0 && it->on_hand > 0) {	/* one missing on the shelf */
			it->on_hand--;
			t->shrink++;
		}
		it->last_count_day = day;
		if ((uint16_t)(day - it->last_sold_day) > DORMANT_DAYS && it->sold_30d == 0)
			t->dormant++;
	}
}

int main(int argc, char **argv)
{
	long nights = argc > 1 ? atol(argv[1]) : 30;
	struct item *items = aligned_alloc(64, NITEMS * sizeof(*items));
	uint64_t rng = 0x9e3779b97f4a7c15ull, sales_rng = 0x243f6a8885a308d3ull;
	uint64_t price_rng = 0x13198a2e03707344ull, count_rng = 0xa4093822299f31d0ull;
	uint16_t margin_pct[NCATEGORIES];
	struct totals t = { 0 };
	uint32_t *route;
	uint64_t sum = 0;

	_Static_assert(sizeof(struct item) == 128, "item record size");
	if (!items)
		return 1;
	load_items(items, &rng);
	route = pick_route(&rng);
	if (!route)
		return 1;
	for (int c = 0; c < NCATEGORIES; c++)
		margin_pct[c] = (uint16_t)(20 + (c * 7) % 45);

	for (long n = 0; n < nights; n++) {
		uint16_t day = (uint16_t)(100 + n);

		post_sales(items, day, &sales_rng, &t);
		reprice(items, margin_pct, &price_rng, &t);
		restock(items, route, day, &t);
		cycle_count(items, day, &count_rng, &t);
	}

	for (uint32_t i = 0; i < NITEMS; i += 97)
		sum = sum * 31 + items[i].price_cents + (uint64_t)items[i].on_hand;
	printf("nights %ld sold %llu repriced %llu locked %llu orders %llu units %llu received %llu"
	       " shrink %llu dormant %llu mismatch %llu sum %llx\n", nights,
	       (unsigned long long)t.units_sold, (unsigned long long)t.repriced,
	       (unsigned long long)t.locked, (unsigned long long)t.orders,
	       (unsigned long long)t.units_ordered, (unsigned long long)t.received,
	       (unsigned long long)t.shrink, (unsigned long long)t.dormant,
	       (unsigned long long)t.sku_mismatch, (unsigned long long)(sum ^ t.revenue_cents));
	free(route);
	free(items);
	return 0;
}
