#!/bin/sh
# tools/idx2txt on IDX files the test writes itself: 3 images of 2 x 3
# pixels with their labels, plain and gzip-compressed.
#  - --format=sap and --format=libsvm give exactly the expected text, with
#    pixels scaled to [0, 1] and libsvm leaving out the zero pixels;
#  - --limit=N stops after N images;
#  - a label file given as the image file, a truncated file and counts
#    that disagree are errors naming the file, with exit status 1.
#
# Run by `make check` with top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
tool=$top_builddir/tools/idx2txt
test -x "$tool" || fail "no $tool"

make_tmp

# Bytes from octal escapes (printf %b is POSIX; \0NNN is octal).
# Images: magic 00 00 08 03, count 3, rows 2, columns 3, then 18 pixels.
printf '\0\0\010\003\0\0\0\003\0\0\0\002\0\0\0\003' >"$tmp/img"
printf '\0\0\377\0\063\0\377\377\377\0\0\0\001\002\003\004\005\006' >>"$tmp/img"
# Labels: magic 00 00 08 01, count 3, then 7 0 9.
printf '\0\0\010\001\0\0\0\003\007\0\011' >"$tmp/lab"
gzip -c "$tmp/img" >"$tmp/img.gz" || fail "gzip"

cat >"$tmp/sap.want" <<'OUT'
7 0 0 1 0 0.2 0
0 1 1 1 0 0 0
9 0.00392157 0.00784314 0.0117647 0.0156863 0.0196078 0.0235294
OUT
cat >"$tmp/libsvm.want" <<'OUT'
7 3:1 5:0.2
0 1:1 2:1 3:1
9 1:0.00392157 2:0.00784314 3:0.0117647 4:0.0156863 5:0.0196078 6:0.0235294
OUT

"$tool" "$tmp/img" "$tmp/lab" >"$tmp/sap.out" || fail "exit status $? (sap)"
cmp "$tmp/sap.want" "$tmp/sap.out" || { diff "$tmp/sap.want" "$tmp/sap.out"; fail "sap format"; }
"$tool" --format=libsvm "$tmp/img.gz" "$tmp/lab" >"$tmp/libsvm.out" ||
	fail "exit status $? (libsvm)"
cmp "$tmp/libsvm.want" "$tmp/libsvm.out" ||
	{ diff "$tmp/libsvm.want" "$tmp/libsvm.out"; fail "libsvm format"; }
"$tool" --limit=2 "$tmp/img.gz" "$tmp/lab" >"$tmp/two.out" || fail "exit status $? (limit)"
head -n 2 "$tmp/sap.want" | cmp - "$tmp/two.out" || fail "--limit=2"

# err WANT ARGS...: idx2txt fails with status 1 and a message matching WANT.
err() {
	want=$1
	shift
	"$tool" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	test "$rc" = 1 || fail "$*: exit status $rc, want 1"
	grep -q "$want" "$tmp/err" || { cat "$tmp/err"; fail "$*: no message '$want'"; }
}
err "lab: not an IDX file of images" "$tmp/lab" "$tmp/lab"
head -c 30 "$tmp/img" >"$tmp/short"
err "short: truncated IDX file" "$tmp/short" "$tmp/lab"
printf '\0\0\010\001\0\0\0\002\007\0' >"$tmp/lab2"
err "lab2: 3 images, 2 labels" "$tmp/img" "$tmp/lab2"
err "missing: " "$tmp/missing" "$tmp/lab"
exit 0
