/* sema_enum.c: a module's classes deriving from Python's enum.Enum, IntEnum,
 * Flag, IntFlag or StrEnum (also `class A(int, Enum)`). Their members are
 * Python's Enum members, not the values written in the class body:
 * - an Enum or Flag member is an object (a V_DICT {name, value} whose mod is
 *   its class and msg the class's name) that equals only itself, so
 *   `Act.RELU == 1` is False and a dict keyed by members finds them;
 * - an IntEnum, IntFlag or StrEnum member is its int or str (a V_CONST whose
 *   mod is its class and msg the member's name), so it computes as one
 *   (`x * Act.RELU`), and has `.name` and `.value` besides.
 * A member a kernel gets as a constexpr parameter (or from tl.constexpr(...))
 * is wrapped as Triton's constexpr is (ns == ENUM_WRAPPED): its `.value` is
 * the member itself (Triton's constexpr.value), a bare member's the Python
 * value. Members with equal values are aliases of the first, as in Python;
 * auto() numbers as Python 3.11+ does.
 *
 * Requires: class_member / module_expr_quiet (sema.c) for the class body. */
#include <string.h>

#include "sema/sema_int.h"

typedef struct EnumMember {
	const char *name;
	Value value; /* the Python value written (or auto()'s) */
	int canon;   /* the member this name is an alias of (itself if none) */
} EnumMember;

/* The enum kind of a base expression's value: enum's classes, int and str as
 * mixins, or a class of the module that is an enum itself */
static int base_kind(Sema *s, Value b)
{
	if (b.kind == V_NS) switch (b.ns) {
		case NS_ENUM_ENUM: return ENUM_PLAIN;
		case NS_ENUM_FLAG: return ENUM_FLAG;
		case NS_ENUM_INTENUM: return ENUM_INT;
		case NS_ENUM_INTFLAG: return ENUM_INTFLAG;
		case NS_ENUM_STRENUM: return ENUM_STR;
		default: return ENUM_NONE;
		}
	if (b.kind == V_BUILTIN && !b.self) {
		const char *n = builtin_get(b.builtin)->name;
		if (!strcmp(n, "int")) return -ENUM_INT; /* a mixin: only with an Enum base */
		if (!strcmp(n, "str")) return -ENUM_STR;
	}
	if (b.kind == V_MODULE && b.mod->cls) return enum_class_kind(s, b.mod);
	return ENUM_NONE;
}

int enum_class_kind(Sema *s, ModScope *c)
{
	if (!c || !c->cls) return ENUM_NONE;
	if (c->enum_kind) return c->enum_kind;
	c->enum_kind = ENUM_NONE; /* while its bases are looked at (class A(A)) */
	int kind = ENUM_NONE, mixin = 0;
	for (int i = 0; i < c->cls->nbases; i++) {
		bool failed;
		Value b = module_expr_quiet(s, c->parent, c->cls->bases[i], &failed);
		int k = failed ? ENUM_NONE : base_kind(s, b);
		if (k < 0) mixin = -k;
		else if (k != ENUM_NONE && kind == ENUM_NONE) kind = k;
	}
	/* class A(int, Enum): an int, printed as an Enum member */
	if ((kind == ENUM_PLAIN || kind == ENUM_FLAG) && mixin) kind = mixin == ENUM_INT ? ENUM_MIXIN_INT : ENUM_MIXIN_STR;
	c->enum_kind = (signed char)kind;
	return kind;
}

/* a name the Enum machinery keeps for itself: _sunder_ and __dunder__ */
static bool reserved_name(const char *n)
{
	size_t len = strlen(n);
	return len > 2 && n[0] == '_' && n[len - 1] == '_';
}

/* whether e is `auto()` (enum.auto, however imported) */
static bool is_auto_call(Sema *s, ModScope *c, const Expr *e)
{
	if (e->kind != EX_CALL || e->nargs || e->nkwargs) return false;
	bool failed;
	Value f = module_expr_quiet(s, c, e->func, &failed);
	return !failed && f.kind == V_NS && f.ns == NS_ENUM_AUTO;
}

