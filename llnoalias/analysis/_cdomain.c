/* The range analysis's hot domain functions in C: interval.known, with_known, off_known
 * and off_with_known for values of at most 64 bits (SPEC section 2b).
 *
 * Each function computes exactly what its Python original in interval.py computes, on
 * machine integers: masks in 64 bits, interval ends in 128. Whatever does not fit (a
 * width above 64, an end that is not a 64-bit integer, anything unexpected) is handed to
 * the Python original, so the answer is always the Python one (tests/test_cdomain.py
 * compares the two on random ranges, offsets and facts). init() gives this module the
 * namedtuple types and the Python originals. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_int128.h"

static PyObject *RangeT, *OffT, *KnownT, *Nothing;
static PyObject *py_known, *py_with_known, *py_off_known, *py_off_with_known;

/* an int as 64 bits: exactly (``exact``: an int in [0, 2**64)) or its low 64 bits
 * (``v & (2**64 - 1)``, negative ints too); 0 when it cannot be read so */
static int read_u64(PyObject *v, int exact, u64 *out) {
    if (!PyLong_Check(v))
        return 0;
    u64 u = exact ? PyLong_AsUnsignedLongLong(v) : PyLong_AsUnsignedLongLongMask(v);
    if (u == (u64)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    *out = u;
    return 1;
}

static int to_bits(PyObject *v, u64 *out) { return read_u64(v, 0, out); }

static u64 mask_of(int w) { return w >= 64 ? ~0ULL : ((1ULL << w) - 1); }

/* a namedtuple of the given type from n new references (stolen, NULLs allowed: then NULL) */
static PyObject *make(PyObject *type, Py_ssize_t n, PyObject **items) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL) {
        for (Py_ssize_t i = 0; i < n; i++)
            Py_XDECREF(items[i]);
        return NULL;
    }
    int bad = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (items[i] == NULL)
            bad = 1;
        PyTuple_SET_ITEM(t, i, items[i]);  /* a NULL slot is freed safely by tuple dealloc */
    }
    if (bad) {
        Py_DECREF(t);
        return NULL;
    }
    PyObject *args = PyTuple_Pack(1, t);
    Py_DECREF(t);
    if (args == NULL)
        return NULL;
    /* tuple.__new__(type, items): the namedtuple without its Python-level __new__ */
    PyObject *r = PyTuple_Type.tp_new((PyTypeObject *)type, args, NULL);
    Py_DECREF(args);
    return r;
}

static PyObject *make_known(u64 zero, u64 one) {
    PyObject *items[2] = {PyLong_FromUnsignedLongLong(zero), PyLong_FromUnsignedLongLong(one)};
    return make(KnownT, 2, items);
}

/* knownbits.of_interval(lo, hi, w) for w <= 64 */
static void interval_bits(i128 lo, i128 hi, int w, u64 m, u64 *z, u64 *o) {
    *z = 0;
    *o = 0;
    if (lo > hi)
        return;
    if (lo < 0) {
        if (hi >= 0)
            return;
        lo += (i128)1 << w;
        hi += (i128)1 << w;
        if (lo < 0)
            return;
    }
    if (hi >> w)
        return;
    u64 x = (u64)lo ^ (u64)hi;
    int bl = x ? 64 - __builtin_clzll(x) : 0;
    u64 top = ~mask_of(bl) & m;
    *z = ~(u64)lo & top;
    *o = (u64)lo & top;
}

/* knownbits.min_ge / max_le (0 <= end < 2**w); 0 when no value agrees */
static int min_ge(u64 lo, u64 zero, u64 one, u64 m, u64 *out) {
    u64 conflict = ((lo & zero) | (~lo & one)) & m;
    if (!conflict) {
        *out = lo;
        return 1;
    }
    int hb = 63 - __builtin_clzll(conflict);
    u64 cands = ~lo & ~zero & m & ~((1ULL << hb) - 1);
    if (!cands)
        return 0;
    u64 low = cands & (~cands + 1);
    *out = (lo & ~((low << 1) - 1)) | low | (one & (low - 1));
    return 1;
}

static int max_le(u64 hi, u64 zero, u64 one, u64 m, u64 *out) {
    u64 conflict = ((hi & zero) | (~hi & one)) & m;
    if (!conflict) {
        *out = hi;
        return 1;
    }
    int hb = 63 - __builtin_clzll(conflict);
    u64 cands = hi & ~one & m & ~((1ULL << hb) - 1);
    if (!cands)
        return 0;
    u64 low = cands & (~cands + 1);
    *out = (hi & ~((low << 1) - 1)) | (~zero & (low - 1));
    return 1;
}

