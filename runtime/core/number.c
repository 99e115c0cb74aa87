/* number.c: the text of a number to its value, shared by load's field
 * scanners and the to_int/to_long/to_float/to_double built-ins, so that a
 * number reads the same in a data file and in a string. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

int sap_parse_integer(const char *p, size_t n, int64_t lo, int64_t hi, int64_t *out)
{
	const char *end = p + n;
	bool neg = false;
	if (p < end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	if (p == end)
		return SAP_NUM_BAD;
	uint64_t u = 0;
	bool over = false;
	for (; p < end; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > 9)
			return SAP_NUM_BAD;
		/* Keep checking digits after an overflow: "99999999999x" is
		 * not a number at all. */
		if (u > UINT64_MAX / 10 || (u == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			over = true;
		else
			u = u * 10 + d;
	}
	uint64_t limit = neg ? (uint64_t)-(lo + 1) + 1 : (uint64_t)hi;
	if (over || u > limit)
		return SAP_NUM_RANGE;
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return SAP_NUM_OK;
}

/* Clinger's fast path: a decimal m * 10^e with m and 10^|e| both exact in
 * the target type is correctly rounded by one multiply or divide, so the
 * common "4.5" or "0.125" needs no strtof.  NULL sends the token to
 * strtof/strtod, which handle everything else (and the errors). */
const char *sap_quick_real(const char *p, const char *end, bool is_float, double *out)
{
#if FLT_EVAL_METHOD == 0
	static const float p10f[] = { 1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f,
	                              1e7f, 1e8f, 1e9f, 1e10f };
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	                              1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	                              1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	bool neg = false;
	if (p < end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	uint64_t m = 0;
	int ndig = 0, e = 0;
	for (; p < end && (unsigned)(*p - '0') <= 9; p++, ndig++)
		m = m * 10 + (unsigned)(*p - '0');
	if (p < end && *p == '.')
		for (p++; p < end && (unsigned)(*p - '0') <= 9; p++, ndig++, e--)
			m = m * 10 + (unsigned)(*p - '0');
	/* 19 digits cannot overflow m. */
	if (ndig == 0 || ndig > 19)
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		bool eneg = false;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		const char *x0 = p;
		int x = 0;
		for (; p < end && (unsigned)(*p - '0') <= 9; p++)
			if ((x = x * 10 + (*p - '0')) > 1000)
				return NULL;
		if (p == x0)
			return NULL;
		e += eneg ? -x : x;
	}
	if (is_float) {
		if (m > (1u << 24) || e < -10 || e > 10)
			return NULL;
		float x = (float)m;
		x = e < 0 ? x / p10f[-e] : x * p10f[e];
		*out = neg ? -x : x;
	} else {
		if (m > ((uint64_t)1 << 53) || e < -22 || e > 22)
			return NULL;
		double x = (double)m;
		x = e < 0 ? x / p10[-e] : x * p10[e];
		*out = neg ? -x : x;
	}
	return p;
#else
	/* Excess precision would round twice. */
	(void)p, (void)end, (void)is_float, (void)out;
	return NULL;
#endif
}

static bool fast_real(const char *p, const char *end, bool is_float, double *out)
{
	double x;
	if (sap_quick_real(p, end, is_float, &x) != end)
		return false;
	*out = x;
	return true;
}

/* strtod skips leading white space, newlines included, and the text is
 * not NUL-terminated: it gets a terminated copy, and a blank anywhere is
 * refused first. */
int sap_parse_real(const char *t, size_t n, bool is_float, double *out)
{
	if (fast_real(t, t + n, is_float, out))
		return SAP_NUM_OK;
	if (n == 0 || sap_is_blank(t[0]) || t[0] == '\n')
		return SAP_NUM_BAD;
	char small[64];
	char *buf = n < sizeof small ? small : sap_xmalloc(n + 1);
	memcpy(buf, t, n);
	buf[n] = '\0';
	char *end;
	errno = 0;
	double x = is_float ? strtof(buf, &end) : strtod(buf, &end);
	bool bad = end != buf + n, range = errno == ERANGE && (x > 1 || x < -1);
	/* A nonzero number below the smallest subnormal: strtod's 0, which
	 * the text does not say (as the literal 1e-400 is an error). */
	bool tiny = errno == ERANGE && x == 0;
	if (buf != small)
		free(buf);
	if (bad)
		return SAP_NUM_BAD;
	if (range)
		return SAP_NUM_RANGE;
	if (tiny)
		return SAP_NUM_TINY;
	if (!isfinite(x))
		return SAP_NUM_NOTFINITE;
	*out = x;
	return SAP_NUM_OK;
}
