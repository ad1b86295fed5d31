// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_token_pass: the lexer of a configuration-language server.  Each
 * time a document changes it re-lexes the whole 2.5 MiB source into one
 * token array (512K tokens of 8 bytes: offset, length, kind; 4 MiB),
 * rewritten in place every time, and a second, much cheaper pass reads the
 * array straight back to count the tokens of each kind for the outline.
 * Clean control: the lexer's token writes are a long sequential stream of
 * ordinary stores, but the array fits in the last-level cache and is read
 * back right after: each re-lex finds the array's lines in the cache, and
 * the counting pass reads them there.  Non-temporal stores would send 4 MiB
 * to memory every time and make the counting pass fetch it back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC_BYTES	(2600u * 1024)
#define MAX_TOKENS	(512u * 1024)
#define RELEX		300

enum kind { K_IDENT, K_NUMBER, K_STRING, K_PUNCT, K_COMMENT, K__COUNT };

struct token {
	uint32_t off;
	uint16_t len;
	uint16_t kind;
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static void make_source(char *s, size_t n)
{
	static const char *const words[] = { "listen", "port", "=", "8080", ";", "\"eth0\"",
					     "# tune", "timeout", "{", "}", "42", "host" };
	size_t i = 0;

	while (i + 16 < n) {
		const char *w = words[rnd() % 12];
		size_t l = strlen(w);

		memcpy(s + i, w, l);
		i += l;
		s[i++] = (rnd() & 7) ? ' ' : '\n';
	}
	memset(s + i, ' ', n - i);
	s[n - 1] = '\0';
}

/* the character classes of the lexer's one-loop state machine */
static uint8_t cls[256];

static void init_classes(void)
{
	for (int c = 0; c < 256; c++)
		cls[c] = K_PUNCT;
	for (int c = 'a'; c <= 'z'; c++)
		cls[c] = K_IDENT;
	cls['_'] = K_IDENT;
	for (int c = '0'; c <= '9'; c++)
		cls[c] = K_NUMBER;
	cls['"'] = K_STRING;
	cls['#'] = K_COMMENT;
	cls[' '] = cls['\n'] = cls['\0'] = K__COUNT; /* blanks end a token */
}

/*
 * One pass, one loop: a token ends where the character class changes; it
 * is written to the array as it ends.
 */
static __attribute__((noinline)) size_t lex(const char *s, size_t n, struct token *t)
{
	size_t k = 0, start = 0;
	unsigned state = K__COUNT;

	for (size_t i = 0; i < n; i++) {
		unsigned c = cls[(uint8_t)s[i]];

		if (c == state && c != K_PUNCT)
			continue;
		if (state != K__COUNT && k < MAX_TOKENS) {
			t[k].off = (uint32_t)start;
			t[k].len = (uint16_t)(i - start);
			t[k].kind = (uint16_t)state;
			k++;
		}
		state = c;
		start = i;
	}
	return k;
}

/* the outline's counts: one cheap pass over the tokens just written */
static __attribute__((noinline)) void count_kinds(const struct token *t, size_t n,
						  uint64_t *counts)
{
	for (size_t i = 0; i < n; i++)
		counts[t[i].kind]++;
}

int main(int argc, char **argv)
{
	int relex = argc > 1 ? atoi(argv[1]) : RELEX;
	char *src = malloc(SRC_BYTES);
	struct token *tok = malloc(MAX_TOKENS * sizeof(*tok));
	uint64_t counts[K__COUNT] = { 0 };
	size_t n = 0;

	if (!src || !tok || relex <= 0)
		return 1;
	init_classes();
	make_source(src, SRC_BYTES);
	for (int r = 0; r < relex; r++) {
		src[(size_t)(r * 7919) % (SRC_BYTES - 1)] = ' '; /* an edit */
		n = lex(src, SRC_BYTES, tok);
		count_kinds(tok, n, counts);
	}
	printf("tokens %zu idents %llu numbers %llu strings %llu\n", n,
	       (unsigned long long)counts[K_IDENT], (unsigned long long)counts[K_NUMBER],
	       (unsigned long long)counts[K_STRING]);
	free(tok);
	free(src);
	return 0;
}
