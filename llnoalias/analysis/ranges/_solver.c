/* The range analysis's two queries (ranges.FunctionRanges.offset and
 * transfer.IntTransfer.int_range), compiled.
 *
 * offset(fr, ty, v) and int_range(fr, ty, v) do what the Python methods do, step for step:
 * the per-function caches (fr.ints, fr.offs), the budget, depth and in-progress marks
 * (fr._budget, fr._depth, fr._low, fr._inprog: kept in fr's own attributes, so the Python
 * steps this hands work to see the same state), and the walk down the operands of the
 * instructions that make addresses and indices: getelementptr's base, casts, add/sub/or
 * on an address, integer binops and zext/sext/trunc. The arithmetic on ranges is the
 * Python domain's (binop_result, cast_result, add_off_result, with_known, FunctionRanges.
 * _gep_from); every other instruction, value or odd case goes to the Python method that
 * handles it (_int_ops, _off_inst, _int_other, _off_other, _arg_range, _before_query), which
 * asks its operands through fr.int_range/fr.offset, this again.
 *
 * The Python methods are the reference: tests/analysis/ranges/test_twin_range_solver.py compares the two on every
 * function of every fixture and corpus file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_kbits.h"

static PyTypeObject *LocalT, *PlainT, *RangeT, *OffT, *RootT;
static PyObject *f_const_range, *f_binop_result, *f_cast_result, *f_add_off_result, *f_with_known, *f_parse;
static PyObject *f_known, *f_add_sub, *f_mul, *f_shl, *f_at_line, *kw_sub;
static PyObject *NOTHING;
static long BUDGET, MAX_DEPTH;

/* interned names */
static PyObject *s_ints, *s_offs, *s_fn, *s_by_name, *s_assume, *s_inprog, *s_depth, *s_budget, *s_low,
    *s_phis_solved, *s_before_query, *s_arg_range, *s_int_other, *s_off_other, *s_int_ops, *s_off_inst, *s_gep_from,
    *s_fa, *s_value, *s_vscale, *s_lds_bits, *s_mod, *s_ops, *s_kind, *s_flags, *s_operands, *s_source_type,
    *s_result_type, *s_name, *s_text, *s_fields, *s_bits, *w_i, *w_o, *s_vals, *s_dl, *s_addrspace, *s_elem,
    *s_count, *s_alloc_size, *s_named_types, *s_scalar_sizes, *s_pointer_bits, *s_index_bits;
/* strings compared with */
static PyObject *k_int, *k_ptr, *k_binop, *k_cast, *k_gep, *k_zext, *k_sext, *k_trunc, *k_bitcast, *k_add, *k_sub,
    *k_mul, *k_shl, *k_and, *k_or, *k_xor, *k_umin, *k_disjoint, *k_lshr, *k_ashr, *k_float, *k_array,
    *k_vector;
/* reasons, from llnoalias/reasons.py (handed to init): messages, the word that marks a value
 * that depends on itself, and reasons with fields, called with the fields in order */
static PyObject *w_itself, *r_itself, *r_deep, *r_budget, *r_not_int, *r_gep_unread, *r_gep_wrap, *r_gep_negative,
    *r_may_wrap, *r_too_wide, *r_const_not_int, *r_offset_no_range, *r_gep_no_range, *r_argument, *r_shift_non_const, *r_trunc_drops,
    *r_narrowing_cast, *r_widened_cast;

#define LOW_NONE (1L << 30)

/* A reason that wraps another's message (OFFSET_NO_RANGE, GEP_INDEX_NO_RANGE), called with
 * ``why``: the last call's message again when ``why`` is the very object it was made from.
 * A failed range is cached once per value (fr.ints) and every address built on that value
 * (an LDS pipeline's stage: the DMA's and the load's ``base + off``) wraps that one object;
 * the message depends on nothing but the reason and ``why``'s text and code, which a str
 * never changes, so the shared message is the one a new call would make. */
typedef struct {
    PyObject *why, *said;
} Wrapped;

static Wrapped wrapped_offset, wrapped_gep;

static PyObject *wrap_why(PyObject *reason, PyObject *why, Wrapped *last) {
    if (last->why == why && last->said != NULL) return Py_NewRef(last->said);
    PyObject *said = PyObject_CallOneArg(reason, why);
    if (said == NULL) return NULL;
    Py_XSETREF(last->why, Py_NewRef(why));
    Py_XSETREF(last->said, Py_NewRef(said));
    return said;
}

static const KB NO_BITS = {0, 0};

typedef struct {
    PyObject *self;
    PyObject *d;       /* self.__dict__ */
    PyObject *ints, *offs, *by_name, *assume, *inprog, *mod, *fa;
    long lds_bits;
    int vscale;
} Ctx;

static void ctx_clear(Ctx *c) {
    Py_CLEAR(c->d);
    Py_CLEAR(c->ints);
    Py_CLEAR(c->offs);
    Py_CLEAR(c->by_name);
    Py_CLEAR(c->assume);
    Py_CLEAR(c->inprog);
    Py_CLEAR(c->mod);
    Py_CLEAR(c->fa);
}

/* a new reference to the attribute key of self's __dict__, or NULL with an exception */
static PyObject *dget(Ctx *c, PyObject *key) {
    PyObject *v = PyDict_GetItemWithError(c->d, key);
    if (v == NULL) {
        if (!PyErr_Occurred()) return PyObject_GetAttr(c->self, key);
        return NULL;
    }
    return Py_NewRef(v);
}

static int ctx_init(Ctx *c, PyObject *self) {
    memset(c, 0, sizeof(*c));
    c->self = self;
    c->d = PyObject_GenericGetDict(self, NULL);
    if (c->d == NULL) return -1;
    PyObject *fn = NULL, *bits = NULL, *vs = NULL;
    if ((c->ints = dget(c, s_ints)) == NULL || (c->offs = dget(c, s_offs)) == NULL ||
        (c->assume = dget(c, s_assume)) == NULL || (c->inprog = dget(c, s_inprog)) == NULL ||
        (c->mod = dget(c, s_mod)) == NULL || (c->fa = dget(c, s_fa)) == NULL || (fn = dget(c, s_fn)) == NULL)
        goto fail;
    c->by_name = PyObject_GetAttr(fn, s_by_name);
    Py_CLEAR(fn);
    if (c->by_name == NULL) goto fail;
    if (!PyDict_Check(c->ints) || !PyDict_Check(c->offs) || !PyDict_Check(c->assume) || !PyDict_Check(c->inprog) ||
        !PyDict_Check(c->by_name)) {
        PyErr_SetString(PyExc_TypeError, "ranges: the caches must be dicts");
        goto fail;
    }
    if ((bits = dget(c, s_lds_bits)) == NULL) goto fail;
    c->lds_bits = PyLong_AsLong(bits);
    Py_CLEAR(bits);
    if (c->lds_bits == -1 && PyErr_Occurred()) goto fail;
    if ((vs = dget(c, s_vscale)) == NULL) goto fail;
    c->vscale = PyObject_IsTrue(vs);
    Py_CLEAR(vs);
    if (c->vscale < 0) goto fail;
    return 0;
fail:
    ctx_clear(c);
    return -1;
}

