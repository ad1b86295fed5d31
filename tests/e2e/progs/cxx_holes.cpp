// SPDX-License-Identifier: GPL-2.0-only
// A C++ method summing a vector of records that carry 14 bytes of holes in
// 32: struct app::Rec, reached through a range-for reference.  Usage:
// cxx_holes [REPS]
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace app {
struct Rec {
	char flag; /* 7 bytes of hole after it */
	long value;
	char tag; /* and 7 more */
	long weight;
};

struct Store {
	std::vector<Rec> recs;
	__attribute__((noinline)) long total(long k) const
	{
		long s = 0;

		for (const Rec &r : recs)
			s += r.value * r.weight + r.flag + r.tag + k; /* HOT */
		return s;
	}
};
} // namespace app

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 100;
	app::Store st;
	long s = 0;

	st.recs.resize(1 << 20);
	for (size_t i = 0; i < st.recs.size(); i++)
		st.recs[i] = { (char)i, (long)i, (char)(i >> 3), (long)(i & 7) };
	for (int r = 0; r < reps; r++)
		s += st.total(r);
	printf("%ld\n", s);
	return 0;
}
