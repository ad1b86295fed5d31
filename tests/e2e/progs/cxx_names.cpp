// SPDX-License-Identifier: GPL-2.0-only
// A C++ program whose time goes to a method of a class template in a
// namespace: the report names it ns::Table::probe, not _ZN2ns5TableIiE5probeEi.
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace ns {
template <typename T> struct Table {
	std::vector<T> slots;
	explicit Table(size_t n) : slots(n) {}
	__attribute__((noinline)) long probe(T key) const
	{
		long hits = 0;
		for (size_t i = 0; i < slots.size(); i++)
			hits += slots[i] == key; /* HOT */
		return hits;
	}
};
} // namespace ns

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 2000;
	ns::Table<int> t(1 << 16);
	long s = 0;

	for (size_t i = 0; i < t.slots.size(); i++)
		t.slots[i] = (int)(i * 2654435761u >> 20);
	for (int r = 0; r < reps; r++)
		s += t.probe(r & 4095);
	printf("%ld\n", s);
	return 0;
}