static int get_long(Ctx *c, PyObject *key, long *out) {
    PyObject *v = dget(c, key);
    if (v == NULL) return -1;
    *out = PyLong_AsLong(v);
    Py_DECREF(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* an int attribute of an object, as a long: 0, or -1 with an exception */
static int get_long_attr(PyObject *o, PyObject *name, long *out) {
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL) return -1;
    *out = PyLong_AsLong(v);
    Py_DECREF(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int set_long(Ctx *c, PyObject *key, long value) {
    PyObject *v = PyLong_FromLong(value);
    if (v == NULL) return -1;
    int err = PyObject_SetAttr(c->self, key, v);
    Py_DECREF(v);
    return err;
}

static int eq(PyObject *a, PyObject *b) {
    if (a == b) return 1;
    return PyUnicode_Check(a) && PyUnicode_Compare(a, b) == 0;
}

/* interval.RANGE_BITS: a wider integer has no range (interval.too_wide says why) */
#define RANGE_BITS 1024

/* the bit width of an integer type, 0 for anything else, -1 on error */
static long width(PyObject *ty) {
    if (ty == Py_None) return 0;
    PyObject *kind = PyObject_GetAttr(ty, s_kind);
    if (kind == NULL) return -1;
    int is_int = eq(kind, k_int);
    Py_DECREF(kind);
    if (!is_int) return 0;
    PyObject *bits = PyObject_GetAttr(ty, s_bits);
    if (bits == NULL) return -1;
    long w = PyLong_AsLong(bits);
    Py_DECREF(bits);
    return (w == -1 && PyErr_Occurred()) ? -1 : w;
}

/* is ty of this kind: 1, 0, or -1 on error */
static int kind_is(PyObject *ty, PyObject *kind) {
    if (ty == Py_None) return 0;
    PyObject *k = PyObject_GetAttr(ty, s_kind);
    if (k == NULL) return -1;
    int r = eq(k, kind);
    Py_DECREF(k);
    return r;
}

/* before a query from outside (depth 0): LoopRanges._before_query */
static int before_query(Ctx *c) {
    long depth;
    if (get_long(c, s_depth, &depth) < 0) return -1;
    if (depth != 0) return 0;
    PyObject *solved = PyDict_GetItemWithError(c->d, s_phis_solved);
    if (solved == Py_True) return set_long(c, s_budget, BUDGET); /* what it does once the phis are solved */
    if (solved == NULL && PyErr_Occurred()) return -1;
    PyObject *r = PyObject_CallMethodNoArgs(c->self, s_before_query);
    if (r == NULL) return -1;
    Py_DECREF(r);
    return 0;
}

/* a value still in progress at depth p (an int) was read: _low = min(_low, p) */
static int read_in_progress(Ctx *c, PyObject *p) {
    long at = PyLong_AsLong(p), low;
    if ((at == -1 && PyErr_Occurred()) || get_long(c, s_low, &low) < 0) return -1;
    return at < low ? set_long(c, s_low, at) : 0;
}

/* IntTransfer._enter: 0 and *saved, or 1 and *why (a new reference), or -1 */
static int enter(Ctx *c, PyObject *key, long *saved, PyObject **why) {
    PyObject *p = PyDict_GetItemWithError(c->inprog, key);
    long low, depth, budget;
    if (p != NULL) {
        if (read_in_progress(c, p) < 0) return -1;
        *why = Py_NewRef(r_itself);
        return 1;
    }
    if (PyErr_Occurred() || get_long(c, s_low, &low) < 0) return -1;
    if (get_long(c, s_depth, &depth) < 0) return -1;
    if (depth >= MAX_DEPTH) {
        *why = Py_NewRef(r_deep);
        return 1;
    }
    if (get_long(c, s_budget, &budget) < 0 || set_long(c, s_budget, budget - 1) < 0) return -1;
    if (budget - 1 < 0) {
        *why = Py_NewRef(r_budget);
        return 1;
    }
    depth += 1;
    PyObject *dv = PyLong_FromLong(depth);
    if (dv == NULL) return -1;
    int err = PyDict_SetItem(c->inprog, key, dv);
    Py_DECREF(dv);
    if (err < 0 || set_long(c, s_depth, depth) < 0) return -1;
    *saved = low;
    return set_long(c, s_low, LOW_NONE) < 0 ? -1 : 0;
}

/* IntTransfer._leave: 1 when the result may be cached, 0 when not, -1 on error */
static int leave(Ctx *c, PyObject *key, long saved) {
    PyObject *p = PyDict_GetItemWithError(c->inprog, key);
    if (p == NULL) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, key);
        return -1;
    }
    long at = PyLong_AsLong(p);
    if (at == -1 && PyErr_Occurred()) return -1;
    if (PyDict_DelItem(c->inprog, key) < 0) return -1;
    long depth, low;
    if (get_long(c, s_depth, &depth) < 0 || set_long(c, s_depth, depth - 1) < 0) return -1;
    if (get_long(c, s_low, &low) < 0) return -1;
    int ok = low >= at;
    if (set_long(c, s_low, ok ? saved : (saved < low ? saved : low)) < 0) return -1;
    return ok;
}

/* the end of a query's try/finally: leave key (also when res is NULL, the error kept),
 * and put res in cache under name when it used no value still in progress; res (stolen)
 * or NULL */
static PyObject *leave_and_cache(Ctx *c, PyObject *key, long saved, PyObject *res, PyObject *cache,
                                 PyObject *name) {
    if (res == NULL) {
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        if (leave(c, key, saved) < 0) {
            Py_XDECREF(et);
            Py_XDECREF(ev);
            Py_XDECREF(tb);
        } else {
            PyErr_Restore(et, ev, tb);
        }
        return NULL;
    }
    int ok = leave(c, key, saved);
    if (ok < 0 || (ok && PyDict_SetItem(cache, name, res) < 0)) {
        Py_DECREF(res);
        return NULL;
    }
    return res;
}

static PyObject *ops_of(Ctx *c, PyObject *inst) {
    PyObject *ops = PyObject_GetAttr(inst, s_ops);
    if (ops == NULL || ops != Py_None) return ops;
    Py_DECREF(ops);
    return PyObject_CallFunctionObjArgs(f_parse, c->mod, inst, NULL);
}

/* (type, value) of operands[i]: borrowed references; 0 when it is not such a pair */
static int pair(PyObject *operands, Py_ssize_t i, PyObject **ty, PyObject **v) {
    if (!PyList_Check(operands) || i >= PyList_GET_SIZE(operands)) return 0;
    PyObject *t = PyList_GET_ITEM(operands, i);
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2) return 0;
    *ty = PyTuple_GET_ITEM(t, 0);
    *v = PyTuple_GET_ITEM(t, 1);
    return 1;
}

static PyObject *c_int(Ctx *c, PyObject *ty, PyObject *v);
static PyObject *c_off(Ctx *c, PyObject *ty, PyObject *v);

static PyObject *const_of(PyObject *v, long w);

static PyObject *int_ops_py(Ctx *c, PyObject *ops, long w, PyObject *inst) {
    PyObject *wv = PyLong_FromLong(w);
    if (wv == NULL) return NULL;
    PyObject *r = PyObject_CallMethodObjArgs(c->self, s_int_ops, ops, wv, inst, NULL);
    Py_DECREF(wv);
    return r;
}

/* Range(lo, hi, zero, one), or NULL with an exception */
static PyObject *range_of(i128 lo, i128 hi, KB k) {
    PyObject *items[4] = {from_i128(lo), from_i128(hi), PyLong_FromUnsignedLongLong(k.zero),
                          PyLong_FromUnsignedLongLong(k.one)};
    return make((PyObject *)RangeT, 4, items);
}

/* a Range's ends and masks: 1, or 0 when r is no Range or they do not fit 128 and 64 bits
 * (a mask is read exactly: one past 64 bits is not read as its low bits) */
static int read_range(PyObject *r, i128 *lo, i128 *hi, KB *k) {
    return Py_TYPE(r) == RangeT && PyTuple_GET_SIZE(r) == 4 && to_i128(PyTuple_GET_ITEM(r, 0), lo) &&
           to_i128(PyTuple_GET_ITEM(r, 1), hi) && read_u64(PyTuple_GET_ITEM(r, 2), 1, &k->zero) &&
           read_u64(PyTuple_GET_ITEM(r, 3), 1, &k->one);
}

/* interval.with_known(Range(lo, hi, r), k, w): the Range, or NULL with an exception */
static PyObject *with_known_of(i128 lo, i128 hi, KB r, KB k, int w) {
    KB got;
    if (!range_with_known(&lo, &hi, r.zero, r.one, k, w, &got)) got = r; /* r kept as it was */
    return range_of(lo, hi, got);
}

/* interval.fit: 1 when [lo, hi] fits a window of iW */
static int fits(i128 lo, i128 hi, long w) {
    if (lo > hi || w <= 0) return 0;
    if (lo >= 0 && hi < ((i128)1 << w)) return 1;
    i128 half = (i128)1 << (w - 1);
    return -half <= lo && hi < half;
}

/* interval.int_const of a plain constant's text: 1 and *out, 0 when it is no integer, 2
 * when it is one that does not fit 128 bits (Python reads it), -1 on error */
