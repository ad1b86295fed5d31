// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ names as the report prints them: what __cxa_demangle gives (these
 * strings are its output for the symbols of a small g++ 12 program and of
 * libstdc++), without template arguments, parameters, return type and
 * qualifiers.
 */
#include <string.h>

#include "harness.h"
#include "symbols/symbolizer.h"

static void check(const char *demangled, const char *want)
{
	char out[128];

	symbolizer__simplify_cxx(demangled, out, sizeof(out));
	ASSERT_STREQ(out, want, demangled);
}

void test_symbolizer__simplify_cxx(void)
{
	check("main", "main");
	check("std::_Rb_tree<int, std::pair<int const, std::__cxx11::basic_string<char, "
	      "std::char_traits<char>, std::allocator<char> > >, std::_Select1st<std::pair<int "
	      "const, std::__cxx11::basic_string<char, std::char_traits<char>, "
	      "std::allocator<char> > > >, std::less<int>, std::allocator<std::pair<int const, "
	      "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > "
	      ">>::_M_get_insert_unique_pos(int const&)",
	      "std::_Rb_tree::_M_get_insert_unique_pos");
	/* a template function's return type goes */
	check("void std::__new_allocator<Rec>::construct<Rec, Rec>(Rec*, Rec&&)",
	      "std::__new_allocator::construct");
	check("void std::vector<Rec, std::allocator<Rec> >::_M_realloc_insert<Rec>("
	      "__gnu_cxx::__normal_iterator<Rec*, std::vector<Rec, std::allocator<Rec> > >, Rec&&)",
	      "std::vector::_M_realloc_insert");
	check("unsigned long ns::count<int>(int const*, unsigned long)", "ns::count");
	/* operators keep their symbol, parentheses and angle brackets included */
	check("ns::Foo::operator()(int) const", "ns::Foo::operator()");
	check("ns::Foo::operator<(ns::Foo const&) const", "ns::Foo::operator<");
	check("std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
	      "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*)",
	      "std::operator<<");
	check("operator new(unsigned long)", "operator new");
	check("operator delete[](void*)", "operator delete[]");
	check("std::vector<int, std::allocator<int> >::operator[](unsigned long)",
	      "std::vector::operator[]");
	check("std::vector<int, std::allocator<int> >::~vector()", "std::vector::~vector");
	/* scopes that are not parameters stay */
	check("(anonymous namespace)::hash_step(unsigned int)", "(anonymous namespace)::hash_step");
	check("main::{lambda(int)#1}::operator()(int) const", "main::{lambda(int)#1}::operator()");
	check("work()::Local::run()", "work::Local::run");
	/* a cut to the buffer */
	{
		char small[8];

		symbolizer__simplify_cxx("ns::averyverylongname(int)", small, sizeof(small));
		ASSERT_EQ(strlen(small), 7, "fits the buffer");
	}
}
