/* py_number.c: numbers written as Python literals (see py_number.h). */
#include "util/py_number.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

PyNumKind py_number(const char *s, int64_t *i, uint64_t *u, double *f)
{
	size_t n = strlen(s);
	if (!n || n >= 128)
		return PYNUM_NONE;
	char buf[128];
	size_t k = 0;
	for (size_t j = 0; j < n; j++) {
		if (s[j] != '_') {
			buf[k++] = s[j];
			continue;
		}
		/* one underscore between digits, or after a base prefix (0x_ff) */
		if (!j || j + 1 >= n || !isxdigit((unsigned char)s[j + 1]) ||
		    !(isxdigit((unsigned char)s[j - 1]) || strchr("xXoObB", s[j - 1])))
			return PYNUM_NONE;
	}
	buf[k] = 0;
	char *digits = buf + (buf[0] == '-' || buf[0] == '+');
	if (!isdigit((unsigned char)digits[0]) && digits[0] != '.' && !isalpha((unsigned char)digits[0]))
		return PYNUM_NONE; /* " 5", "--5": strtoll would skip or take them */
	int base = 10;
	if (digits[0] == '0' && digits[1] && strchr("xXoObB", digits[1])) {
		base = digits[1] == 'x' || digits[1] == 'X' ? 16 : digits[1] == 'o' || digits[1] == 'O' ? 8 : 2;
		memmove(digits, digits + 2, strlen(digits + 2) + 1);
		if (!isxdigit((unsigned char)*digits))
			return PYNUM_NONE;
	}
	char *end;
	errno = 0;
	long long iv = strtoll(buf, &end, base);
	if (*end == 0 && base == 10 && digits[0] == '0' && strspn(digits, "0") != strlen(digits))
		return PYNUM_NONE; /* 010: Python has no such literal */
	if (*end == 0 && errno == ERANGE && buf[0] != '-') {
		errno = 0;
		unsigned long long uv = strtoull(buf, &end, base);
		if (*end == 0 && errno == 0) {
			*u = uv;
			return PYNUM_U64;
		}
		errno = ERANGE;
	}
	if (*end == 0)
		return errno == ERANGE ? PYNUM_BIG : (*i = iv, PYNUM_INT);
	if (base != 10 || strchr(buf, 'x') || strchr(buf, 'X'))
		return PYNUM_NONE; /* no hex floats (0x1p3) */
	errno = 0;
	double fv = strtod(buf, &end);
	if (*end || (errno && errno != ERANGE))
		return PYNUM_NONE;
	*f = fv;
	return PYNUM_FLOAT;
}