static int int_const(PyObject *t, i128 *out) {
    if (!PyUnicode_Check(t)) return 2;
    if (PyUnicode_CompareWithASCIIString(t, "true") == 0) {
        *out = 1;
        return 1;
    }
    if (PyUnicode_CompareWithASCIIString(t, "false") == 0 || PyUnicode_CompareWithASCIIString(t, "zeroinitializer") == 0 ||
        PyUnicode_CompareWithASCIIString(t, "null") == 0) {
        *out = 0;
        return 1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(t);
    if (n == 0) return 0;
    Py_UCS4 first = PyUnicode_READ_CHAR(t, 0);
    if (!Py_UNICODE_ISDIGIT(first)) {
        /* t[0] in "+-" and t[1:].isdigit() */
        if (!(first == '+' || first == '-') || n < 2) return 0;
        for (Py_ssize_t i = 1; i < n; i++)
            if (!Py_UNICODE_ISDIGIT(PyUnicode_READ_CHAR(t, i))) return 0;
    }
    PyObject *v = PyLong_FromUnicodeObject(t, 10);
    if (v == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError)) return -1;
        PyErr_Clear();
        return 0;
    }
    int ok = to_i128(v, out);
    Py_DECREF(v);
    return ok ? 1 : 2;
}

/* interval.const_range(v, w): a new reference (None when v is no integer constant of iW),
 * or NULL with an exception */
static PyObject *const_of(PyObject *v, long w) {
    if (!PyObject_TypeCheck(v, PlainT)) return Py_NewRef(Py_None);
    if (w <= 64) {
        PyObject *text = PyObject_GetAttr(v, s_text);
        if (text == NULL) return NULL;
        i128 c = 0;
        int got = int_const(text, &c);
        Py_DECREF(text);
        if (got < 0) return NULL;
        if (got == 0) return Py_NewRef(Py_None);
        if (got == 1) {
            if (w == 1 && c == -1) return range_of(1, 1, NO_BITS);
            return fits(c, c, w) ? range_of(c, c, NO_BITS) : Py_NewRef(Py_None);
        }
    }
    PyObject *wv = PyLong_FromLong(w);
    if (wv == NULL) return NULL;
    PyObject *r = PyObject_CallFunctionObjArgs(f_const_range, v, wv, NULL);
    Py_DECREF(wv);
    return r;
}

/* interval.urange / srange of Range(lo, hi, k) in iW (ok: it is a Range), in place: its
 * masks kept where the Range is, nothing known for the full range */
static void urange(int ok, i128 *lo, i128 *hi, KB *k, int w) {
    if (ok && *lo >= 0) return;
    if (ok && *hi < 0) {
        *lo += (i128)1 << w;
        *hi += (i128)1 << w;
        return;
    }
    *lo = 0;
    *hi = ((i128)1 << w) - 1;
    *k = NO_BITS;
}

static void srange(int ok, i128 *lo, i128 *hi, KB *k, int w) {
    i128 half = (i128)1 << (w - 1);
    if (ok && *hi < half) return;
    if (ok && *lo >= half) {
        *lo -= (i128)1 << w;
        *hi -= (i128)1 << w;
        return;
    }
    *lo = -half;
    *hi = half - 1;
    *k = NO_BITS;
}

/* int.bit_length of 0 <= v < 2**64 */
static int bit_length(i128 v) { return v ? 64 - __builtin_clzll((u64)v) : 0; }

static PyObject *reason_at(PyObject *reason, PyObject *op, PyObject *inst) {
    PyObject *where = PyObject_CallOneArg(f_at_line, inst);
    if (where == NULL) return NULL;
    PyObject *why = PyObject_CallFunctionObjArgs(reason, op, where, NULL);
    Py_DECREF(where);
    return why;
}

enum { OP_ADD, OP_SUB, OP_MUL, OP_SHL, OP_LSHR, OP_ASHR, OP_AND, OP_OR, OP_XOR, OP_OTHER };

/* transfer.binop_result(op, flags, a, b, cb, w, inst) for the operations below and
 * w <= 64: a new reference, or NULL with an exception, or NULL with none set (then the
 * Python function answers: other operations, ends that do not fit, a product past 128 bits) */
static PyObject *c_binop(PyObject *op, PyObject *flags, PyObject *a, PyObject *b, PyObject *cb, long lw,
                         PyObject *inst) {
    static PyObject **names[OP_OTHER] = {&k_add, &k_sub, &k_mul, &k_shl, &k_lshr, &k_ashr, &k_and, &k_or, &k_xor};
    int o = 0;
    while (o < OP_OTHER && !eq(op, *names[o])) o++;
    if (o == OP_OTHER || lw < 1 || lw > 64) return NULL;
    int w = (int)lw, disjoint = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(flags); i++)
        if (eq(PyTuple_GET_ITEM(flags, i), k_disjoint)) disjoint = 1;
    if (o == OP_OR || o == OP_XOR) {
        PyObject *both[2] = {a, b};
        for (int i = 0; i < 2; i++) {
            if (!PyUnicode_Check(both[i])) continue;
            Py_ssize_t at = PyUnicode_Find(both[i], w_itself, 0, PY_SSIZE_T_MAX, 1);
            if (at == -2) return NULL;
            /* a loop value being solved: its phi finds an invariant (binop_result says why) */
            if (at >= 0) return Py_NewRef(both[i]);
        }
    }
    i128 alo = 0, ahi = 0, blo = 0, bhi = 0, clo = 0, chi = 0, lo, hi;
    KB ak = NO_BITS, bk = NO_BITS, ck;
    int ra = Py_TYPE(a) == RangeT, rb = Py_TYPE(b) == RangeT, has_c = cb != Py_None;
    if ((ra && !read_range(a, &alo, &ahi, &ak)) || (rb && !read_range(b, &blo, &bhi, &bk)) ||
        (has_c && !read_range(cb, &clo, &chi, &ck)))
        return NULL;
    if ((!ra && !PyUnicode_Check(a)) || (!rb && !PyUnicode_Check(b))) return NULL;
    /* binop_range */
    if (o == OP_ADD || o == OP_SUB || o == OP_MUL || (o == OP_OR && disjoint)) {
        if (!ra) return Py_NewRef(a);
        if (!rb) return Py_NewRef(b);
        if (o == OP_SUB) {
            lo = alo - bhi, hi = ahi - blo;
        } else if (o == OP_MUL) {
            i128 p[4];
            if (__builtin_mul_overflow(alo, blo, &p[0]) || __builtin_mul_overflow(alo, bhi, &p[1]) ||
                __builtin_mul_overflow(ahi, blo, &p[2]) || __builtin_mul_overflow(ahi, bhi, &p[3]))
                return NULL;
            lo = hi = p[0];
            for (int i = 1; i < 4; i++) {
                if (p[i] < lo) lo = p[i];
                if (p[i] > hi) hi = p[i];
            }
        } else {
            lo = alo + blo, hi = ahi + bhi;
        }
        if (!fits(lo, hi, w)) return reason_at(r_may_wrap, op, inst);
    } else if (o == OP_SHL || o == OP_LSHR || o == OP_ASHR) {
        if (!has_c || !(0 <= clo && clo < w)) return reason_at(r_shift_non_const, op, inst);
        int c = (int)clo;
        if (o == OP_SHL) {
            if (!ra) return Py_NewRef(a);
            lo = alo * ((i128)1 << c), hi = ahi * ((i128)1 << c); /* |a| < 2**64, c < 64: no overflow */
            if (!fits(lo, hi, w)) return reason_at(r_may_wrap, op, inst);
        } else {
            KB t = ak;
            lo = alo, hi = ahi;
            if (o == OP_LSHR) urange(ra, &lo, &hi, &t, w);
            else srange(ra, &lo, &hi, &t, w);
            lo >>= c, hi >>= c; /* an arithmetic shift: Python's >> on negative ints */
        }
    } else {
        i128 ulo = alo, uhi = ahi, vlo = blo, vhi = bhi;
        KB t = ak, u = bk;
        urange(ra, &ulo, &uhi, &t, w);
        if (o == OP_AND && has_c) {
            i128 c = clo, ch = chi, sc = clo, sh = chi;
            KB tc = ck, ts = ck;
            urange(1, &c, &ch, &tc, w);
            srange(1, &sc, &sh, &ts, w);
            if (sc < 0 && ((-sc) & (-sc - 1)) == 0) {
                /* a mask that clears the low bits: monotone on the unsigned reading */
                lo = ulo & c, hi = uhi & c;
            } else {
                lo = 0, hi = uhi < c ? uhi : c;
            }
        } else {
            urange(rb, &vlo, &vhi, &u, w);
            if (o == OP_AND) {
                lo = 0, hi = uhi < vhi ? uhi : vhi;
            } else {
                i128 top = ((i128)1 << bit_length(uhi > vhi ? uhi : vhi)) - 1, sum = uhi + vhi;
                if (o == OP_OR) {
                    lo = ulo > vlo ? ulo : vlo;
                    hi = top < sum ? top : sum;
                } else {
                    lo = 0, hi = top;
                }
            }
        }
    }
    /* the rest of binop_result: the operands' known bits */
    KB ka = ra ? range_known(alo, ahi, ak.zero, ak.one, w) : NO_BITS;
    KB kb = rb ? range_known(blo, bhi, bk.zero, bk.one, w) : NO_BITS;
    u64 m = mask_of(w);
    if ((o == OP_OR || o == OP_XOR) && (~ka.zero & ~kb.zero & m) == 0) {
        /* no bit set in both: the same value as their sum, which cannot wrap */
        i128 ulo = alo, uhi = ahi, vlo = blo, vhi = bhi;
        KB t = ak, u = bk;
        urange(ra, &ulo, &uhi, &t, w);
        urange(rb, &vlo, &vhi, &u, w);
        i128 glo = ulo + vlo, ghi = uhi + vhi;
        if (fits(glo, ghi, w) && glo >= 0 && lo >= 0) {
            i128 nlo = lo > glo ? lo : glo, nhi = hi < ghi ? hi : ghi;
            if (nlo <= nhi) lo = nlo, hi = nhi;
        }
    }
    KB k;
    switch (o) {
    case OP_ADD: k = kb_add_sub(ka, kb, w, 0); break;
    case OP_SUB: k = kb_add_sub(ka, kb, w, 1); break;
    case OP_MUL: k = kb_mul(ka, kb, w); break;
    case OP_AND: k.zero = ka.zero | kb.zero, k.one = ka.one & kb.one; break;
    case OP_OR: k.zero = ka.zero & kb.zero, k.one = ka.one | kb.one; break;
    case OP_XOR:
        k.zero = (ka.zero & kb.zero) | (ka.one & kb.one);
        k.one = (ka.zero & kb.one) | (ka.one & kb.zero);
        break;
    default: {
        /* a shift by the constant c < w (a larger one was answered above) */
        int c = (int)clo;
        if (clo != chi) return range_of(lo, hi, NO_BITS); /* known_binop: no constant, no bits */
        k = o == OP_SHL ? kb_shl(ka, c, w) : o == OP_LSHR ? kb_lshr(ka, c, w) : kb_ashr(ka, c, w);
    }
    }
    return with_known_of(lo, hi, NO_BITS, k, w);
}