/* knownbits.tighten: 1 with the new ends, 0 for None */
static int tighten(i128 lo, i128 hi, u64 zero, u64 one, int w, i128 *nlo, i128 *nhi) {
    i128 shift = 0;
    *nlo = lo;
    *nhi = hi;
    if (lo < 0) {
        if (hi >= 0)
            return 1;
        shift = (i128)1 << w;
    }
    i128 ulo = lo + shift, uhi = hi + shift;
    if (ulo < 0 || (uhi >> w))
        return 1;
    u64 m = mask_of(w), a, b;
    if (!min_ge((u64)ulo, zero, one, m, &a) || !max_le((u64)uhi, zero, one, m, &b) || a > b)
        return 0;
    *nlo = (i128)a - shift;
    *nhi = (i128)b - shift;
    return 1;
}

static PyObject *fallback(PyObject *fn, PyObject *const *args, Py_ssize_t nargs) {
    return PyObject_Vectorcall(fn, args, (size_t)nargs, NULL);
}

/* an int in [lo, hi] as an int; 0 when it is not one */
static int read_small(PyObject *v, long lo, long hi, int *out) {
    if (!PyLong_Check(v))
        return 0;
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (x < lo || x > hi)
        return 0;
    *out = (int)x;
    return 1;
}

/* a width the machine-integer code takes: 1 to 64 bits */
static int read_width(PyObject *v, int *w) { return read_small(v, 1, 64, w); }

/* init() (interval's types) or init_known() (knownbits') has given the module ``type`` */
static int ready(PyObject *type) {
    if (type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_cdomain.init() was not called");
        return 0;
    }
    return 1;
}

/* interval.known(r, w) */
static PyObject *c_known(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(RangeT))
        return NULL;
    if (nargs != 2)
        return fallback(py_known, args, nargs);
    PyObject *r = args[0];
    if (!PyObject_TypeCheck(r, (PyTypeObject *)RangeT))
        return Py_NewRef(Nothing);  /* not a range (a reason): nothing known */
    if (PyTuple_GET_SIZE(r) != 4)
        return fallback(py_known, args, nargs);
    int w;
    i128 lo, hi;
    u64 z, o;
    if (!read_width(args[1], &w) || !to_i128(PyTuple_GET_ITEM(r, 0), &lo) || !to_i128(PyTuple_GET_ITEM(r, 1), &hi)
        || !to_bits(PyTuple_GET_ITEM(r, 2), &z) || !to_bits(PyTuple_GET_ITEM(r, 3), &o))
        return fallback(py_known, args, nargs);
    u64 m = mask_of(w), iz, io;
    z &= m;
    o &= m;
    interval_bits(lo, hi, w, m, &iz, &io);
    if ((z | iz) & (o | io))
        return make_known(z, o);
    return make_known(z | iz, o | io);
}

/* interval.with_known(r, k, w) */
static PyObject *c_with_known(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(RangeT))
        return NULL;
    if (nargs != 3)
        return fallback(py_with_known, args, nargs);
    PyObject *r = args[0], *k = args[1];
    int w;
    i128 lo, hi;
    u64 z, o, rz, ro;
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 4 || !PyTuple_Check(k) || PyTuple_GET_SIZE(k) != 2
        || !read_width(args[2], &w) || !to_i128(PyTuple_GET_ITEM(r, 0), &lo) || !to_i128(PyTuple_GET_ITEM(r, 1), &hi)
        || !to_bits(PyTuple_GET_ITEM(r, 2), &rz) || !to_bits(PyTuple_GET_ITEM(r, 3), &ro)
        || !to_bits(PyTuple_GET_ITEM(k, 0), &z) || !to_bits(PyTuple_GET_ITEM(k, 1), &o))
        return fallback(py_with_known, args, nargs);
    u64 m = mask_of(w), iz, io;
    z &= m;
    o &= m;
    rz &= m;
    ro &= m;
    if (!((z | rz) & (o | ro))) {
        z |= rz;
        o |= ro;
    }
    interval_bits(lo, hi, w, m, &iz, &io);
    if (!((z | iz) & (o | io))) {
        z |= iz;
        o |= io;
    }
    if ((z | o) & ~(iz | io)) {
        i128 nlo, nhi;
        if (!tighten(lo, hi, z, o, w, &nlo, &nhi))
            return Py_NewRef(r);
        lo = nlo;
        hi = nhi;
        interval_bits(lo, hi, w, m, &iz, &io);
        if (!((z | iz) & (o | io))) {
            z |= iz;
            o |= io;
        }
    }
    PyObject *items[4] = {from_i128(lo), from_i128(hi), PyLong_FromUnsignedLongLong(z),
                          PyLong_FromUnsignedLongLong(o)};
    return make(RangeT, 4, items);
}

