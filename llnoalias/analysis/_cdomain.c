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

typedef unsigned long long u64;
typedef __int128 i128;

static PyObject *RangeT, *OffT, *KnownT, *Nothing;
static PyObject *py_known, *py_with_known, *py_off_known, *py_off_with_known;
static PyObject *Two64;

/* v as a 128-bit integer when it is an int in [-2**63, 2**64); 0 when not (no error set) */
static int to_i128(PyObject *v, i128 *out) {
    if (!PyLong_Check(v))
        return 0;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow == 0) {
        if (x == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        *out = (i128)x;
        return 1;
    }
    if (overflow < 0)
        return 0;
    u64 u = PyLong_AsUnsignedLongLong(v);
    if (u == (u64)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    *out = (i128)u;
    return 1;
}

/* the low 64 bits of an int (``v & (2**64 - 1)``, negative ints too); 0 when not an int */
static int to_bits(PyObject *v, u64 *out) {
    if (!PyLong_Check(v))
        return 0;
    u64 u = PyLong_AsUnsignedLongLongMask(v);
    if (u == (u64)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    *out = u;
    return 1;
}

static PyObject *from_i128(i128 v) {
    if (v >= -((i128)1 << 63) && v < ((i128)1 << 63))
        return PyLong_FromLongLong((long long)v);
    if (v >= 0 && v < ((i128)1 << 64))
        return PyLong_FromUnsignedLongLong((u64)v);
    if (v < 0 && v >= -((i128)1 << 64)) {
        PyObject *u = PyLong_FromUnsignedLongLong((u64)(v + ((i128)1 << 64)));
        if (u == NULL)
            return NULL;
        PyObject *r = PyNumber_Subtract(u, Two64);
        Py_DECREF(u);
        return r;
    }
    PyErr_SetString(PyExc_OverflowError, "_cdomain: value out of range");
    return NULL;
}

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

static int read_width(PyObject *v, int *w) {
    if (!PyLong_Check(v))
        return 0;
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (x < 1 || x > 64)
        return 0;
    *w = (int)x;
    return 1;
}

static int ready(void) {
    if (RangeT == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_cdomain.init() was not called");
        return 0;
    }
    return 1;
}

/* interval.known(r, w) */
static PyObject *c_known(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !ready())
        return nargs != 2 ? fallback(py_known, args, nargs) : NULL;
    PyObject *r = args[0];
    if (!PyObject_TypeCheck(r, (PyTypeObject *)RangeT) || PyTuple_GET_SIZE(r) != 4) {
        /* not a range (a reason): nothing known; a width <= 0 too, which Python checks */
        if (!PyObject_TypeCheck(r, (PyTypeObject *)RangeT))
            return Py_NewRef(Nothing);
        return fallback(py_known, args, nargs);
    }
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
    if (nargs != 3 || !ready())
        return nargs != 3 ? fallback(py_with_known, args, nargs) : NULL;
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
    if (nargs != 2 || !ready())
        return nargs != 2 ? fallback(py_off_known, args, nargs) : NULL;
    int w;
    u64 z, n;
    i128 lo, hi;
    if (!read_width(args[1], &w) || !off_bits(args[0], w, &z, &n, &lo, &hi))
        return fallback(py_off_known, args, nargs);
    return make_known(z, n);
}

/* interval.off_with_known(o, k, w) */
static PyObject *c_off_with_known(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !ready())
        return nargs != 3 ? fallback(py_off_with_known, args, nargs) : NULL;
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
    Two64 = PyNumber_Lshift(PyLong_FromLong(1), PyLong_FromLong(64));
    if (Two64 == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