/* transfer.cast_result(cast, r, sw, w, inst) for zext, sext and trunc between widths
 * of at most 64 bits; NULL with no exception when Python answers */
static PyObject *c_cast(PyObject *cast, PyObject *r, long sw, long w, PyObject *inst) {
    int z = eq(cast, k_zext), x = !z && eq(cast, k_sext);
    if (sw < 1 || sw > 64 || w < 1 || w > 64 || (!z && !x && !eq(cast, k_trunc))) return NULL;
    i128 lo = 0, hi = 0;
    KB k = NO_BITS;
    int ok = Py_TYPE(r) == RangeT;
    if ((ok && !read_range(r, &lo, &hi, &k)) || (!ok && !PyUnicode_Check(r))) return NULL;
    KB known = ok ? range_known(lo, hi, k.zero, k.one, (int)sw) : NO_BITS;
    if (z || x) {
        if (z) urange(ok, &lo, &hi, &k, (int)sw);
        else srange(ok, &lo, &hi, &k, (int)sw);
        return with_known_of(lo, hi, k, kb_ext(known, (int)sw, (int)w, x), (int)w);
    }
    if (!ok) return Py_NewRef(r);
    if (!fits(lo, hi, w)) return reason_at(r_trunc_drops, cast, inst);
    u64 m = mask_of((int)w);
    KB t = {known.zero & m, known.one & m};
    return with_known_of(lo, hi, NO_BITS, t, (int)w);
}

/* IntTransfer._binop */
static PyObject *int_binop(Ctx *c, PyObject *ops, long w, PyObject *inst) {
    PyObject *flags = NULL, *operands = NULL, *ca = NULL, *cb = NULL, *a = NULL, *b = NULL, *out = NULL;
    PyObject *ta, *va, *tb, *vb;
    flags = PyObject_GetAttr(ops, s_flags);
    if (flags == NULL) goto done;
    operands = PyObject_GetAttr(ops, s_operands);
    if (operands == NULL) goto done;
    if (!PyTuple_Check(flags) || PyTuple_GET_SIZE(flags) < 1 || !PyList_Check(operands) ||
        PyList_GET_SIZE(operands) != 2 || !pair(operands, 0, &ta, &va) || !pair(operands, 1, &tb, &vb)) {
        out = int_ops_py(c, ops, w, inst); /* let Python say what is wrong */
        goto done;
    }
    PyObject *op = PyTuple_GET_ITEM(flags, 0);
    if ((ca = const_of(va, w)) == NULL || (cb = const_of(vb, w)) == NULL) goto done;
    if (ca != Py_None && cb == Py_None &&
        (eq(op, k_add) || eq(op, k_mul) || eq(op, k_and) || eq(op, k_or) || eq(op, k_xor) || eq(op, k_umin))) {
        PyObject *t;
        t = va, va = vb, vb = t;
        t = ta, ta = tb, tb = t;
        t = ca, ca = cb, cb = t;
    }
    a = ca != Py_None ? Py_NewRef(ca) : c_int(c, ta, va);
    if (a == NULL) goto done;
    b = cb != Py_None ? Py_NewRef(cb) : c_int(c, tb, vb);
    if (b == NULL) goto done;
    out = c_binop(op, flags, a, b, cb, w, inst);
    if (out != NULL || PyErr_Occurred()) goto done;
    PyObject *wv = PyLong_FromLong(w);
    if (wv == NULL) goto done;
    PyObject *args[7] = {op, flags, a, b, cb, wv, inst};
    out = PyObject_Vectorcall(f_binop_result, args, 7, NULL);
    Py_DECREF(wv);
done:
    Py_XDECREF(flags);
    Py_XDECREF(operands);
    Py_XDECREF(ca);
    Py_XDECREF(cb);
    Py_XDECREF(a);
    Py_XDECREF(b);
    return out;
}

/* IntTransfer._int_inst */
static PyObject *int_inst(Ctx *c, PyObject *inst, long w) {
    PyObject *ops = ops_of(c, inst);
    if (ops == NULL) return NULL;
    PyObject *kind = PyObject_GetAttr(ops, s_kind), *out = NULL;
    if (kind == NULL) goto done;
    if (eq(kind, k_binop)) {
        out = int_binop(c, ops, w, inst);
        goto done;
    }
    if (eq(kind, k_cast)) {
        PyObject *flags = PyObject_GetAttr(ops, s_flags);
        if (flags == NULL) goto done;
        PyObject *operands = PyObject_GetAttr(ops, s_operands);
        if (operands == NULL) {
            Py_DECREF(flags);
            goto done;
        }
        PyObject *sty, *sv;
        if (PyTuple_Check(flags) && PyTuple_GET_SIZE(flags) >= 1 && pair(operands, 0, &sty, &sv)) {
            PyObject *cast = PyTuple_GET_ITEM(flags, 0);
            if (eq(cast, k_zext) || eq(cast, k_sext) || eq(cast, k_trunc)) {
                long sw = width(sty);
                if (sw < 0) {
                    Py_DECREF(flags);
                    Py_DECREF(operands);
                    goto done;
                }
                if (sw > 0) {
                    PyObject *r = c_int(c, sty, sv);
                    if (r != NULL && (out = c_cast(cast, r, sw, w, inst)) == NULL && !PyErr_Occurred()) {
                        PyObject *swv = PyLong_FromLong(sw), *wv = PyLong_FromLong(w);
                        if (swv != NULL && wv != NULL)
                            out = PyObject_CallFunctionObjArgs(f_cast_result, cast, r, swv, wv, inst, NULL);
                        Py_XDECREF(swv);
                        Py_XDECREF(wv);
                        Py_DECREF(r);
                    }
                    Py_DECREF(flags);
                    Py_DECREF(operands);
                    goto done;
                }
            }
        }
        Py_DECREF(flags);
        Py_DECREF(operands);
    }
    out = int_ops_py(c, ops, w, inst);
done:
    Py_XDECREF(kind);
    Py_DECREF(ops);
    return out;
}

