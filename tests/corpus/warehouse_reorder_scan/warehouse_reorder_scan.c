// SPDX-License-Identifier: GPL-2.0-only
/*
 * The replenishment engine of a warehouse management system for a
 * regional distribution centre: 1.5 M stock-keeping units.  A shift is
 * run as waves; in each wave the pickers take the order lines of that
 * wave off the shelves, the purchase orders placed a few waves earlier
 * are received at the dock, and then the reorder scan walks the whole
 * item master for the SKUs whose stock position (on hand + on order)
 * has dropped to the reorder point and places a purchase order for
 * each of them with its supplier.
 *
 * The scan reads three 4-byte counters of every item; the UPC, the
 * supplier's part number, the bin, the dimensions, the prices and the
 * description are read only for the few items that are picked,
 * received or reordered.
 *
 * BAD: an item is one 192-byte record (three cache lines, the counters
 *      in the first), so the scan pulls a line of the 288 MiB table
 *      through the cache for every 12 bytes it looks at.
 * GOOD: the stock counters live in a parallel array of 16-byte records
 *      (struct sku_stock, 24 MiB), the rest of the item beside it.
 *
 * Usage: warehouse_reorder_scan [WAVES]
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSKU		(1536u * 1024)
#define PICKS_PER_WAVE	8000u
#define LEAD_WAVES	4u		/* waves from order to receipt */
#define MAX_PO_LINES	16384u		/* purchase order lines per wave */

#ifdef BAD
struct sku_item {
	uint64_t sku;
	int32_t on_hand;
	uint32_t on_order;
	uint32_t reorder_point;
	uint32_t reorder_qty;
	uint32_t supplier_id;
	uint32_t unit_cost;		/* cents */
	uint32_t list_price;		/* cents */
	uint16_t lead_time_days;
	uint16_t case_pack;
	uint32_t weight_g;
	uint16_t dim_mm[3];
	uint16_t category;
	uint32_t flags;
	uint32_t last_receipt_wave;
	uint32_t last_count_wave;
	char upc[16];
	char supplier_sku[24];
	char bin[16];
	char description[72];
};
_Static_assert(sizeof(struct sku_item) == 192, "item record is 192 bytes");
_Static_assert(offsetof(struct sku_item, reorder_point) + 4 <= 64, "counters on line 0");
#define STOCK(i)	(&items[i])
#else
struct sku_stock {
	int32_t on_hand;
	uint32_t on_order;
	uint32_t reorder_point;
	uint32_t reorder_qty;
};

struct sku_item {
	uint64_t sku;
	uint32_t supplier_id;
	uint32_t unit_cost;		/* cents */
	uint32_t list_price;		/* cents */
	uint16_t lead_time_days;
	uint16_t case_pack;
	uint32_t weight_g;
	uint16_t dim_mm[3];
	uint16_t category;
	uint32_t flags;
	uint32_t last_receipt_wave;
	uint32_t last_count_wave;
	char upc[16];
	char supplier_sku[24];
	char bin[16];
	char description[72];
};
static struct sku_stock *stock;
#define STOCK(i)	(&stock[i])
#endif

struct po_line {
	uint32_t item;
	uint32_t qty;
};

static struct sku_item *items;
static struct po_line po[LEAD_WAVES][MAX_PO_LINES];
static uint32_t po_count[LEAD_WAVES];

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const kinds[] = {
	"Hex bolt M8x40, zinc plated, DIN 933", "Cable tie 200x4.8 mm, black, UV",
	"LED bulb E27 9W 806 lm, warm white", "Wood screw 4x50 mm, countersunk, Pozi",
	"PVC elbow 32 mm 90 deg, solvent weld", "Masking tape 48 mm x 50 m, 60 C",
	"Garden hose 1/2 in x 25 m, reinforced", "Paint roller 180 mm, microfibre 12 mm",
	"Drill bit HSS 6.0 mm, DIN 338, ground", "Extension cord 5 m, 3 outlets, H05VV",
};

static void put_dec(char *p, uint64_t v, int width)
{
	for (int k = width - 1; k >= 0; k--, v /= 10)
		p[k] = (char)('0' + v % 10);
}

