/* fuzz-sapc.c: a libFuzzer target over the whole front end of sapc: the
 * lexer, the parser, sema, access analysis, --explain and C emission,
 * into memory (no files, no C compiler).  Each input is compiled as a
 * .sap file after the standard library, as sapc does; everything the
 * compilation allocated is freed before the next (xfree_all), and every
 * pass starts from zeroed state, so a finding does not depend on the
 * inputs before it.  Built by ./configure --enable-fuzz; run by
 * `make fuzz`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"

static char *std_text;
static int std_len;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *path = getenv("SAPC_STDLIB");
	if (!path)
		path = SAPC_SRCDIR "/stdlib/std.sap";
	size_t len;
	char *t = read_file(path, &len);
	if (!t) {
		fprintf(stderr, "fuzz-sapc: cannot read %s\n", path);
		exit(1);
	}
	/* Outside the x* blocks: it outlives every compilation. */
	std_text = malloc(len + 1);
	if (!std_text)
		exit(1);
	memcpy(std_text, t, len + 1);
	std_len = (int)len;
	xfree_all();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 20)
		return 0;
	char *text = xcalloc(size + 1, 1);
	memcpy(text, data, size);
	diag_reset();
	ty_reset();
	char *out_buf = NULL;
	size_t out_len = 0;
	FILE *out = open_memstream(&out_buf, &out_len);
	if (!out)
		abort();
	diag_out = out;

	Program *prog = xcalloc(1, sizeof *prog);
	SrcFile *std = diag_file("std.sap", std_text, std_len);
	SrcFile *user = diag_file("fuzz.sap", text, (int)size);
	if (parse_file(prog, std) && parse_file(prog, user) && sema_program(prog)) {
		sema_warn_lost_copies(prog, user);
		/* In explain mode a rejected loop is recorded, not reported; a
		 * program without one is analysed as for code generation. */
		acc_program(prog, true);
		bool rejected = false;
		for (int i = 0; i < prog->loops.n; i++)
			rejected |= ((Node *)prog->loops.v[i])->li->verdict == VD_REJECTED;
		if (!rejected) {
			EmitOpts eo = {.line_directives = size & 1};
			emit_program(prog, out, &eo, "fuzz");
		}
		acc_explain(prog, out);
	}
	diag_out = NULL;
	fclose(out);
	free(out_buf);
	xfree_all();
	return 0;
}