/* IntTransfer.int_range */
static PyObject *c_int(Ctx *c, PyObject *ty, PyObject *v) {
    long w = width(ty);
    if (w < 0) return NULL;
    if (w == 0) return Py_NewRef(r_not_int);
    if (w > RANGE_BITS) {
        PyObject *wv = PyLong_FromLong(w), *lv = PyLong_FromLong(RANGE_BITS);
        PyObject *why = wv == NULL || lv == NULL ? NULL : PyObject_CallFunctionObjArgs(r_too_wide, wv, lv, NULL);
        Py_XDECREF(wv);
        Py_XDECREF(lv);
        return why;
    }
    if (before_query(c) < 0) return NULL;
    if (PyObject_TypeCheck(v, LocalT)) {
        PyObject *name = PyObject_GetAttr(v, s_name);
        if (name == NULL) return NULL;
        PyObject *got = PyDict_GetItemWithError(c->ints, name), *out = NULL, *key = NULL;
        if (got != NULL) {
            Py_DECREF(name);
            return Py_NewRef(got);
        }
        if (PyErr_Occurred()) goto done;
        PyObject *inst = PyDict_GetItemWithError(c->by_name, name); /* borrowed: by_name keeps it */
        if (inst == NULL) {
            if (!PyErr_Occurred()) out = PyObject_CallMethodOneArg(c->self, s_arg_range, name);
            goto done;
        }
        Py_INCREF(inst);
        key = PyUnicode_Concat(w_i, name);
        if (key == NULL) goto done_inst;
        PyObject *assumed = PyDict_GetItemWithError(c->assume, key);
        if (assumed == NULL && PyErr_Occurred()) goto done_inst;
        if (assumed != NULL && assumed != Py_None) {
            PyObject *at = PyDict_GetItemWithError(c->inprog, key);
            if (at == NULL && PyErr_Occurred()) goto done_inst;
            if (at != NULL) {
                if (read_in_progress(c, at) == 0) out = Py_NewRef(assumed);
                goto done_inst;
            }
        }
        long saved;
        int e = enter(c, key, &saved, &out);
        if (e != 0) goto done_inst; /* an error, or out is the reason */
        PyObject *res = int_inst(c, inst, w);
        i128 lo, hi;
        KB k;
        if (res != NULL && w <= 64 && read_range(res, &lo, &hi, &k)) {
            /* a range with known bits came from with_known, which its own output leaves as it is */
            if (!k.zero && !k.one) Py_SETREF(res, with_known_of(lo, hi, NO_BITS, NO_BITS, (int)w));
        } else if (res != NULL && Py_TYPE(res) == RangeT && PyTuple_GET_SIZE(res) >= 4) {
            int z = PyObject_IsTrue(PyTuple_GET_ITEM(res, 2)), o = PyObject_IsTrue(PyTuple_GET_ITEM(res, 3));
            if (z < 0 || o < 0) {
                Py_CLEAR(res);
            } else if (!z && !o) {
                PyObject *wv = PyLong_FromLong(w);
                PyObject *nres = wv == NULL ? NULL : PyObject_CallFunctionObjArgs(f_with_known, res, NOTHING, wv, NULL);
                Py_XDECREF(wv);
                Py_SETREF(res, nres);
            }
        }
        out = leave_and_cache(c, key, saved, res, c->ints, name);
    done_inst:
        Py_DECREF(inst);
    done:
        Py_XDECREF(key);
        Py_DECREF(name);
        return out;
    }
    if (PyObject_TypeCheck(v, PlainT)) {
        PyObject *r = const_of(v, w);
        if (r == NULL || r != Py_None) return r;
        Py_DECREF(r);
        PyObject *text = PyObject_GetAttr(v, s_text);
        if (text == NULL) return NULL;
        PyObject *why = PyObject_CallOneArg(r_const_not_int, text);
        Py_DECREF(text);
        return why;
    }
    PyObject *wv = PyLong_FromLong(w);
    if (wv == NULL) return NULL;
    PyObject *r = PyObject_CallMethodObjArgs(c->self, s_int_other, v, wv, NULL);
    Py_DECREF(wv);
    return r;
}

static PyObject *off_inst_py(Ctx *c, PyObject *inst) {
    return PyObject_CallMethodOneArg(c->self, s_off_inst, inst);
}

/* FunctionRanges._cast_off, for a cast whose types it takes (else None: ask Python) */
static PyObject *cast_off(Ctx *c, PyObject *cast, PyObject *operands, PyObject *dest) {
    PyObject *sty, *sv;
    if (!pair(operands, 0, &sty, &sv)) return Py_NewRef(Py_None);
    int sty_ptr = kind_is(sty, k_ptr);
    if (sty_ptr < 0) return NULL;
    if (eq(cast, k_bitcast) && !sty_ptr) return Py_NewRef(Py_None);
    int dest_ptr = kind_is(dest, k_ptr), dest_int = kind_is(dest, k_int);
    if (dest_ptr < 0 || dest_int < 0) return NULL;
    if (!dest_ptr && !dest_int) return Py_NewRef(Py_None);
    PyObject *r = c_off(c, sty, sv);
    if (r == NULL || Py_TYPE(r) != OffT) return r;
    /* an integer holding a root's address must keep all of its pointer bits */
    PyObject *ends[2] = {dest, sty};
    PyObject *says[2] = {r_narrowing_cast, r_widened_cast};
    for (int i = 0; i < 2; i++) {
        int is_int = i == 0 ? dest_int : kind_is(sty, k_int);
        if (is_int < 0) goto fail;
        if (!is_int) continue;
        PyObject *bits = PyObject_GetAttr(ends[i], s_bits);
        if (bits == NULL) goto fail;
        long b = PyLong_AsLong(bits);
        if (b == -1 && PyErr_Occurred()) {
            Py_DECREF(bits);
            goto fail;
        }
        if (b < c->lds_bits) {
            Py_DECREF(r);
            PyObject *why = PyObject_CallFunctionObjArgs(says[i], cast, bits, NULL);
            Py_DECREF(bits);
            return why;
        }
        Py_DECREF(bits);
    }
    return r;
fail:
    Py_DECREF(r);
    return NULL;
}

/* is the provenance of v a root (FunctionAnalysis.value, read in place for a local name):
 * 1, 0, or -1 on error */
static int is_root(Ctx *c, PyObject *v) {
    PyObject *p;
    if (PyObject_TypeCheck(v, LocalT)) {
        PyObject *vals = PyObject_GetAttr(c->fa, s_vals), *name = PyObject_GetAttr(v, s_name);
        int r = -1;
        if (vals != NULL && name != NULL && PyDict_Check(vals)) {
            p = PyDict_GetItemWithError(vals, name); /* absent: UNKNOWN, not a root */
            r = p != NULL ? PyObject_TypeCheck(p, RootT) : (PyErr_Occurred() ? -1 : 0);
        } else if (vals != NULL && name != NULL) {
            PyErr_SetString(PyExc_TypeError, "ranges: the provenance values must be a dict");
        }
        Py_XDECREF(vals);
        Py_XDECREF(name);
        return r;
    }
    p = PyObject_CallMethodOneArg(c->fa, s_value, v);
    if (p == NULL) return -1;
    int r = PyObject_TypeCheck(p, RootT);
    Py_DECREF(p);
    return r;
}

/* FunctionRanges._add_off, for add, sub or a disjoint or in a wide enough integer (else
 * None: ask Python) */