/* auto()'s value after members m[0..n): Python 3.11+'s _generate_next_value_ */
static bool auto_value(Sema *s, int kind, const char *name, const EnumMember *m, int n, SrcLoc loc, Value *out)
{
	if (kind == ENUM_STR || kind == ENUM_MIXIN_STR) {
		char *low = arena_strdup(s->a, name);
		for (char *p = low; *p; p++)
			if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
		*out = v_str(low);
		return true;
	}
	int64_t hi = 0;
	for (int i = 0; i < n; i++) {
		if (!v_is_intlike(m[i].value)) {
			diag_error(s->d, loc, "auto() after member '%s', whose value is not an int (a TypeError in Python)",
				   m[i].name);
			return false;
		}
		if (kind == ENUM_FLAG || kind == ENUM_INTFLAG) {
			if (m[i].value.c.i > hi) hi = m[i].value.c.i;
		} else hi = m[i].value.c.i; /* the last value + 1 */
	}
	if (kind == ENUM_FLAG || kind == ENUM_INTFLAG) {
		int64_t bit = 1;
		while (bit <= hi && bit < INT64_MAX / 2) bit <<= 1;
		*out = v_int(bit);
	} else *out = v_int(n ? hi + 1 : 1);
	return true;
}

/* Python 3.11+ resolves auto() where it is assigned, so the rest of the class
 * body sees the value (RW = R | W): rebind the class's name to it. */
static void bind_auto(ModScope *c, const char *name, Value v)
{
	for (size_t i = c->globals.len; i-- > 0;) {
		Global *g = &c->globals.data[i];
		if (g->kind == GB_EXPR && !strcmp(g->name, name)) {
			g->kind = GB_VALUE;
			g->val = v;
			return;
		}
	}
}

/* The members of enum class c, in definition order (computed once) */
static bool enum_members(Sema *s, ModScope *c, int kind)
{
	if (c->enum_n >= 0 && c->enum_m) return true;
	if (c->enum_n == -1) return false; /* failed before (reported) */
	StmtList body = c->cls->body;
	EnumMember *m = ARENA_NEWN(s->a, EnumMember, (size_t)body.n + 1);
	int n = 0;
	c->enum_n = -1;
	for (int i = 0; i < body.n; i++) {
		const Stmt *st = body.items[i];
		/* NAME = value, NAME: T = value */
		const Expr *target = st->kind == ST_ASSIGN && st->ntargets == 1 ? st->targets[0]
				     : st->kind == ST_ANNASSIGN && st->ann_value ? st->ann_target
										  : NULL;
		if (!target || target->kind != EX_NAME) continue;
		const char *name = target->name;
		if (reserved_name(name)) continue;
		Value v;
		if (is_auto_call(s, c, st->kind == ST_ASSIGN ? st->assign_value : st->ann_value)) {
			if (!auto_value(s, kind, name, m, n, st->loc, &v)) return false;
			bind_auto(c, name, v);
		} else {
			bool found;
			v = class_member(s, c, name, st->loc, &found);
			if (v.kind == V_ERR) return false;
			/* functions, lambdas and classes are descriptors, not members */
			if (v.kind == V_FUNC || v.kind == V_LAMBDA || v.kind == V_BUILTIN || v.kind == V_MODULE ||
			    v.kind == V_POISON)
				continue;
		}
		bool strish = kind == ENUM_STR || kind == ENUM_MIXIN_STR;
		if ((kind != ENUM_PLAIN && !strish && !v_is_intlike(v)) || (strish && !v_is_const(v, CV_STR))) {
			diag_error(s->d, st->loc, "member '%s.%s' of %s must be %s, got %s", c->name, name,
				   strish ? "a str Enum" : kind == ENUM_FLAG ? "a Flag" : "an int Enum",
				   strish ? "a str" : "an int", v_describe(s, v));
			return false;
		}
		if (v_is_const(v, CV_BOOL)) v = v_int(v.c.i); /* IntEnum(True) is 1 */
		int canon = n;
		for (int k = 0; k < n && canon == n; k++)
			if (m[k].canon == k && values_identical(m[k].value, v)) canon = k;
		m[n++] = (EnumMember){name, v, canon};
	}
	c->enum_m = m;
	c->enum_n = n;
	return true;
}

