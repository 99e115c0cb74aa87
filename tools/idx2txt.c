/* idx2txt: images and labels in the IDX format of (Fashion-)MNIST, as text.
 *
 * Reads an IDX image file (magic 0x00000803: count, rows, columns, then
 * one unsigned byte per pixel) and the IDX label file of the same images
 * (magic 0x00000801: count, then one byte per label), either of them
 * gzip-compressed or not, as Debian's dataset-fashion-mnist ships them in
 * /usr/share/datasets/fashion-mnist.  Writes one line per image:
 *
 *   --format=sap     "LABEL P1 ... PN", pixels scaled to [0, 1], which a
 *                    SAP program loads as struct { int y; float[N] x; };
 *   --format=libsvm  "LABEL I:P ..." with 1-based indices and the zero
 *                    pixels left out, the same scaling, for liblinear.
 *
 * A pixel p becomes p / 255 printed with %.6g, so the two formats and the
 * two programs that read them see the same values.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char *prog = "idx2txt";

static void usage(FILE *f)
{
	fputs("usage: idx2txt [--format=sap|libsvm] [--limit=N] IMAGES LABELS\n"
	      "\n"
	      "Write the images of IDX file IMAGES with their labels from IDX file\n"
	      "LABELS (either may be gzip-compressed) as text on standard output,\n"
	      "one image a line, pixels scaled to [0, 1].\n"
	      "\n"
	      "  --format=sap     LABEL P1 ... PN (default)\n"
	      "  --format=libsvm  LABEL I:P ... for the nonzero pixels, I from 1\n"
	      "  --limit=N        only the first N images\n", f);
}

static void die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(1);
}

typedef struct idx {
	const char *path;
	gzFile f;
	uint32_t dims[3];
	int ndims;
} idx;

/* Exactly n bytes, or a message naming the file. */
static void get(idx *x, void *buf, unsigned n)
{
	int got = gzread(x->f, buf, n);
	if (got < 0) {
		int e;
		die("%s: %s", x->path, gzerror(x->f, &e));
	}
	if ((unsigned)got != n)
		die("%s: %s", x->path, "truncated IDX file");
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Opens an IDX file of unsigned bytes with ndims dimensions. */
static void open_idx(idx *x, const char *path, int ndims, const char *what)
{
	x->path = path;
	x->ndims = ndims;
	x->f = gzopen(path, "rb");
	if (!x->f)
		die("%s: %s", path, strerror(errno ? errno : ENOMEM));
	unsigned char h[4];
	get(x, h, 4);
	if (h[0] || h[1] || h[2] != 0x08 || h[3] != ndims)
		die("%s: not an IDX file of %s", path, what);
	for (int d = 0; d < ndims; d++) {
		get(x, h, 4);
		x->dims[d] = be32(h);
	}
}

int main(int argc, char **argv)
{
	bool libsvm = false;
	long long limit = -1;
	const char *files[2];
	int nfiles = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--format=sap")) {
			libsvm = false;
		} else if (!strcmp(a, "--format=libsvm")) {
			libsvm = true;
		} else if (!strncmp(a, "--limit=", 8)) {
			char *end;
			limit = strtoll(a + 8, &end, 10);
			if (*end || limit < 0)
				die("%s: %s", a, "expected a count");
		} else if (a[0] == '-' && a[1]) {
			usage(stderr);
			die("unknown option %s%s", a, "");
		} else if (nfiles < 2) {
			files[nfiles++] = a;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (nfiles != 2) {
		usage(stderr);
		return 2;
	}
	idx img, lab;
	open_idx(&img, files[0], 3, "images (0x00000803)");
	open_idx(&lab, files[1], 1, "labels (0x00000801)");
	if (img.dims[0] != lab.dims[0]) {
		char n[64];
		snprintf(n, sizeof n, "%u images, %u labels", img.dims[0], lab.dims[0]);
		die("%s: %s", files[1], n);
	}
	uint64_t n = img.dims[0], px = (uint64_t)img.dims[1] * img.dims[2];
	if (px == 0 || px > 1u << 24)
		die("%s: %s", files[0], "images of no pixels, or too many");
	if (limit >= 0 && (uint64_t)limit < n)
		n = (uint64_t)limit;
	unsigned char *buf = malloc(px);
	if (!buf)
		die("%s%s", "out of memory", "");
	for (uint64_t k = 0; k < n; k++) {
		unsigned char y;
		get(&lab, &y, 1);
		get(&img, buf, (unsigned)px);
		printf("%u", y);
		for (uint64_t p = 0; p < px; p++) {
			if (libsvm && !buf[p])
				continue;
			if (libsvm)
				printf(" %llu:%.6g", (unsigned long long)p + 1, buf[p] / 255.0);
			else
				printf(" %.6g", buf[p] / 255.0);
		}
		putchar('\n');
	}
	free(buf);
	gzclose(img.f);
	gzclose(lab.f);
	if (fflush(stdout) || ferror(stdout))
		die("%s: %s", "standard output", strerror(errno));
	return 0;
}
