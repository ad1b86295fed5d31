// SPDX-License-Identifier: GPL-2.0-only
/*
 * memadvise layout: struct layouts from DWARF with pahole's annotations,
 * memadvise's cache-line notes, JSON, and a packed reorganisation proposal.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/common.h"
#include "layout/layout.h"
#include "base/json.h"
#include "base/log.h"
#include "report/output.h"
#include "machine/sysinfo.h"
#include "base/util.h"

enum {
	OPT_HOT = 256,
	OPT_NO_NOTES,
	OPT_PRETTY,
};

struct layout_opts {
	const char **types;
	int nr_types;
	uint32_t cacheline;
	bool reorganize, packable, sizes, notes, json;
	int min_holes;
	const char **hot;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: memadvise layout [OPTIONS] BINARY|OBJECT [TYPE...]\n"
		"\n"
		"Shows how structs, unions and classes are laid out in memory, read from\n"
		"DWARF (-g): offsets, sizes, holes, padding, cache-line boundaries (pahole's\n"
		"annotations), plus members that straddle a cache line, atomics and locks\n"
		"that may false-share, and a packed member order (--reorganize).\n"
		"Separate debug files are found through build-id and .gnu_debuglink.\n"
		"\n"
		"Options:\n"
		"  -C, --class NAME[,NAME] only these types (same as TYPE arguments)\n"
		"  -c, --cacheline BYTES   cache-line size (default: from sysfs, %d here)\n"
		"  -R, --reorganize        propose a member order without holes, with the\n"
		"                          bytes and cache lines it saves\n"
		"      --hot A,B,C         with --reorganize: keep these members first, in\n"
		"                          this order\n"
		"  -H, --holes N           only types with at least N holes\n"
		"  -P, --packable          only types that --reorganize makes smaller\n"
		"  -s, --sizes             one line per type: name, size, holes, cache lines\n"
		"      --no-notes          pahole's annotations only, without memadvise's notes\n"
		"  -j, --json              JSON output with every fact\n"
		"      --pretty            indented JSON (implies --json)\n"
		"  -h, --help              show this help\n"
		"\n"
		"Exit status: 0 shown, 2 error (missing file, not ELF, no DWARF, unknown type).\n"
		"\n"
		"Examples:\n"
		"  memadvise layout ./app                     every type, pahole-style\n"
		"  memadvise layout ./app conn                one type\n"
		"  memadvise layout -R --hot fd,flags ./app conn\n"
		"  memadvise layout -j -c 128 ./app | jq '.structs[] | select(.holes > 0)'\n",
		sysinfo__cacheline());
}

/*
 * Splits "a,b,c" in place at the commas outside <...> and (...), so that a
 * template ("app::Ring<char, 5>") stays one name.  Empty names are dropped.
 */
static int split_list(char *arg, const char ***list, int *n)
{
	char *start = arg;
	int depth = 0;

	for (char *p = arg;; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth > 0)
			depth--;
		if (*p && (*p != ',' || depth))
			continue;
		bool end = !*p;

		*p = 0;
		if (*start) {
			*list = xrealloc(*list, sizeof(**list) * (*n + 2));
			(*list)[(*n)++] = start;
			(*list)[*n] = NULL;
		}
		if (end)
			break;
		start = p + 1;
	}
	return 0;
}

static bool wanted(const struct layout_opts *o, const struct ma_struct *s)
{
	if (o->min_holes && s->nr_holes < o->min_holes)
		return false;
	return true;
}

static void print_reorg_text(const struct layout_reorg *r, const struct ma_struct *s,
			     uint32_t line, FILE *f)
{
	struct layout_print_opts po = { .notes = false };
	int64_t saved = (int64_t)r->old_size - (int64_t)r->new_size;
	int64_t lsaved = (int64_t)r->old_cachelines - (int64_t)r->new_cachelines;

	fprintf(f, "/* memadvise: proposed layout for %s %s", ma_kind__name(s->kind), s->name);
	if (r->nr_hot)
		fprintf(f, ", %d hot member%s first", r->nr_hot, r->nr_hot == 1 ? "" : "s");
	fprintf(f, " */\n");
	ma_struct__print_text(r->s, line, &po, f);
	fprintf(f, "/* saved %lld byte%s (%llu -> %llu) and %lld cacheline%s (%llu -> %llu) */\n",
		(long long)saved, saved == 1 || saved == -1 ? "" : "s",
		(unsigned long long)r->old_size, (unsigned long long)r->new_size, (long long)lsaved,
		lsaved == 1 || lsaved == -1 ? "" : "s", (unsigned long long)r->old_cachelines,
		(unsigned long long)r->new_cachelines);
}