static Value make_member(Sema *s, ModScope *c, int kind, const EnumMember *m)
{
	if (kind == ENUM_PLAIN || kind == ENUM_FLAG) {
		Value keys[2] = {v_str("name"), v_str("value")}, vals[2] = {m->name ? v_str(m->name) : v_none(), m->value};
		Value d = v_dict(s, keys, vals, 2);
		d.msg = c->name;
		d.mod = c;
		return d;
	}
	Value v = m->value;
	v.mod = c;
	v.msg = m->name;
	return v;
}

bool enum_lookup(Sema *s, ModScope *c, const char *name, SrcLoc loc, Value *out)
{
	int kind = enum_class_kind(s, c);
	if (kind == ENUM_NONE) return false;
	(void)loc;
	if (!enum_members(s, c, kind)) {
		*out = v_err();
		return true;
	}
	for (int i = 0; i < c->enum_n; i++)
		if (!strcmp(c->enum_m[i].name, name)) {
			*out = make_member(s, c, kind, &c->enum_m[c->enum_m[i].canon]);
			return true;
		}
	return false;
}

bool v_is_enum_member(Value v)
{
	if (v.kind == V_DICT) return v.msg == ENUM_KIND || v.msg == ENUM_SIGNEDNESS || (v.mod && v.mod->cls);
	return v.kind == V_CONST && v.mod && v.mod->cls && v.msg;
}

Value enum_wrap(Value v)
{
	if (v_is_enum_member(v)) v.ns = ENUM_WRAPPED;
	return v;
}

/* The member's name and Python value */
static const char *member_name(Value v)
{
	if (v.kind == V_DICT) return v_is_none(v.items[0]) ? NULL : v.items[0].c.s;
	return v.msg && *v.msg ? v.msg : NULL; /* "": an IntFlag composite without a name */
}

static Value member_value(Value v)
{
	if (v.kind == V_DICT) return v.items[1];
	v.mod = NULL, v.msg = NULL, v.ns = 0;
	return v;
}

static const char *class_name(Value v) { return v.kind == V_DICT ? v.msg : v.mod->name; }

/* An attribute the member's class body defines: a method bound to the member
 * (a classmethod to its class, a staticmethod to nothing), a property's
 * value, or another class attribute as it is. */
static bool member_class_attr(Sema *s, Value v, const char *name, SrcLoc loc, Value *out)
{
	if (!v.mod || !v.mod->cls) return false; /* the dtype Enums have no class body */
	bool found;
	if (enum_lookup(s, v.mod, name, loc, out)) return true; /* Color.RED.GREEN, as Python allows */
	Value m = class_member(s, v.mod, name, loc, &found);
	if (!found) return false;
	if (m.kind == V_FUNC && !m.self && !has_decorator(m.fn, "staticmethod")) {
		Value *self = ARENA_NEW(s->a, Value);
		*self = v;
		self->ns = 0; /* a constexpr parameter's member is the member itself here */
		m.self = self;
		if (has_decorator(m.fn, "property")) m = call_user(s, m, NULL, 0, NULL, NULL, 0, loc);
	}
	*out = m;
	return true;
}

bool enum_member_attr(Sema *s, Value v, const char *name, SrcLoc loc, Value *out)
{
	if (!v_is_enum_member(v)) return false;
	if (!strcmp(name, "value") && v.ns == ENUM_WRAPPED) { /* Triton's constexpr.value */
		v.ns = 0;
		*out = v;
	} else if (!strcmp(name, "value") || !strcmp(name, "_value_")) *out = member_value(v);
	else if (!strcmp(name, "name") || !strcmp(name, "_name_"))
		*out = member_name(v) ? v_str(member_name(v)) : v_none();
	else if (member_class_attr(s, v, name, loc, out)) return true;
	else if (v.kind == V_DICT) { /* an IntEnum member has its int's attributes besides */
		diag_error(s->d, loc, "%s has no attribute '%s'", v_describe(s, v), name);
		*out = v_err();
	} else return false;
	return true;
}

