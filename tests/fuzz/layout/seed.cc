// SPDX-License-Identifier: GPL-2.0-only
/*
 * A seed for the layout fuzzer (tests/fuzz/layout-fuzz.py): the C++ shapes
 * whose DWARF the layout code reads (classes with virtual functions,
 * virtual and multiple inheritance, templates, namespaces, static members,
 * references, anonymous unions).
 */
#include <cstdint>

namespace fz {

struct Base {
	virtual ~Base() {}
	virtual int get() const { return id; }
	int id = 1;
};

struct Left : virtual Base {
	char l = 2;
};

struct Right : virtual Base {
	long r = 3;
};

struct Diamond : Left, Right {
	int get() const override { return l + (int)r; }
	short d = 4;
};

template <typename T, int N>
struct Ring {
	T items[N];
	unsigned head : 4, tail : 4;
	static const int capacity = N;
	T &at(int i) { return items[i % N]; }
};

class Holder {
public:
	explicit Holder(int &r) : ref(r) {}
	int &ref;
	Ring<char, 5> small;
	Ring<std::uint64_t, 3> big;
	union {
		float f;
		std::int32_t bits;
	};
	bool flag = false;
};

} // namespace fz

fz::Ring<double, 2> g_ring;

int main(int argc, char **)
{
	int x = argc;
	fz::Holder h(x);
	fz::Diamond d;
	fz::Base *b = &d;

	h.small.at(1) = 'a';
	h.big.at(2) = 7;
	g_ring.at(0) = 1.5;
	return b->get() + h.ref + h.small.items[1] + (int)g_ring.items[0];
}
