// SPDX-License-Identifier: GPL-2.0-only
/*
 * The full-screen view of 'memadvise top' (ncursesw).  It draws the lines
 * of top_view.c and nothing else: no /proc, no symbolising, no rules on
 * this thread.  The terminal is restored by top_screen__close() (also at
 * exit), and after a crash by a signal handler that writes the terminal's
 * own reset strings, computed in advance, and the saved tty modes back:
 * write() and tcsetattr() are async-signal-safe, endwin() is not.
 */
#include <curses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "report/top.h"

enum { CP_HEADER = 1, CP_COLUMNS, CP_SELECTED, CP_SECTION, CP_FINDING, CP_NOTE };

static struct {
	bool open;
	bool color;
	struct termios saved;
	bool saved_ok;
	char reset[256];	/* leave the alternate screen, show the cursor, plain attributes */
	size_t reset_len;
} scr;

static void crash_restore(int sig)
{
	if (scr.open) {
		ssize_t w = write(STDOUT_FILENO, scr.reset, scr.reset_len);

		(void)w;
		if (scr.saved_ok)
			tcsetattr(STDIN_FILENO, TCSANOW, &scr.saved);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void reset_add(const char *cap)
{
	char *s = tigetstr((char *)cap);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (scr.reset_len + n < sizeof(scr.reset)) {
		memcpy(scr.reset + scr.reset_len, s, n);
		scr.reset_len += n;
	}
}

int top_screen__open(bool color, char *why, size_t len)
{
	static const int crash[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	const char *term = getenv("TERM");
	SCREEN *s;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(why, len, "not a terminal");
		return -1;
	}
	if (!term || !*term || !strcmp(term, "dumb")) {
		snprintf(why, len, "TERM=%s cannot address the cursor", term ? term : "");
		return -1;
	}
	scr.saved_ok = !tcgetattr(STDIN_FILENO, &scr.saved);
	s = newterm(NULL, stdout, stdin);
	if (!s) {
		snprintf(why, len, "the terminal '%s' is not known to ncurses", term);
		return -1;
	}
	set_term(s);
	scr.open = true;
	atexit(top_screen__close);
	reset_add("rmcup");
	reset_add("cnorm");
	reset_add("sgr0");
	for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
		signal(crash[i], crash_restore);
	cbreak();
	noecho();
	set_escdelay(25);	/* Esc goes back at once: no terminal here sends slow escape sequences */
	keypad(stdscr, TRUE);
	curs_set(0);
	scr.color = color && has_colors();
	if (scr.color) {
		start_color();
		use_default_colors();
		init_pair(CP_HEADER, COLOR_CYAN, -1);
		init_pair(CP_COLUMNS, COLOR_BLACK, COLOR_GREEN);
		init_pair(CP_SELECTED, COLOR_BLACK, COLOR_CYAN);
		init_pair(CP_SECTION, COLOR_YELLOW, -1);
		init_pair(CP_FINDING, COLOR_RED, -1);
		init_pair(CP_NOTE, COLOR_MAGENTA, -1);
	}
	return 0;
}

void top_screen__close(void)
{
	if (!scr.open)
		return;
	scr.open = false;
	curs_set(1);
	endwin();
}

static attr_t line_attr(enum top_line_kind k)
{
	switch (k) {
	case TL_HEADER: return scr.color ? COLOR_PAIR(CP_HEADER) : A_NORMAL;
	case TL_NOTE: return scr.color ? COLOR_PAIR(CP_NOTE) : A_NORMAL;
	case TL_COLUMNS: return scr.color ? COLOR_PAIR(CP_COLUMNS) : A_REVERSE;
	case TL_SELECTED: return scr.color ? COLOR_PAIR(CP_SELECTED) : A_REVERSE;
	case TL_SECTION: return A_BOLD | (scr.color ? COLOR_PAIR(CP_SECTION) : 0);
	case TL_FINDING: return A_BOLD | (scr.color ? COLOR_PAIR(CP_FINDING) : 0);
	default: return A_NORMAL;
	}
}

static void put(int y, const struct top_line *t)
{
	attr_t a = line_attr(t->kind);

	attrset(a);
	mvaddnstr(y, 0, t->text, -1);
	if (t->kind == TL_COLUMNS || t->kind == TL_SELECTED) {
		int x = getcurx(stdscr);

		for (; x < COLS; x++)
			addch(' ');	/* the bar spans the width */
	}
	attrset(A_NORMAL);
}

static const char *const help_text[] = {
	"memadvise top: keys",
	"",
	"  Up/Down PgUp/PgDn Home/End  select a process (in a drill-down: scroll)",
	"  Enter        drill into the selected process: hot functions and lines,",
	"               faulting lines and regions, findings with their advice",
	"  Esc Left Backspace  back to the process list",
	"  < >          sort by the column on the left / on the right",
	"  F6           choose the sort column from a list",
	"  I            invert the sort order",
	"  /            filter by command, hot function or pid (Enter keeps it,",
	"               Esc clears it)",
	"  H            one row per thread / per process",
	"  space        pause / resume the refresh",
	"  h ?          this help (any key closes it)",
	"  q F10        quit",
	"",
	"Columns: PID, CPU% (of one CPU), MINFLT/s and MAJFLT/s (page faults,",
	"software), RSS, THP% (anonymous memory in huge pages, smaps_rollup),",
	"FIND (live findings: for the process drilled into), COMMAND, and the",
	"HOT FUNCTION of the last refresh (scheduler-tick samples).",
};

static void draw_help(void)
{
	for (size_t i = 0; i < sizeof(help_text) / sizeof(help_text[0]) && (int)i < LINES; i++) {
		attrset(i ? A_NORMAL : A_BOLD);
		mvaddnstr((int)i, 0, help_text[i], COLS);
	}
	attrset(A_NORMAL);
}

static void draw_sort_menu(const struct top_view *v, int y0)
{
	attrset(line_attr(TL_COLUMNS));
	mvaddnstr(y0, 0, "Sort by (Enter, Esc)", COLS);
	for (int c = 0; c < TOP_COL__COUNT && y0 + 1 + c < LINES; c++) {
		attrset(c == v->menu_pos ? line_attr(TL_SELECTED) : A_NORMAL);
		mvprintw(y0 + 1 + c, 0, "%c %-18s", c == (int)v->sort ? '*' : ' ',
			 c == TOP_COL_HOT ? "HOT FUNCTION" : top_col__name(c));
	}
	attrset(A_NORMAL);
}

void top_screen__draw(const struct top_frame *f, struct top_view *v)
{
	struct top_lines l;
	int y = 0, body, first;

	erase();
	if (v->help) {
		draw_help();
		refresh();
		return;
	}
	top_lines__build(&l, f, v, COLS);
	/* header and column lines stay; the rest scrolls */
	first = l.first_row >= 0 ? l.first_row : 0;
	if (l.first_row < 0)
		for (first = 0; first < l.n && l.v[first].kind != TL_SECTION; first++)
			;
	for (; y < first && y < LINES - 1; y++)
		put(y, &l.v[y]);
	body = LINES - 1 - y;
	if (body > 0) {
		if (l.first_row >= 0 && l.selected >= 0) {
			if (l.selected < v->top)
				v->top = l.selected;
			if (l.selected >= v->top + body)
				v->top = l.selected - body + 1;
		}
		if (v->top > l.n - first - 1)
			v->top = l.n - first - 1;
		if (v->top < 0)
			v->top = 0;
		for (int i = first + v->top; i < l.n && y < LINES - 1; i++, y++)
			put(y, &l.v[i]);
	}
	if (v->sort_menu)
		draw_sort_menu(v, first > 0 ? first - 1 : 0);
	attrset(line_attr(TL_COLUMNS));
	mvaddnstr(LINES - 1, 0, v->drill ? "Esc back  Up/Down scroll  space pause  h help  q quit"
			     : "Enter drill  / filter  < > F6 sort  H threads  space pause  h help  q quit",
		  COLS);
	attrset(A_NORMAL);
	top_lines__release(&l);
	refresh();
}

int top_screen__key(int ms)
{
	int k;

	timeout(ms);
	k = getch();
	return k == ERR ? -1 : k;
}
