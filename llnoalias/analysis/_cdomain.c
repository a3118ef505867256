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

#include "_kbits.h"

static PyObject *RangeT, *OffT, *KnownT, *Nothing;
static PyObject *py_known, *py_with_known, *py_off_known, *py_off_with_known;

static PyObject *make_known(u64 zero, u64 one) {
    PyObject *items[2] = {PyLong_FromUnsignedLongLong(zero), PyLong_FromUnsignedLongLong(one)};
    return make(KnownT, 2, items);
}

static PyObject *fallback(PyObject *fn, PyObject *const *args, Py_ssize_t nargs) {
    return PyObject_Vectorcall(fn, args, (size_t)nargs, NULL);
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
    KB k = range_known(lo, hi, z, o, w);
    return make_known(k.zero, k.one);
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
    u64 rz, ro;
    KB kk, got;
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 4 || !PyTuple_Check(k) || PyTuple_GET_SIZE(k) != 2
        || !read_width(args[2], &w) || !to_i128(PyTuple_GET_ITEM(r, 0), &lo) || !to_i128(PyTuple_GET_ITEM(r, 1), &hi)
        || !to_bits(PyTuple_GET_ITEM(r, 2), &rz) || !to_bits(PyTuple_GET_ITEM(r, 3), &ro)
        || !to_bits(PyTuple_GET_ITEM(k, 0), &kk.zero) || !to_bits(PyTuple_GET_ITEM(k, 1), &kk.one))
        return fallback(py_with_known, args, nargs);
    if (!range_with_known(&lo, &hi, rz, ro, kk, w, &got))
        return Py_NewRef(r);
    PyObject *items[4] = {from_i128(lo), from_i128(hi), PyLong_FromUnsignedLongLong(got.zero),
                          PyLong_FromUnsignedLongLong(got.one)};
    return make(RangeT, 4, items);
}

/* interval.off_known(o, w) */
static PyObject *c_off_known(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(RangeT))
        return NULL;
    if (nargs != 2)
        return fallback(py_off_known, args, nargs);
    int w;
    KB k;
    i128 lo, hi;
    if (!read_width(args[1], &w) || !read_off(args[0], w, &k, &lo, &hi))
        return fallback(py_off_known, args, nargs);
    return make_known(k.zero, k.one);
}

/* interval.off_with_known(o, k, w) */
static PyObject *c_off_with_known(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(RangeT))
        return NULL;
    if (nargs != 3)
        return fallback(py_off_with_known, args, nargs);
    PyObject *off = args[0], *k = args[1];
    int w;
    KB kk, ob;
    i128 lo, hi;
    if (!PyTuple_Check(k) || PyTuple_GET_SIZE(k) != 2 || !read_width(args[2], &w)
        || !to_bits(PyTuple_GET_ITEM(k, 0), &kk.zero) || !to_bits(PyTuple_GET_ITEM(k, 1), &kk.one)
        || !read_off(off, w, &ob, &lo, &hi))
        return fallback(py_off_with_known, args, nargs);
    KB got = off_add_known(&lo, &hi, ob, kk, w);
    PyObject *items[6] = {Py_NewRef(PyTuple_GET_ITEM(off, 0)), from_i128(lo), from_i128(hi),
                          PyLong_FromUnsignedLongLong(got.zero), PyLong_FromUnsignedLongLong(got.one),
                          PyLong_FromLong(w)};
    return make(OffT, 6, items);
}


/* ------------------------------------------------------------------ knownbits.py */
static PyObject *py_const, *py_trunc, *py_zext, *py_sext, *py_shl, *py_lshr, *py_add_sub, *py_mul;

/* a Known's two masks: exactly (``exact``) or their low 64 bits */
static int read_known(PyObject *k, int exact, KB *out) {
    if (!PyObject_TypeCheck(k, (PyTypeObject *)KnownT) || PyTuple_GET_SIZE(k) != 2)
        return 0;
    return read_u64(PyTuple_GET_ITEM(k, 0), exact, &out->zero) && read_u64(PyTuple_GET_ITEM(k, 1), exact, &out->one);
}

static PyObject *known_of(KB k) { return make_known(k.zero, k.one); }

/* knownbits.const(c, w) */
static PyObject *c_const(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    int w;
    u64 c;
    if (nargs != 2 || !to_bits(args[0], &c) || !read_width(args[1], &w))
        return fallback(py_const, args, nargs);
    return known_of(kb_const(c, w));
}

/* knownbits.trunc(a, w) */
static PyObject *c_trunc(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    int w;
    KB a;
    if (nargs != 2 || !read_known(args[0], 0, &a) || !read_width(args[1], &w))
        return fallback(py_trunc, args, nargs);
    u64 m = mask_of(w);
    return make_known(a.zero & m, a.one & m);
}

/* knownbits.zext(a, sw, w) / sext(a, sw, w) */
static PyObject *ext(PyObject *const *args, Py_ssize_t nargs, int sign_ext) {
    int sw, w;
    KB a;
    if (nargs != 3 || !read_known(args[0], 0, &a) || !read_width(args[1], &sw) || !read_width(args[2], &w))
        return fallback(sign_ext ? py_sext : py_zext, args, nargs);
    return known_of(kb_ext(a, sw, w, sign_ext));
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
    KB a;
    if (nargs != 3 || !read_known(args[0], 0, &a) || !read_small(args[1], 0, 63, &c) || !read_width(args[2], &w))
        return fallback(py_shl, args, nargs);
    return known_of(kb_shl(a, c, w));
}

/* knownbits.lshr(a, c, w): its result keeps the bits of ``a`` above ``w``, so ``a`` is
 * read exactly */
static PyObject *c_lshr(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    int c, w;
    KB a;
    if (nargs != 3 || !read_known(args[0], 1, &a) || !read_small(args[1], 0, 63, &c) || !read_width(args[2], &w))
        return fallback(py_lshr, args, nargs);
    return known_of(kb_lshr(a, c, w));
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
    KB a, b;
    if (!read_known(args[0], 0, &a) || !read_known(args[1], 0, &b) || !read_width(args[2], &w))
        return PyObject_Vectorcall(py_add_sub, args, (size_t)nargs, kwnames);
    if (subo != NULL) {
        sub = PyObject_IsTrue(subo);
        if (sub < 0)
            return NULL;
    }
    return known_of(kb_add_sub(a, b, w, sub));
}

/* knownbits.mul(a, b, w): is_const compares the masks whole, so they are read exactly */
static PyObject *c_mul(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!ready(KnownT))
        return NULL;
    int w;
    KB a, b;
    if (nargs != 3 || !read_known(args[0], 1, &a) || !read_known(args[1], 1, &b) || !read_width(args[2], &w))
        return fallback(py_mul, args, nargs);
    return known_of(kb_mul(a, b, w));
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