/* Read the item master from the ERP extract (synthesised here). */
static void load_item_master(void)
{
	for (uint32_t i = 0; i < NSKU; i++) {
		struct sku_item *it = &items[i];
		uint64_t r = next_rand();
		int fast = (i % 32) == 0;	/* the fast movers */

		memset(it, 0, sizeof(*it));
		it->sku = 400000000ull + i;
		it->supplier_id = 1000 + (uint32_t)(r % 2400);
		it->unit_cost = 50 + (uint32_t)((r >> 12) % 20000);
		it->list_price = it->unit_cost * 3 / 2;
		it->lead_time_days = 2 + (uint16_t)((r >> 28) % 12);
		it->case_pack = (uint16_t)(1u << ((r >> 32) % 5));
		it->weight_g = 10 + (uint32_t)((r >> 36) % 5000);
		it->dim_mm[0] = 20 + (uint16_t)((r >> 40) % 400);
		it->dim_mm[1] = 20 + (uint16_t)((r >> 44) % 300);
		it->dim_mm[2] = 5 + (uint16_t)((r >> 48) % 200);
		it->category = (uint16_t)(i % 600);
		put_dec(it->upc, r % 100000000000ull, 12);
		memcpy(it->supplier_sku, "S0000-0000000", 13);
		put_dec(it->supplier_sku + 1, it->supplier_id, 4);
		put_dec(it->supplier_sku + 6, i, 7);
		memcpy(it->bin, "A00-000-0", 9);
		put_dec(it->bin + 1, (i >> 14) % 60, 2);
		put_dec(it->bin + 4, (i >> 4) % 1000, 3);
		put_dec(it->bin + 8, i % 6, 1);
		strcpy(it->description, kinds[r % 10]);

		uint32_t rp, qty, oh;
		if (fast) {
			rp = 20 + (uint32_t)((r >> 52) % 40);
			qty = 4 * rp;
			oh = rp + (uint32_t)((r >> 56) % (2 * rp));
		} else {
			rp = 2 + (uint32_t)((r >> 52) % 10);
			qty = 3 * rp;
			oh = rp + 1 + (uint32_t)((r >> 56) % (3 * rp));
		}
		STOCK(i)->reorder_point = rp;
		STOCK(i)->reorder_qty = qty;
		STOCK(i)->on_hand = (int32_t)oh;
		STOCK(i)->on_order = 0;
	}
}

/* The order lines of one wave: most go to the fast movers. */
static uint64_t pick_wave(void)
{
	uint64_t picked = 0;

	for (uint32_t n = 0; n < PICKS_PER_WAVE; n++) {
		uint64_t r = next_rand();
		uint32_t i = (uint32_t)(r % NSKU);
		uint32_t want = 1 + (uint32_t)((r >> 40) % 6);

		if ((r >> 32) % 10 < 7)
			i &= ~31u;
		int32_t got = STOCK(i)->on_hand < (int32_t)want ? STOCK(i)->on_hand : (int32_t)want;
		if (got <= 0)
			continue;	/* short pick, back-ordered */
		STOCK(i)->on_hand -= got;
		picked += (uint64_t)got * items[i].list_price + (uint8_t)items[i].bin[1];
	}
	return picked;
}

/* Put away what arrives at the dock: the orders of LEAD_WAVES waves ago. */
static uint64_t receive(uint32_t wave, uint32_t slot)
{
	uint64_t units = 0;

	for (uint32_t k = 0; k < po_count[slot]; k++) {
		uint32_t i = po[slot][k].item;
		uint32_t qty = po[slot][k].qty;

		STOCK(i)->on_hand += (int32_t)qty;
		STOCK(i)->on_order -= qty;
		items[i].last_receipt_wave = wave;
		units += qty;
	}
	po_count[slot] = 0;
	return units;
}

static void place_order(uint32_t i, uint32_t slot, uint64_t *value)
{
	const struct sku_item *it = &items[i];
	uint32_t qty = STOCK(i)->reorder_qty;

	qty = (qty + it->case_pack - 1) / it->case_pack * it->case_pack;
	if (po_count[slot] == MAX_PO_LINES)
		return;		/* the buyer's daily limit; next wave */
	po[slot][po_count[slot]++] = (struct po_line){ i, qty };
	STOCK(i)->on_order += qty;
	*value += (uint64_t)qty * it->unit_cost + it->supplier_id;
}

/* The reorder scan: every item whose stock position reached its point. */
static __attribute__((noinline)) uint64_t reorder_scan(uint32_t slot, uint32_t *stockouts)
{
	uint64_t value = 0;
	uint32_t out = 0;

	for (uint32_t i = 0; i < NSKU; i++) {
		int32_t on_hand = STOCK(i)->on_hand;
		int64_t position = (int64_t)on_hand + STOCK(i)->on_order;

		out += on_hand <= 0;
		if (position > (int64_t)STOCK(i)->reorder_point)
			continue;
		place_order(i, slot, &value);
	}
	*stockouts = out;
	return value;
}

int main(int argc, char **argv)
{
	uint32_t waves = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 120;
	uint64_t sum = 0;

	items = aligned_alloc(64, (size_t)NSKU * sizeof(*items));
	if (!items)
		return 1;
#ifndef BAD
	stock = aligned_alloc(64, (size_t)NSKU * sizeof(*stock));
	if (!stock)
		return 1;
#endif
	load_item_master();
	for (uint32_t wave = 1; wave <= waves; wave++) {
		uint32_t slot = wave % LEAD_WAVES;
		uint32_t stockouts;

		sum = sum * 1000003 + pick_wave();
		sum = sum * 1000003 + receive(wave, slot);
		sum = sum * 1000003 + reorder_scan(slot, &stockouts);
		sum = sum * 1000003 + stockouts + ((uint64_t)po_count[slot] << 32);
	}
	for (uint32_t i = 0; i < NSKU; i += 4093)
		sum = sum * 31 + (uint32_t)STOCK(i)->on_hand + STOCK(i)->on_order +
		      items[i].last_receipt_wave;
	printf("checksum %016llx\n", (unsigned long long)sum);
	return 0;
}