static PyObject *add_off(Ctx *c, PyObject *flags, PyObject *operands) {
    PyObject *op = PyTuple_GET_ITEM(flags, 0);
    int is_sub = eq(op, k_sub);
    if (!eq(op, k_add) && !is_sub) {
        if (!eq(op, k_or)) return Py_NewRef(Py_None);
        int dis = 0;
        for (Py_ssize_t i = 1; i < PyTuple_GET_SIZE(flags); i++)
            if (eq(PyTuple_GET_ITEM(flags, i), k_disjoint)) dis = 1;
        if (!dis) return Py_NewRef(Py_None);
    }
    PyObject *ta, *va, *tb, *vb;
    if (!PyList_Check(operands) || PyList_GET_SIZE(operands) != 2 || !pair(operands, 0, &ta, &va) ||
        !pair(operands, 1, &tb, &vb))
        return Py_NewRef(Py_None);
    long wa = width(ta);
    if (wa < 0) return NULL;
    if (wa == 0 || wa < c->lds_bits || wa > RANGE_BITS) return Py_NewRef(Py_None);
    if (!is_sub) {
        int ra = is_root(c, va), rb = ra != 0 ? 0 : is_root(c, vb);
        if (ra < 0 || rb < 0) return NULL;
        if (rb) {
            PyObject *t;
            t = va, va = vb, vb = t;
            t = ta, ta = tb, tb = t;
        }
    }
    PyObject *base = c_off(c, ta, va);
    if (base == NULL || Py_TYPE(base) != OffT) return base;
    PyObject *r = c_int(c, tb, vb);
    if (r == NULL) {
        Py_DECREF(base);
        return NULL;
    }
    if (PyUnicode_Check(r)) {
        Py_DECREF(base);
        PyObject *why = wrap_why(r_offset_no_range, r, &wrapped_offset);
        Py_DECREF(r);
        return why;
    }
    PyObject *w = PyObject_GetAttr(ta, s_bits), *rw = w == NULL ? NULL : PyObject_GetAttr(tb, s_bits), *out = NULL;
    if (rw != NULL) out = PyObject_CallFunctionObjArgs(f_add_off_result, op, base, r, w, rw, NULL);
    Py_XDECREF(w);
    Py_XDECREF(rw);
    Py_DECREF(r);
    Py_DECREF(base);
    return out;
}

#define GEP_STEPS 8
#define SCALE_LIMIT ((i128)1 << 56)

/* DataLayout.alloc_size(ty, named, depth) for a type of at most 60 nested arrays: 1 with
 * *out (below SCALE_LIMIT), 0 when it has none or a larger one, -1 on error. An array is
 * its element's size times its count, as there; int, float and pointer types are looked
 * up in dl.scalar_sizes by kind and width (below depth 64 their size depends on nothing
 * else); the rest are asked of dl each time. */
static int alloc_size(Ctx *c, PyObject *dl, PyObject *ty, int depth, i128 *out) {
    PyObject *kind = PyObject_GetAttr(ty, s_kind);
    if (kind == NULL) return -1;
    long key = -1;
    int code = eq(kind, k_int) ? 0 : eq(kind, k_float) ? 1 : eq(kind, k_ptr) ? 2 : eq(kind, k_array) ? 3 : 4;
    Py_DECREF(kind);
    if (code == 3) {
        if (depth > 60) return 0;
        PyObject *elem = PyObject_GetAttr(ty, s_elem), *count = elem == NULL ? NULL : PyObject_GetAttr(ty, s_count);
        i128 e, n;
        int r = count == NULL ? -1 : elem == Py_None ? 0 : alloc_size(c, dl, elem, depth + 1, &e);
        if (r > 0 && (!to_i128(count, &n) || n < 0 || n >= SCALE_LIMIT || e * n >= SCALE_LIMIT)) r = 0;
        if (r > 0) *out = e * n;
        Py_XDECREF(elem);
        Py_XDECREF(count);
        return r;
    }
    if (code < 3) {
        long at;
        if (get_long_attr(ty, code == 2 ? s_addrspace : s_bits, &at) < 0) return -1;
        if (at >= 0 && at < (1L << 24)) key = at * 4 + code;
    }
    PyObject *cache = NULL, *kv = NULL, *got = NULL, *named = NULL;
    int r = -1;
    if ((cache = PyObject_GetAttr(dl, s_scalar_sizes)) == NULL) goto done;
    if (!PyDict_Check(cache)) {
        PyErr_SetString(PyExc_TypeError, "ranges: dl.scalar_sizes must be a dict");
        goto done;
    }
    if (key >= 0) {
        if ((kv = PyLong_FromLong(key)) == NULL) goto done;
        got = Py_XNewRef(PyDict_GetItemWithError(cache, kv));
        if (got == NULL && PyErr_Occurred()) goto done;
    }
    if (got == NULL) {
        if ((named = PyObject_GetAttr(c->mod, s_named_types)) == NULL) goto done;
        PyObject *dv = PyLong_FromLong(depth); /* Python's own depth: its limits apply as they would */
        if (dv == NULL) goto done;
        got = PyObject_CallMethodObjArgs(dl, s_alloc_size, ty, named, dv, NULL);
        Py_DECREF(dv);
        if (got == NULL) goto done;
        if (key >= 0 && PyDict_SetItem(cache, kv, got) < 0) goto done;
    }
    r = got != Py_None && to_i128(got, out) && *out < SCALE_LIMIT ? 1 : 0;
done:
    Py_XDECREF(cache);
    Py_XDECREF(kv);
    Py_XDECREF(got);
    Py_XDECREF(named);
    return r;
}

/* dl.pointer_bits(space) or dl.index_bits(space) (``method``): 1 with *out, 0 when the
 * answer is no int that fits a long, -1 on error */
static int layout_bits(PyObject *dl, PyObject *method, PyObject *space, long *out) {
    PyObject *v = PyObject_CallMethodOneArg(dl, method, space);
    if (v == NULL) return -1;
    int ok = PyLong_Check(v);
    *out = ok ? PyLong_AsLong(v) : 0;
    Py_DECREF(v);
    if (ok && *out == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();
        ok = 0;
    }
    return ok;
}

/* FunctionRanges._gep_from(base, source, operands) for up to GEP_STEPS integer indices of
 * at most 64 bits, each into the source type, an array or a vector of a known size: a new
 * reference, or NULL with an exception, or NULL with none set before any operand was asked
 * for (then the Python method answers the whole gep) */