const char *enum_member_str(Sema *s, Value v, bool repr)
{
	char buf[256];
	Value pv = member_value(v);
	if (repr) {
		const char *r = py_repr_text(s, pv); /* a tuple value too: <P.A: (1, 2)> */
		if (!member_name(v)) return arena_printf(s->a, "<%s: %s>", class_name(v), r);
		return arena_printf(s->a, "<%s.%s: %s>", class_name(v), member_name(v), r);
	}
	/* Python 3.11+: an IntEnum's, IntFlag's and StrEnum's str() is its value's
	 * (not a mixin's, class A(int, Enum)) */
	if (v.kind == V_CONST && v.mod->enum_kind != ENUM_MIXIN_INT && v.mod->enum_kind != ENUM_MIXIN_STR) {
		if (pv.c.kind == CV_STR) return pv.c.s;
		const_str(pv.c, buf, sizeof buf);
		return arena_strdup(s->a, buf);
	}
	if (!member_name(v)) return arena_printf(s->a, "%s(%lld)", class_name(v), (long long)pv.c.i); /* Perm(0) */
	return arena_printf(s->a, "%s.%s", class_name(v), member_name(v));
}

bool enum_members_identical(Value a, Value b)
{
	if (a.kind != b.kind || !v_is_enum_member(a) || !v_is_enum_member(b)) return false;
	if (a.kind == V_DICT) return a.msg == b.msg && a.mod == b.mod && values_identical(a.items[1], b.items[1]);
	return a.mod == b.mod && const_eq(a.c, b.c);
}

/* The Flag or IntFlag class of member v (NULL for anything else) */
static ModScope *flag_class(Value v)
{
	if (!v_is_enum_member(v) || !v.mod || !v.mod->cls) return NULL;
	if (v.mod->enum_kind == ENUM_FLAG && v.kind == V_DICT) return v.mod;
	if (v.mod->enum_kind == ENUM_INTFLAG && v.kind == V_CONST) return v.mod;
	return NULL;
}

/* a flag member's int (an IntFlag member is its int; so is a plain int) */
static int64_t flag_value(Value v) { return v.kind == V_DICT ? v.items[1].c.i : v.c.i; }

/* The member of flag class c with value r: the member that has it (an
 * alias's first name), else a composite named as Python 3.11+ names it: its
 * single-bit members by value (R|W), then for an IntFlag the bits no member
 * has, as a number (A|8); none for 0 (Perm(0)). */
static Value flag_member(Sema *s, ModScope *c, int64_t r)
{
	int kind = c->enum_kind;
	for (int i = 0; i < c->enum_n; i++)
		if (c->enum_m[i].canon == i && c->enum_m[i].value.c.i == r) return make_member(s, c, kind, &c->enum_m[i]);
	StrBuf name = {0};
	uint64_t left = (uint64_t)r;
	for (int b = 0; b < 64; b++) {
		uint64_t bit = (uint64_t)1 << b;
		for (int i = 0; i < c->enum_n && (left & bit); i++)
			if (c->enum_m[i].canon == i && (uint64_t)c->enum_m[i].value.c.i == bit) {
				sb_printf(&name, "%s%s", name.len ? "|" : "", c->enum_m[i].name);
				left &= ~bit;
			}
	}
	if (left && kind == ENUM_INTFLAG) sb_printf(&name, "%s%lld", name.len ? "|" : "", (long long)left);
	/* an IntFlag member is a named int: "" stands for no name */
	const char *n = name.s ? arena_strdup(s->a, name.s) : kind == ENUM_INTFLAG ? "" : NULL;
	sb_free(&name);
	EnumMember comp = {n, v_int(r), 0};
	return make_member(s, c, kind, &comp);
}

/* `Perm.R | Perm.W`, `&`, `^` of two members of one Flag class, or of an
 * IntFlag member and an int (either side, as IntFlag's __ror__): the member
 * of that value, a composite one if no member has it. A Flag member and an
 * int, or members of two Flag classes, are left to the caller's TypeError. */