static struct json_object *reorg_json(const struct layout_reorg *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "size_bytes", json_object_new_uint64(r->new_size));
	json_object_object_add(o, "cachelines", json_object_new_uint64(r->new_cachelines));
	json_object_object_add(o, "saved_bytes",
			       json_object_new_int64((int64_t)r->old_size - (int64_t)r->new_size));
	json_object_object_add(o, "saved_cachelines",
			       json_object_new_int64((int64_t)r->old_cachelines -
						     (int64_t)r->new_cachelines));
	json_object_object_add(o, "hot_members", json_object_new_int(r->nr_hot));
	json_object_object_add(o, "layout", ma_struct__to_json(r->s));
	return o;
}

/*
 * JSON is written as it is made, one type's object at a time: one tree for
 * 20,000 generated structs took 490 MB and 4.9 s (text: 56 MB, 0.7 s);
 * streamed, 56 MB and 2.4 s.  The bytes are those json-c prints for the
 * whole document (PLAIN, or PRETTY with 2 spaces a level).
 */
struct jstream {
	bool pretty;
	int nr;
};

static void jstream__begin(struct jstream *js, const char *path, uint32_t line)
{
	struct json_object *root = json_object_new_object();
	const char *t;
	size_t n;

	json_object_object_add(root, "schema_version", json_object_new_int(1));
	json_object_object_add(root, "file", json_str(path));
	json_object_object_add(root, "tier", json_str("static"));
	json_object_object_add(root, "cacheline_size_bytes", json_object_new_uint64(line));
	t = json_object_to_json_string_ext(root, js->pretty ? JSON_C_TO_STRING_PRETTY
							    : JSON_C_TO_STRING_PLAIN);
	n = strlen(t);
	/* without the closing "}" (PRETTY: "\n}") */
	gopts.stdout_used = true;
	fwrite(t, 1, n - (js->pretty ? 2 : 1), stdout);
	fputs(js->pretty ? ",\n  \"structs\":[" : ",\"structs\":[", stdout);
	json_object_put(root);
}

static void jstream__add(struct jstream *js, struct json_object *o)
{
	const char *t = json_object_to_json_string_ext(o, js->pretty ? JSON_C_TO_STRING_PRETTY
							       : JSON_C_TO_STRING_PLAIN);

	if (js->nr++)
		putchar(',');
	if (!js->pretty) {
		fputs(t, stdout);
		return;
	}
	/* an element of the root's array: every line 4 spaces deeper */
	fputs("\n    ", stdout);
	for (; *t; t++) {
		putchar(*t);
		if (*t == '\n')
			fputs("    ", stdout);
	}
}

static void jstream__end(struct jstream *js)
{
	fputs(js->pretty ? "\n  ]\n}\n" : "]}\n", stdout);
}

/*
 * 0: done; 1: skipped (not packable); <0 error already reported.  With
 * CHECK, only the errors are looked for and nothing is printed.
 */
static int show_one(const struct layout_opts *o, const struct layout *l, const struct ma_struct *s,
		    struct jstream *jarr, bool *first, bool check)
{
	struct layout_reorg r = { 0 };
	bool have_reorg = false;
	uint32_t line = layout__cacheline(l);

	if ((o->reorganize || o->packable) && s->kind != MA_KIND_UNION) {
		const char *bad = NULL;
		int err = layout__reorganize(l, s, o->hot, &r, &bad);

		if (err == -ENOENT) {
			pr_err("'%s' is not a member of %s %s", bad, ma_kind__name(s->kind), s->name);
			pr_hint("run 'memadvise layout FILE %s' to see its members", s->name);
			return -EINVAL;
		}
		have_reorg = !err;
		if (err == -EINVAL && s->nr_vbases && o->reorganize && o->nr_types && !check)
			pr_warn("no member order proposed for %s %s: it has virtual bases",
				ma_kind__name(s->kind), s->name);
	}
	if (check || (o->packable && (!have_reorg || r.new_size >= r.old_size))) {
		layout_reorg__free(&r);
		return 1;
	}
	if (jarr) {
		struct json_object *js = ma_struct__to_json(s);

		if (have_reorg && o->reorganize)
			json_object_object_add(js, "reorganized", reorg_json(&r));
		jstream__add(jarr, js);
		json_object_put(js);
	} else if (o->sizes) {
		printf("%s\t%llu\t%d\t%llu\n", s->name, (unsigned long long)s->size, s->nr_holes,
		       (unsigned long long)s->cachelines);
	} else {
		struct layout_print_opts po = { .notes = o->notes };

		if (!*first)
			putchar('\n');
		if (o->reorganize && have_reorg)
			print_reorg_text(&r, s, line, stdout);
		else
			ma_struct__print_text(s, line, &po, stdout);
	}
	*first = false;
	layout_reorg__free(&r);
	return 0;
}