static PyObject *gep_from(Ctx *c, PyObject *base, PyObject *source, PyObject *operands) {
    Py_ssize_t n = PyList_GET_SIZE(operands) - 1;
    if (n < 1 || n > GEP_STEPS) return NULL;
    PyObject *ity[GEP_STEPS], *iv[GEP_STEPS], *held[GEP_STEPS], *bty, *bv, *dl = NULL, *out = NULL;
    int bits[GEP_STEPS], nheld = 0;
    i128 scale[GEP_STEPS], lo, hi;
    long space, pw, iw;
    KB k;
    if (!pair(operands, 0, &bty, &bv)) return NULL;
    if (get_long_attr(bty, s_addrspace, &space) < 0 || (dl = dget(c, s_dl)) == NULL) return NULL;
    PyObject *sv = PyLong_FromLong(space >= 0 ? space : 0);
    if (sv == NULL) goto done;
    int widths = layout_bits(dl, s_pointer_bits, sv, &pw);
    if (widths > 0) widths = layout_bits(dl, s_index_bits, sv, &iw);
    Py_DECREF(sv);
    /* a narrower index width wraps the offset there: Python says so */
    if (widths <= 0 || iw < pw || iw < 1 || iw > 64 || !read_off(base, (int)iw, &k, &lo, &hi)) goto done;
    PyObject *cur = source;
    for (Py_ssize_t i = 0; i < n; i++) {
        long b;
        /* (width() < 0: an error, which goes up from done) */
        if (!pair(operands, i + 1, &ity[i], &iv[i]) || (b = width(ity[i])) <= 0 || b > 64) goto done;
        bits[i] = (int)b;
        if (i > 0) {
            int agg = kind_is(cur, k_array);
            if (agg == 0) agg = kind_is(cur, k_vector);
            if (agg <= 0) goto done;
            PyObject *elem = PyObject_GetAttr(cur, s_elem);
            if (elem == NULL) goto done;
            held[nheld++] = elem;
            if (elem == Py_None) goto done;
            cur = elem;
        }
        int r = alloc_size(c, dl, cur, 0, &scale[i]);
        if (r <= 0) goto done;
    }
    /* every step is one this takes: from here on it answers */
    int w = (int)iw;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *r = c_int(c, ity[i], iv[i]);
        if (r == NULL) goto done;
        i128 rlo, rhi;
        KB rk;
        if (!read_range(r, &rlo, &rhi, &rk)) {
            /* a reason; or a Range of at most 64 bits whose ends or masks do not fit, which
             * the domain never makes: no range either way */
            out = PyUnicode_Check(r) ? wrap_why(r_gep_no_range, r, &wrapped_gep) : Py_NewRef(r_gep_unread);
            Py_DECREF(r);
            goto done;
        }
        Py_DECREF(r);
        int b = bits[i];
        if (b > w) {
            /* truncated to the index width, then read as signed */
            i128 half = (i128)1 << (w - 1);
            if (!(-half <= rlo && rhi < half)) {
                out = Py_NewRef(r_gep_wrap);
                goto done;
            }
        } else {
            srange(1, &rlo, &rhi, &rk, b); /* sign-extended to the index width */
            i128 half = (i128)1 << (b - 1);
            int full = (rlo <= 0 && rhi >= ((i128)1 << b) - 1) || (rlo <= -half && rhi >= half - 1);
            if (b > 8 && full) {
                out = Py_NewRef(r_gep_negative);
                goto done;
            }
        }
        i128 x = rlo * scale[i], y = rhi * scale[i];
        lo += x < y ? x : y;
        hi += x < y ? y : x;
        /* the index, sign extended (or truncated) to the index width, times the scale */
        KB ki = range_known(rlo, rhi, rk.zero, rk.one, b);
        if (b < w) ki = kb_ext(ki, b, w, 1);
        ki.zero &= mask_of(w), ki.one &= mask_of(w);
        k = kb_add_sub(k, kb_mul(ki, kb_const((u64)scale[i], w), w), w, 0);
    }
    KB got = off_add_known(&lo, &hi, off_bits_of(lo, hi, 0, 0, 0, w), k, w);
    PyObject *items[6] = {Py_NewRef(PyTuple_GET_ITEM(base, 0)), from_i128(lo), from_i128(hi),
                          PyLong_FromUnsignedLongLong(got.zero), PyLong_FromUnsignedLongLong(got.one),
                          PyLong_FromLong(w)};
    out = make((PyObject *)OffT, 6, items);
done:
    for (int i = 0; i < nheld; i++) Py_DECREF(held[i]);
    Py_XDECREF(dl);
    return out;
}

/* FunctionRanges._gep: the base, then the indices here or in Python (else None: ask Python) */
static PyObject *gep(Ctx *c, PyObject *source, PyObject *operands) {
    PyObject *bty, *bv;
    if (!pair(operands, 0, &bty, &bv)) return Py_NewRef(Py_None);
    int is_ptr = kind_is(bty, k_ptr);
    if (is_ptr <= 0) return is_ptr < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *base = c_off(c, bty, bv);
    if (base == NULL || Py_TYPE(base) != OffT) return base;
    PyObject *out = gep_from(c, base, source, operands);
    if (out == NULL && !PyErr_Occurred())
        out = PyObject_CallMethodObjArgs(c->self, s_gep_from, base, source, operands, NULL);
    Py_DECREF(base);
    return out;
}

/* FunctionRanges._off_inst */
static PyObject *off_inst(Ctx *c, PyObject *inst) {
    if (c->vscale) return off_inst_py(c, inst);
    PyObject *ops = ops_of(c, inst);
    if (ops == NULL) return NULL;
    PyObject *kind = PyObject_GetAttr(ops, s_kind), *flags = NULL, *operands = NULL, *other = NULL, *out = NULL;
    if (kind == NULL) goto done;
    int is_gep = eq(kind, k_gep), is_cast = !is_gep && eq(kind, k_cast), is_binop = !is_gep && !is_cast && eq(kind, k_binop);
    if (!is_gep && !is_cast && !is_binop) goto python;
    if ((flags = PyObject_GetAttr(ops, s_flags)) == NULL || (operands = PyObject_GetAttr(ops, s_operands)) == NULL)
        goto done;
    if (is_gep) {
        if ((other = PyObject_GetAttr(ops, s_source_type)) == NULL) goto done;
        if (other == Py_None) goto python;
        out = gep(c, other, operands);
    } else {
        if (!PyTuple_Check(flags) || PyTuple_GET_SIZE(flags) < 1) goto python;
        if (is_cast) {
            if ((other = PyObject_GetAttr(ops, s_result_type)) == NULL) goto done;
            out = cast_off(c, PyTuple_GET_ITEM(flags, 0), operands, other);
        } else {
            out = add_off(c, flags, operands);
        }
    }
    if (out != Py_None) goto done;
    Py_CLEAR(out);
python:
    out = off_inst_py(c, inst);
done:
    Py_XDECREF(kind);
    Py_XDECREF(flags);
    Py_XDECREF(operands);
    Py_XDECREF(other);
    Py_DECREF(ops);
    return out;
}

/* FunctionRanges.offset */
static PyObject *c_off(Ctx *c, PyObject *ty, PyObject *v) {
    if (before_query(c) < 0) return NULL;
    if (!PyObject_TypeCheck(v, LocalT)) return PyObject_CallMethodOneArg(c->self, s_off_other, v);
    PyObject *name = PyObject_GetAttr(v, s_name);
    if (name == NULL) return NULL;
    PyObject *got = PyDict_GetItemWithError(c->offs, name), *out = NULL, *key = NULL;
    if (got != NULL) {
        Py_DECREF(name);
        return Py_NewRef(got);
    }
    if (PyErr_Occurred()) goto done;
    PyObject *inst = PyDict_GetItemWithError(c->by_name, name);
    if (inst == NULL) {
        if (!PyErr_Occurred()) out = PyObject_CallOneArg(r_argument, name);
        goto done;
    }
    Py_INCREF(inst);
    key = PyUnicode_Concat(w_o, name);
    if (key == NULL) goto done_inst;
    long saved;
    int e = enter(c, key, &saved, &out);
    if (e != 0) goto done_inst;
    out = leave_and_cache(c, key, saved, off_inst(c, inst), c->offs, name);
done_inst:
    Py_DECREF(inst);
done:
    Py_XDECREF(key);
    Py_DECREF(name);
    return out;
}

static PyObject *query(PyObject *const *args, Py_ssize_t nargs, int offset) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "takes (self, type, value)");
        return NULL;
    }
    if (LocalT == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_solver.init() was not called");
        return NULL;
    }
    Ctx c;
    if (ctx_init(&c, args[0]) < 0) return NULL;
    PyObject *r = offset ? c_off(&c, args[1], args[2]) : c_int(&c, args[1], args[2]);
    ctx_clear(&c);
    return r;
}

static PyObject *py_offset(PyObject *m, PyObject *const *args, Py_ssize_t nargs) { return query(args, nargs, 1); }
static PyObject *py_int_range(PyObject *m, PyObject *const *args, Py_ssize_t nargs) { return query(args, nargs, 0); }

static int take_type(PyObject *ns, const char *name, PyTypeObject **out) {
    PyObject *t = PyDict_GetItemString(ns, name);
    if (t == NULL || !PyType_Check(t)) {
        PyErr_Format(PyExc_TypeError, "init(): %s must be a class", name);
        return -1;
    }
    Py_XSETREF(*out, (PyTypeObject *)Py_NewRef(t));
    return 0;
}

static int take(PyObject *ns, const char *name, PyObject **out) {
    PyObject *t = PyDict_GetItemString(ns, name);
    if (t == NULL) {
        PyErr_Format(PyExc_KeyError, "init(): %s missing", name);
        return -1;
    }
    Py_XSETREF(*out, Py_NewRef(t));
    return 0;
}

/* The reason registered as ``name`` (a llnoalias.reasons.Reason), bound as the Python queries
 * bind it: a reason with no fields as its message (reason.text, a reasons.Said, returned as it
 * is, so its code travels), one with fields as the reason itself (called with them in order). */