/* interval._off_bits(o, w): 1 when computed here, 0 to hand the call to Python */
static int off_bits(PyObject *off, int w, u64 *z, u64 *n, i128 *lo, i128 *hi) {
    if (!PyTuple_Check(off) || PyTuple_GET_SIZE(off) != 6)
        return 0;
    PyObject *kwo = PyTuple_GET_ITEM(off, 5);
    if (!PyLong_Check(kwo))
        return 0;
    long kw = PyLong_AsLong(kwo);
    if (kw == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (kw < 0)
        return 0;
    int kmw = kw < w ? (int)kw : w;
    if (!to_bits(PyTuple_GET_ITEM(off, 3), z) || !to_bits(PyTuple_GET_ITEM(off, 4), n)
        || !to_i128(PyTuple_GET_ITEM(off, 1), lo) || !to_i128(PyTuple_GET_ITEM(off, 2), hi))
        return 0;
    u64 km = mask_of(kmw);
    if (kmw == 0)
        km = 0;
    *z &= km;
    *n &= km;
    if (*lo >= 0 && !(*hi >> w)) {
        u64 iz, io;
        interval_bits(*lo, *hi, w, mask_of(w), &iz, &io);
        if (!((*z | iz) & (*n | io))) {
            *z |= iz;
            *n |= io;
        }
    }
    return 1;
}

/* interval.off_known(o, w) */
static PyObject *c_off_known(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(RangeT))
        return NULL;
    if (nargs != 2)
        return fallback(py_off_known, args, nargs);
    int w;
    u64 z, n;
    i128 lo, hi;
    if (!read_width(args[1], &w) || !off_bits(args[0], w, &z, &n, &lo, &hi))
        return fallback(py_off_known, args, nargs);
    return make_known(z, n);
}

/* interval.off_with_known(o, k, w) */
static PyObject *c_off_with_known(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(RangeT))
        return NULL;
    if (nargs != 3)
        return fallback(py_off_with_known, args, nargs);
    PyObject *off = args[0], *k = args[1];
    int w;
    u64 z, n, oz, on;
    i128 lo, hi;
    if (!PyTuple_Check(k) || PyTuple_GET_SIZE(k) != 2 || !read_width(args[2], &w)
        || !to_bits(PyTuple_GET_ITEM(k, 0), &z) || !to_bits(PyTuple_GET_ITEM(k, 1), &n)
        || !off_bits(off, w, &oz, &on, &lo, &hi))
        return fallback(py_off_with_known, args, nargs);
    u64 m = mask_of(w);
    z &= m;
    n &= m;
    if (!((z | oz) & (n | on))) {
        z |= oz;
        n |= on;
    }
    if (lo >= 0 && hi <= (i128)m) {
        i128 nlo, nhi;
        if (tighten(lo, hi, z, n, w, &nlo, &nhi)) {
            lo = nlo;
            hi = nhi;
        }
    }
    PyObject *items[6] = {Py_NewRef(PyTuple_GET_ITEM(off, 0)), from_i128(lo), from_i128(hi),
                          PyLong_FromUnsignedLongLong(z), PyLong_FromUnsignedLongLong(n), PyLong_FromLong(w)};
    return make(OffT, 6, items);
}


/* ------------------------------------------------------------------ knownbits.py */
static PyObject *py_const, *py_trunc, *py_zext, *py_sext, *py_shl, *py_lshr, *py_add_sub, *py_mul;

/* a Known's two masks: exactly (``exact``) or their low 64 bits */
static int read_known(PyObject *k, int exact, u64 *zero, u64 *one) {
    if (!PyObject_TypeCheck(k, (PyTypeObject *)KnownT) || PyTuple_GET_SIZE(k) != 2)
        return 0;
    return read_u64(PyTuple_GET_ITEM(k, 0), exact, zero) && read_u64(PyTuple_GET_ITEM(k, 1), exact, one);
}

static int ctz_or(u64 x, int w) { return x ? __builtin_ctzll(x) : w; }

/* knownbits.const(c, w) */
static PyObject *c_const(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    int w;
    u64 c;
    if (nargs != 2 || !to_bits(args[0], &c) || !read_width(args[1], &w))
        return fallback(py_const, args, nargs);
    u64 m = mask_of(w), u = c & m;
    return make_known(~u & m, u);
}