/* Every type asked for, or every type the filters keep. */
static int show_all(const struct layout_opts *o, const struct layout *l, struct jstream *jarr,
		    bool *first, bool check)
{
	if (o->nr_types) {
		for (int i = 0; i < o->nr_types; i++) {
			const struct ma_struct *s = layout__find_struct(l, o->types[i]);

			if (show_one(o, l, s, jarr, first, check) < 0)
				return -EINVAL;
		}
	} else {
		size_t i;
		const struct ma_struct *s;

		layout__for_each_struct(l, i, s) {
			if (!wanted(o, s))
				continue;
			if (o->reorganize && s->kind == MA_KIND_UNION)
				continue;
			if (show_one(o, l, s, jarr, first, check) < 0)
				return -EINVAL;
		}
	}
	return 0;
}

static void load_error(const char *path, int err)
{
	switch (err) {
	case -ENOENT:
		pr_err("cannot open '%s': %s", path, strerror(-err));
		pr_hint("check the path; give an executable, shared library or object file");
		break;
	case -ENOEXEC:
		pr_err("'%s' is not an ELF file", path);
		pr_hint("give an executable, shared library or object file built with -g");
		break;
	case -ENODATA:
		pr_err("no DWARF debug info in '%s' (stripped?)", path);
		pr_hint("rebuild with -g, or install its debug package (-dbgsym, found by build-id)");
		break;
	case -EBADMSG:
		pr_err("'%s' is a truncated or damaged ELF file", path);
		pr_hint("copy or build it again; 'readelf -S' shows which section runs past its end");
		break;
	case -EPROTONOSUPPORT:
		pr_err("the debug sections of '%s' are compressed in a format this libelf "
		       "cannot read (zstd?)", path);
		pr_hint("decompress them: objcopy --decompress-debug-sections IN OUT, "
			"or rebuild with -gz=zlib");
		break;
	case -EILSEQ:
		pr_err("the DWARF debug info of '%s' is damaged", path);
		pr_hint("rebuild with -g (and its .dwo files, with -gsplit-dwarf); "
			"'readelf --debug-dump=info' shows where it breaks");
		break;
	case -ENOPKG:
		pr_err("'%s' was built with -gsplit-dwarf and its .dwo files were not found", path);
		pr_hint("keep the .dwo files where the compiler wrote them (DW_AT_comp_dir) or next to the binary");
		break;
	default:
		pr_err("cannot read '%s': %s", path, layout__strerror(err));
		pr_hint("give a readable ELF file built with -g");
		break;
	}
}

/*
 * With type names, only the units that define them are read (the output is
 * the same); when one is not found, everything is read again so that the
 * error says what a full read says (no DWARF, .dwo files missing, no type).
 */
static int load(const char *path, const struct layout_opts *o, struct layout **l)
{
	int err;

	if (!o->nr_types)
		return layout__load(path, l);
	/* Only JSON shows how many identical definitions were merged. */
	err = layout__load_types(path, o->types, o->nr_types, o->json ? 0 : LAYOUT_LOAD_FIRST, l);
	if (!err) {
		for (int i = 0; i < o->nr_types; i++)
			if (!layout__find_struct(*l, o->types[i])) {
				err = -ENOENT;
				break;
			}
		if (!err)
			return 0;
		layout__free(*l);
		*l = NULL;
	}
	return layout__load(path, l);
}

