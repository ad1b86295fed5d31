/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The outputs of 'memadvise top' (model/top.h): the frame laid out as lines
 * (the same lines for the full-screen view and for --batch), one JSON
 * object per refresh for -j, and the full-screen drawing with ncursesw.
 * They only read the frame and the view state the keys change.
 */
#ifndef __MA_REPORT_TOP_H
#define __MA_REPORT_TOP_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "model/findings.h"
#include "model/top.h"

struct json_object;

enum top_col {
	TOP_COL_PID,
	TOP_COL_CPU,
	TOP_COL_MINFLT,
	TOP_COL_MAJFLT,
	TOP_COL_RSS,
	TOP_COL_THP,
	TOP_COL_FIND,
	TOP_COL_COMM,
	TOP_COL_HOT,
	TOP_COL__COUNT,		/* in the order of the columns on the screen */
};
const char *top_col__name(enum top_col c);
/* The column named NAME (case-insensitive, as in the header), or -1. */
int top_col__parse(const char *name);

/* What the keys change. */
struct top_view {
	enum top_col sort;
	bool ascending;
	char filter[64];	/* rows whose command or hot function contains it ("" all) */
	bool editing;		/* '/' typed: the filter is being edited */
	bool paused;
	bool help;
	bool sort_menu;		/* F6 */
	int menu_pos;
	bool threads;
	bool drill;		/* Enter: the selected process's details */
	pid_t selected;		/* the selected row's pid (tid in thread mode), 0: the first */
	int top;		/* first row shown */
	bool color;
};

enum top_line_kind {
	TL_HEADER,
	TL_NOTE,
	TL_COLUMNS,
	TL_ROW,
	TL_SELECTED,
	TL_SECTION,
	TL_FINDING,
	TL_TEXT,
};

struct top_line {
	enum top_line_kind kind;
	char text[512];
};

struct top_lines {
	struct top_line *v;
	int n, cap;
	int first_row;		/* index of the first process row, -1 none */
	int nr_rows;
	int selected;		/* index (among rows) of the selected one, -1 none */
};

/* The rows of F as the view sorts and filters them: indexes into f->rows. */
int top_view__order(const struct top_frame *f, const struct top_view *v, int **idx);
/* Lays F out in WIDTH columns (>= 40). */
void top_lines__build(struct top_lines *l, const struct top_frame *f, const struct top_view *v,
		      int width);
void top_lines__release(struct top_lines *l);
/* --batch: one text frame to OUT, ended by an empty line. */
void top_frame__print_text(const struct top_frame *f, const struct top_view *v, FILE *out,
			   int width);
/* -j: one object per refresh. */
struct json_object *top_frame__to_json(const struct top_frame *f, const struct top_view *v);

/* The full-screen view (top_screen.c). */
int top_screen__open(bool color, char *why, size_t len);
void top_screen__draw(const struct top_frame *f, struct top_view *v);
/* The next key (ncurses codes), waiting at most MS ms; -1 none. */
int top_screen__key(int ms);
void top_screen__close(void);

#endif
