/* types.c: dtypes and tile types (types.h). */
#include "ir/types.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name, *shortname;
	int bits;
} dtype_info[DT_COUNT] = {
	[DT_VOID] = {"void", "void", 0},
	[DT_I1] = {"int1", "i1", 1},
	[DT_I8] = {"int8", "i8", 8},
	[DT_I16] = {"int16", "i16", 16},
	[DT_I32] = {"int32", "i32", 32},
	[DT_I64] = {"int64", "i64", 64},
	[DT_U8] = {"uint8", "u8", 8},
	[DT_U16] = {"uint16", "u16", 16},
	[DT_U32] = {"uint32", "u32", 32},
	[DT_U64] = {"uint64", "u64", 64},
	[DT_F8E4M3] = {"float8e4nv", "fp8e4nv", 8},
	[DT_F8E5M2] = {"float8e5", "fp8e5", 8},
	[DT_F16] = {"float16", "fp16", 16},
	[DT_BF16] = {"bfloat16", "bf16", 16},
	[DT_F32] = {"float32", "fp32", 32},
	[DT_F64] = {"float64", "fp64", 64},
	[DT_PTR] = {"pointer", "ptr", 64},
};

const char *dtype_name(DType d) { return (unsigned)d < DT_COUNT ? dtype_info[d].name : "?"; }
const char *dtype_short(DType d) { return (unsigned)d < DT_COUNT ? dtype_info[d].shortname : "?"; }
int dtype_bits(DType d) { return (unsigned)d < DT_COUNT ? dtype_info[d].bits : 0; }
int dtype_bytes(DType d) { return d == DT_I1 ? 1 : dtype_bits(d) / 8; }
bool dtype_is_float(DType d) { return d >= DT_F8E4M3 && d <= DT_F64; }
bool dtype_is_int(DType d) { return d >= DT_I1 && d <= DT_U64; }
bool dtype_is_signed(DType d) { return d >= DT_I8 && d <= DT_I64; }

bool dtype_from_name(const char *s, DType *out)
{
	static const struct {
		const char *alias;
		DType d;
	} aliases[] = {
	    {"bool", DT_I1},          {"f32", DT_F32},           {"f16", DT_F16},
	    {"f64", DT_F64},          {"float", DT_F32},         {"half", DT_F16},
	    {"double", DT_F64},       {"float8e4m3fn", DT_F8E4M3}, {"float8_e4m3fn", DT_F8E4M3},
	    {"fp8e4m3fn", DT_F8E4M3}, {"float8e5m2", DT_F8E5M2}, {"float8_e5m2", DT_F8E5M2},
	    {"fp8e5m2", DT_F8E5M2},   {"fp8e4", DT_F8E4M3},      {"float8e4", DT_F8E4M3},
	    {"b1", DT_I1},            {"int", DT_I32},
	};
	if (!s) return false;
	for (int d = DT_I1; d < DT_PTR; d++) {
		if (!strcmp(s, dtype_info[d].name) || !strcmp(s, dtype_info[d].shortname)) {
			*out = (DType)d;
			return true;
		}
	}
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
		if (!strcmp(s, aliases[i].alias)) {
			*out = aliases[i].d;
			return true;
		}
	}
	return false;
}

Type type_tile(Type scalar, int rank, const int32_t *shape)
{
	Type t = scalar;
	memset(t.shape, 0, sizeof t.shape);
	t.rank = (uint8_t)rank;
	for (int i = 0; i < rank; i++) t.shape[i] = shape[i];
	return t;
}

Type type_elem(Type t)
{
	t.rank = 0;
	memset(t.shape, 0, sizeof t.shape);
	return t;
}

bool type_eq(Type a, Type b)
{
	if (a.dt != b.dt || a.rank != b.rank || a.addrspace != b.addrspace) return false;
	if (a.dt == DT_PTR && a.elem != b.elem) return false;
	for (int i = 0; i < a.rank; i++)
		if (a.shape[i] != b.shape[i]) return false;
	return true;
}

int64_t type_numel(Type t)
{
	int64_t n = 1;
	for (int i = 0; i < t.rank; i++) n *= t.shape[i];
	return n;
}

void type_str(Type t, char *buf, int n)
{
	char el[32];
	if (n <= 0) return;
	if (t.dt == DT_PTR)
		snprintf(el, sizeof el, "%s*%s", t.addrspace == 3 ? "shared " : "", dtype_short((DType)t.elem));
	else
		snprintf(el, sizeof el, "%s", dtype_short((DType)t.dt));
	if (t.rank == 0) {
		snprintf(buf, (size_t)n, "%s", el);
		return;
	}
	int len = snprintf(buf, (size_t)n, "<");
	for (int i = 0; i < t.rank && len < n; i++) len += snprintf(buf + len, (size_t)(n - len), "%dx", (int)t.shape[i]);
	if (len < n) snprintf(buf + len, (size_t)(n - len), "%s>", el);
}