bool enum_flag_op(Sema *s, AstOp op, Value a, Value b, Value *out)
{
	if (op != OP_BITOR && op != OP_BITAND && op != OP_BITXOR) return false;
	ModScope *ca = flag_class(a), *cb = flag_class(b), *c = ca ? ca : cb;
	if (!c) return false;
	if (ca != cb) { /* an IntFlag with an int (or another IntFlag): the IntFlag's class */
		if (c->enum_kind != ENUM_INTFLAG) return false;
		Value other = c == ca ? b : a;
		if (!v_is_intlike(other) || (v_is_enum_member(other) && !flag_class(other))) return false;
	}
	int64_t x = flag_value(a), y = flag_value(b);
	*out = flag_member(s, c, op == OP_BITOR ? x | y : op == OP_BITAND ? x & y : x ^ y);
	return true;
}

/* `~Perm.R`: the members' bits a is not (Flag: of its single-bit members;
 * IntFlag: of every bit up to its highest member's, as Python 3.11+) */
bool enum_flag_invert(Sema *s, Value a, Value *out)
{
	ModScope *c = flag_class(a);
	if (!c) return false;
	uint64_t all = 0;
	for (int i = 0; i < c->enum_n; i++) {
		uint64_t v = (uint64_t)c->enum_m[i].value.c.i;
		if (c->enum_kind == ENUM_INTFLAG || (v && !(v & (v - 1)))) all |= v;
	}
	if (c->enum_kind == ENUM_INTFLAG) { /* 2**all.bit_length() - 1 */
		uint64_t full = 0;
		while (full < all) full = full << 1 | 1;
		all = full;
	}
	*out = flag_member(s, c, (int64_t)(all & ~(uint64_t)flag_value(a)));
	return true;
}

/* `Perm.R in mode`: whether a's bits are all in b; a must be a member of
 * b's class (else Python's TypeError). False if b is no flag member. */
bool enum_flag_contains(Sema *s, Value a, Value b, SrcLoc loc, Value *out)
{
	ModScope *c = flag_class(b);
	if (!c) return false;
	if (a.kind != V_ERR && flag_class(a) != c) {
		s->py_errors++;
		diag_error(s->d, loc, "unsupported operand type(s) for 'in': %s and %s member (a TypeError in Python)",
			   v_describe(s, a), c->name);
		a = v_err();
	}
	*out = a.kind == V_ERR ? a : v_bool((flag_value(a) & flag_value(b)) == flag_value(a));
	return true;
}

/* `for m in Perm.R | Perm.X`, list(), len(): the single-bit members whose bits
 * v has, by value (Python 3.11+); false if v is no flag member. */
bool enum_flag_items(Sema *s, Value v, Value *out)
{
	ModScope *c = flag_class(v);
	if (!c) return false;
	Value *items = ARENA_NEWN(s->a, Value, 65);
	int n = 0;
	uint64_t x = (uint64_t)flag_value(v);
	for (int b = 0; b < 64; b++) {
		uint64_t bit = (uint64_t)1 << b;
		for (int i = 0; i < c->enum_n && (x & bit); i++)
			if (c->enum_m[i].canon == i && (uint64_t)c->enum_m[i].value.c.i == bit) {
				items[n++] = make_member(s, c, c->enum_kind, &c->enum_m[i]);
				break;
			}
	}
	*out = v_tuple(s, items, n);
	return true;
}

/* A Flag member is false when its value is 0; other members are true (an
 * IntEnum's truth is its int's) */
bool enum_member_truthy(Value v)
{
	if (v.kind == V_DICT && v.mod && v.mod->enum_kind == ENUM_FLAG) return v.items[1].c.i != 0;
	return true;
}

/* The members of enum class c in definition order, aliases left out (what
 * `for m in Act`, `list(Act)` and `len(Act)` see); false if c is no enum. */
bool enum_class_items(Sema *s, ModScope *c, Value *out)
{
	int kind = enum_class_kind(s, c);
	if (kind == ENUM_NONE) return false;
	if (!enum_members(s, c, kind)) {
		*out = v_err();
		return true;
	}
	Value *items = ARENA_NEWN(s->a, Value, (size_t)c->enum_n + 1);
	int n = 0;
	for (int i = 0; i < c->enum_n; i++) {
		/* a Flag's members of 0 or several bits are aliases to Python 3.11+ */
		uint64_t v = kind == ENUM_FLAG || kind == ENUM_INTFLAG ? (uint64_t)c->enum_m[i].value.c.i : 1;
		if (c->enum_m[i].canon == i && v && !(v & (v - 1))) items[n++] = make_member(s, c, kind, &c->enum_m[i]);
	}
	*out = v_tuple(s, items, n);
	return true;
}