int cmd_layout(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "class", required_argument, NULL, 'C' },
		{ "cacheline", required_argument, NULL, 'c' },
		{ "reorganize", no_argument, NULL, 'R' },
		{ "hot", required_argument, NULL, OPT_HOT },
		{ "holes", required_argument, NULL, 'H' },
		{ "packable", no_argument, NULL, 'P' },
		{ "sizes", no_argument, NULL, 's' },
		{ "no-notes", no_argument, NULL, OPT_NO_NOTES },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct layout_opts o = { .notes = true, .json = gopts.json };
	struct layout *l = NULL;
	struct jstream jst = { 0 }, *jarr = NULL;
	bool pretty = gopts.pretty, first = true;
	int c, err, ret = MA_EXIT_ERROR, nr_hot = 0;
	const char *path;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":C:c:RH:Psjh", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			if (!optarg[strspn(optarg, ",")]) {
				pr_err("-C needs at least one struct name");
				pr_hint("give names separated by commas: -C foo,bar");
				goto out;
			}
			split_list(optarg, &o.types, &o.nr_types);
			break;
		case 'c': {
			int v;

			if (parse_int(optarg, 1, 1 << 20, &v) || (v & (v - 1))) {
				pr_err("invalid cache-line size '%s'", optarg);
				pr_hint("give a power of two in bytes, e.g. --cacheline 128");
				goto out;
			}
			o.cacheline = v;
			break;
		}
		case 'R':
			o.reorganize = true;
			break;
		case OPT_HOT:
			split_list(optarg, &o.hot, &nr_hot);
			break;
		case 'H':
			if (parse_int(optarg, 0, 1 << 20, &o.min_holes)) {
				pr_err("invalid number of holes '%s'", optarg);
				pr_hint("give a count, e.g. --holes 2");
				goto out;
			}
			break;
		case 'P':
			o.packable = true;
			break;
		case 's':
			o.sizes = true;
			break;
		case OPT_NO_NOTES:
			o.notes = false;
			break;
		case 'j':
			o.json = gopts.json = true;
			break;
		case OPT_PRETTY:
			o.json = pretty = gopts.json = gopts.pretty = true;
			break;
		case 'h':
			usage(stdout);
			ret = MA_EXIT_OK;
			goto out;
		default:
			cli__opt_error(c, argv, "layout");
			goto out;
		}
	}
	if (optind >= argc) {
		pr_err("no binary or object file given");
		pr_hint("usage: memadvise layout [OPTIONS] BINARY|OBJECT [TYPE...]");
		goto out;
	}
	if (o.hot && !o.reorganize) {
		pr_err("--hot needs --reorganize");
		pr_hint("memadvise layout -R --hot a,b FILE TYPE");
		goto out;
	}
	path = argv[optind++];
	for (; optind < argc; optind++)
		split_list(argv[optind], &o.types, &o.nr_types);

	err = load(path, &o, &l);
	if (err) {
		load_error(path, err);
		goto out;
	}
	{
		const char *dwo;
		int nr = layout__missing_dwo(l, &dwo);

		if (nr)
			pr_warn("the types of %d unit(s) of '%s' are in .dwo files that were not found (%s)",
				nr, path, dwo ? dwo : "unnamed");
	}
	if (layout__damaged(l))
		pr_warn("the DWARF of '%s' is damaged (%d read error(s)): types may be missing",
			path, layout__damaged(l));
	if (layout__absurd(l))
		pr_warn("%d type(s) of '%s' left out: DWARF sizes or offsets past 2^48 bytes (damaged file?)",
			layout__absurd(l), path);
	if (o.cacheline)
		layout__set_cacheline(l, o.cacheline);
	if (o.nr_types) {
		for (int i = 0; i < o.nr_types; i++) {
			if (!layout__find_struct(l, o.types[i])) {
				pr_err("no struct, union or class '%s' in '%s'", o.types[i], path);
				pr_hint("run 'memadvise layout -s %s' to list the types it has", path);
				goto out;
			}
		}
	}
	/* --hot names every type must have: checked before any JSON is out */
	if (o.json && o.hot && show_all(&o, l, NULL, &first, true) < 0)
		goto out;
	if (o.json) {
		jst.pretty = pretty;
		jarr = &jst;
		jstream__begin(jarr, path, layout__cacheline(l));
	}
	if (show_all(&o, l, jarr, &first, false) < 0)
		goto out;
	if (jarr)
		jstream__end(jarr);
	ret = MA_EXIT_OK;
out:
	layout__free(l);
	free(o.types);
	free(o.hot);
	return ret;
}
