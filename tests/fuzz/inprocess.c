/* inprocess.c: the fuzz target's entry point run over files named on the
 * command line, one after another in one process, in the ordinary build.
 * The fuzzer compiles many programs in one process, so state one
 * compilation leaves behind (a file-scope vector still pointing into
 * freed blocks) breaks the next; sapc itself compiles one program and
 * never shows it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "sapc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		size_t len;
		char *t = read_file(argv[i], &len);
		if (!t) {
			fprintf(stderr, "inprocess: cannot read %s\n", argv[i]);
			return 1;
		}
		/* A copy outside the x* blocks, which each input frees. */
		uint8_t *data = malloc(len ? len : 1);
		if (!data)
			return 1;
		for (size_t k = 0; k < len; k++)
			data[k] = (uint8_t)t[k];
		xfree_all();
		LLVMFuzzerTestOneInput(data, len);
		free(data);
	}
	printf("%d programs compiled in one process\n", argc - 1);
	return 0;
}