static int take_reason(PyObject *ns, const char *name, PyObject **out) {
    PyObject *r = PyDict_GetItemString(ns, name);
    if (r == NULL) {
        PyErr_Format(PyExc_KeyError, "init(): %s missing", name);
        return -1;
    }
    PyObject *fields = PyObject_GetAttr(r, s_fields);
    if (fields == NULL) return -1;
    Py_ssize_t n = PyObject_Length(fields);
    Py_DECREF(fields);
    if (n < 0) return -1;
    PyObject *bound = n ? Py_NewRef(r) : PyObject_GetAttr(r, s_text);
    if (bound == NULL) return -1;
    Py_XSETREF(*out, bound);
    return 0;
}

/* init(namespace): the classes and Python functions the queries use, by name */
static PyObject *init(PyObject *m, PyObject *ns) {
    if (!PyDict_Check(ns)) {
        PyErr_SetString(PyExc_TypeError, "init() takes a dict");
        return NULL;
    }
    PyObject *budget = NULL, *depth = NULL;
    if (take_type(ns, "LocalRef", &LocalT) < 0 || take_type(ns, "PlainConst", &PlainT) < 0 ||
        take_type(ns, "Range", &RangeT) < 0 || take_type(ns, "Off", &OffT) < 0 || take_type(ns, "Root", &RootT) < 0 ||
        take(ns, "const_range", &f_const_range) < 0 || take(ns, "binop_result", &f_binop_result) < 0 ||
        take(ns, "cast_result", &f_cast_result) < 0 || take(ns, "add_off_result", &f_add_off_result) < 0 ||
        take(ns, "with_known", &f_with_known) < 0 || take(ns, "parse", &f_parse) < 0 ||
        take(ns, "NOTHING", &NOTHING) < 0 || take(ns, "known", &f_known) < 0 || take(ns, "add_sub", &f_add_sub) < 0 ||
        take(ns, "mul", &f_mul) < 0 || take(ns, "shl", &f_shl) < 0 || take(ns, "at_line", &f_at_line) < 0 || take(ns, "BUDGET", &budget) < 0 || take(ns, "MAX_DEPTH", &depth) < 0 ||
        take(ns, "ITSELF", &w_itself) < 0 || take_reason(ns, "DEPENDS_ON_ITSELF", &r_itself) < 0 ||
        take_reason(ns, "TOO_DEEP", &r_deep) < 0 || take_reason(ns, "BUDGET_EXHAUSTED", &r_budget) < 0 ||
        take_reason(ns, "NOT_AN_INTEGER", &r_not_int) < 0 || take_reason(ns, "GEP_INDEX_UNREAD", &r_gep_unread) < 0 ||
        take_reason(ns, "GEP_INDEX_MAY_WRAP", &r_gep_wrap) < 0 || take_reason(ns, "GEP_INDEX_NEGATIVE", &r_gep_negative) < 0 ||
        take_reason(ns, "MAY_WRAP", &r_may_wrap) < 0 || take_reason(ns, "TOO_WIDE", &r_too_wide) < 0 ||
        take_reason(ns, "CONSTANT_NOT_INTEGER", &r_const_not_int) < 0 || take_reason(ns, "OFFSET_NO_RANGE", &r_offset_no_range) < 0 ||
        take_reason(ns, "GEP_INDEX_NO_RANGE", &r_gep_no_range) < 0 || take_reason(ns, "RANGE_ARGUMENT", &r_argument) < 0 ||
        take_reason(ns, "SHIFT_NON_CONSTANT", &r_shift_non_const) < 0 || take_reason(ns, "TRUNC_DROPS_BITS", &r_trunc_drops) < 0 ||
        take_reason(ns, "NARROWING_CAST", &r_narrowing_cast) < 0 || take_reason(ns, "WIDENED_CAST", &r_widened_cast) < 0) {
        Py_XDECREF(budget);
        return NULL;
    }
    BUDGET = PyLong_AsLong(budget);
    MAX_DEPTH = PyLong_AsLong(depth);
    Py_DECREF(budget);
    Py_DECREF(depth);
    if (PyErr_Occurred()) return NULL;
    /* messages made from the reasons handed before */
    Wrapped *lasts[] = {&wrapped_offset, &wrapped_gep};
    for (int i = 0; i < 2; i++) {
        Py_CLEAR(lasts[i]->why);
        Py_CLEAR(lasts[i]->said);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"offset", (PyCFunction)(void (*)(void))py_offset, METH_FASTCALL,
     "offset(fr, ty, v): FunctionRanges.offset"},
    {"int_range", (PyCFunction)(void (*)(void))py_int_range, METH_FASTCALL,
     "int_range(fr, ty, v): IntTransfer.int_range"},
    {"init", init, METH_O, "init(namespace): the classes and functions the queries use"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_solver",
                                    "The range analysis's queries, compiled.", -1, methods};

#define INTERN(var, text)                                   \
    if ((var = PyUnicode_InternFromString(text)) == NULL) \
        return NULL;

PyMODINIT_FUNC PyInit__solver(void) {
    INTERN(s_ints, "ints") INTERN(s_offs, "offs") INTERN(s_fn, "fn") INTERN(s_by_name, "by_name")
    INTERN(s_assume, "_assume") INTERN(s_inprog, "_inprog") INTERN(s_depth, "_depth") INTERN(s_budget, "_budget")
    INTERN(s_low, "_low") INTERN(s_phis_solved, "_phis_solved") INTERN(s_before_query, "_before_query")
    INTERN(s_arg_range, "_arg_range") INTERN(s_int_other, "_int_other") INTERN(s_off_other, "_off_other")
    INTERN(s_int_ops, "_int_ops") INTERN(s_off_inst, "_off_inst") INTERN(s_gep_from, "_gep_from")
    INTERN(s_fa, "fa") INTERN(s_value, "value") INTERN(s_vscale, "vscale") INTERN(s_lds_bits, "lds_bits")
    INTERN(s_mod, "mod") INTERN(s_ops, "ops") INTERN(s_kind, "kind") INTERN(s_flags, "flags")
    INTERN(s_operands, "operands") INTERN(s_source_type, "source_type") INTERN(s_result_type, "result_type")
    INTERN(s_name, "name") INTERN(s_text, "text") INTERN(s_fields, "fields") INTERN(s_bits, "bits") INTERN(w_i, "i") INTERN(w_o, "o") INTERN(s_vals, "vals")
    INTERN(k_int, "int") INTERN(k_ptr, "ptr") INTERN(k_binop, "binop") INTERN(k_cast, "cast") INTERN(k_gep, "gep")
    INTERN(k_zext, "zext") INTERN(k_sext, "sext") INTERN(k_trunc, "trunc") INTERN(k_bitcast, "bitcast")
    INTERN(k_add, "add") INTERN(k_sub, "sub") INTERN(k_mul, "mul") INTERN(k_shl, "shl") INTERN(k_and, "and") INTERN(k_or, "or")
    INTERN(k_xor, "xor") INTERN(k_lshr, "lshr") INTERN(k_ashr, "ashr")
    INTERN(k_float, "float") INTERN(k_array, "array") INTERN(k_vector, "vector") INTERN(s_dl, "dl")
    INTERN(s_pointer_bits, "pointer_bits") INTERN(s_index_bits, "index_bits") INTERN(s_addrspace, "addrspace") INTERN(s_elem, "elem") INTERN(s_count, "count")
    INTERN(s_alloc_size, "alloc_size") INTERN(s_named_types, "named_types") INTERN(s_scalar_sizes, "scalar_sizes") INTERN(k_umin, "umin") INTERN(k_disjoint, "disjoint")
    if (int128_init() < 0 || (kw_sub = Py_BuildValue("(s)", "sub")) == NULL) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    /* the two queries as methods: bound to the instance they are read from */
    const char *names[2][2] = {{"offset", "offset_method"}, {"int_range", "int_range_method"}};
    for (int i = 0; i < 2; i++) {
        PyObject *f = PyObject_GetAttrString(m, names[i][0]);
        PyObject *meth = f == NULL ? NULL : PyInstanceMethod_New(f);
        Py_XDECREF(f);
        if (meth == NULL || PyModule_AddObject(m, names[i][1], meth) < 0) {
            Py_XDECREF(meth);
            Py_DECREF(m);
            return NULL;
        }
    }
    return m;
}