/* knownbits.trunc(a, w) */
static PyObject *c_trunc(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    int w;
    u64 z, o;
    if (nargs != 2 || !read_known(args[0], 0, &z, &o) || !read_width(args[1], &w))
        return fallback(py_trunc, args, nargs);
    u64 m = mask_of(w);
    return make_known(z & m, o & m);
}

/* knownbits.zext(a, sw, w) / sext(a, sw, w) */
static PyObject *ext(PyObject *const *args, Py_ssize_t nargs, int sign_ext) {
    int sw, w;
    u64 z, o;
    if (nargs != 3 || !read_known(args[0], 0, &z, &o) || !read_width(args[1], &sw) || !read_width(args[2], &w))
        return fallback(sign_ext ? py_sext : py_zext, args, nargs);
    u64 smask = mask_of(sw), high = mask_of(w) & ~smask;
    z &= smask;
    o &= smask;
    if (!sign_ext)
        return make_known(z | high, o);
    u64 sign = 1ULL << (sw - 1);
    if (z & sign)
        z |= high;
    else if (o & sign)
        o |= high;
    return make_known(z, o);
}

static PyObject *c_zext(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    return ext(args, nargs, 0);
}

static PyObject *c_sext(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    return ext(args, nargs, 1);
}

/* knownbits.shl(a, c, w) */
static PyObject *c_shl(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    int c, w;
    u64 z, o;
    if (nargs != 3 || !read_known(args[0], 0, &z, &o) || !read_small(args[1], 0, 63, &c) || !read_width(args[2], &w))
        return fallback(py_shl, args, nargs);
    u64 m = mask_of(w);
    return make_known(((z << c) | mask_of(c)) & m, (o << c) & m);
}

/* knownbits.lshr(a, c, w): its result keeps the bits of ``a`` above ``w``, so ``a`` is
 * read exactly */
static PyObject *c_lshr(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    int c, w;
    u64 z, o;
    if (nargs != 3 || !read_known(args[0], 1, &z, &o) || !read_small(args[1], 0, 63, &c) || !read_width(args[2], &w))
        return fallback(py_lshr, args, nargs);
    u64 m = mask_of(w);
    return make_known((z >> c) | (~(m >> c) & m), o >> c);
}

/* knownbits.add_sub(a, b, w, sub=False): LLVM's computeForAddSub */
static PyObject *c_add_sub(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (!ready(KnownT))
        return NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *subo = NULL;
    if (nargs == 4 && nkw == 0)
        subo = args[3];
    else if (nargs == 3 && nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "sub") == 0)
        subo = args[3];
    else if (!(nargs == 3 && nkw == 0))
        return PyObject_Vectorcall(py_add_sub, args, (size_t)nargs, kwnames);
    int w, sub = 0;
    u64 az, ao, bz, bo;
    if (!read_known(args[0], 0, &az, &ao) || !read_known(args[1], 0, &bz, &bo) || !read_width(args[2], &w))
        return PyObject_Vectorcall(py_add_sub, args, (size_t)nargs, kwnames);
    if (subo != NULL) {
        sub = PyObject_IsTrue(subo);
        if (sub < 0)
            return NULL;
    }
    u64 m = mask_of(w), carry_zero = 1, carry_one = 0;
    if (sub) {
        u64 t = bz;
        bz = bo;
        bo = t;
        carry_zero = 0;
        carry_one = 1;
    }
    u64 possible_sum_zero = ((~az & m) + (~bz & m) + (1 - carry_zero)) & m;
    u64 possible_sum_one = (ao + bo + carry_one) & m;
    u64 carry_known_zero = ~(possible_sum_zero ^ az ^ bz) & m;
    u64 carry_known_one = (possible_sum_one ^ ao ^ bo) & m;
    u64 known = (az | ao) & (bz | bo) & (carry_known_zero | carry_known_one);
    return make_known(~possible_sum_zero & known & m, possible_sum_one & known & m);
}

/* knownbits.mul(a, b, w): is_const compares the masks whole, so they are read exactly */
static PyObject *c_mul(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    int w;
    u64 az, ao, bz, bo;
    if (nargs != 3 || !read_known(args[0], 1, &az, &ao) || !read_known(args[1], 1, &bz, &bo) || !read_width(args[2], &w))
        return fallback(py_mul, args, nargs);
    u64 m = mask_of(w);
    if ((az | ao) == m && (bz | bo) == m) {
        u64 u = (ao * bo) & m;
        return make_known(~u & m, u);
    }
    int tz = ctz_or(~az & m, w) + ctz_or(~bz & m, w);
    if (tz > w)
        tz = w;
    u64 zero = mask_of(tz), one = 0;
    int ka = ctz_or(~(az | ao) & m, w), kb = ctz_or(~(bz | bo) & m, w);
    int k = ka < kb ? ka : kb;
    if (k) {
        u64 low = (ao * bo) & mask_of(k);
        zero |= ~low & mask_of(k);
        one = low;
    }
    return make_known(zero & m, one & m);
}

