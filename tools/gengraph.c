/* gengraph: a synthetic directed graph for the PageRank sample and
 * benchmark, one line a node: its id, then its out-neighbours.
 *
 * Node u has a number of out-edges drawn uniformly from [0, 2D] (so about
 * one node in 2D + 1 has none, a dangling node), each to a distinct node.
 * A fraction L of the edges goes to a node near u (within W = max(16,
 * N / 1000) ids, as links within a site do); the others go to a node
 * drawn with probability falling as a power of its id, rank^-A over a
 * random permutation (A = 0 is uniform), so that a few nodes get most
 * in-links, as on the web.  Ids are 0 .. N-1, lines in id order.
 *
 * The output is a pure function of the options: node u draws from a
 * stream of its own of our generator (gen.h), not the C library's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"

const char *const gen_name = "gengraph";

static void usage(FILE *f)
{
	fputs("usage: gengraph [--nodes=N] [--degree=D] [--local=L] [--skew=A]\n"
	      "                [--seed=S] [--out=FILE]\n"
	      "\n"
	      "Write a directed graph of N nodes to --out (default: standard\n"
	      "output), one line a node in id order: the id, then the ids of its\n"
	      "out-neighbours, blank-separated (a SAP program reads it as\n"
	      "struct Node { int id; list<int> out; }).  Out-degrees are uniform\n"
	      "in [0, 2D]; a fraction L of the edges stays within max(16, N/1000)\n"
	      "ids of its source, the others go to nodes drawn with probability\n"
	      "falling as rank^-A (A = 0: uniform).  The first line is a '#'\n"
	      "comment with the command.\n"
	      "Defaults: --nodes=10000 --degree=8 --local=0.5 --skew=0.8 --seed=1\n", f);
}

/* Target ranks with probability proportional to (r + 1)^-a, r in [0, n):
 * the cumulative weights, searched by bisection. */
typedef struct zipf {
	double *cum;
	int64_t n;
} zipf;

static zipf zipf_make(int64_t n, double a)
{
	zipf z = { xmalloc((size_t)n, sizeof(double)), n };
	double s = 0;
	for (int64_t r = 0; r < n; r++) {
		s += pow((double)(r + 1), -a);
		z.cum[r] = s;
	}
	return z;
}

static int64_t zipf_draw(const zipf *z, rng *g)
{
	double x = uniform(g) * z->cum[z->n - 1];
	int64_t lo = 0, hi = z->n - 1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (z->cum[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int main(int argc, char **argv)
{
	int64_t n = 10000, d = 8;
	double local = 0.5, skew = 0.8;
	uint64_t seed = 1;
	const char *out = NULL;

	for (int a = 1; a < argc; a++) {
		const char *arg = argv[a];
		const char *eq = strchr(arg, '=');
		if (strcmp(arg, "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strncmp(arg, "--", 2) != 0)
			fail(2, "unexpected argument '%s'", arg);
		if (!eq)
			fail(2, "option '%s' needs =VALUE", arg);
		size_t len = (size_t)(eq - arg - 2);
		const char *name = arg + 2, *val = eq + 1;
#define IS(s) (len == sizeof s - 1 && !strncmp(name, s, len))
		/* Ids are int in the readers. */
		if (IS("nodes"))
			n = opt_int("nodes", val, 1, INT32_MAX);
		else if (IS("degree"))
			d = opt_int("degree", val, 0, 1 << 20);
		else if (IS("local"))
			local = opt_real("local", val, 0, 1);
		else if (IS("skew"))
			skew = opt_real("skew", val, 0, 2);
		else if (IS("seed"))
			seed = (uint64_t)opt_int("seed", val, 0, INT64_MAX);
		else if (IS("out"))
			out = opt_path("out", val);
		else
			fail(2, "unknown option '%s'", arg);
#undef IS
	}
	if (2 * d >= n)
		fail(2, "--degree=%" PRId64 " needs more than %" PRId64 " nodes", d, 2 * d);

	/* Which node has each popularity rank: a shuffle of the ids. */
	int32_t *who = xmalloc((size_t)n, sizeof *who);
	for (int64_t i = 0; i < n; i++)
		who[i] = (int32_t)i;
	rng gp = rng_make(seed, 0);
	for (int64_t i = n - 1; i > 0; i--) {
		int64_t j = below(&gp, i + 1);
		int32_t t = who[i];
		who[i] = who[j];
		who[j] = t;
	}
	zipf z = zipf_make(n, skew);
	int64_t win = n / 1000 > 16 ? n / 1000 : 16;
	if (win > n - 1)
		win = n - 1;

	outfile o = out_open(out);
	fprintf(o.f, "# gengraph --nodes=%" PRId64 " --degree=%" PRId64 " --local=%g --skew=%g"
	        " --seed=%" PRIu64 "\n", n, d, local, skew, seed);
	int64_t *nb = xmalloc((size_t)(2 * d + 1), sizeof *nb);
	for (int64_t u = 0; u < n; u++) {
		rng g = rng_make(seed, (uint64_t)u + 1);
		int64_t k = below(&g, 2 * d + 1);
		for (int64_t e = 0; e < k; e++) {
			int64_t v;
			bool dup;
			do {
				if (uniform(&g) < local) {
					v = u - win + below(&g, 2 * win + 1);
					v = ((v % n) + n) % n;
				} else {
					v = who[zipf_draw(&z, &g)];
				}
				dup = v == u;
				for (int64_t f = 0; f < e && !dup; f++)
					dup = nb[f] == v;
			} while (dup);
			nb[e] = v;
		}
		fprintf(o.f, "%" PRId64, u);
		for (int64_t e = 0; e < k; e++)
			fprintf(o.f, " %" PRId64, nb[e]);
		fputc('\n', o.f);
		if ((u & 65535) == 0)
			out_check(&o);
	}
	out_close(&o);
	free(nb);
	free(z.cum);
	free(who);
	return 0;
}
