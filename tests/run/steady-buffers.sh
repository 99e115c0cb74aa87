#!/bin/sh
# A loop run again and again reuses its memory: the buffers an
# invocation takes (a worker's partial sums, a rank's share of the
# exchange) cost no page faults the next time.  glibc's malloc gave each
# buffer of 128 KiB or more fresh pages, faulted in and zeroed, every
# invocation, unless something large had been freed before; PageRank on
# 2 ranks ran 2.6x slower for it.  sap_init fixes glibc's thresholds; a
# build under ASan has ASan's allocator instead, which this cannot test.
set -u
: "${SAPC:?must be set}" "${MPIEXEC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
if "$SAPC" --showme:compile | grep -q -e '-fsanitize=address'; then
	echo "SKIP: ASan's allocator, not glibc's"
	exit 77
fi
make_tmp

cat >"$tmp/steady.c" <<'C'
#include <stdint.h>
#include <sys/resource.h>

/* The minor page faults of this process so far. */
int64_t minor_faults(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (int64_t)u.ru_minflt;
}
C
cat >"$tmp/steady.sap" <<'SAP'
extern long minor_faults();

param long n = 1 << 20;
dvector<double> src(n) = 1.0;
dvector<double> acc(n);

long f0 = 0;
for (int it = 0; it < 12; it++) {
    if (it == 2)
        f0 = minor_faults();
    async for (long i = 0; i < n; i++)
        acc[i] = 0;
    async for (long i = 0; i < n; i++) accumulate(+: acc) {
        acc[(i * 7) % n] += src[i];
        acc[(i * 13 + 5) % n] += 0.5 * src[i];
    }
    async for (long i = 0; i < n; i++)
        src[i] = 0.5 * (src[i] + acc[i]);
}
long f1 = minor_faults();
// 8 MB of partial sums are 2048 pages: a tenth of that an invocation is
// already far more than a steady loop takes.
long each = (f1 - f0) / 10;
if (each < 200)
    print("steady\n");
else
    print("%d page faults an invocation\n", each);
print("acc[0] = %.1f, acc[5] = %.1f\n", acc[0], acc[5]);
SAP
cd "$tmp" || exit 99
"$SAPC" -O2 -o steady steady.sap steady.c >cc.log 2>&1 || { cat cc.log; fail "sapc"; }
printf 'steady\nacc[0] = 17.5, acc[5] = 17.5\n' >want
for np in 1 2 3; do
	$MPIEXEC -n "$np" ./steady >out 2>err || { cat err; fail "exit status on $np ranks"; }
	diff -u want out || fail "on $np ranks"
done
