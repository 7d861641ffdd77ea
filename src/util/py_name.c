/* py_name.c: whether a string the host gives (a bound name, a signature entry)
 * is a Python name, with the lexer's rules: letters, digits and '_' in ASCII,
 * XID_Start / XID_Continue beyond it (PEP 3131). */
#include "util/unicode_ident.h"

/* The code point of the strict UTF-8 sequence at s in *cp and its length; 0 if
 * s does not start one (overlong, surrogate, past U+10FFFF, cut short). */
static int utf8_next(const unsigned char *s, uint32_t *cp)
{
	int n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
	                                                  : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (n <= 1) {
		*cp = s[0];
		return n;
	}
	*cp = s[0] & (0x7fu >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3fu);
	}
	static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (*cp < least[n] || (*cp >= 0xd800 && *cp <= 0xdfff) || *cp > 0x10ffff)
		return 0;
	return n;
}

static bool ident_cp(uint32_t cp, bool first)
{
	if (cp < 0x80)
		return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_' ||
		       (!first && cp >= '0' && cp <= '9');
	return first ? unicode_xid_start(cp) : unicode_xid_continue(cp);
}

bool py_dotted_name(const char *s, int min_dots)
{
	const unsigned char *p = (const unsigned char *)s;
	int dots = 0;
	bool start = true;
	for (;;) {
		uint32_t cp;
		int n = *p ? utf8_next(p, &cp) : 0;
		if (!*p)
			return !start && dots >= min_dots;
		if (n == 0)
			return false;
		if (cp == '.' && !start) {
			dots++;
			start = true;
		} else if (ident_cp(cp, start)) {
			start = false;
		} else {
			return false;
		}
		p += n;
	}
}