static PyObject *c_init_known(PyObject *self, PyObject *args) {
    PyObject *known_t, *f[8];
    if (!PyArg_ParseTuple(args, "OOOOOOOOO:init_known", &known_t, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6],
                          &f[7]))
        return NULL;
    if (!PyType_Check(known_t) || !PyType_IsSubtype((PyTypeObject *)known_t, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "init_known: Known must be a tuple type");
        return NULL;
    }
    Py_XSETREF(KnownT, Py_NewRef(known_t));
    PyObject **slots[8] = {&py_const, &py_trunc, &py_zext, &py_sext, &py_shl, &py_lshr, &py_add_sub, &py_mul};
    for (int i = 0; i < 8; i++)
        Py_XSETREF(*slots[i], Py_NewRef(f[i]));
    Py_RETURN_NONE;
}

static PyObject *c_init(PyObject *self, PyObject *args) {
    PyObject *range_t, *off_t, *known_t, *nothing, *f1, *f2, *f3, *f4;
    if (!PyArg_ParseTuple(args, "OOOOOOOO:init", &range_t, &off_t, &known_t, &nothing, &f1, &f2, &f3, &f4))
        return NULL;
    if (!PyType_Check(range_t) || !PyType_Check(off_t) || !PyType_Check(known_t)
        || !PyType_IsSubtype((PyTypeObject *)range_t, &PyTuple_Type)
        || !PyType_IsSubtype((PyTypeObject *)off_t, &PyTuple_Type)
        || !PyType_IsSubtype((PyTypeObject *)known_t, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "init: Range, Off and Known must be tuple types");
        return NULL;
    }
    Py_XSETREF(RangeT, Py_NewRef(range_t));
    Py_XSETREF(OffT, Py_NewRef(off_t));
    Py_XSETREF(KnownT, Py_NewRef(known_t));
    Py_XSETREF(Nothing, Py_NewRef(nothing));
    Py_XSETREF(py_known, Py_NewRef(f1));
    Py_XSETREF(py_with_known, Py_NewRef(f2));
    Py_XSETREF(py_off_known, Py_NewRef(f3));
    Py_XSETREF(py_off_with_known, Py_NewRef(f4));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"init", c_init, METH_VARARGS, "init(Range, Off, Known, NOTHING, known, with_known, off_known, off_with_known)"},
    {"init_known", c_init_known, METH_VARARGS,
     "init_known(Known, const, trunc, zext, sext, shl, lshr, add_sub, mul): the Python originals"},
    {"const", (PyCFunction)(void (*)(void))c_const, METH_FASTCALL, "knownbits.const"},
    {"trunc", (PyCFunction)(void (*)(void))c_trunc, METH_FASTCALL, "knownbits.trunc"},
    {"zext", (PyCFunction)(void (*)(void))c_zext, METH_FASTCALL, "knownbits.zext"},
    {"sext", (PyCFunction)(void (*)(void))c_sext, METH_FASTCALL, "knownbits.sext"},
    {"shl", (PyCFunction)(void (*)(void))c_shl, METH_FASTCALL, "knownbits.shl"},
    {"lshr", (PyCFunction)(void (*)(void))c_lshr, METH_FASTCALL, "knownbits.lshr"},
    {"add_sub", (PyCFunction)(void (*)(void))c_add_sub, METH_FASTCALL | METH_KEYWORDS, "knownbits.add_sub"},
    {"mul", (PyCFunction)(void (*)(void))c_mul, METH_FASTCALL, "knownbits.mul"},
    {"known", (PyCFunction)(void (*)(void))c_known, METH_FASTCALL, "interval.known"},
    {"with_known", (PyCFunction)(void (*)(void))c_with_known, METH_FASTCALL, "interval.with_known"},
    {"off_known", (PyCFunction)(void (*)(void))c_off_known, METH_FASTCALL, "interval.off_known"},
    {"off_with_known", (PyCFunction)(void (*)(void))c_off_with_known, METH_FASTCALL, "interval.off_with_known"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cdomain", NULL, -1, methods};

PyMODINIT_FUNC PyInit__cdomain(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (int128_init() < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
