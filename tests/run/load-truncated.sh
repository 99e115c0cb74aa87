#!/bin/sh
# load() maps a regular file; one truncated while it loads raises SIGBUS
# at the first page past its new end.  Through an LD_PRELOAD shim that
# truncates the file to 4 KiB as soon as it is mapped, a load on 1 and 2
# ranks must stop with the one-line error naming the file and a non-zero
# status, not a crash report.  The same file left whole loads fine.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "SKIP: no C compiler for the shim"; exit 77; }

cat >"$tmp/shim.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

/* mmap, and then, if fd is a file whose name ends in ".trunc.txt",
 * truncate it to 4 KiB. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	void *p = real(addr, len, prot, flags, fd, off);
	char link[64], name[4096];
	if (fd < 0 || p == MAP_FAILED)
		return p;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, name, sizeof name - 1);
	if (n < 10)
		return p;
	name[n] = '\0';
	if (strcmp(name + n - 10, ".trunc.txt") == 0) {
		int w = open(name, O_WRONLY);
		if (w >= 0) {
			if (ftruncate(w, 4096) != 0)
				perror("ftruncate");
			close(w);
		}
	}
	return p;
}
C
"$cc" -std=c11 -shared -fPIC -o "$tmp/shim.so" "$tmp/shim.c" -ldl || fail "cc shim.c"

cat >"$tmp/lt.sap" <<'SAP'
struct Row { int id; list<double> v; }
param string data = "in.txt";
dvector<Row> R = load(data);
print("rows %d\n", len(R));
SAP
"$SAPC" -O2 -o "$tmp/lt" "$tmp/lt.sap" || fail "sapc lt.sap"
awk 'BEGIN { for (i = 0; i < 20000; i++) print i, 0.5, 1.25, -3 }' >"$tmp/in.txt"

# Under AddressSanitizer (the CI's second build) the shim comes before
# its runtime in the preload list, which it would refuse.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

for np in 1 2; do
	$MPIEXEC -n $np "$tmp/lt" --data="$tmp/in.txt" >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "the whole file on $np ranks"; }
	grep -qx 'rows 20000' "$tmp/out" || { cat "$tmp/out"; fail "the whole file on $np ranks: not 20000 rows"; }
	cp "$tmp/in.txt" "$tmp/in.trunc.txt"
	$MPIEXEC -n $np -x LD_PRELOAD="$tmp/shim.so" -x ASAN_OPTIONS "$tmp/lt" --data="$tmp/in.trunc.txt" \
		>"$tmp/out" 2>"$tmp/err" && { cat "$tmp/out"; fail "truncated on $np ranks: exit status 0"; }
	grep -q "error: '$tmp/in.trunc.txt' was truncated while it was being loaded" "$tmp/err" ||
		{ cat "$tmp/err"; fail "truncated on $np ranks: no error naming the file"; }
	if grep -q "Signal: Bus error" "$tmp/err"; then
		cat "$tmp/err"
		fail "truncated on $np ranks: a crash report"
	fi
done
exit 0