/* whether member value m equals Python value pv (a dict lookup's equality) */
static bool value_eq(Value m, Value pv)
{
	if (m.kind != V_CONST || pv.kind != V_CONST) return values_identical(m, pv);
	if (m.c.kind == CV_STR || pv.c.kind == CV_STR) return m.c.kind == pv.c.kind && !strcmp(m.c.s, pv.c.s);
	return const_eq(m.c, pv.c);
}

/* `Act(1)`: the member of that value (a member itself gives itself); a Flag
 * class gives the composite of its bits. A value no member has is Python's
 * ValueError. */
Value enum_by_value(Sema *s, ModScope *c, Value v, SrcLoc loc)
{
	int kind = enum_class_kind(s, c);
	if (v.kind == V_ERR || !enum_members(s, c, kind)) return v_err();
	if (v_is_enum_member(v) && v.mod == c) return v;
	Value pv = v_is_enum_member(v) ? (v.kind == V_DICT ? v.items[1] : (Value){.kind = V_CONST, .c = v.c}) : v;
	for (int i = 0; i < c->enum_n; i++)
		if (value_eq(c->enum_m[i].value, pv)) return make_member(s, c, kind, &c->enum_m[c->enum_m[i].canon]);
	if (kind == ENUM_INTFLAG && v_is_intlike(pv)) return flag_member(s, c, pv.c.i); /* any int: KEEP */
	if (kind == ENUM_FLAG && v_is_intlike(pv) && pv.c.i >= 0) {
		int64_t all = 0;
		for (int i = 0; i < c->enum_n; i++) all |= c->enum_m[i].value.c.i;
		if (!(pv.c.i & ~all)) return flag_member(s, c, pv.c.i); /* Perm(3): R|W */
	}
	s->py_errors++;
	diag_error(s->d, loc, "%s is not a valid %s (a ValueError in Python)", py_repr_text(s, pv), c->name);
	return v_err();
}

/* `Act['RELU']`: the member of that name (Python's KeyError if none) */
Value enum_by_name(Sema *s, ModScope *c, Value key, SrcLoc loc)
{
	Value out;
	if (key.kind == V_ERR) return key;
	if (v_is_const(key, CV_STR) && enum_lookup(s, c, istr(s, key.c.s), loc, &out)) return out;
	s->py_errors++;
	diag_error(s->d, loc, "%s is not a member of %s (a KeyError in Python)", py_repr_text(s, key), c->name);
	return v_err();
}

bool enum_member_name(Sema *s, ModScope *m, Value v, ConstVal *out)
{
	if (!v_is_enum_member(v) || !v.mod || !m) return false; /* the dtype Enums have no module class */
	bool found;
	Value cls = global_get(s, m, istr(s, v.mod->name), (SrcLoc){0}, &found);
	if (!found || cls.kind != V_MODULE || cls.mod != v.mod || !member_name(v)) return false;
	*out = (ConstVal){.kind = CV_NAME, .s = arena_printf(s->a, "%s.%s", v.mod->name, member_name(v))};
	return true;
}

/* `x in Act`: a member of the class, or (Python 3.12) the value of one */
bool enum_class_contains(Sema *s, ModScope *c, Value v, bool *out)
{
	int kind = enum_class_kind(s, c);
	if (kind == ENUM_NONE) return false;
	*out = false;
	if (!enum_members(s, c, kind)) return true;
	if (v_is_enum_member(v) && (v.mod == c || v.kind == V_DICT)) { /* an Enum member's hash is its name's */
		*out = v.mod == c;
		return true;
	}
	for (int i = 0; i < c->enum_n && !*out; i++) *out = value_eq(c->enum_m[i].value, v);
	return true;
}
